//! Run-time compilation with NVRTC, and the compiled-kernel caches.
//!
//! A source is compiled to a CUBIN for the device's architecture
//! (`--gpu-architecture=sm_XY`, read from the device), so the driver loads it
//! without a second JIT step. Compiled images are cached
//! - in memory, per process, by key (source, options, architecture, NVRTC
//!   version), and loaded kernels per device context (see `device.rs`);
//! - on disk, under [`cache_dir`]`/jit/v1/<first 2 hex>/<hash>.cubin`. A
//!   file holds the full key and the image; a file whose key differs (a hash
//!   collision) or that cannot be read is ignored and rewritten. Files are
//!   published by writing a temporary file in the same folder and renaming
//!   it, so concurrent processes never read half a file.

use super::hash_hex;
use super::panic_message;
use super::CudaError;
pub use super::Origin;
use super::FAST_MATH_MARKER;
use cudarc::nvrtc::{result, sys};
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

const MAGIC: &[u8; 16] = b"kronograph-jit-1";

/// Whether libnvrtc can be loaded.
pub fn nvrtc_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library with libloading.
    *PRESENT.get_or_init(|| catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false))
}

fn require_nvrtc() -> Result<(), CudaError> {
    if nvrtc_available() {
        Ok(())
    } else {
        Err(CudaError::LibraryNotFound { library: "libnvrtc", detail: "not found by the loader".into() })
    }
}

fn nvrtc_call<T>(context: &str, f: impl FnOnce() -> Result<T, result::NvrtcError>) -> Result<T, CudaError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(CudaError::Nvrtc { context: context.into(), message: format!("{e:?}") }),
        Err(p) => Err(CudaError::LibraryNotFound { library: "libnvrtc", detail: panic_message(&p) }),
    }
}

/// The NVRTC version (major, minor).
///
/// # Errors
/// [`CudaError::LibraryNotFound`] without libnvrtc.
pub fn nvrtc_version() -> Result<(i32, i32), CudaError> {
    require_nvrtc()?;
    nvrtc_call("reading the NVRTC version", || {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result()?;
        Ok((major, minor))
    })
}

/// How much NVRTC optimizes an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tier {
    /// Full optimization: the image every call uses once it is ready.
    Full,
    /// `--Ofast-compile=min` (NVRTC 12.8 and later): on the batched
    /// kernel's source on an H100, about 40 % less compile time for about
    /// 13 % less speed. Used only while the full image is still compiling,
    /// so that a first call on a machine with cold caches does not wait for
    /// the full compile (see [`compile_tiered`]).
    Fast,
}

/// The compile options for compute capability `arch` at the full tier: a
/// CUBIN for `sm_XY`, C++17 and line info for profilers.
pub fn options(arch: (i32, i32)) -> Vec<String> {
    options_for(arch, Tier::Full)
}

/// The compile options for `arch` at `tier` ([`Tier::Fast`] adds
/// `--Ofast-compile=min`).
pub fn options_for(arch: (i32, i32), tier: Tier) -> Vec<String> {
    let mut o = vec![format!("--gpu-architecture=sm_{}{}", arch.0, arch.1), "--std=c++17".into(), "-lineinfo".into()];
    if tier == Tier::Fast {
        o.push("--Ofast-compile=min".into());
    }
    o
}

/// The compile options of `source` for `arch` at `tier`: [`options_for`],
/// plus `--use_fast_math` when the source holds [`FAST_MATH_MARKER`].
pub fn options_for_source(source: &str, arch: (i32, i32), tier: Tier) -> Vec<String> {
    let mut o = options_for(arch, tier);
    if source.contains(FAST_MATH_MARKER) {
        o.push("--use_fast_math".into());
    }
    o
}

/// The line the fast tier ([`Tier::Fast`]) puts before a source: a
/// template may read it to leave out code that only makes the image faster
/// (unrolled copies, several placements), so that the image it runs while
/// the full one compiles takes less time to build. Same kernel names and
/// arguments at both tiers.
pub const FAST_TIER_DEFINE: &str = "#define KRONOGRAPH_FAST_TIER 1\n";

/// The source NVRTC compiles for `tier`: `source`, after
/// [`FAST_TIER_DEFINE`] at the fast tier.
pub fn tier_source(source: &str, tier: Tier) -> std::borrow::Cow<'_, str> {
    match tier {
        Tier::Full => std::borrow::Cow::Borrowed(source),
        Tier::Fast => std::borrow::Cow::Owned(format!("{FAST_TIER_DEFINE}{source}")),
    }
}

/// Whether [`compile_tiered`] uses a fast tier: NVRTC 12.8 or later, and
/// `KRONOGRAPH_NVRTC_FAST_COMPILE` is not `0`.
pub fn fast_tier_available() -> bool {
    let on = std::env::var("KRONOGRAPH_NVRTC_FAST_COMPILE").map_or(true, |v| v != "0");
    on && nvrtc_version().is_ok_and(|v| v >= (12, 8))
}

/// The disk cache folder: `$KRONOGRAPH_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/kronograph`, else `$HOME/.cache/kronograph`. `None`
/// when none is set (or `KRONOGRAPH_CACHE_DIR` is empty: caching off).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("KRONOGRAPH_CACHE_DIR") {
        return if d.is_empty() { None } else { Some(PathBuf::from(d)) };
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("kronograph"));
    }
    std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cache").join("kronograph"))
}

/// A compiled image and where it came from.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The CUBIN.
    pub image: Arc<Vec<u8>>,
    /// Where it came from, for this call: [`Origin::Prefetched`] when a
    /// `prefetch` got it (or is getting it) in the background.
    pub origin: Origin,
}

/// How an image in the memory cache was first produced.
#[derive(Clone, Debug)]
struct Entry {
    image: Arc<Vec<u8>>,
    /// [`Origin::Compiled`] or [`Origin::Disk`] (read by `production`,
    /// feature `testing`).
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    produced: Origin,
    /// Seconds the compile (or disk read) took.
    #[cfg_attr(not(feature = "testing"), allow(dead_code))]
    seconds: f64,
    /// Produced by a prefetch and not yet handed to a foreground call.
    ahead: bool,
}

fn memory_cache() -> &'static RwLock<HashMap<String, Entry>> {
    static CACHE: OnceLock<RwLock<HashMap<String, Entry>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// One lock per key, so that a source is compiled once even when a
/// prefetch and a foreground call ask for it at the same time.
fn key_lock(key: &str) -> Arc<Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<String, Arc<Mutex<()>>>>> = OnceLock::new();
    let mut m = LOCKS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    m.entry(key.to_string()).or_default().clone()
}

/// How the `tier` image of kernel `name` (any architecture) was produced
/// in this process: [`Origin::Compiled`] or [`Origin::Disk`], and the
/// seconds that took (wherever it ran, a background compile included).
/// `None` when it is not in the memory cache. For the tests and benchmark
/// binaries (feature `testing`).
#[cfg(feature = "testing")]
pub fn production(name: &str, tier: Tier) -> Option<(Origin, f64)> {
    let prefix = format!("name={name}\n");
    let fast = "--Ofast-compile=min";
    let cache = memory_cache().read().unwrap_or_else(|e| e.into_inner());
    cache
        .iter()
        .find(|(k, _)| {
            let header = k.split("\n\n").next().unwrap_or("");
            k.starts_with(&prefix) && header.contains(fast) == (tier == Tier::Fast)
        })
        .map(|(_, e)| (e.produced, e.seconds))
}

/// Starts getting `source` (kernel `name`) ready for `arch` on background
/// threads, through the caches: the full image, and (when it is neither in
/// memory nor on disk and [`fast_tier_available`]) the fast-tier image at
/// the same time, so that a later [`compile_tiered`] or [`compile_cached`]
/// finds them ready or waits only for the rest. Errors are not reported
/// here: the later call compiles again and reports them.
///
/// Call [`wait_background`] before the process exits (dropping the
/// `GpuGram` that started the prefetch does it): a process that exits, e.g.
/// by `std::process::exit`, while a thread is inside NVRTC crashes in
/// NVRTC's teardown (SIGSEGV; seen on Linux with NVRTC 13.0, and not
/// preventable by an `atexit` hook, because NVRTC registers its own teardown
/// during the compile).
pub(crate) fn prefetch(source: String, name: String, arch: (i32, i32)) {
    if !nvrtc_available() {
        return;
    }
    let source = Arc::new(source);
    let (s, n) = (source.clone(), name.clone());
    background(move || {
        if ready_for(&s, &n, arch, true).is_some() {
            return;
        }
        if fast_tier_available() {
            let (s, n) = (s.clone(), n.clone());
            background(move || {
                let _ = get(&s, &n, arch, Tier::Fast, true);
            });
        }
        let _ = get(&s, &n, arch, Tier::Full, true);
    });
}

/// Runs `f` on a new thread, remembered so that [`wait_background`] can join it.
fn background(f: impl FnOnce() + Send + 'static) {
    let h = std::thread::spawn(f);
    background_threads().lock().unwrap_or_else(|e| e.into_inner()).push(h);
}

fn background_threads() -> &'static Mutex<Vec<std::thread::JoinHandle<()>>> {
    static THREADS: OnceLock<Mutex<Vec<std::thread::JoinHandle<()>>>> = OnceLock::new();
    THREADS.get_or_init(Default::default)
}

/// Waits until every background compile started so far (by `prefetch`,
/// [`compile_tiered`] or `warm_up`) has finished, e.g. before timing
/// steady-state calls. Dropping a `GpuGram` calls it: a process must not
/// exit while a thread is inside NVRTC (its teardown would crash the
/// process), and a finished full image reaches the disk cache.
pub fn wait_background() {
    loop {
        let hs: Vec<_> = std::mem::take(&mut *background_threads().lock().unwrap_or_else(|e| e.into_inner()));
        if hs.is_empty() {
            return;
        }
        for h in hs {
            let _ = h.join();
        }
    }
}

/// The full-tier image of `source` if it is ready now: in memory, or on
/// disk (then also put in memory). Never compiles and never waits.
pub fn ready(source: &str, name: &str, arch: (i32, i32)) -> Option<Compiled> {
    ready_for(source, name, arch, false)
}

/// [`ready`], for a background thread (`ahead`: the image is marked as got
/// ahead of the foreground call, which then reports [`Origin::Prefetched`]).
fn ready_for(source: &str, name: &str, arch: (i32, i32), ahead: bool) -> Option<Compiled> {
    let key = cache_key(source, name, arch, Tier::Full);
    if let Some(c) = lookup(&key, ahead) {
        return Some(c);
    }
    let t = std::time::Instant::now();
    let (image, produced) = stored(&key, source, name, arch, Tier::Full)?;
    let image = Arc::new(image);
    let entry = Entry { image: image.clone(), produced, seconds: t.elapsed().as_secs_f64(), ahead };
    memory_cache().write().unwrap_or_else(|e| e.into_inner()).entry(key).or_insert(entry);
    Some(Compiled { image, origin: produced })
}

/// The image a call should run now, and its tier: the full image when it
/// is ready ([`ready`]); else, with [`fast_tier_available`], the fast-tier
/// image (compiled now, or by a `prefetch` under way) while the full one
/// compiles in the background for later calls; else the full image,
/// compiled now.
///
/// # Errors
/// As [`compile_cached`].
pub fn compile_tiered(source: &str, name: &str, arch: (i32, i32)) -> Result<(Compiled, Tier), CudaError> {
    if let Some(c) = ready(source, name, arch) {
        return Ok((c, Tier::Full));
    }
    if !fast_tier_available() {
        return Ok((compile_cached(source, name, arch)?, Tier::Full));
    }
    let (s, n) = (source.to_string(), name.to_string());
    let full_key = cache_key(source, name, arch, Tier::Full);
    if started().lock().unwrap_or_else(|e| e.into_inner()).insert(full_key) {
        background(move || {
            let _ = get(&s, &n, arch, Tier::Full, true);
        });
    }
    Ok((get(source, name, arch, Tier::Fast, false)?, Tier::Fast))
}

/// Keys whose full compile [`compile_tiered`] has started.
fn started() -> &'static Mutex<std::collections::HashSet<String>> {
    static STARTED: OnceLock<Mutex<std::collections::HashSet<String>>> = OnceLock::new();
    STARTED.get_or_init(Default::default)
}

/// Loads libnvrtc and compiles a tiny program once per process on a
/// background thread, so that NVRTC's one-time start-up (loading its
/// builtins library, 0.1–0.3 s) overlaps other work such as creating the
/// device context.
pub(crate) fn warm_up() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if nvrtc_available() {
            background(|| {
                let _ = compile(
                    "extern \"C\" __global__ void kg_warm_up(int* x) { x[0] = 1; }",
                    "kg_warm_up",
                    &options((7, 5)),
                );
            });
        }
    });
}

/// The key of an image of `source` (kernel `name`) for `arch` shipped in
/// the crate (`cuda::baked`): the disk cache's key at the full tier, less
/// NVRTC's version (an image does not depend on a compiler that will not
/// run).
pub fn baked_key(source: &str, name: &str, arch: (i32, i32)) -> String {
    let opts = options_for_source(source, arch, Tier::Full);
    format!("name={name}\narch=sm_{}{}\noptions={}\n\n{source}", arch.0, arch.1, opts.join(" "))
}

/// The key of a compiled image: kernel, architecture, NVRTC's version
/// (`none` without NVRTC: then only a shipped image can serve it, see
/// [`super::baked`]), options and source.
fn cache_key(source: &str, name: &str, arch: (i32, i32), tier: Tier) -> String {
    let version = nvrtc_version().map_or_else(|_| "none".to_string(), |v| format!("{}.{}", v.0, v.1));
    let opts = options_for_source(source, arch, tier);
    let source = tier_source(source, tier);
    format!("name={name}\narch=sm_{}{}\nnvrtc={version}\noptions={}\n\n{source}", arch.0, arch.1, opts.join(" "))
}

fn cache_path(key: &str) -> Option<PathBuf> {
    let hash = hash_hex(&[key.as_bytes()]);
    cache_dir().map(|d| d.join("jit").join("v1").join(&hash[..2]).join(format!("{hash}.cubin")))
}

/// The image of `key` in memory, if any; a foreground call (`ahead` false)
/// marks it as handed over.
fn lookup(key: &str, ahead: bool) -> Option<Compiled> {
    let mut cache = memory_cache().write().unwrap_or_else(|e| e.into_inner());
    let e = cache.get_mut(key)?;
    let origin = if e.ahead && !ahead { Origin::Prefetched } else { Origin::Memory };
    if !ahead {
        e.ahead = false;
    }
    Some(Compiled { image: e.image.clone(), origin })
}

/// Compiles `source` (whose kernel is `name`) for `arch` at the full tier,
/// through the caches. Waits for a `prefetch` of the same source still
/// running.
///
/// # Errors
/// [`CudaError::LibraryNotFound`] without libnvrtc; [`CudaError::Compile`]
/// with NVRTC's log when the source does not compile.
pub fn compile_cached(source: &str, name: &str, arch: (i32, i32)) -> Result<Compiled, CudaError> {
    get(source, name, arch, Tier::Full, false)
}

fn get(source: &str, name: &str, arch: (i32, i32), tier: Tier, ahead: bool) -> Result<Compiled, CudaError> {
    let key = cache_key(source, name, arch, tier);
    if let Some(c) = lookup(&key, ahead) {
        return Ok(c);
    }
    let lock = key_lock(&key);
    let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = lookup(&key, ahead) {
        return Ok(c);
    }
    let t = std::time::Instant::now();
    let (image, produced) = match stored(&key, source, name, arch, tier) {
        Some(found) => found,
        None => {
            let img = compile(&tier_source(source, tier), name, &options_for_source(source, arch, tier))?;
            if let Some(p) = &cache_path(&key) {
                if let Err(e) = write_cache_file(p, &key, &img) {
                    static ONCE: std::sync::Once = std::sync::Once::new();
                    ONCE.call_once(|| eprintln!("kronograph: cannot write the JIT cache {}: {e}", p.display()));
                }
            }
            (img, Origin::Compiled)
        }
    };
    let image = Arc::new(image);
    let entry = Entry { image: image.clone(), produced, seconds: t.elapsed().as_secs_f64(), ahead };
    memory_cache().write().unwrap_or_else(|e| e.into_inner()).insert(key, entry);
    Ok(Compiled { image, origin: produced })
}

/// An image of `key` that needs no compile: in the disk cache, or (full
/// tier) shipped in the crate ([`super::baked`]).
fn stored(key: &str, source: &str, name: &str, arch: (i32, i32), tier: Tier) -> Option<(Vec<u8>, Origin)> {
    if let Some(image) = cache_path(key).and_then(|p| read_cache_file(&p, key)) {
        return Some((image, Origin::Disk));
    }
    match tier {
        Tier::Full => super::baked::lookup(&baked_key(source, name, arch)).map(|image| (image, Origin::Baked)),
        Tier::Fast => None,
    }
}

fn read_cache_file(path: &std::path::Path, key: &str) -> Option<Vec<u8>> {
    let data = std::fs::read(path).ok()?;
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let (len, rest) = rest.split_at_checked(8)?;
    let len = u64::from_le_bytes(len.try_into().ok()?) as usize;
    let (stored_key, image) = rest.split_at_checked(len)?;
    (stored_key == key.as_bytes() && !image.is_empty()).then(|| image.to_vec())
}

fn write_cache_file(path: &std::path::Path, key: &str, image: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("cache path has a parent");
    std::fs::create_dir_all(dir)?;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let file_name = path.file_name().and_then(|f| f.to_str()).unwrap_or("kernel");
    let tmp = dir.join(format!(".{file_name}.{}.{nanos}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(key.len() as u64).to_le_bytes())?;
        f.write_all(key.as_bytes())?;
        f.write_all(image)?;
        f.sync_data()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Compiles `source` with NVRTC (no cache) and returns the CUBIN.
///
/// # Errors
/// [`CudaError::LibraryNotFound`] without libnvrtc; [`CudaError::Compile`]
/// with NVRTC's log when the source does not compile.
pub fn compile(source: &str, name: &str, options: &[String]) -> Result<Vec<u8>, CudaError> {
    require_nvrtc()?;
    let src = CString::new(source).map_err(|_| CudaError::Nvrtc {
        context: format!("preparing {name}"),
        message: "the source holds a NUL byte".into(),
    })?;
    let cname = CString::new(format!("{name}.cu")).expect("kernel names hold no NUL");
    let prog = nvrtc_call("creating an NVRTC program", || result::create_program(&src, Some(&cname)))?;
    struct Guard(sys::nvrtcProgram);
    impl Drop for Guard {
        fn drop(&mut self) {
            // SAFETY: created by create_program, destroyed once.
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { result::destroy_program(self.0) }));
        }
    }
    let prog = Guard(prog);
    // SAFETY: a live program.
    let compiled = nvrtc_call("compiling", || unsafe { result::compile_program(prog.0, options) });
    if let Err(CudaError::Nvrtc { message, .. }) = compiled {
        // SAFETY: a live program.
        let log = nvrtc_call("reading the log", || unsafe { result::get_program_log(prog.0) })
            .map(|l| {
                // SAFETY: NVRTC writes a NUL-terminated string.
                unsafe { CStr::from_ptr(l.as_ptr()) }.to_string_lossy().into_owned()
            })
            .unwrap_or_default();
        return Err(CudaError::Compile {
            kernel: name.into(),
            options: options.to_vec(),
            log: format!("{message}\n{log}"),
        });
    }
    compiled?;
    nvrtc_call("reading the CUBIN", || {
        let mut size = 0usize;
        // SAFETY: a compiled program; a buffer of the size NVRTC reports.
        unsafe { sys::nvrtcGetCUBINSize(prog.0, &mut size) }.result()?;
        let mut buf = vec![0u8; size];
        unsafe { sys::nvrtcGetCUBIN(prog.0, buf.as_mut_ptr() as *mut std::ffi::c_char) }.result()?;
        Ok(buf)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_file_round_trip_and_key_check() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ab").join("x.cubin");
        write_cache_file(&p, "key one", b"IMAGE").unwrap();
        assert_eq!(read_cache_file(&p, "key one").as_deref(), Some(&b"IMAGE"[..]));
        assert_eq!(read_cache_file(&p, "key two"), None);
        std::fs::write(&p, b"garbage").unwrap();
        assert_eq!(read_cache_file(&p, "key one"), None);
    }

    #[test]
    fn fast_math_follows_the_source_and_the_fast_tier_its_define() {
        let plain = "extern \"C\" __global__ void k(float* x) { x[0] = 1; }";
        let fast = format!("{FAST_MATH_MARKER}{plain}");
        for tier in [Tier::Full, Tier::Fast] {
            assert_eq!(options_for_source(plain, (9, 0), tier), options_for((9, 0), tier));
            let o = options_for_source(&fast, (9, 0), tier);
            assert_eq!(o.last().map(String::as_str), Some("--use_fast_math"));
            assert_eq!(o[..o.len() - 1], options_for((9, 0), tier)[..]);
        }
        assert_eq!(tier_source(plain, Tier::Full), plain);
        assert_eq!(tier_source(plain, Tier::Fast), format!("{FAST_TIER_DEFINE}{plain}"));
    }
}
