//! Kernel images compiled ahead of time and shipped in the crate, so that
//! the first call of a common kernel shape needs no NVRTC.
//!
//! The images are full-tier CUBINs for compute capability 9.0 (H100, H200)
//! of the batched marginalized-graph-kernel sources of the reference
//! set-ups (`mgk::gpu::bake`, feature `testing`): every bundled data set
//! with the kernels `bench_gpu` gives it, both precisions, every vector
//! placement. They live in `kernels/baked/`, one zlib-compressed file per image
//! (the key, then the image), listed by the generated
//! `baked_index.rs`. `cargo run --release --features bench --bin
//! bake_kernels` writes both; the test suite fails when a reference source
//! has no image (the generated code changed and the images were not made
//! again) or an image is no longer a reference source.
//!
//! A lookup is keyed like the disk cache, without NVRTC's version (an image
//! does not depend on the compiler that will not run): the kernel's name,
//! the architecture, the full tier's options and the source. Another
//! architecture, another kernel or another source finds nothing here and
//! compiles as before.

use super::hash_hex;

#[path = "baked_index.rs"]
mod index;

/// The marker at the start of a (decompressed) file.
const MAGIC: &[u8; 16] = b"kronograph-bake1";

/// The file name (without the folder) of the image with this key
/// (`jit::baked_key`).
pub fn file_name(key: &str) -> String {
    format!("{}.cubin.z", hash_hex(&[key.as_bytes()]))
}

/// The shipped image with this key (`jit::baked_key`), if there is one.
pub(super) fn lookup(key: &str) -> Option<Vec<u8>> {
    let file = file_name(key);
    let (_, data) = index::IMAGES.iter().find(|(f, _)| *f == file)?;
    image_of(data, key)
}

/// The image in a file of `kernels/baked/`, when it holds `key`.
fn image_of(file: &[u8], key: &str) -> Option<Vec<u8>> {
    let (stored, image) = unpack(file)?;
    (stored == key.as_bytes()).then_some(image)
}

/// The key and the image of a file of `kernels/baked/` (zlib-compressed:
/// a marker, the key's length and the key, then the image).
fn unpack(file: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    use std::io::Read;
    let mut data = Vec::new();
    flate2::read::ZlibDecoder::new(file).read_to_end(&mut data).ok()?;
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let (len, rest) = rest.split_at_checked(8)?;
    let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
    let (stored, image) = rest.split_at_checked(len)?;
    (!image.is_empty()).then(|| (stored.to_vec(), image.to_vec()))
}

/// A file of `kernels/baked/` holding `image` under `key`.
pub fn file_bytes(key: &str, image: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(MAGIC.len() + 8 + key.len() + image.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(key.len() as u64).to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(image);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    // writing to a Vec cannot fail
    let _ = z.write_all(&out);
    z.finish().unwrap_or(out)
}

/// The shipped images: file name, key and image size of each (for the
/// test that compares them with the reference sources).
pub fn shipped() -> Vec<(&'static str, String, usize)> {
    index::IMAGES
        .iter()
        .filter_map(|(f, file)| {
            let (key, image) = unpack(file)?;
            Some((*f, String::from_utf8_lossy(&key).into_owned(), image.len()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_gives_its_image_under_its_key_only() {
        let k = "name=k\narch=sm_90\noptions=-x\n\nextern \"C\" __global__ void k() {}";
        let f = file_bytes(k, b"\x7fELF image");
        assert_eq!(image_of(&f, k).as_deref(), Some(&b"\x7fELF image"[..]));
        assert_eq!(image_of(&f, "name=k\narch=sm_90\noptions=-x\n\nother"), None);
        assert_eq!(image_of(b"garbage", k), None);
        assert_ne!(file_name(k), file_name(&k.replace("sm_90", "sm_80")));
    }

    #[test]
    fn every_shipped_file_is_well_formed_and_named_by_its_key() {
        for (file, key, size) in shipped() {
            assert_eq!(file, file_name(&key), "kernels/baked/{file} holds another key");
            assert!(size > 0);
        }
        assert_eq!(shipped().len(), index::IMAGES.len(), "a file of kernels/baked/ is malformed");
    }
}
