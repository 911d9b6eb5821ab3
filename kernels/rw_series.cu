// The moment series of the geometric random-walk kernel on the GPU
// (src/mgk/gpu/rw_series.rs; the algorithm is RandomWalkKernel's, src/mgk/rw.rs):
//
//   rw_bounds:  one warp per graph: Collatz–Wielandt bounds lo <= rho(W) <= hi
//               after power steps on W + I (the CPU's bounds_of, step by step;
//               products and sums rounded as the CPU rounds them: no FMA);
//   rw_moments: one warp per graph: m_k / hi^k = 1^T (W/hi)^k 1, k = 0..K-1;
//   rw_pairs:   one thread per pair: k = sum_{k<=terms} r^k m_k m'_k with
//               r = lambda 2^(e+e') hi hi', terms = ceil(ln(tol (1 - r)) / ln r)
//               (r = 0: 1), -1 where terms > max_terms (the host solves those).
//
// Graphs are CSR with global row pointers `ptr` (n_total + 1), local column
// indices `idx` and weights `w` (already scaled by 2^-e on the host); graph g
// owns rows node_off[g] .. node_off[g+1]. `v`, `t` are scratch of n_total.

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

// y_i = sum_j w_ij x_j over the rows of one graph, rounded as the CPU does
__device__ double rw_row(const long long* ptr, const int* idx, const double* w, const double* x, long long row) {
    double s = 0.0;
    for (long long p = ptr[row]; p < ptr[row + 1]; ++p) s = __dadd_rn(s, __dmul_rn(w[p], x[idx[p]]));
    return s;
}

// One warp per graph (no block barriers: lanes exchange through shuffles and
// __syncwarp), warps striding over the graphs.
extern "C" __global__ void rw_bounds(int graphs, const long long* node_off, const long long* ptr, const int* idx,
                                     const double* w, double* v, double* t, double* lo_out, double* hi_out) {
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
        if (lane == 0) { lo_out[g] = lo; hi_out[g] = hi; }
        __syncwarp();
    }
}

// moments[g * terms + k] = m_k / hi^k for k < terms (zeros after k = 0 when
// hi = 0); one warp per graph
template <typename real>
__device__ void rw_moments_t(int graphs, int terms, const long long* node_off, const long long* ptr, const int* idx,
                             const double* w, const double* hi, real* v, real* t, real* moments) {
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int g = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; g < graphs; g += warps) {
        long long off = node_off[g], n = node_off[g + 1] - off;
        real* m = moments + (long long)g * terms;
        double rho = hi[g];
        if (lane == 0) m[0] = (real)n;
        if (rho == 0.0 || n == 0) {
            for (int k = 1 + lane; k < terms; k += 32) m[k] = (real)0;
            continue;
        }
        real* vg = v + off;
        real* tg = t + off;
        for (long long i = lane; i < n; i += 32) vg[i] = (real)1;
        __syncwarp();
        for (int k = 1; k < terms; ++k) {
            real s = (real)0;
            for (long long i = lane; i < n; i += 32) {
                real y = (real)0;
                for (long long p = ptr[off + i]; p < ptr[off + i + 1]; ++p) y += (real)w[p] * vg[idx[p]];
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

extern "C" __global__ void rw_moments_f64(int graphs, int terms, const long long* node_off, const long long* ptr,
                                          const int* idx, const double* w, const double* hi, double* v, double* t,
                                          double* moments) {
    rw_moments_t<double>(graphs, terms, node_off, ptr, idx, w, hi, v, t, moments);
}
extern "C" __global__ void rw_moments_f32(int graphs, int terms, const long long* node_off, const long long* ptr,
                                          const int* idx, const double* w, const double* hi, float* v, float* t,
                                          float* moments) {
    rw_moments_t<float>(graphs, terms, node_off, ptr, idx, w, hi, v, t, moments);
}

// out[a * ny + b] = sum_{k <= terms} r^k mx[a][k] my[b][k], or -1 where the
// series needs more than max_terms terms (or more than the moments held)
template <typename real>
__device__ void rw_pairs_t(int nx, int ny, int terms_held, double lambda, double tol, int max_terms, const real* mx,
                           const double* hx, const int* ex, const real* my, const double* hy, const int* ey,
                           double* out) {
    long long total = (long long)nx * ny;
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < total;
         p += (long long)gridDim.x * blockDim.x) {
        int a = (int)(p / ny), b = (int)(p % ny);
        double lam = ldexp(lambda, ex[a] + ey[b]);
        double r = lam * hx[a] * hy[b];
        int terms;
        if (r == 0.0) {
            terms = 1;
        } else if (!(r < 1.0)) {
            terms = max_terms + 1;
        } else {
            double c = ceil(log(tol * (1.0 - r)) / log(r));
            terms = c > (double)max_terms ? max_terms + 1 : (int)c;
        }
        if (terms > max_terms || terms >= terms_held) {
            out[p] = -1.0;
            continue;
        }
        const real* ma = mx + (long long)a * terms_held;
        const real* mb = my + (long long)b * terms_held;
        real s = (real)0, rk = (real)1, rr = (real)r;
        for (int k = 0; k <= terms; ++k) {
            s += rk * ma[k] * mb[k];
            rk *= rr;
        }
        out[p] = (double)s;
    }
}

extern "C" __global__ void rw_pairs_f64(int nx, int ny, int terms_held, double lambda, double tol, int max_terms,
                                        const double* mx, const double* hx, const int* ex, const double* my,
                                        const double* hy, const int* ey, double* out) {
    rw_pairs_t<double>(nx, ny, terms_held, lambda, tol, max_terms, mx, hx, ex, my, hy, ey, out);
}
extern "C" __global__ void rw_pairs_f32(int nx, int ny, int terms_held, double lambda, double tol, int max_terms,
                                        const float* mx, const double* hx, const int* ex, const float* my,
                                        const double* hy, const int* ey, double* out) {
    rw_pairs_t<float>(nx, ny, terms_held, lambda, tol, max_terms, mx, hx, ex, my, hy, ey, out);
}
