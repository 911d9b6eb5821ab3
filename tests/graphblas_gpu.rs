//! The GPU GraphBLAS equals the CPU: every built-in semiring with a device
//! form, every mask kind (none, structural, valued; each complemented or
//! not), every merge strategy (proptest over random matrices); and the GPU
//! algorithms: BFS levels equal the CPU's on the SNAP graphs and R-MAT with
//! parents forming a BFS tree (the one `bfs_in`/`bfs_levels` on a device matrix), SSSP (Bellman–Ford
//! and the one near-far `DeltaStepping` on a device matrix) equals Dijkstra, triangle counts equal
//! the known ones, components equal the CPU's. Each with 64-bit device
//! indices too (forced on these small matrices: the same kernel sources'
//! 64-bit instantiations), against the same CPU results.
//!
//! Values are small integers, so every sum is exact in floating point and
//! results compare exactly, whatever order the atomic kernels add in.
//! Skips without a GPU unless `KRONOGRAPH_REQUIRE_GPU=1`.
#![cfg(feature = "cuda")]

use kronograph::algorithms::gpu::{self as agpu, GpuBfsOptions};
use kronograph::algorithms::{
    bellman_ford_in, bfs, bfs_in, bfs_levels, components_in, connected_components, triangle_count, triangles_in,
    BfsDirection, BfsOptions, DeltaStepping, TriangleForm,
};
use kronograph::cuda::GpuDevice;
use kronograph::graph::generate::{erdos_renyi_gnm, rmat, RmatParams};
use kronograph::graph::io::mtx;
use kronograph::matrix::gpu::{
    DeviceDenseVector, DeviceMask, DeviceMatrix, DeviceMatrixMask, DeviceSparseVector, GpuElement, GpuMxmStrategy,
    IndexWidth,
};
use kronograph::matrix::{
    mxm, mxm_costs, mxv, mxv_sparse, reduce, reduce_mxm, vxm, vxm_sparse, DenseVector, Descriptor, Mask, MatrixMask,
    MergeStrategy, MxmMethod, SparseMatrix, SparseVector, SpmspvOptions, Truthy, VisitOp,
};
use kronograph::semirings::{
    AnyPair, AnySecondi, LorLand, MaxMin, MaxPlus, MinPlus, Monoid, PlusPair, PlusTimes, Semiring,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::OnceLock;

fn device() -> Option<GpuDevice> {
    static DEV: OnceLock<Option<GpuDevice>> = OnceLock::new();
    DEV.get_or_init(|| {
        crate::device_common::gpu_or_skip().map(|d| GpuDevice::open(d).expect("opening the CUDA device"))
    })
    .clone()
}

/// The merge strategies of the device SpMSpV (`SpmspvOptions::strategy`;
/// on a device `Auto` is the cost model's choice).
const STRATEGIES: [MergeStrategy; 4] =
    [MergeStrategy::Scatter, MergeStrategy::MergeSort, MergeStrategy::RadixSort, MergeStrategy::Auto];

/// The options of a device SpMSpV by merge strategy `st`.
fn merged_by(st: MergeStrategy) -> SpmspvOptions {
    SpmspvOptions { strategy: st, ..SpmspvOptions::default() }
}

/// `C⟨M⟩ = A ⊕.⊗ B` on the device by `method` (`Gustavson`: the hash
/// form), downloaded.
fn device_mxm<S>(
    mask: &DeviceMatrixMask,
    s: S,
    a: &DeviceMatrix<S::A>,
    b: &DeviceMatrix<S::B>,
    desc: &Descriptor,
    method: MxmMethod,
) -> kronograph::Result<SparseMatrix<S::C>>
where
    S: Semiring,
    S::A: GpuElement,
    S::B: GpuElement,
    S::C: GpuElement,
{
    let (nr, nc) = mask.shape();
    let mut c = DeviceMatrix::new_with_width(a.device(), nr, nc, a.index_width())?;
    mxm(&mut c, Some(mask), None, s, a, b, desc, method)?;
    Ok(c.download()?)
}

fn random_matrix<T: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static>(
    rng: &mut ChaCha8Rng,
    nr: usize,
    nc: usize,
    density: f64,
    val: &dyn Fn(u32) -> T,
) -> SparseMatrix<T> {
    let d: Vec<Option<T>> =
        (0..nr * nc).map(|_| rng.random_bool(density).then(|| val(rng.random_range(0..7)))).collect();
    SparseMatrix::from_dense_options(nr, nc, &d)
}

fn random_dense<T: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static>(
    rng: &mut ChaCha8Rng,
    n: usize,
    density: f64,
    val: &dyn Fn(u32) -> T,
) -> DenseVector<T> {
    let o: Vec<Option<T>> = (0..n).map(|_| rng.random_bool(density).then(|| val(rng.random_range(0..7)))).collect();
    DenseVector::from_options(&o)
}

/// The masks of every kind over `n` positions, CPU and device.
fn masks(rng: &mut ChaCha8Rng, dev: &GpuDevice, n: usize) -> Vec<(String, Option<Mask<'static>>)> {
    let mv = random_dense(rng, n, 0.6, &|x| x as i32);
    let mut out: Vec<(String, Option<Mask<'static>>)> = vec![("none".into(), None)];
    let structural = Mask::from_bits(mv.present().to_vec());
    let valued = Mask::valued(&mv);
    out.push(("structural".into(), Some(structural.clone())));
    out.push(("structural complemented".into(), Some(structural.complement())));
    out.push(("valued".into(), Some(valued.clone())));
    out.push(("valued complemented".into(), Some(valued.complement())));
    let _ = dev;
    out
}

fn dmask(dev: &GpuDevice, m: &Option<Mask<'_>>) -> Option<DeviceMask> {
    m.as_ref().map(|m| DeviceMask::upload(dev, m).unwrap())
}

/// Every operation of semiring `s` on random operands, GPU (32-bit indices) against CPU.
fn check_semiring<S, T>(s: S, seed: u64, nr: usize, nc: usize, val: &dyn Fn(u32) -> T, parents: bool)
where
    S: Semiring<A = T, B = T>,
    S::C: GpuElement + Truthy,
    T: GpuElement,
{
    check_semiring_at(IndexWidth::U32, s, seed, nr, nc, val, parents)
}

/// Every operation of semiring `s` on random operands, GPU with indices of
/// width `iw` against CPU.
fn check_semiring_at<S, T>(iw: IndexWidth, s: S, seed: u64, nr: usize, nc: usize, val: &dyn Fn(u32) -> T, parents: bool)
where
    S: Semiring<A = T, B = T>,
    S::C: GpuElement + Truthy,
    T: GpuElement,
{
    let Some(dev) = device() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let density = [0.05, 0.2, 0.5][rng.random_range(0..3)];
    let a = random_matrix(&mut rng, nr, nc, density, val);
    let da = DeviceMatrix::upload_with_width(&dev, &a, iw).unwrap();
    assert_eq!(da.index_width(), iw);
    assert_eq!(da.download().unwrap().to_dense_options(), a.to_dense_options(), "matrix round trip");
    let x = random_dense(&mut rng, nc, 0.5, val);
    let u = random_dense(&mut rng, nr, 0.5, val);
    let (dx, du) = (DeviceDenseVector::upload(&dev, &x).unwrap(), DeviceDenseVector::upload(&dev, &u).unwrap());
    let name = s.name();
    // dense mxv / vxm, every mask kind, replace or not, over an output with old entries
    for (kind, m) in masks(&mut rng, &dev, nr) {
        for replace in [false, true] {
            let desc = if replace { Descriptor::DEFAULT.replace() } else { Descriptor::DEFAULT };
            let mut w = random_dense(&mut rng, nr, 0.3, &|_| s.zero());
            let mut dw = DeviceDenseVector::upload(&dev, &w).unwrap();
            mxv(&mut w, m.as_ref(), None, s, &a, &x, &desc).unwrap();
            mxv(&mut dw, dmask(&dev, &m).as_ref(), None, s, &da, &dx, &desc).unwrap();
            assert_eq!(
                dw.download().unwrap().to_options(),
                w.to_options(),
                "{name} mxv, mask {kind}, replace {replace}"
            );
        }
    }
    for (kind, m) in masks(&mut rng, &dev, nc) {
        let desc = Descriptor::DEFAULT.replace();
        let mut w = DenseVector::new(nc);
        let mut dw = DeviceDenseVector::new(&dev, nc).unwrap();
        vxm(&mut w, m.as_ref(), None, s, &u, &a, &desc).unwrap();
        vxm(&mut dw, dmask(&dev, &m).as_ref(), None, s, &du, &da, &desc).unwrap();
        assert_eq!(dw.download().unwrap().to_options(), w.to_options(), "{name} vxm, mask {kind}");
    }
    // sparse: every strategy and mask kind
    let us = u.to_sparse();
    let xs = x.to_sparse();
    let dus = DeviceSparseVector::upload_with_width(&dev, &us, iw).unwrap();
    let dxs = DeviceSparseVector::upload_with_width(&dev, &xs, iw).unwrap();
    let desc = Descriptor::DEFAULT.replace();
    for (kind, m) in masks(&mut rng, &dev, nc) {
        let mut w = SparseVector::new(nc);
        vxm_sparse(&mut w, m.as_ref(), None, s, &us, &a, &desc, &SpmspvOptions::default()).unwrap();
        let dm = dmask(&dev, &m);
        for st in STRATEGIES {
            let mut dw = DeviceSparseVector::new(&dev, nc).unwrap();
            vxm_sparse(&mut dw, dm.as_ref(), None, s, &dus, &da, &desc, &merged_by(st)).unwrap();
            let got = dw.download().unwrap();
            let what = format!("{name} vxm_sparse, mask {kind}, {st:?}");
            if parents {
                // ANY-SECONDI: any k of u with A(k, j) stored is a right answer
                assert_eq!(got.indices(), w.indices(), "{what}");
                for (j, k) in got.iter() {
                    let k = format!("{k:?}").parse::<usize>().unwrap();
                    assert!(us.get(k).is_some() && a.get(k, j).is_some(), "{what}: {k} is no parent of {j}");
                }
            } else {
                assert_eq!((got.indices(), got.values()), (w.indices(), w.values()), "{what}");
            }
        }
    }
    for (kind, m) in masks(&mut rng, &dev, nr) {
        let mut w = SparseVector::new(nr);
        mxv_sparse(&mut w, m.as_ref(), None, s, &a, &xs, &desc, &SpmspvOptions::default()).unwrap();
        let dm = dmask(&dev, &m);
        for st in STRATEGIES {
            let mut dw = DeviceSparseVector::new(&dev, nr).unwrap();
            mxv_sparse(&mut dw, dm.as_ref(), None, s, &da, &dxs, &desc, &merged_by(st)).unwrap();
            let got = dw.download().unwrap();
            let what = format!("{name} mxv_sparse, mask {kind}, {st:?}");
            assert_eq!(got.indices(), w.indices(), "{what}");
            if !parents {
                assert_eq!(got.values(), w.values(), "{what}");
            }
        }
    }
    // masked mxm by dot products: C<M> = A Aᵀ, structural and valued masks
    let mm = random_matrix(&mut rng, nr, nr, 0.3, &|x| x as i32);
    for (kind, cm) in [("structural", MatrixMask::structural(&mm)), ("valued", MatrixMask::valued(&mm))] {
        let mut c = SparseMatrix::<S::C>::new(nr, nr);
        let dsc = Descriptor::DEFAULT.transpose_second();
        mxm(&mut c, Some(&cm), None, s, &a, &a, &dsc, MxmMethod::Dot).unwrap();
        let dcm = DeviceMatrixMask::upload_with_width(&dev, &cm, iw).unwrap();
        let got = device_mxm(&dcm, s, &da, &da, &dsc, MxmMethod::Dot).unwrap();
        if parents {
            assert_eq!(got.indptr(), c.indptr(), "{name} mxm, mask {kind}");
            assert_eq!(got.indices(), c.indices(), "{name} mxm, mask {kind}");
        } else {
            assert_eq!(got.to_dense_options(), c.to_dense_options(), "{name} mxm, mask {kind}");
        }
    }
    // masked mxm in both forms (dot, hash, auto): C<M> = A Aᵀ and C<M> = A' A
    // with A' = A's leading nc × nc block wherever it fits, every mask kind
    let mm = random_matrix(&mut rng, nr, nr, 0.3, &|x| x as i32);
    let kinds = [
        ("structural", MatrixMask::structural(&mm)),
        ("valued", MatrixMask::valued(&mm)),
        ("structural complemented", MatrixMask::structural(&mm).complement()),
        ("valued complemented", MatrixMask::valued(&mm).complement()),
    ];
    for (kind, cm) in kinds {
        let dsc = Descriptor::DEFAULT.transpose_second();
        let mut c = SparseMatrix::<S::C>::new(nr, nr);
        mxm(&mut c, Some(&cm), None, s, &a, &a, &dsc, MxmMethod::Gustavson).unwrap();
        let dcm = DeviceMatrixMask::upload_with_width(&dev, &cm, iw).unwrap();
        // Auto runs the form its measured operation counts choose
        let [dot, hash] = mxm_costs(&dcm, s, &da, &da, &dsc).unwrap();
        assert!(GpuMxmStrategy::choose(dot, hash) != GpuMxmStrategy::Auto, "{name} mxm_costs, mask {kind}");
        for st in [MxmMethod::Dot, MxmMethod::Gustavson, MxmMethod::Auto] {
            let what = format!("{name} mxm (device), mask {kind}, {st:?}");
            let r = device_mxm(&dcm, s, &da, &da, &dsc, st);
            if st == MxmMethod::Dot && cm.is_complemented() {
                assert!(r.is_err(), "{what}: the dot form takes no complemented mask");
                continue;
            }
            let got = r.unwrap();
            assert_eq!(got.indptr(), c.indptr(), "{what}");
            assert_eq!(got.indices(), c.indices(), "{what}");
            if !parents {
                assert_eq!(got.values(), c.values(), "{what}");
                let sum = reduce_mxm(&dcm, s, &da, &da, &dsc, st).unwrap();
                // over the present values only, as the device reduces (the ANY monoid never meets its identity)
                let want = c.values().iter().copied().reduce(|x, y| s.add_monoid().combine(x, y)).unwrap_or(s.zero());
                assert_eq!(sum, want, "{what}: reduce");
            }
        }
    }
    // C<M> = A B (no transpose) with B square nc × nc, hash against the CPU
    let b = random_matrix(&mut rng, nc, nc, density, val);
    let db = DeviceMatrix::upload_with_width(&dev, &b, iw).unwrap();
    let mb = random_matrix(&mut rng, nr, nc, 0.4, &|x| x as i32);
    for (kind, cm) in
        [("structural", MatrixMask::structural(&mb)), ("complemented", MatrixMask::structural(&mb).complement())]
    {
        let mut c = SparseMatrix::<S::C>::new(nr, nc);
        mxm(&mut c, Some(&cm), None, s, &a, &b, &Descriptor::DEFAULT, MxmMethod::Gustavson).unwrap();
        let dcm = DeviceMatrixMask::upload_with_width(&dev, &cm, iw).unwrap();
        let got = device_mxm(&dcm, s, &da, &db, &Descriptor::DEFAULT, MxmMethod::Gustavson).unwrap();
        let what = format!("{name} mxm_masked A B, mask {kind}");
        assert_eq!((got.indptr(), got.indices()), (c.indptr(), c.indices()), "{what}");
        if !parents {
            assert_eq!(got.values(), c.values(), "{what}");
        }
    }
    // reduce
    let mut w = DenseVector::new(nr);
    mxv(&mut w, None, None, s, &a, &x, &Descriptor::DEFAULT).unwrap();
    let dw = DeviceDenseVector::upload(&dev, &w).unwrap();
    let got = reduce(s, &dw).unwrap();
    if !parents {
        assert_eq!(got, reduce(s, &w).unwrap(), "{name} reduce");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn plus_times(seed in any::<u64>(), nr in 1usize..40, nc in 1usize..40) {
        check_semiring(PlusTimes::<f64>::new(), seed, nr, nc, &|x| x as f64, false);
        check_semiring(PlusTimes::<f32>::new(), seed, nr, nc, &|x| x as f32, false);
        check_semiring(PlusTimes::<i32>::new(), seed, nr, nc, &|x| x as i32 - 3, false);
        check_semiring(PlusTimes::<u64>::new(), seed, nr, nc, &|x| x as u64, false);
    }

    #[test]
    fn tropical(seed in any::<u64>(), nr in 1usize..40, nc in 1usize..40) {
        check_semiring(MinPlus::<f64>::new(), seed, nr, nc, &|x| x as f64, false);
        check_semiring(MinPlus::<u32>::new(), seed, nr, nc, &|x| x, false);
        check_semiring(MaxPlus::<i64>::new(), seed, nr, nc, &|x| x as i64 - 3, false);
        check_semiring(MaxMin::<f64>::new(), seed, nr, nc, &|x| x as f64, false);
    }

    #[test]
    fn structural_semirings(seed in any::<u64>(), nr in 1usize..40, nc in 1usize..40) {
        check_semiring(PlusPair::<f64, f64, u64>::new(), seed, nr, nc, &|x| x as f64, false);
        check_semiring(LorLand, seed, nr, nc, &|x| x % 2 == 1, false);
        check_semiring(AnyPair::<f64, f64>::new(), seed, nr, nc, &|x| x as f64, false);
        check_semiring(AnySecondi::<f64, f64>::new(), seed, nr, nc, &|x| x as f64, true);
    }

    /// The 64-bit instantiations of every operation, against the same CPU results.
    #[test]
    fn wide_indices(seed in any::<u64>(), nr in 1usize..40, nc in 1usize..40) {
        let w = IndexWidth::U64;
        check_semiring_at(w, PlusTimes::<f64>::new(), seed, nr, nc, &|x| x as f64, false);
        check_semiring_at(w, MinPlus::<u32>::new(), seed, nr, nc, &|x| x, false);
        check_semiring_at(w, PlusPair::<f64, f64, u64>::new(), seed, nr, nc, &|x| x as f64, false);
        check_semiring_at(w, AnySecondi::<f64, f64>::new(), seed, nr, nc, &|x| x as f64, true);
    }
}

/// Widths: chosen by size, forced, and operands of two widths refused with what to do.
#[test]
fn index_widths_are_chosen_forced_and_checked() {
    let Some(dev) = device() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let a = random_matrix(&mut rng, 20, 20, 0.2, &|x| x as f64);
    let narrow = DeviceMatrix::upload(&dev, &a).unwrap();
    assert_eq!(narrow.index_width(), IndexWidth::U32);
    let wide = DeviceMatrix::upload_with_width(&dev, &a, IndexWidth::U64).unwrap();
    assert_eq!(wide.index_width(), IndexWidth::U64);
    assert_eq!(wide.download().unwrap().to_dense_options(), a.to_dense_options());
    let u = random_dense(&mut rng, 20, 0.5, &|x| x as f64).to_sparse();
    let du = DeviceSparseVector::upload(&dev, &u).unwrap();
    assert_eq!(du.index_width(), IndexWidth::U32);
    let mut w = DeviceSparseVector::new(&dev, 20).unwrap();
    let s = PlusTimes::<f64>::new();
    let desc = Descriptor::DEFAULT;
    let auto = SpmspvOptions::default();
    let e = vxm_sparse(&mut w, None, None, s, &du, &wide, &desc, &auto).unwrap_err().to_string();
    assert!(e.contains("u32") && e.contains("upload_with_width"), "{e}");
    let du64 = DeviceSparseVector::upload_with_width(&dev, &u, IndexWidth::U64).unwrap();
    vxm_sparse(&mut w, None, None, s, &du64, &wide, &desc, &auto).unwrap();
    assert_eq!(w.index_width(), IndexWidth::U64);
    let mask = DeviceMatrixMask::upload(&dev, &MatrixMask::structural(&a)).unwrap();
    assert!(device_mxm(&mask, s, &wide, &wide, &desc.transpose_second(), MxmMethod::Dot).is_err());
    assert!(device_mxm(&mask, s, &narrow, &wide, &desc.transpose_second(), MxmMethod::Dot).is_err());
}

fn snap(name: &str) -> kronograph::graph::Graph<(), ()> {
    mtx::read(format!("{}/data/snap/{name}.mtx", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// `r`'s levels, reached count, depth and component arcs equal the CPU's
/// `cpu`; each parent is an in-neighbour one level up.
fn assert_bfs_tree(
    a: &SparseMatrix<f64>,
    source: usize,
    r: &kronograph::algorithms::BfsResult,
    cpu: &kronograph::algorithms::BfsResult,
    w: &str,
) {
    assert_eq!(r.levels, cpu.levels, "{w}");
    assert_eq!((r.reached, r.depth, r.arcs_in_component), (cpu.reached, cpu.depth, cpu.arcs_in_component), "{w}");
    assert_eq!(r.parents[source], source as i64, "{w}");
    for v in 0..a.nrows() {
        if r.levels[v] > 0 {
            let p = r.parents[v] as usize;
            assert_eq!(r.levels[p], r.levels[v] - 1, "{w}: parent level of {v}");
            assert!(a.get(p, v).is_some(), "{w}: {p} -> {v} is no arc");
        } else if r.levels[v] < 0 {
            assert_eq!(r.parents[v], -1, "{w}");
        }
    }
}

/// Levels equal the CPU's; each parent is an in-neighbour one level up
/// (device indices of width `iw`).
fn check_bfs(g: &kronograph::graph::Graph<(), ()>, source: usize, what: &str, iw: IndexWidth) {
    let Some(dev) = device() else { return };
    let cpu = bfs(g, source, &BfsOptions::default()).unwrap();
    let a = SparseMatrix::from_graph(g);
    let da = DeviceMatrix::upload_with_width(&dev, &a, iw).unwrap();
    let what = &format!("{what} ({iw:?})");
    // the one BFS on the device matrix, its visit state reused across directions and strategies
    let mut visited = da.visited().unwrap();
    for direction in [BfsDirection::Push, BfsDirection::Pull, BfsDirection::Auto { alpha: 14.0, beta: 24.0 }] {
        for strategy in [MergeStrategy::Scatter, MergeStrategy::RadixSort] {
            let opts = BfsOptions { direction, strategy };
            let r = bfs_levels(&da, &mut visited, source, &opts).unwrap().result::<DeviceMatrix<f64>>(&visited);
            let w = format!("{what}: {direction:?} {strategy:?}");
            assert_bfs_tree(&a, source, &r.unwrap(), &cpu, &w);
        }
        let r = bfs_in(&da, source, &BfsOptions { direction, ..BfsOptions::default() }).unwrap();
        assert_bfs_tree(&a, source, &r, &cpu, &format!("{what}: bfs_in {direction:?}"));
    }
    // the graph form
    let r = agpu::bfs(g, source, &GpuBfsOptions::default(), &dev).unwrap();
    assert_eq!(r.levels, cpu.levels, "{what}: bfs()");
}

#[test]
fn bfs_equals_cpu_on_snap_and_rmat() {
    if device().is_none() {
        return;
    }
    let (narrow, wide) = (IndexWidth::U32, IndexWidth::U64);
    check_bfs(&snap("facebook_combined"), 0, "facebook_combined", narrow);
    check_bfs(&snap("oregon1_010331"), 5, "oregon1_010331", narrow);
    check_bfs(&snap("oregon1_010331"), 5, "oregon1_010331", wide);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let g = rmat(&RmatParams::graph500(14), &mut rng).unwrap();
    let a = SparseMatrix::from_graph(&g);
    let src = (0..g.num_nodes()).max_by_key(|&v| a.row(v).0.len()).unwrap();
    check_bfs(&g, src, "rmat 14", narrow);
    check_bfs(&g, 0, "rmat 14 from 0", narrow);
    check_bfs(&g, src, "rmat 14", wide);
}

#[test]
fn triangles_equal_known_counts() {
    let Some(dev) = device() else { return };
    assert_eq!(agpu::triangles(&snap("facebook_combined"), &dev).unwrap(), 1_612_010);
    assert_eq!(agpu::triangles(&snap("oregon1_010331"), &dev).unwrap(), 17_144);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let g = rmat(&RmatParams::graph500(13), &mut rng).unwrap();
    assert_eq!(agpu::triangles(&g, &dev).unwrap(), triangle_count(&g).unwrap());
    // both forms of the masked product, and Auto
    for name in ["facebook_combined", "oregon1_010331"] {
        let l = kronograph::algorithms::lower_by_degree(&SparseMatrix::from_graph(&snap(name)));
        for iw in [IndexWidth::U32, IndexWidth::U64] {
            let dl = DeviceMatrix::upload_with_width(&dev, &l, iw).unwrap();
            let mask = DeviceMatrixMask::upload_with_width(&dev, &MatrixMask::structural(&l), iw).unwrap();
            let want = if name == "facebook_combined" { 1_612_010 } else { 17_144 };
            for form in [TriangleForm::Dot, TriangleForm::RowWise, TriangleForm::Auto] {
                assert_eq!(triangles_in(&dl, &mask, form).unwrap(), want, "{name} {form:?} {iw:?}");
            }
        }
    }
}

/// Dijkstra on a weighted adjacency (the reference).
fn dijkstra(a: &SparseMatrix<f64>, s: usize) -> Vec<f64> {
    use std::cmp::Reverse;
    let mut d = vec![f64::INFINITY; a.nrows()];
    let mut heap = std::collections::BinaryHeap::new();
    d[s] = 0.0;
    heap.push(Reverse((0u64, s)));
    while let Some(Reverse((dk, u))) = heap.pop() {
        let du = f64::from_bits(dk);
        if du > d[u] {
            continue;
        }
        let (idx, val) = a.row(u);
        for (&v, &w) in idx.iter().zip(val) {
            if du + w < d[v] {
                d[v] = du + w;
                heap.push(Reverse((d[v].to_bits(), v)));
            }
        }
    }
    d
}

#[test]
fn sssp_equals_dijkstra() {
    let Some(dev) = device() else { return };
    for seed in 0..4u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = 300 + 200 * seed as usize;
        let m = n * 6;
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        let mut seen = std::collections::HashSet::new();
        while r.len() < m {
            let (i, j) = (rng.random_range(0..n), rng.random_range(0..n));
            if i != j && seen.insert((i, j)) {
                r.push(i);
                c.push(j);
                v.push(rng.random_range(1..1000) as f64 / 8.0);
            }
        }
        let a = SparseMatrix::try_from_triplets(n, n, &r, &c, &v).unwrap();
        // odd seeds with 64-bit device indices
        let iw = if seed % 2 == 1 { IndexWidth::U64 } else { IndexWidth::U32 };
        let da = DeviceMatrix::upload_with_width(&dev, &a, iw).unwrap();
        let want = dijkstra(&a, 0);
        for strategy in
            [MergeStrategy::Scatter, MergeStrategy::MergeSort, MergeStrategy::RadixSort, MergeStrategy::Auto]
        {
            let st = strategy;
            let opts = SpmspvOptions { strategy, ..SpmspvOptions::default() };
            let got = bellman_ford_in(&da, 0, &opts).unwrap();
            for (x, y) in got.distances.iter().zip(&want) {
                assert!(x == y || (x - y).abs() <= 1e-12 * y.abs(), "seed {seed} {st:?}: {x} vs {y}");
            }
        }
        // delta-stepping: the automatic Δ, a tiny one (many buckets, threshold jumps), a huge one (one bucket)
        for delta in [None, Some(0.01), Some(1.5), Some(1e9)] {
            let mut ds = DeltaStepping::new(&da, delta).unwrap();
            for source in [0, n / 2] {
                let want = dijkstra(&a, source);
                let got = ds.run(&da, source).unwrap();
                assert!(got.rounds > 0 && got.delta.is_some());
                for (x, y) in got.distances.iter().zip(&want) {
                    assert!(x == y || (x - y).abs() <= 1e-12 * y.abs(), "seed {seed} Δ {delta:?}: {x} vs {y}");
                }
            }
        }
    }
    // zero weights and a hub of out-degree >= 1024 (the grid-wide relaxation)
    let n = 3000;
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for j in 1..n {
        r.push(0);
        c.push(j);
        v.push(rng.random_range(0..4) as f64);
        r.push(j);
        c.push((j * 7 + 1) % n);
        v.push(rng.random_range(0..3) as f64 * 0.5);
    }
    let a = SparseMatrix::try_from_triplets(n, n, &r, &c, &v).unwrap();
    let da = DeviceMatrix::upload(&dev, &a).unwrap();
    let got = DeltaStepping::new(&da, None).unwrap().run(&da, 0).unwrap();
    assert_eq!(got.distances, dijkstra(&a, 0));
    let wide = DeviceMatrix::upload_with_width(&dev, &a, IndexWidth::U64).unwrap();
    let got = DeltaStepping::new(&wide, None).unwrap().run(&wide, 0).unwrap();
    assert_eq!(got.distances, dijkstra(&a, 0), "64-bit indices");
    // a negative weight is named
    let bad = SparseMatrix::try_from_triplets(3, 3, &[0, 1], &[1, 2], &[1.0, -2.0]).unwrap();
    let dbad = DeviceMatrix::upload(&dev, &bad).unwrap();
    let e = DeltaStepping::new(&dbad, None).err().expect("negative weight").to_string();
    assert!(e.contains("-2"), "{e}");
    assert!(DeltaStepping::new(&da, Some(0.0)).is_err());
    let g = snap("oregon1_010331");
    let cpu = kronograph::algorithms::sssp(&g, 3).unwrap();
    assert_eq!(agpu::sssp(&g, 3, &dev).unwrap().distances, cpu.distances);
    let d = DeviceMatrix::upload(&dev, &SparseMatrix::from_graph(&g)).unwrap();
    assert_eq!(DeltaStepping::new(&d, None).unwrap().run(&d, 3).unwrap().distances, cpu.distances);
}

#[test]
fn components_equal_cpu() {
    let Some(dev) = device() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let g = erdos_renyi_gnm(3000, 2500, &mut rng).unwrap();
    let cpu = connected_components(&g).unwrap();
    let got = agpu::components(&g, &dev).unwrap();
    assert_eq!((got.labels, got.count), (cpu.labels.clone(), cpu.count));
    let a = SparseMatrix::from_graph(&g).map(|_| 0u64);
    let wide = DeviceMatrix::upload_with_width(&dev, &a, IndexWidth::U64).unwrap();
    let got = components_in(&wide).unwrap();
    assert_eq!((got.labels, got.count), (cpu.labels, cpu.count), "64-bit indices");
    let g = snap("facebook_combined");
    assert_eq!(agpu::components(&g, &dev).unwrap().count, 1);
}

/// The prepared algorithms (one upload and JIT, many sources) equal the CPU.
#[test]
fn prepared_algorithms_reuse_one_upload() {
    use kronograph::algorithms::{PreparedBfs, PreparedSssp, PreparedTriangles, SsspOptions};
    use kronograph::Backend;
    if device().is_none() {
        return;
    }
    let g = snap("oregon1_010331");
    let a = SparseMatrix::from_graph(&g);
    let opts = BfsOptions::default();
    let mut gpu = PreparedBfs::new(&a, &opts, Backend::Cuda(0)).unwrap();
    assert!(gpu.device().is_some() && gpu.setup_seconds() > 0.0);
    let mut cpu = PreparedBfs::new(&a, &opts, Backend::Cpu).unwrap();
    assert!(cpu.device().is_none());
    for s in [0, 5, 17, 5] {
        let (got, secs) = gpu.run(s).unwrap();
        assert_eq!(got.levels, cpu.run(s).unwrap().0.levels, "source {s}");
        assert!(secs > 0.0);
    }
    assert!(gpu.run(a.nrows()).is_err());
    let so = SsspOptions::default();
    let mut gs = PreparedSssp::new(&a, &so, Backend::Cuda(0)).unwrap();
    let mut cs = PreparedSssp::new(&a, &so, Backend::Cpu).unwrap();
    for s in [3, 9] {
        assert_eq!(gs.run(s).unwrap().0.distances, cs.run(s).unwrap().0.distances, "source {s}");
    }
    let mut t = PreparedTriangles::new(&a, Backend::Cuda(0)).unwrap();
    assert_eq!(t.run().unwrap().0, 17_144);
    assert_eq!(t.run().unwrap().0, 17_144);
}
