// The moment series of the geometric random-walk kernel on the GPU
// (src/rw/gpu/series/; the algorithm is RandomWalkKernel's, src/rw/). One call is
// one upload, three launches on one stream and one download:
//
//   rw_bounds:  one block per graph, threads over its rows: Collatz–Wielandt bounds
//               lo <= rho(W) <= hi after power steps on W + I (the CPU's bounds_of, step by
//               step; products and sums rounded as the CPU rounds them: no FMA; min and max
//               are exact, so the block's reduction order does not matter); and
//               hmax = max_g 2^e_g hi_g (an atomic max over the bits of a non-negative double);
//   rw_moments: one block per graph: m_k / hi^k = 1^T (W/hi)^k 1 for k < held_g, where
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
// the exponents e and hmax (0); the outputs (lo, hi, out) follow in the same device buffer,
// poisoned by a memset (every bit set: NaN), and come back in one download. Pairs are (a, y0 + b) for a < nx, b < ny of the one list.
// `scratch` (offsets s_*) holds the power vectors, the moments and held_g. Where every graph
// has at most smem_n nodes (smem_n > 0), each block keeps its power vectors in dynamic shared
// memory instead (2 * smem_n doubles): they are rewritten at every step, and global stores
// would send the next step's reads to L2. The pairs of the symmetric Gram (y0 = 0) are
// computed in the order (min, max), so that (a, b) and (b, a) are equal to the bit.

extern __shared__ double rw_smem[];

#define RW_PTR(T, base, off) reinterpret_cast<T*>((base) + (off))

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

// y_i = sum_j w_ij x_j over the rows of one graph, rounded as the CPU does (unrolled: the
// loads go first, the sums stay in CSR order)
__device__ double rw_row(const int* ptr, const int* idx, const double* w, const double* x, long long row) {
    double s = 0.0;
    const int p1 = ptr[row + 1];
#pragma unroll 4
    for (int p = ptr[row]; p < p1; ++p) s = __dadd_rn(s, __dmul_rn(w ? w[p] : 1.0, x[idx[p]]));
    return s;
}

// Block-wide reductions of the per-graph kernels: each warp's lane 0 leaves its value in
// `red[slot][warp]`, and after the barrier every thread combines the warps in the same order.
#define RW_MAX_WARPS 8
// rw_bounds keeps the first entries of a thread's row in registers (the rest is read from
// the CSR at every step).
#define RW_ROW_REGS 8

// y_i = sum_j w_ij x_j over row `row` whose first RW_ROW_REGS entries (columns cj, weights
// cw) are in registers, in CSR order and rounded as rw_row: the neighbors' values are all
// loaded before the dependent sums.
__device__ double rw_row_regs(const int* idx, const double* w, const double* x, int p0, int p1,
                              const int (&cj)[RW_ROW_REGS], const double (&cw)[RW_ROW_REGS]) {
    double xs[RW_ROW_REGS];
#pragma unroll
    for (int k = 0; k < RW_ROW_REGS; ++k) xs[k] = x[cj[k]];
    double s = 0.0;
#pragma unroll
    for (int k = 0; k < RW_ROW_REGS; ++k)
        if (p0 + k < p1) s = __dadd_rn(s, __dmul_rn(cw[k], xs[k]));
#pragma unroll 4
    for (int p = p0 + RW_ROW_REGS; p < p1; ++p) s = __dadd_rn(s, __dmul_rn(w ? w[p] : 1.0, x[idx[p]]));
    return s;
}

// One block per graph (blocks striding over the graphs), threads striding over its rows,
// so that a power step costs about one row's latency plus two barriers. Where the graph has
// no more rows than the block has threads, each thread keeps its row's bounds and first
// entries in registers.
extern "C" __global__ void rw_bounds(int graphs, unsigned char* blob, long long o_node, long long o_ptr, long long o_idx,
                                     long long o_w, long long o_exp, long long o_lo, long long o_hi, long long o_hmax,
                                     unsigned char* scratch, long long s_v, long long s_t, int smem_n) {
    __shared__ double red[3][RW_MAX_WARPS];
    __shared__ int red_small[RW_MAX_WARPS];
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
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nw = blockDim.x >> 5;
    for (int g = blockIdx.x; g < graphs; g += gridDim.x) {
        long long off = node_off[g], n = node_off[g + 1] - off;
        if (n == 0) {
            if (tid == 0) { lo_out[g] = 0.0; hi_out[g] = 0.0; }
            continue;
        }
        double* vg = v + off;
        double* tg = t + off;
        if (n <= smem_n) {
            vg = rw_smem;
            tg = rw_smem + smem_n;
        }
        for (long long i = tid; i < n; i += blockDim.x) vg[i] = 1.0;
        // one row per thread: its bounds and first entries in registers (column 0, weight 1
        // past its end: loaded, never added)
        const bool one = n <= (long long)blockDim.x;
        int p0 = 0, p1 = 0;
        int cj[RW_ROW_REGS];
        double cw[RW_ROW_REGS];
        if (one && tid < n) {
            p0 = ptr[off + tid];
            p1 = ptr[off + tid + 1];
        }
#pragma unroll
        for (int k = 0; k < RW_ROW_REGS; ++k) {
            const bool in = p0 + k < p1;
            cj[k] = in ? idx[p0 + k] : 0;
            cw[k] = in && w ? w[p0 + k] : 1.0;
        }
        __syncthreads();
        double lo = 0.0, hi = inf;
        for (int it = 0; it < 200; ++it) {
            // (W v)_i / v_i bounds rho; v + W v (the step on W + I) goes to t. A v_i below
            // 1e-250 left by the previous step's normalization ends the iteration there (the
            // CPU checks it right after normalizing; here it joins this step's reductions).
            double l = inf, h = 0.0, s = 0.0;
            int small = 0;
            for (long long i = tid; i < n; i += blockDim.x) {
                double x = vg[i];
                double y = one ? rw_row_regs(idx, w, vg, p0, p1, cj, cw) : rw_row(ptr, idx, w, vg, off + i);
                double q = y / x;
                l = fmin(l, q);
                h = fmax(h, q);
                double z = x + y;
                tg[i] = z;
                s = fmax(s, z);
                small |= x < 1e-250;
            }
            for (int o = 16; o > 0; o >>= 1) {
                l = fmin(l, __shfl_xor_sync(0xffffffffu, l, o));
                h = fmax(h, __shfl_xor_sync(0xffffffffu, h, o));
                s = fmax(s, __shfl_xor_sync(0xffffffffu, s, o));
            }
            small = __any_sync(0xffffffffu, small);
            if (lane == 0) {
                red[0][warp] = l;
                red[1][warp] = h;
                red[2][warp] = s;
                red_small[warp] = small;
            }
            __syncthreads();  // the reads of v are done; the warps' values are in red
#pragma unroll
            for (int k = 0; k < RW_MAX_WARPS; ++k) {
                if (k < nw) {
                    l = fmin(l, red[0][k]);
                    h = fmax(h, red[1][k]);
                    s = fmax(s, red[2][k]);
                    small |= red_small[k];
                }
            }
            if (small) break;
            lo = fmax(lo, l);
            hi = fmin(hi, h);
            if (hi - lo <= 1e-9 * hi) break;
            if (s == 0.0 || !isfinite(s)) break;
            // each thread normalizes the rows it wrote
            for (long long i = tid; i < n; i += blockDim.x) vg[i] = tg[i] / s;
            __syncthreads();  // v is whole again; red may be rewritten
        }
        if (tid == 0) {
            lo_out[g] = lo;
            hi_out[g] = hi;
            double scaled = ldexp(hi, ex[g]);
            if (scaled >= 0.0) atomicMax(hmax, (unsigned long long)__double_as_longlong(scaled));
        }
        __syncthreads();  // before the next graph reuses the vectors and red
    }
}

// moments[g * stride + k] = m_k / hi^k for k < held_g (zeros after k = 0 when hi = 0); one
// block per graph as rw_bounds, the power vectors double-buffered (one barrier per step)
template <typename real>
__device__ void rw_moments_t(int graphs, int stride, double lambda, double tol, int max_terms, unsigned char* blob,
                             long long o_node, long long o_ptr, long long o_idx, long long o_w, long long o_exp,
                             long long o_hi, long long o_hmax, unsigned char* scratch, long long s_v, long long s_t,
                             long long s_m, long long s_held, int smem_n) {
    __shared__ real red[2][RW_MAX_WARPS];
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
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nw = blockDim.x >> 5;
    for (int g = blockIdx.x; g < graphs; g += gridDim.x) {
        long long off = node_off[g], n = node_off[g + 1] - off;
        real* m = moments + (long long)g * stride;
        double rho = hi[g];
        // enough terms for the partner with the largest 2^e hi (plus a margin for rounding)
        int need = rw_terms(ldexp(lambda * rho * hmax, ex[g]) * (1.0 + 1e-12), tol, max_terms);
        int terms = need > max_terms ? stride : min(need + 2, stride);
        if (tid == 0) {
            held[g] = terms;
            m[0] = (real)n;
        }
        if (rho == 0.0 || n == 0) {
            for (int k = 1 + tid; k < terms; k += blockDim.x) m[k] = (real)0;
            continue;
        }
        real* vg = v + off;
        real* tg = t + off;
        if (n <= smem_n) {
            vg = reinterpret_cast<real*>(rw_smem);
            tg = vg + smem_n;
        }
        // one row per thread where the graph fits the block: its bounds stay in registers
        const bool one = n <= (long long)blockDim.x;
        int p0 = 0, p1 = 0;
        for (long long i = tid; i < n; i += blockDim.x) {
            p0 = ptr[off + i];
            p1 = ptr[off + i + 1];
            vg[i] = (real)1;
        }
        __syncthreads();
        for (int k = 1; k < terms; ++k) {
            real s = (real)0;
            for (long long i = tid; i < n; i += blockDim.x) {
                real y = (real)0;
                const int a = one ? p0 : ptr[off + i], b = one ? p1 : ptr[off + i + 1];
#pragma unroll 4
                for (int p = a; p < b; ++p) y += (real)(w ? w[p] : 1.0) * vg[idx[p]];
                y = (real)((double)y / rho);
                tg[i] = y;
                s += y;
            }
            s = rw_warp_sum(s);
            if (lane == 0) red[k & 1][warp] = s;
            __syncthreads();  // t is whole, the reads of v are done, the warps' sums are in red
            if (tid == 0) {
                real total = (real)0;
                for (int j = 0; j < nw; ++j) total += red[k & 1][j];
                m[k] = total;
            }
            real* swap = vg;
            vg = tg;
            tg = swap;
        }
        __syncthreads();  // before the next graph reuses the vectors
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
        // one list (y0 = 0: the symmetric Gram): (a, b) and (b, a) are computed alike, so that
        // the matrix comes back symmetric
        if (y0 == 0 && b < a) {
            int c = a;
            a = b;
            b = c;
        }
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
