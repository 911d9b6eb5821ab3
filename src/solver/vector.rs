//! Scalars and the vector operations the solvers use.

use std::fmt::Debug;

/// A real floating-point scalar (`f32` or `f64`) with lossless-enough
/// conversions to and from `f64`.
pub trait Real:
    num_traits::Float + num_traits::NumAssign + Copy + Send + Sync + Debug + Default + std::iter::Sum + 'static
{
    /// Rounds an `f64` to this type.
    fn of_f64(x: f64) -> Self;
    /// Widens to `f64`.
    fn as_f64(self) -> f64;
    /// A short name (`"f32"`, `"f64"`).
    const NAME: &'static str;
}

impl Real for f64 {
    #[inline(always)]
    fn of_f64(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        self
    }
    const NAME: &'static str = "f64";
}

impl Real for f32 {
    #[inline(always)]
    fn of_f64(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn as_f64(self) -> f64 {
        self as f64
    }
    const NAME: &'static str = "f32";
}

/// The vector operations of the iterative solvers.
///
/// Implemented for `Vec<f64>` and `Vec<f32>` (CPU); a GPU backend implements
/// it for a device buffer. Reductions ([`dot`](Self::dot),
/// [`norm`](Self::norm)) return `f64`; the CPU implementation accumulates
/// in `f64` also for `f32` vectors.
pub trait Vector: Send + Sync {
    /// The element type.
    type Scalar: Real;

    /// Number of entries.
    fn len(&self) -> usize;

    /// Whether the vector has no entries.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes the vector `n` long (new entries are zero; existing capacity is
    /// reused).
    fn resize(&mut self, n: usize);

    /// `self ← src` (same length).
    fn copy_from(&mut self, src: &Self);

    /// `self ← v` for every entry.
    fn fill(&mut self, v: Self::Scalar);

    /// `self ← self + a x`.
    fn axpy(&mut self, a: f64, x: &Self);

    /// `self ← x + a self`.
    fn xpay(&mut self, x: &Self, a: f64);

    /// `self ← x ⊙ d` (element-wise product).
    fn mul_elems(&mut self, x: &Self, d: &Self);

    /// `self_i ← 1 / self_i`; returns `false` (leaving the vector in an
    /// unspecified state) if an entry is zero or the result is not finite.
    fn invert_elems(&mut self) -> bool;

    /// `selfᵀ y`.
    fn dot(&self, y: &Self) -> f64;

    /// `‖self‖₂`.
    fn norm(&self) -> f64 {
        self.dot(self).sqrt()
    }

    /// The vector part of one preconditioned CG step, fused:
    /// `x ← x + a p`, `r ← r − a q`, `z ← r ⊙ m` (`z ← r` without `m`);
    /// returns `(‖r‖², rᵀz)` of the new `r` and `z`. The default calls the
    /// single operations (five passes); `Vec` does it in one.
    fn cg_update(x: &mut Self, r: &mut Self, z: &mut Self, p: &Self, q: &Self, m: Option<&Self>, a: f64) -> (f64, f64)
    where
        Self: Sized,
    {
        x.axpy(a, p);
        r.axpy(-a, q);
        let rr = r.dot(r);
        match m {
            Some(m) => z.mul_elems(r, m),
            None => z.copy_from(r),
        }
        (rr, r.dot(z))
    }
}

impl<T: Real> Vector for Vec<T> {
    type Scalar = T;

    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn resize(&mut self, n: usize) {
        Vec::resize(self, n, T::zero());
    }

    #[inline]
    fn copy_from(&mut self, src: &Self) {
        self.copy_from_slice(src);
    }

    #[inline]
    fn fill(&mut self, v: T) {
        self.as_mut_slice().fill(v);
    }

    #[inline]
    fn axpy(&mut self, a: f64, x: &Self) {
        let a = T::of_f64(a);
        for (y, &x) in self.iter_mut().zip(x) {
            *y += a * x;
        }
    }

    #[inline]
    fn xpay(&mut self, x: &Self, a: f64) {
        let a = T::of_f64(a);
        crate::simd::on_widest_isa(|| {
            for (y, &x) in self.iter_mut().zip(x) {
                *y = x + a * *y;
            }
        })
    }

    #[inline]
    fn mul_elems(&mut self, x: &Self, d: &Self) {
        for ((y, &x), &d) in self.iter_mut().zip(x).zip(d) {
            *y = x * d;
        }
    }

    fn invert_elems(&mut self) -> bool {
        invert_wide(self)
    }

    #[inline]
    fn dot(&self, y: &Self) -> f64 {
        dot_wide(self, y)
    }

    fn cg_update(x: &mut Self, r: &mut Self, z: &mut Self, p: &Self, q: &Self, m: Option<&Self>, a: f64) -> (f64, f64) {
        let Some(m) = m else {
            x.axpy(a, p);
            r.axpy(-a, q);
            z.copy_from(r);
            let rr = r.dot(r);
            return (rr, rr);
        };
        // the fused pass, compiled for the CPU's widest vectors (same bits)
        jacobi_update(x, r, z, p, q, m, a)
    }
}

/// Independent partial sums of the reductions ([`dot_slices`], the fused CG
/// pass): two AVX-512 registers of `f64`, so that the adds do not wait on
/// each other; the same order on every instruction set (same bits).
const SUMS: usize = 16;

/// The partial sums added pairwise, in a fixed order.
#[inline(always)]
fn total(s: &[f64; SUMS]) -> f64 {
    let mut h = [0f64; SUMS / 2];
    for k in 0..SUMS / 2 {
        h[k] = s[k] + s[k + SUMS / 2];
    }
    let q = [h[0] + h[4], h[1] + h[5], h[2] + h[6], h[3] + h[7]];
    (q[0] + q[2]) + (q[1] + q[3])
}

/// The body of [`Vector::cg_update`] with a Jacobi preconditioner `m`.
#[inline(always)]
fn jacobi_update_body<T: Real>(x: &mut [T], r: &mut [T], z: &mut [T], p: &[T], q: &[T], m: &[T], a: f64) -> (f64, f64) {
    let n = x.len();
    assert!(r.len() == n && z.len() == n && p.len() == n && q.len() == n && m.len() == n, "cg_update: lengths");
    let a = T::of_f64(a);
    // the reductions in f64 with SUMS independent partial sums, as `dot_slices`
    let (mut rr, mut rz) = ([0f64; SUMS], [0f64; SUMS]);
    // one entry's update; returns its terms of rᵀr and rᵀz
    let step = |x: &mut T, r: &mut T, z: &mut T, p: T, q: T, m: T| {
        *x += a * p;
        let ri = *r - a * q;
        *r = ri;
        let zi = ri * m;
        *z = zi;
        (ri.as_f64() * ri.as_f64(), ri.as_f64() * zi.as_f64())
    };
    let body = n / SUMS * SUMS;
    let (xb, xt) = x.split_at_mut(body);
    let (rb, rt) = r.split_at_mut(body);
    let (zb, zt) = z.split_at_mut(body);
    let (pb, pt) = p.split_at(body);
    let (qb, qt) = q.split_at(body);
    let (mb, mt) = m.split_at(body);
    let chunks = xb
        .chunks_exact_mut(SUMS)
        .zip(rb.chunks_exact_mut(SUMS))
        .zip(zb.chunks_exact_mut(SUMS))
        .zip(pb.chunks_exact(SUMS).zip(qb.chunks_exact(SUMS)).zip(mb.chunks_exact(SUMS)));
    for (((x, r), z), ((p, q), m)) in chunks {
        for k in 0..SUMS {
            let (dr, dz) = step(&mut x[k], &mut r[k], &mut z[k], p[k], q[k], m[k]);
            rr[k] += dr;
            rz[k] += dz;
        }
    }
    let (mut rr, mut rz) = (total(&rr), total(&rz));
    for (((x, r), z), ((p, q), m)) in xt.iter_mut().zip(rt.iter_mut()).zip(zt.iter_mut()).zip(pt.iter().zip(qt).zip(mt))
    {
        let (dr, dz) = step(x, r, z, *p, *q, *m);
        rr += dr;
        rz += dz;
    }
    (rr, rz)
}

crate::simd::isa_dispatch!(
    /// [`jacobi_update_body`] compiled for the widest vectors the CPU has.
    fn jacobi_update<T: Real>(x: &mut [T], r: &mut [T], z: &mut [T], p: &[T], q: &[T], m: &[T], a: f64) -> (f64, f64) = jacobi_update_body
);

/// `v ← 1 / v` entry by entry, then whether all results are finite (two
/// branch-free passes, vectorized).
#[inline(always)]
fn invert_body<T: Real>(v: &mut [T]) -> bool {
    v.iter_mut().for_each(|v| *v = T::one() / *v);
    v.iter().fold(true, |ok, v| ok & v.is_finite())
}

crate::simd::isa_dispatch!(
    /// [`invert_body`] compiled for the widest vectors the CPU has.
    fn invert_wide<T: Real>(v: &mut [T]) -> bool = invert_body
);

crate::simd::isa_dispatch!(
    /// [`dot_slices`] compiled for the widest vectors the CPU has (same bits).
    pub(crate) fn dot_wide<T: Real>(x: &[T], y: &[T]) -> f64 = dot_slices
);

/// `xᵀ y` accumulated in `f64` with [`SUMS`] independent partial sums.
#[inline(always)]
pub(crate) fn dot_slices<T: Real>(x: &[T], y: &[T]) -> f64 {
    let mut s = [0f64; SUMS];
    let xc = x.chunks_exact(SUMS);
    let yc = y.chunks_exact(SUMS);
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for k in 0..SUMS {
            s[k] += a[k].as_f64() * b[k].as_f64();
        }
    }
    let mut t = total(&s);
    for (a, b) in xr.iter().zip(yr) {
        t += a.as_f64() * b.as_f64();
    }
    t
}
