//! The reference set-ups, and the batched kernel sources whose images ship
//! compiled in the crate (`kernels/baked/`, read by `cuda::baked`).
//!
//! A reference set-up is a bundled data set (`data/synthetic/*`, and the TU
//! sets `data/MUTAG`, …) with the kernels `bench_gpu` gives it
//! ([`reference_specs`]): on the synthetic sets κv = κe = `constant(1)`, or
//! for the labeled ones (names ending in `L`, weights from `attr0`) κv =
//! `delta(label, 0.5)` and κe = `delta(label, 0.5) * sqexp(attr1, 0.1)`; on
//! the TU sets κv = `delta(label, 0.5)` and κe = `delta(label, 0.5)` where
//! edges have labels, else `constant(1)`. [`reference_sources`] lists the
//! batched value kernels of every set-up in both precisions and every
//! vector placement, with the default configuration: what a first call
//! compiles, and so what `bake_kernels` compiles ahead of time for compute
//! capability [`BAKED_ARCH`].

use super::codegen::{mgk_source_placed, KernelSource, VectorPlacement};
use crate::basekernel::spec::SpecKernel;
use crate::cuda::{GpuLabel, Precision};
use crate::graph::io;
use crate::graph::{Dataset, Graph, Record};
use crate::mgk::MgkConfig;
use std::path::{Path, PathBuf};

/// The compute capability the shipped images are compiled for (H100, H200).
pub const BAKED_ARCH: (i32, i32) = (9, 0);

/// Whether `set` names a synthetic reference set (`NWS…`, `BA…`).
fn synthetic(set: &str) -> bool {
    set.starts_with("NWS") || set.starts_with("BA")
}

/// The folder of reference set `set` under the data folder `data`:
/// `data/synthetic/SET` for the synthetic sets, else `data/SET`.
pub fn reference_dir(data: &Path, set: &str) -> PathBuf {
    if synthetic(set) {
        data.join("synthetic").join(set)
    } else {
        data.join(set)
    }
}

/// Reads reference set `set` from the data folder `data` as the set-up
/// uses it: a labeled synthetic set (name ending in `L`) takes its edge
/// weights from the field `attr0`.
///
/// # Errors
/// The reader's errors (file, line, what was expected); a labeled set
/// without `attr0`.
pub fn reference_dataset(data: &Path, set: &str) -> crate::Result<Dataset> {
    let ds = io::load(reference_dir(data, set))?;
    if synthetic(set) && set.ends_with('L') {
        ds.with_weights_from("attr0")
    } else {
        Ok(ds)
    }
}

/// The node and edge kernel specifications of reference set `set` (see
/// the module's documentation).
pub fn reference_specs(set: &str, ds: &Dataset) -> (&'static str, &'static str) {
    if synthetic(set) {
        if set.ends_with('L') {
            ("delta(label, 0.5)", "delta(label, 0.5) * sqexp(attr1, 0.1)")
        } else {
            ("constant(1)", "constant(1)")
        }
    } else {
        ("delta(label, 0.5)", if ds.edge_schema.index("label").is_some() { "delta(label, 0.5)" } else { "constant(1)" })
    }
}

/// The reference sets found in the data folder `data`: every folder of
/// `data/synthetic`, and every other folder of `data` holding a TU set
/// (`NAME/NAME_A.txt`), sorted.
///
/// # Errors
/// When `data` cannot be listed.
pub fn reference_sets(data: &Path) -> std::io::Result<Vec<String>> {
    let mut sets = Vec::new();
    let synth = data.join("synthetic");
    if synth.is_dir() {
        for e in std::fs::read_dir(&synth)? {
            let name = e?.file_name().to_string_lossy().into_owned();
            if synthetic(&name) && synth.join(&name).is_dir() {
                sets.push(name);
            }
        }
    }
    for e in std::fs::read_dir(data)? {
        let name = e?.file_name().to_string_lossy().into_owned();
        if !synthetic(&name) && data.join(&name).join(format!("{name}_A.txt")).is_file() {
            sets.push(name);
        }
    }
    sets.sort();
    Ok(sets)
}

/// The batched value-kernel sources of every reference set-up found in
/// `data` ([`reference_sets`]), both precisions and every
/// [`VectorPlacement`], with [`MgkConfig`]'s default XMV scheme, without
/// duplicates: the sources whose images `bake_kernels` ships.
///
/// # Errors
/// Reading a set, parsing its kernels, or a label layout the GPU cannot
/// hold.
pub fn reference_sources(data: &Path) -> crate::Result<Vec<KernelSource>> {
    let config = MgkConfig::default();
    let xmv = config.xmv;
    let mut out: Vec<KernelSource> = Vec::new();
    let sets =
        reference_sets(data).map_err(|source| crate::graph::io::IoError::Os { path: data.to_path_buf(), source })?;
    for set in sets {
        let ds = reference_dataset(data, &set)?;
        let (node_spec, edge_spec) = reference_specs(&set, &ds);
        let kv = SpecKernel::parse_for(node_spec, &ds.node_schema)?;
        let ke = SpecKernel::parse_for(edge_spec, &ds.edge_schema)?;
        let first = |f: fn(&Graph<Record, Record>) -> bool| ds.graphs.iter().find(|g| f(g));
        let nodes = first(|g| g.num_nodes() > 0).map(|g| g.node_labels()).unwrap_or(&[]);
        let edges = first(|g| g.num_entries() > 0).map(|g| g.edge_labels()).unwrap_or(&[]);
        for p in [Precision::F32, Precision::F64] {
            let (nl, el) = (Record::layout(nodes, p)?, Record::layout(edges, p)?);
            for placement in [VectorPlacement::Shared, VectorPlacement::Any, VectorPlacement::Global] {
                let src = mgk_source_placed(&kv, &ke, &nl, &el, p, xmv, placement, &config.gpu.tuning)?;
                if !out.iter().any(|s| s.name == src.name && s.source == src.source) {
                    out.push(src);
                }
            }
        }
    }
    Ok(out)
}
