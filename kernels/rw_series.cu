// The moment series of the geometric random-walk kernel on the GPU
// (src/mgk/gpu/rw_series.rs; the algorithm is RandomWalkKernel's, src/mgk/rw.rs). One call is
// one upload, three launches on one stream and one download:
//
//   rw_bounds:  one warp per graph: Collatz–Wielandt bounds lo <= rho(W) <= hi
//               after power steps on W + I (the CPU's bounds_of, step by step;
//               products and sums rounded as the CPU rounds them: no FMA); and
//               hmax = max_g 2^e_g hi_g (an atomic max over the bits of a
//               non-negative double);
//   rw_moments: one warp per graph: m_k / hi^k = 1^T (W/hi)^k 1 for k < held_g, where
//               held_g = terms(lambda 2^e_g hi_g hmax) + 2 (at most `stride`): enough
//               for this graph with any partner;
//   rw_pairs:   one thread per pair: k = sum_{k<=terms} r^k m_k m'_k with
//               r = lambda 2^(e+e') hi hi', terms = ceil(ln(tol (1 - r)) / ln r)
//               (r = 0: 1), -1 where terms > max_terms or the moments held do
//               not reach (the host solves those).
//
// Everything the host sends is in one buffer `blob` (byte offsets o_*): the graphs in 32-bit
// CSR form with global row pointers `ptr` (n_total + 1), local column indices `idx` and
// weights `w` (already scaled by 2^-e on the host; o_w < 0: every weight is 1, none sent;
// graph g owns rows node_off[g] .. node_off[g+1]),
// the exponents e, and the outputs, poisoned by the host (lo, hi: NaN; out: NaN; hmax: 0),
// which come back in one download. Pairs are (a, y0 + b) for a < nx, b < ny of the one list.
// `scratch` (offsets s_*) holds the power vectors, the moments and held_g. Where every graph
// has at most smem_n nodes (smem_n > 0), each warp keeps its power vectors in dynamic shared
// memory instead (2 * smem_n doubles per warp): they are rewritten at every step, and global
// stores would send the next step's reads to L2.

extern __shared__ double rw_smem[];

#define RW_PTR(T, base, off) reinterpret_cast<T*>((base) + (off))

__device__ double rw_warp_min(double x) {
    for (int o = 16; o > 0; o >>= 1) x = fmin(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}
__device__ double rw_warp_max(double x) {
    for (int o = 16; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
}
template <typename T> __device__ T rw_warp_sum(T x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

// The series' number of terms for ratio r (the CPU's series_terms): max_terms + 1 where the
// series does not apply.
__device__ int rw_terms(double r, double tol, int max_terms) {
    if (r == 0.0) return 1;
    if (!(r < 1.0)) return max_terms + 1;
    double c = ceil(log(tol * (1.0 - r)) / log(r));
    return c > (double)max_terms ? max_terms + 1 : (int)c;
}

// y_i = sum_j w_ij x_j over the rows of one graph, rounded as the CPU does
__device__ double rw_row(const int* ptr, const int* idx, const double* w, const double* x, long long row) {
    double s = 0.0;
    for (long long p = ptr[row]; p < ptr[row + 1]; ++p) s = __dadd_rn(s, __dmul_rn(w ? w[p] : 1.0, x[idx[p]]));
    return s;
}

// One warp per graph (no block barriers: lanes exchange through shuffles and
// __syncwarp), warps striding over the graphs.
extern "C" __global__ void rw_bounds(int graphs, unsigned char* blob, long long o_node, long long o_ptr, long long o_idx,
                                     long long o_w, long long o_exp, long long o_lo, long long o_hi, long long o_hmax,
                                     unsigned char* scratch, long long s_v, long long s_t, int smem_n) {
    const int* node_off = RW_PTR(const int, blob, o_node);
    const int* ptr = RW_PTR(const int, blob, o_ptr);
    const int* idx = RW_PTR(const int, blob, o_idx);
    const double* w = o_w >= 0 ? RW_PTR(const double, blob, o_w) : nullptr;  // null: all weights 1
    const int* ex = RW_PTR(const int, blob, o_exp);
    double* lo_out = RW_PTR(double, blob, o_lo);
    double* hi_out = RW_PTR(double, blob, o_hi);
    unsigned long long* hmax = RW_PTR(unsigned long long, blob, o_hmax);
    double* v = RW_PTR(double, scratch, s_v);
    double* t = RW_PTR(double, scratch, s_t);
    const double inf = __longlong_as_double(0x7ff0000000000000LL);
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int g = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < graphs; g += warps) {
        long long off = node_off[g], n = node_off[g + 1] - off;
        if (n == 0) {
            if (lane == 0) { lo_out[g] = 0.0; hi_out[g] = 0.0; }
            continue;
        }
        double* vg = v + off;
        double* tg = t + off;
        if (n <= smem_n) {
            vg = rw_smem + (long long)(threadIdx.x >> 5) * 2 * smem_n;
            tg = vg + smem_n;
        }
        for (long long i = lane; i < n; i += 32) vg[i] = 1.0;
        __syncwarp();
        double lo = 0.0, hi = inf;
        for (int it = 0; it < 200; ++it) {
            // (W v)_i / v_i bounds rho; v + W v (the step on W + I) goes to t
            double l = inf, h = 0.0, s = 0.0;
            for (long long i = lane; i < n; i += 32) {
                double y = rw_row(ptr, idx, w, vg, off + i);
                double q = y / vg[i];
                l = fmin(l, q);
                h = fmax(h, q);
                double x = vg[i] + y;
                tg[i] = x;
                s = fmax(s, x);
            }
            l = rw_warp_min(l);
            h = rw_warp_max(h);
            s = rw_warp_max(s);
            lo = fmax(lo, l);
            hi = fmin(hi, h);
            if (hi - lo <= 1e-9 * hi) break;
            if (s == 0.0 || !isfinite(s)) break;
            __syncwarp();
            double small = 0.0;
            for (long long i = lane; i < n; i += 32) {
                double x = tg[i] / s;
                vg[i] = x;
                if (x < 1e-250) small = 1.0;
            }
            small = rw_warp_max(small);
            __syncwarp();
            if (small > 0.0) break;
        }
        if (lane == 0) {
            lo_out[g] = lo;
            hi_out[g] = hi;
            double scaled = ldexp(hi, ex[g]);
            if (scaled >= 0.0) atomicMax(hmax, (unsigned long long)__double_as_longlong(scaled));
        }
        __syncwarp();
    }
}

// moments[g * stride + k] = m_k / hi^k for k < held_g (zeros after k = 0 when hi = 0); one
// warp per graph
template <typename real>
__device__ void rw_moments_t(int graphs, int stride, double lambda, double tol, int max_terms, unsigned char* blob,
                             long long o_node, long long o_ptr, long long o_idx, long long o_w, long long o_exp,
                             long long o_hi, long long o_hmax, unsigned char* scratch, long long s_v, long long s_t,
                             long long s_m, long long s_held, int smem_n) {
    const int* node_off = RW_PTR(const int, blob, o_node);
    const int* ptr = RW_PTR(const int, blob, o_ptr);
    const int* idx = RW_PTR(const int, blob, o_idx);
    const double* w = o_w >= 0 ? RW_PTR(const double, blob, o_w) : nullptr;  // null: all weights 1
    const int* ex = RW_PTR(const int, blob, o_exp);
    const double* hi = RW_PTR(const double, blob, o_hi);
    const double hmax = __longlong_as_double(*RW_PTR(const long long, blob, o_hmax));
    real* v = RW_PTR(real, scratch, s_v);
    real* t = RW_PTR(real, scratch, s_t);
    real* moments = RW_PTR(real, scratch, s_m);
    int* held = RW_PTR(int, scratch, s_held);
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int g = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < graphs; g += warps) {
        long long off = node_off[g], n = node_off[g + 1] - off;
        real* m = moments + (long long)g * stride;
        double rho = hi[g];
        // enough terms for the partner with the largest 2^e hi (plus a margin for rounding)
        int need = rw_terms(ldexp(lambda * rho * hmax, ex[g]) * (1.0 + 1e-12), tol, max_terms);
        int terms = need > max_terms ? stride : min(need + 2, stride);
        if (lane == 0) {
            held[g] = terms;
            m[0] = (real)n;
        }
        if (rho == 0.0 || n == 0) {
            for (int k = 1 + lane; k < terms; k += 32) m[k] = (real)0;
            continue;
        }
        real* vg = v + off;
        real* tg = t + off;
        if (n <= smem_n) {
            vg = reinterpret_cast<real*>(rw_smem + (long long)(threadIdx.x >> 5) * 2 * smem_n);
            tg = vg + smem_n;
        }
        for (long long i = lane; i < n; i += 32) vg[i] = (real)1;
        __syncwarp();
        for (int k = 1; k < terms; ++k) {
            real s = (real)0;
            for (long long i = lane; i < n; i += 32) {
                real y = (real)0;
                for (long long p = ptr[off + i]; p < ptr[off + i + 1]; ++p) y += (real)(w ? w[p] : 1.0) * vg[idx[p]];
                y = (real)((double)y / rho);
                tg[i] = y;
                s += y;
            }
            s = rw_warp_sum(s);
            if (lane == 0) m[k] = s;
            real* swap = vg;
            vg = tg;
            tg = swap;
            __syncwarp();
        }
        __syncwarp();
    }
}

#define RW_MOMENTS(NAME, REAL)                                                                                        \
    extern "C" __global__ void NAME(int graphs, int stride, double lambda, double tol, int max_terms,                \
                                    unsigned char* blob, long long o_node, long long o_ptr, long long o_idx,          \
                                    long long o_w, long long o_exp, long long o_hi, long long o_hmax,                \
                                    unsigned char* scratch, long long s_v, long long s_t, long long s_m,             \
                                    long long s_held, int smem_n) {                                                  \
        rw_moments_t<REAL>(graphs, stride, lambda, tol, max_terms, blob, o_node, o_ptr, o_idx, o_w, o_exp, o_hi,      \
                           o_hmax, scratch, s_v, s_t, s_m, s_held, smem_n);                                          \
    }
RW_MOMENTS(rw_moments_f64, double)
RW_MOMENTS(rw_moments_f32, float)

// out[a * ny + b] = sum_{k <= terms} r^k m_a[k] m_b[k] for graphs a and y0 + b, or -1 where the
// series needs more than max_terms terms (or more than the moments held)
template <typename real>
__device__ void rw_pairs_t(int nx, int ny, int y0, int stride, double lambda, double tol, int max_terms,
                           unsigned char* blob, long long o_exp, long long o_hi, long long o_out,
                           unsigned char* scratch, long long s_m, long long s_held) {
    const int* ex = RW_PTR(const int, blob, o_exp);
    const double* hi = RW_PTR(const double, blob, o_hi);
    double* out = RW_PTR(double, blob, o_out);
    const real* moments = RW_PTR(const real, scratch, s_m);
    const int* held = RW_PTR(const int, scratch, s_held);
    long long total = (long long)nx * ny;
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < total;
         p += (long long)gridDim.x * blockDim.x) {
        int a = (int)(p / ny), b = y0 + (int)(p % ny);
        double lam = ldexp(lambda, ex[a] + ex[b]);
        double r = lam * hi[a] * hi[b];
        int terms = rw_terms(r, tol, max_terms);
        if (terms > max_terms || terms >= held[a] || terms >= held[b]) {
            out[p] = -1.0;
            continue;
        }
        const real* ma = moments + (long long)a * stride;
        const real* mb = moments + (long long)b * stride;
        real s = (real)0, rk = (real)1, rr = (real)r;
        for (int k = 0; k <= terms; ++k) {
            s += rk * ma[k] * mb[k];
            rk *= rr;
        }
        out[p] = (double)s;
    }
}

#define RW_PAIRS(NAME, REAL)                                                                                          \
    extern "C" __global__ void NAME(int nx, int ny, int y0, int stride, double lambda, double tol, int max_terms,    \
                                    unsigned char* blob, long long o_exp, long long o_hi, long long o_out,            \
                                    unsigned char* scratch, long long s_m, long long s_held) {                       \
        rw_pairs_t<REAL>(nx, ny, y0, stride, lambda, tol, max_terms, blob, o_exp, o_hi, o_out, scratch, s_m,         \
                         s_held);                                                                                     \
    }
RW_PAIRS(rw_pairs_f64, double)
RW_PAIRS(rw_pairs_f32, float)
