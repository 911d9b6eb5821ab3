// Batched marginalized graph kernel, second part: the PCG of one pair (vectors in shared or in
// global memory) and the value kernel. Appended after kernels/mgk_xmv.cu (the design, the
// launch macros, the staging and the XMV of each scheme: see its opening comment).

// The pair a block is working on.
struct Pair {
    int na0, n1, nb0, n2, N;
    Staged S;
    real* p;     // shared (or global for a pair too large for shared memory), N
    real* y;     // as p, N
    real* minv;  // global scratch, N; null for a pair with p and y in global memory (computed)
    real* diag;  // as minv
};

// diag(A) at product node idx = i * n2 + j: D V^-1 = d_i d'_j dscale / kappa_node(v_i, v'_j).
static __device__ __forceinline__ real diag_at(const GraphSet& A, const GraphSet& B, const Pair& P, const int idx,
                                               const real dscale, const real* __restrict__ theta) {
    const int i = idx / P.n2, j = idx - i * P.n2;
    const real d = A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale;
    const real kv = kappa_node(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta);
    return d / kv;
}

// Stages the pair (ga of A, gb of B) and computes diag(A) = D V^-1 and M^-1 into scratch.
// With gpy null, p and y go to shared memory before the staged graphs; else (a pair whose
// vectors do not fit in shared memory) p and y are gpy[0, N) and gpy[N, 2N) in global memory
// and the graphs are staged in shared memory, or at gstage in global memory when not null (a
// pair whose graphs do not fit either; read back through L1 and L2); such a pair's passes over
// its vectors are bound by memory traffic, so it stores neither diag(A) nor M^-1 (P.diag and
// P.minv null): the PCG computes them where it needs them (diag_at, the same values).
static __device__ __forceinline__ void pair_setup(const GraphSet& A, const GraphSet& B, int ga, int gb, real* sp,
                                                  real* scratch_minv, real* scratch_diag, const real dscale,
                                                  const real* __restrict__ theta, Pair& P, real* gpy,
                                                  unsigned char* gstage) {
    P.na0 = A.node_off[ga];
    P.n1 = A.node_off[ga + 1] - P.na0;
    P.nb0 = B.node_off[gb];
    P.n2 = B.node_off[gb + 1] - P.nb0;
    P.N = P.n1 * P.n2;
    P.minv = gpy ? nullptr : scratch_minv;
    P.diag = gpy ? nullptr : scratch_diag;
    unsigned char* base;
    if (gpy) {
        P.p = gpy;
        P.y = gpy + P.N;
        base = gstage ? gstage : reinterpret_cast<unsigned char*>(sp);
    } else {
        P.p = sp;
        P.y = sp + P.N;
        base = reinterpret_cast<unsigned char*>(sp) + align8(2 * sizeof(real) * (size_t)P.N);
    }
    stage_pair(A, ga, P.n1, B, gb, base, P.S);
    #pragma unroll 1
    for (int idx = threadIdx.x; idx < P.N && P.diag; idx += (int)blockDim.x) {
        const real dg = diag_at(A, B, P, idx, dscale, theta);
        P.diag[idx] = dg;
        P.minv[idx] = (real)1 / dg;
    }
    __syncthreads();
}

// Right-hand sides of the solves.
enum Rhs { RHS_DEGREE = 0, RHS_START = 1 };

// Solves A x = b by Jacobi PCG from x0 = 0 (b = D 1 or p p') for a pair whose p and y are in
// shared memory; x, r, M^-1 and diag(A) in global scratch. Returns the number of iterations.
// On return x holds the solution (all threads synchronized).
static __device__ __forceinline__ int pcg(const GraphSet& A, const GraphSet& B, const Pair& P, const Rhs rhs,
                                          const real dscale, const real* __restrict__ theta, const real tol,
                                          const int max_iter, real* __restrict__ x, real* __restrict__ r,
                                          real* red) {
    const int tid = threadIdx.x, N = P.N, n2 = P.n2;
    real* p = P.p;
    real* y = P.y;
    real rz = 0, bb = 0;
    #pragma unroll 1
    for (int idx = tid; idx < N; idx += (int)blockDim.x) {
        const int i = idx / n2, j = idx - i * n2;
        const real b = rhs == RHS_DEGREE ? A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale
                                         : A.start[P.na0 + i] * B.start[P.nb0 + j];
        const real z = P.minv[idx] * b;
        x[idx] = 0;
        r[idx] = b;
        p[idx] = z;
        y[idx] = 0;
        rz += b * z;
        bb += b * b;
    }
    block_sum2(rz, bb, red);
    const real thresh = tol * tol * bb;
    int it = 0;
    // b = 0: x = 0 is exact
    if (!(bb > (real)0)) return 0;
    while (it < max_iter) {
        __syncthreads();
        xmv(P.S, P.n1, n2, p, y, theta);
        __syncthreads();
        // each pass: a thread's entries idx = i0 + u * blockDim.x, u < MGK_VEC_BATCH, loaded
        // together, then computed and stored in order
        const int bd = (int)blockDim.x;
        real pap = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real dv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH], yv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                dv[u] = in ? P.diag[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
                yv[u] = in ? y[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    const real ap = dv[u] * pv[u] - yv[u];
                    y[idx] = ap;
                    pap += pv[u] * ap;
                }
            }
        }
        pap = block_sum(pap, red);
        const real alpha = rz / pap;
        real rr = 0, rzn = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real xv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH], rv[MGK_VEC_BATCH], yv[MGK_VEC_BATCH], mv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                xv[u] = in ? x[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
                rv[u] = in ? r[idx] : (real)0;
                yv[u] = in ? y[idx] : (real)0;
                mv[u] = in ? P.minv[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    x[idx] = xv[u] + alpha * pv[u];
                    const real rn = rv[u] - alpha * yv[u];
                    r[idx] = rn;
                    rr += rn * rn;
                    rzn += rn * mv[u] * rn;
                }
            }
        }
        block_sum2(rr, rzn, red);
        ++it;
        if (!(rr > thresh)) break;
        const real beta = rzn / rz;
        rz = rzn;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real mv[MGK_VEC_BATCH], rv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                mv[u] = in ? P.minv[idx] : (real)0;
                rv[u] = in ? r[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    p[idx] = mv[u] * rv[u] + beta * pv[u];
                    y[idx] = 0;
                }
            }
        }
    }
    __syncthreads();
    return it;
}

// The same solve for a pair whose p and y are in global memory (pair_setup with gpy): bound by
// the passes over its vectors, so it reorganizes them to move fewer bytes; same iterates in
// exact arithmetic, same start, preconditioner and stopping rule.
//  - diag(A) and M^-1 are computed where needed (diag_at), never stored (P.diag null);
//  - y starts each iteration at diag(A) p (written by the pass that writes p), the xmv
//    subtracts ((W (x) W') .* E) p, so y = A p when it ends, and p' A p is the sum of
//    d p^2 (summed where p is written) less the xmv's own sum of p' ((W (x) W') .* E) p
//    (MGK_XMV_PAP; the tile-pair scheme sums p . y in a pass of its own): no pass computes A p;
//  - the update of r reads r and y only; with x null (the value kernel without nodal output)
//    x is never stored: *kx gets this thread's share of K's sum p p' . x = sum_k alpha_k
//    (p p' . p_k), the sum p p' . p_k taken where p_k is written.
// Per iteration: the xmv (p, y), one pass reading r and y writing r, one reading r and p
// writing p and y: seven vector streams, against eleven for the shared-memory pcg's passes.
static __device__ __forceinline__ int pcg_global(const GraphSet& A, const GraphSet& B, const Pair& P, const Rhs rhs,
                                                 const real dscale, const real* __restrict__ theta, const real tol,
                                                 const int max_iter, real* __restrict__ x, real* __restrict__ r,
                                                 real* red, double* kx) {
    const int tid = threadIdx.x, N = P.N, n1 = P.n1, n2 = P.n2, bd = (int)blockDim.x;
    real* p = P.p;
    real* y = P.y;
    // this thread's shares of rz, b'b, d p^2 (for p'Ap) and p p' . p (for K without x)
    real rz = 0, bb = 0, dpp = 0, spp = 0;
    #pragma unroll 1
    for (int idx = tid; idx < N; idx += bd) {
        const int i = idx / n2, j = idx - i * n2;
        const real b = rhs == RHS_DEGREE ? A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale
                                         : A.start[P.na0 + i] * B.start[P.nb0 + j];
        const real d = diag_at(A, B, P, idx, dscale, theta);
        const real z = ((real)1 / d) * b;
        if (x) x[idx] = 0;
        r[idx] = b;
        p[idx] = z;
        y[idx] = d * z;
        rz += b * z;
        bb += b * b;
        dpp += d * z * z;
        if (!x) spp += A.start[P.na0 + i] * B.start[P.nb0 + j] * z;
    }
    block_sum2(rz, bb, red);
    const real thresh = tol * tol * bb;
    int it = 0;
    // b = 0: x = 0 is exact
    if (!(bb > (real)0)) return 0;
    while (it < max_iter) {
        __syncthreads();
        const real pwp = xmv<true>(P.S, n1, n2, p, y, theta, (real)-1);
        __syncthreads();
        real pap = 0;
        if (MGK_XMV_PAP) {
            pap = dpp - pwp;
        } else {
            #pragma unroll 1
            for (int idx = tid; idx < N; idx += bd) pap += p[idx] * y[idx];
        }
        pap = block_sum(pap, red);
        const real alpha = rz / pap;
        if (!x) *kx += (double)alpha * (double)spp;
        real rr = 0, rzn = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real xv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH], rv[MGK_VEC_BATCH], yv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                xv[u] = in && x ? x[idx] : (real)0;
                pv[u] = in && x ? p[idx] : (real)0;
                rv[u] = in ? r[idx] : (real)0;
                yv[u] = in ? y[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    if (x) x[idx] = xv[u] + alpha * pv[u];
                    const real rn = rv[u] - alpha * yv[u];
                    r[idx] = rn;
                    rr += rn * rn;
                    rzn += rn * ((real)1 / diag_at(A, B, P, idx, dscale, theta)) * rn;
                }
            }
        }
        block_sum2(rr, rzn, red);
        ++it;
        if (!(rr > thresh)) break;
        const real beta = rzn / rz;
        rz = rzn;
        dpp = 0;
        spp = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real rv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                rv[u] = in ? r[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    const real d = diag_at(A, B, P, idx, dscale, theta);
                    const real pn = ((real)1 / d) * rv[u] + beta * pv[u];
                    p[idx] = pn;
                    y[idx] = d * pn;
                    dpp += d * pn * pn;
                    if (!x) {
                        const int i = idx / n2, j = idx - i * n2;
                        spp += A.start[P.na0 + i] * B.start[P.nb0 + j] * pn;
                    }
                }
            }
        }
    }
    __syncthreads();
    return it;
}

#ifndef MGK_GRAD
extern "C" __global__ void __launch_bounds__(1024) MGK_KERNEL_NAME(
    const GraphSet A, const GraphSet B,
    const int* __restrict__ jobs,        // [2 * n_jobs] (graph in A, graph in B)
    const int n_jobs,
    const real* __restrict__ theta_g,    // hyperparameters
    const real dscale,                   // 1 / (1 - q)^2
    const real tol,                      // relative residual tolerance
    const int max_iter,
    const int lmin,
    real* __restrict__ scratch,          // [gridDim.x * (4 or 6) * scratch_n]
    const long long scratch_n,           // largest N of any job
    const long long shared_n,            // jobs with N > shared_n keep p and y in global scratch
    const unsigned char* __restrict__ stage_global,  // null, or per job 1: stage the graphs in gstage
    unsigned char* __restrict__ gstage,  // [gridDim.x * gstage_bytes] global staging
    const long long gstage_bytes,
    double* __restrict__ out,            // [n_jobs] K
    int* __restrict__ iters,             // [n_jobs] PCG iterations
    double* __restrict__ nodal,          // null, or the nodal outputs: job k's N values at nodal_off[k]
    const long long* __restrict__ nodal_off,
    unsigned int* __restrict__ counter)  // job counter, 0 at launch
{
    extern __shared__ double smem_d[];
    real* sp = reinterpret_cast<real*>(smem_d);
    __shared__ real red[66];
    __shared__ double redd[66];
    __shared__ int s_job;
    __shared__ real s_theta[MGK_MAX_THETA];
    #pragma unroll 1
    for (int i = threadIdx.x; i < MGK_MAX_THETA; i += (int)blockDim.x) s_theta[i] = theta_g[i];
    const real* theta = s_theta;

    // per block: x, r, M^-1, diag(A), and (when some job has N > shared_n) p and y
    const int nvec = shared_n < scratch_n ? 6 : 4;
    real* x = scratch + (long long)blockIdx.x * nvec * scratch_n;
    real* r = x + scratch_n;
    real* minv = r + scratch_n;
    real* diag = minv + scratch_n;
    real* gpy = diag + scratch_n;
    const int tid = threadIdx.x;

    for (;;) {
        const int job = next_job(counter, &s_job);
        if (job >= n_jobs) return;
        const int ga = jobs[2 * job], gb = jobs[2 * job + 1];
        const int N = (A.node_off[ga + 1] - A.node_off[ga]) * (B.node_off[gb + 1] - B.node_off[gb]);
        if (N == 0) {
            if (tid == 0) {
                out[job] = 0.0;
                iters[job] = 0;
            }
            continue;
        }
        Pair P;
        int it;
        // K's sum p p' . x, when the PCG does not store x (vectors in global memory, no nodal output)
        double kx = 0;
        real* xk = nodal ? x : nullptr;
        // one inlined copy per placement, so that the compiler sees what is in shared memory
        // (shared loads and atomics rather than generic ones)
#if MGK_GLOBAL_VECTORS && MGK_GLOBAL_COPIES == 1
        if (N > shared_n) {
            unsigned char* gs = stage_global && stage_global[job] ? gstage + blockIdx.x * gstage_bytes : nullptr;
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, gs);
            it = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, xk, r, red, &kx);
        } else
#elif MGK_GLOBAL_VECTORS
        if (N > shared_n && stage_global && stage_global[job]) {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, gstage + blockIdx.x * gstage_bytes);
            it = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, xk, r, red, &kx);
        } else if (N > shared_n) {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, nullptr);
            it = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, xk, r, red, &kx);
        } else
#else
        (void)stage_global;
        (void)gstage;
        (void)gstage_bytes;
        (void)gpy;
        (void)xk;
#endif
#if MGK_SHARED_VECTORS
        {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, nullptr, nullptr);
            it = pcg(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, x, r, red);
        }
#else
        {
            // this image has no shared-memory copy (the host launches it only when every pair's
            // vectors are in global memory): a pair that should not be here stays poisoned
            if (tid == 0) iters[job] = -1;
            continue;
        }
#endif

        const bool has_x = nodal || N <= shared_n;
        double k = has_x ? 0.0 : kx;
        double* nd = nodal ? nodal + nodal_off[job] : nullptr;
        #pragma unroll 1
        for (int idx = tid; idx < N && (has_x || lmin); idx += (int)blockDim.x) {
            const int i = idx / P.n2, j = idx - i * P.n2;
            const double pp = (double)A.start[P.na0 + i] * (double)B.start[P.nb0 + j];
            double v = has_x ? (double)x[idx] : 0.0;
            if (lmin) v -= (double)kappa_node(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta);
            v *= pp;
            if (nd) nd[idx] = v;
            k += v;
        }
        k = block_sum(k, redd);
        if (tid == 0) {
            out[job] = k;
            iters[job] = it;
        }
    }
}
#endif  // MGK_GRAD
