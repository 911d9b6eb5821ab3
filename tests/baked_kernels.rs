//! The kernel images shipped in the crate (`kernels/baked/`) are exactly
//! those of the reference set-ups' current sources, and a first call finds
//! them without NVRTC. Needs no GPU and no NVRTC.
#![cfg(feature = "cuda")]

use kronograph::cuda::baked;
use kronograph::cuda::jit::{baked_key, ready};
use kronograph::cuda::Origin;
use kronograph::mgk::bake::{reference_sets, reference_sources, BAKED_ARCH};
use std::collections::BTreeSet;
use std::path::Path;

fn data() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data"))
}

#[test]
fn shipped_images_are_the_reference_sources() {
    let sets = reference_sets(data()).unwrap();
    for s in ["NWS96", "NWS96L", "BA96L", "NWS1000L", "BA500L", "MUTAG"] {
        assert!(sets.iter().any(|x| x == s), "reference set {s} not found in data/ ({sets:?})");
    }
    let sources = reference_sources(data()).unwrap();
    let want: BTreeSet<String> =
        sources.iter().map(|s| baked::file_name(&baked_key(&s.source, &s.name, BAKED_ARCH))).collect();
    let have: BTreeSet<String> = baked::shipped().into_iter().map(|(f, _, _)| f.to_string()).collect();
    let missing: Vec<_> = want.difference(&have).collect();
    let stale: Vec<_> = have.difference(&want).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "kernels/baked/ is out of date ({} reference sources without an image, {} images of no reference \
         source): the generated kernel code changed. Run `cargo run --release --features bench --bin \
         bake_kernels` (needs NVRTC) and commit kernels/baked/ and src/cuda/baked_index.rs.",
        missing.len(),
        stale.len()
    );
}

#[test]
fn a_reference_source_is_ready_on_compute_capability_9_without_a_compile() {
    let sources = reference_sources(data()).unwrap();
    assert!(!sources.is_empty());
    for s in &sources {
        let c = ready(&s.source, &s.name, BAKED_ARCH).unwrap_or_else(|| panic!("{} is not ready on sm_90", s.name));
        // an image in this process's memory or a disk cache was produced from the same key
        assert!(matches!(c.origin, Origin::Baked | Origin::Memory | Origin::Disk), "{:?}", c.origin);
        assert!(c.image.starts_with(b"\x7fELF"), "{} is not a CUBIN", s.name);
    }
    // another architecture has no shipped image
    let s = &sources[0];
    assert!(ready(&s.source, &s.name, (8, 0)).is_none_or(|c| c.origin != Origin::Baked));
}
