// The geometric random-walk kernel by fixed-point iteration on the GPU, for systems that are
// not symmetric (directed graphs), plain and node-labeled (src/rw/gpu/fixed.rs; the
// definition and the convergence rule are the CPU's, src/rw/ and the fixed-point
// fallback of src/solver/bicgstab.rs):
//
//   per pair (G with n nodes, G' with n' nodes, product node (i, i') at i * n' + i'), on the
//   matched product nodes m (equal node classes; every node pair for the plain kernel):
//     b = 1 on m, x_0 = 0,
//     y = b + lambda (W (x) W') x restricted to m   (y = x + r with r = b - (I - lambda P A P) x),
//     stop when ||r|| = ||y - x|| <= tol ||b|| (K = 1^T x of that x), else x <- y;
//     at most max_iter + 1 residuals (the CPU's loop).
//
// One block per pair (blocks stride over the jobs); x and y in a per-block global scratch
// (2 * scratch_n reals). Graphs are CSR with global row pointers, local columns and weights
// scaled by 2^-e on the host (lambda per job is lambda 2^(e + e')); everything the host
// sends is one buffer `blob` at byte offsets o_*; outputs (poisoned by the host): out[job] = K
// (the relative residual reached when status is not 0),
// iters[job] = iterations, status[job] = 0 converged, 1 not within max_iter, 2 a non-finite
// residual (the iteration diverges).

#define RWF_PTR(T, base, off) reinterpret_cast<T*>((base) + (off))

__device__ double rwf_block_sum(double v, double* red) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    __syncthreads();
    if (lane == 0) red[warp] = v;
    __syncthreads();
    double s = 0.0;
    for (int k = 0; k < nw; ++k) s += red[k];
    __syncthreads();
    return s;
}

template <typename real>
__device__ void rw_fixed_t(int n_jobs, int max_iter, double tol, unsigned char* blob, long long o_jobs,
                           long long o_lambda, long long o_node, long long o_ptr, long long o_idx, long long o_w,
                           long long o_cls, long long o_out, long long o_iters, long long o_status, real* scratch,
                           long long scratch_n) {
    const int* jobs = RWF_PTR(const int, blob, o_jobs);
    const double* lambdas = RWF_PTR(const double, blob, o_lambda);
    const long long* node_off = RWF_PTR(const long long, blob, o_node);
    const long long* ptr = RWF_PTR(const long long, blob, o_ptr);
    const int* idx = RWF_PTR(const int, blob, o_idx);
    const double* w = RWF_PTR(const double, blob, o_w);
    const int* cls = RWF_PTR(const int, blob, o_cls);
    double* out = RWF_PTR(double, blob, o_out);
    int* iters = RWF_PTR(int, blob, o_iters);
    int* status = RWF_PTR(int, blob, o_status);
    __shared__ double red[32];
    real* x = scratch + (long long)blockIdx.x * 2 * scratch_n;
    real* y = x + scratch_n;
    for (int job = blockIdx.x; job < n_jobs; job += gridDim.x) {
        const int ga = jobs[2 * job], gb = jobs[2 * job + 1];
        const long long a0 = node_off[ga], b0 = node_off[gb];
        const int n = (int)(node_off[ga + 1] - a0), n2 = (int)(node_off[gb + 1] - b0);
        const long long N = (long long)n * n2;
        const real lam = (real)lambdas[job];
        real* xc = x;
        real* yc = y;
        double bb = 0.0;
        for (long long p = threadIdx.x; p < N; p += blockDim.x) {
            const int i = (int)(p / n2), j = (int)(p - (long long)i * n2);
            xc[p] = (real)0;
            bb += cls[a0 + i] == cls[b0 + j] ? 1.0 : 0.0;
        }
        bb = rwf_block_sum(bb, red);
        const double thresh = tol * sqrt(bb);
        int it = 0, st = 1;
        double rel = 0.0;
        for (;; ++it) {
            double rr = 0.0;
            for (long long p = threadIdx.x; p < N; p += blockDim.x) {
                const int i = (int)(p / n2), j = (int)(p - (long long)i * n2);
                real v = (real)0;
                if (cls[a0 + i] == cls[b0 + j]) {
                    real s = (real)0;
                    for (long long q = ptr[a0 + i]; q < ptr[a0 + i + 1]; ++q) {
                        const real wa = (real)w[q];
                        const real* xr = xc + (long long)idx[q] * n2;
                        real t = (real)0;
                        for (long long q2 = ptr[b0 + j]; q2 < ptr[b0 + j + 1]; ++q2) t += (real)w[q2] * xr[idx[q2]];
                        s += wa * t;
                    }
                    v = (real)1 + lam * s;
                }
                yc[p] = v;
                const double r = (double)v - (double)xc[p];
                rr += r * r;
            }
            rr = rwf_block_sum(rr, red);
            const double rn = sqrt(rr);
            rel = rn / sqrt(bb);
            if (!isfinite(rn)) {
                st = 2;
                break;
            }
            if (rn <= thresh) {
                st = 0;
                break;
            }
            if (it == max_iter) break;
            real* sw = xc;
            xc = yc;
            yc = sw;
        }
        double k = 0.0;
        for (long long p = threadIdx.x; p < N; p += blockDim.x) k += (double)xc[p];
        k = rwf_block_sum(k, red);
        if (threadIdx.x == 0) {
            out[job] = st == 0 ? k : rel;  // the relative residual reached where it failed
            iters[job] = it;
            status[job] = st;
        }
        __syncthreads();
    }
}

#define RW_FIXED(NAME, REAL)                                                                                          \
    extern "C" __global__ void NAME(int n_jobs, int max_iter, double tol, unsigned char* blob, long long o_jobs,     \
                                    long long o_lambda, long long o_node, long long o_ptr, long long o_idx,           \
                                    long long o_w, long long o_cls, long long o_out, long long o_iters,               \
                                    long long o_status, REAL* scratch, long long scratch_n) {                        \
        rw_fixed_t<REAL>(n_jobs, max_iter, tol, blob, o_jobs, o_lambda, o_node, o_ptr, o_idx, o_w, o_cls, o_out,     \
                         o_iters, o_status, scratch, scratch_n);                                                     \
    }
RW_FIXED(rw_fixed_f64, double)
RW_FIXED(rw_fixed_f32, float)
