// Batched marginalized graph kernel with hyperparameter gradients: two PCG solves per pair.
//
// Appended after kernels/mgk_common.cu, mgk_xmv.cu and mgk_pcg.cu (with MGK_GRAD defined, so the
// value-only kernel is left out). Expects, besides the preface of mgk_pcg.cu,
//   kappa_node_grad(a, b, theta, g), kappa_edge_grad(a, b, theta, g): the value, and into g
//     (indexed like theta) d kappa / d log theta_k for the kernel's own slots,
//   MGK_N_THETA: the number of theta slots; MGK_NODE_THETA: the node kernel's (the edge
//     kernel's follow),
//   MGK_GRAD_NAME: the kernel's name.
//
// Per pair, with x = A^-1 D 1 (K = pp'.x - lmin pp'.kv) and z = A^-1 pp' (the adjoint; A is
// symmetric), dK/dlog theta = -z' (dA/dlog theta) x - lmin pp'.dkv, where
//   A = D V^-1 - (W (x) W') .* E,  so
//   node slot s:  sum_k (z_k x_k d_k / kv_k^2 - lmin pp'_k) dkv_k/dlog theta_s,
//   edge slot s:  sum over arc pairs (i->j, i'->j') of z[i,i'] w_ij w'_i'j' dke/dlog theta_s x[j,j'],
//   log q:        2q/(1-q) sum_k z_k (d_k - diag_k x_k)   (D = d d' / (1-q)^2).
// The same sums as MarginalizedGraphKernel's CPU gradient.
//
// Pairs of more than shared_n product nodes (MGK_GLOBAL_VECTORS 1 only) keep p and y in global
// memory and solve by pcg_global, their graphs staged in shared memory or, where stage_global
// says so, in global memory (as in the value kernel); their gradient sums read x, z and diag(A)
// from global memory (diag_at) rather than from shared copies.

#define MGK_N_GRAD (MGK_N_THETA + 1)

extern "C" __global__ void __launch_bounds__(1024) MGK_GRAD_NAME(
    const GraphSet A, const GraphSet B,
    const int* __restrict__ jobs,        // [2 * n_jobs] (graph in A, graph in B)
    const int n_jobs,
    const real* __restrict__ theta_g,    // hyperparameters
    const real dscale,                   // 1 / (1 - q)^2
    const double qfactor,                // 2 q / (1 - q)
    const real tol,                      // relative residual tolerance
    const int max_iter,
    const int lmin,
    real* __restrict__ scratch,          // [gridDim.x * (5 or 7) * scratch_n]
    const long long scratch_n,           // largest N of any job
    const long long shared_n,            // jobs with N > shared_n keep p and y in global scratch
    const unsigned char* __restrict__ stage_global,  // null, or per job 1: stage the graphs in gstage
    unsigned char* __restrict__ gstage,  // [gridDim.x * gstage_bytes] global staging
    const long long gstage_bytes,
    double* __restrict__ out,            // [n_jobs] K
    int* __restrict__ iters,             // [2 * n_jobs] PCG iterations of the two solves
    double* __restrict__ grad,           // [n_jobs * MGK_N_GRAD]: theta slots, then log q
    unsigned int* __restrict__ counter)  // job counter, 0 at launch
{
    extern __shared__ double smem_d[];
    real* sp = reinterpret_cast<real*>(smem_d);
    __shared__ real red[66];
    __shared__ double redd[66];
    __shared__ int s_job;
    __shared__ real s_theta[MGK_MAX_THETA];
    for (int i = threadIdx.x; i < MGK_MAX_THETA; i += (int)blockDim.x) s_theta[i] = theta_g[i];
    const real* theta = s_theta;

    // per block: x, r, M^-1, diag(A), z, and (when some job has N > shared_n) p and y
    const int nvec = shared_n < scratch_n ? 7 : 5;
    real* x = scratch + (long long)blockIdx.x * nvec * scratch_n;
    real* r = x + scratch_n;
    real* minv = r + scratch_n;
    real* diag = minv + scratch_n;
    real* z = diag + scratch_n;
    real* gpy = z + scratch_n;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = (int)(blockDim.x >> 5);

    for (;;) {
        const int job = next_job(counter, &s_job);
        if (job >= n_jobs) return;
        const int ga = jobs[2 * job], gb = jobs[2 * job + 1];
        const int N = (A.node_off[ga + 1] - A.node_off[ga]) * (B.node_off[gb + 1] - B.node_off[gb]);
        if (N == 0) {
            if (tid == 0) {
                out[job] = 0.0;
                iters[2 * job] = 0;
                iters[2 * job + 1] = 0;
                for (int s = 0; s < MGK_N_GRAD; ++s) grad[(long long)job * MGK_N_GRAD + s] = 0.0;
            }
            continue;
        }
        Pair P;
        int it0, it1;
#if MGK_GLOBAL_VECTORS
        const bool gvec = N > shared_n;
        if (gvec) {
            unsigned char* gs = stage_global && stage_global[job] ? gstage + blockIdx.x * gstage_bytes : nullptr;
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, gs);
            it1 = pcg_global(A, B, P, RHS_START, dscale, theta, tol, max_iter, z, r, red, nullptr);
            it0 = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, x, r, red, nullptr);
        } else
#else
        const bool gvec = false;
        (void)shared_n;
        (void)stage_global;
        (void)gstage;
        (void)gstage_bytes;
        (void)gpy;
#endif
        {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, nullptr, nullptr);
            it1 = pcg(A, B, P, RHS_START, dscale, theta, tol, max_iter, z, r, red);
            it0 = pcg(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, x, r, red);
        }
        const int n2 = P.n2;

        // value, node slots and log q: one pass over the product nodes
        double acc[MGK_N_GRAD];
#pragma unroll
        for (int s = 0; s < MGK_N_GRAD; ++s) acc[s] = 0.0;
        double k = 0;
        real g[MGK_MAX_THETA];
#pragma unroll 1
        for (int idx = tid; idx < N; idx += (int)blockDim.x) {
            const int i = idx / n2, j = idx - i * n2;
            const double pp = (double)A.start[P.na0 + i] * (double)B.start[P.nb0 + j];
            const real kv = kappa_node_grad(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta, g);
            const double d = (double)(A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale);
            const double xv = (double)x[idx], zv = (double)z[idx];
            k += pp * (xv - (lmin ? (double)kv : 0.0));
            const double f = zv * xv * d / ((double)kv * (double)kv) - (lmin ? pp : 0.0);
#pragma unroll
            for (int s = 0; s < MGK_NODE_THETA; ++s) acc[s] += f * (double)g[s];
            const real dg = gvec ? diag_at(A, B, P, idx, dscale, theta) : diag[idx];
            acc[MGK_N_THETA] += zv * (d - (double)dg * xv);
        }

        // edge slots: x and z into shared memory (left in global memory for a pair with global
        // vectors), then the XMV's loop with the gradient of kappa_edge
        const real* xs = gvec ? x : P.p;
        const real* zs = gvec ? z : P.y;
#pragma unroll 1
        for (int idx = tid; idx < N && !gvec; idx += (int)blockDim.x) {
            P.p[idx] = x[idx];
            P.y[idx] = z[idx];
        }
        __syncthreads();
        if (MGK_NODE_THETA < MGK_N_THETA) {
            const Staged& S = P.S;
            const int chunks = (S.nz2 + 31) >> 5;
            const int items = P.n1 * chunks;
#pragma unroll 1
            for (int item = warp; item < items; item += nwarps) {
                const int i = item / chunks, c = item - i * chunks;
                const int k0 = S.row_ptr[i], k1 = S.row_ptr[i + 1];
                if (k0 == k1) continue;
                const int kb = c * 32 + lane;
                const bool on = kb < S.nz2;
                const int ks = on ? kb : 0;
                const unsigned int rc = S.rc2[ks];
                const int cb = (int)(rc & 0xffffu);
                const edge_label eb = S.e2[ks];
                real ge[MGK_MAX_THETA];
#pragma unroll
                for (int s = 0; s < MGK_MAX_THETA; ++s) ge[s] = 0;
#pragma unroll 1
                for (int kk = k0; kk < k1; ++kk) {
                    const real v = S.w[kk] * xs[S.col[kk] * n2 + cb];
                    kappa_edge_grad(S.e[kk], eb, theta, g);
#pragma unroll
                    for (int s = MGK_NODE_THETA; s < MGK_N_THETA; ++s) ge[s] += v * g[s];
                }
                if (on) {
                    const double f = (double)S.w2[kb] * (double)zs[i * n2 + (int)(rc >> 16)];
#pragma unroll
                    for (int s = MGK_NODE_THETA; s < MGK_N_THETA; ++s) acc[s] += f * (double)ge[s];
                }
            }
        }
        acc[MGK_N_THETA] *= qfactor;

        k = block_sum(k, redd);
        if (tid == 0) {
            out[job] = k;
            iters[2 * job] = it0;
            iters[2 * job + 1] = it1;
        }
#pragma unroll 1
        for (int s = 0; s < MGK_N_GRAD; ++s) {
            const double v = block_sum(acc[s], redd);
            if (tid == 0) grad[(long long)job * MGK_N_GRAD + s] = v;
        }
    }
}
