// Batched pair systems of the generic Kronecker layer (src/kron/pair_batched.rs): for each job
// (graph ga of A, graph gb of B), with the job's diagonal d, right-hand side b and output
// functional o read from global memory at voff[job],
//   (diag(d) - c (W (x) W') .* E) x = b,   value = o' x,
// by Jacobi PCG (undirected pairs) or Jacobi right-preconditioned BiCGSTAB (pairs with a directed
// graph), from x0 = 0, stopped when ||r|| <= tol ||b|| or after max_iter iterations; with the
// gradient inputs also the adjoint solve A y = o (undirected only: A is symmetric) and
// kx = ((W (x) W') .* E) x. Appended after kernels/mgk_common.cu and kernels/mgk_xmv.cu (row
// scheme): the staging of a pair (stage_pair) and its product (xmv) are the marginalized graph
// kernel's own, so the product costs here what it costs there.
//
// Factored systems (fa not null): d, b and o are not read from memory but generated per job into
// the block's scratch from per-node factors, d_(i,i') = s_d fa[3 i] fb[3 i'] kv^k_d (b, o alike at
// 3 i + 1, 3 i + 2), kv = kappa_node(v_i, v'_i') for k = 1, 1 / kv for k = -1 (lpow: k_d + 1,
// (k_b + 1) << 2, (k_o + 1) << 4), as the CPU evaluates src/kron/pair_factored.rs's form.
//
// Persistent blocks take jobs from an atomic counter (costliest first, ordered on the host); one
// block solves one pair. Per job a flag byte: bit 0, p and y in shared memory (else in the
// block's global scratch); bit 1, the graphs staged in global memory at gstage (else in shared
// memory); bit 2, directed (BiCGSTAB, all vectors in global scratch).

#define KP_VEC_SHARED 1
#define KP_STAGE_GLOBAL 2
#define KP_DIRECTED 4

// Jacobi PCG for A = diag(d) - c K on the staged pair: r (global), p and y (shared or global:
// inlined once per placement so that the compiler sees the shared ones). Returns the iterations;
// *conv = whether the residual reached the tolerance. As the marginalized graph kernel's
// pcg_global (kernels/mgk_pcg.cu), y starts each iteration at d p (written by the pass that
// writes p) and the xmv adds -c K p, so y = A p when it ends, and p' A p is d p^2 (summed where p
// is written) less c p' K p (the xmv's own sum): no pass of its own. With KEEP_X the solution is
// stored in x; without (values only) x is never stored: *ox gets this thread's share of
// o' x = sum_k alpha_k o' p_k, o' p_k taken where p_k is written.
template <bool KEEP_X>
static __device__ __forceinline__ int kp_pcg(const Staged& S, const int n1, const int n2, const real* __restrict__ d,
                                             const real* __restrict__ b, const real* __restrict__ o, const real c,
                                             const real* __restrict__ theta, const real tol, const int max_iter,
                                             real* __restrict__ x, real* __restrict__ r, real* p, real* y, real* red,
                                             bool* conv, double* ox) {
    const int tid = threadIdx.x, bd = (int)blockDim.x, N = n1 * n2;
    // this thread's shares of rz, b'b, d p^2 and (without x) o' p
    real rz = 0, bb = 0, dpp = 0, op = 0;
    double oxs = 0;
    #pragma unroll 1
    for (int idx = tid; idx < N; idx += bd) {
        const real bv = b[idx], dv = d[idx];
        const real z = bv / dv;
        if (KEEP_X) x[idx] = 0;
        r[idx] = bv;
        p[idx] = z;
        y[idx] = dv * z;
        rz += bv * z;
        bb += bv * bv;
        dpp += dv * z * z;
        if (!KEEP_X) op += o[idx] * z;
    }
    block_sum2(rz, bb, red);
    const real thresh = tol * tol * bb;
    *conv = true;
    *ox = 0;
    if (!(bb > (real)0)) return 0;
    int it = 0;
    bool done = false;
    while (it < max_iter) {
        __syncthreads();
        const real pw = xmv<true>(S, n1, n2, p, y, theta, -c);
        __syncthreads();
        const real pap = block_sum(dpp - c * pw, red);
        const real alpha = rz / pap;
        if (!KEEP_X) oxs += (double)alpha * (double)op;
        real rr = 0, rzn = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) {
            if (KEEP_X) x[idx] += alpha * p[idx];
            const real rn = r[idx] - alpha * y[idx];
            r[idx] = rn;
            rr += rn * rn;
            rzn += rn * rn / d[idx];
        }
        block_sum2(rr, rzn, red);
        ++it;
        if (rr <= thresh) {
            done = true;
            break;
        }
        // not positive definite, or a non-finite value: stop, not converged
        if (!(pap > (real)0) || !(rr == rr)) break;
        const real beta = rzn / rz;
        rz = rzn;
        dpp = 0;
        op = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) {
            const real dv = d[idx];
            const real pn = r[idx] / dv + beta * p[idx];
            p[idx] = pn;
            y[idx] = dv * pn;
            dpp += dv * pn * pn;
            if (!KEEP_X) op += o[idx] * pn;
        }
    }
    *conv = done;
    *ox = oxs;
    __syncthreads();
    return it;
}

// Jacobi right-preconditioned BiCGSTAB for a pair with a directed graph; every vector in global
// memory: x, r (holding s within an iteration), r0, p, v, q (p / d, then s / d), t.
static __device__ __forceinline__ int kp_bicgstab(const Staged& S, const int n1, const int n2,
                                                  const real* __restrict__ d, const real* __restrict__ b,
                                                  const real c, const real* __restrict__ theta, const real tol,
                                                  const int max_iter, real* __restrict__ x, real* __restrict__ r,
                                                  real* __restrict__ r0, real* __restrict__ p, real* v, real* q,
                                                  real* t, real* red, bool* conv) {
    const int tid = threadIdx.x, bd = (int)blockDim.x, N = n1 * n2;
    real bb = 0, dummy = 0;
    #pragma unroll 1
    for (int idx = tid; idx < N; idx += bd) {
        const real bv = b[idx];
        x[idx] = 0;
        r[idx] = bv;
        r0[idx] = bv;
        p[idx] = 0;
        v[idx] = 0;
        bb += bv * bv;
    }
    block_sum2(bb, dummy, red);
    const real thresh = tol * tol * bb;
    *conv = true;
    if (!(bb > (real)0)) return 0;
    real rho = 1, alpha = 1, omega = 1;
    int it = 0;
    while (it < max_iter) {
        real rho_new = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) rho_new += r0[idx] * r[idx];
        rho_new = block_sum(rho_new, red);
        if (!(rho_new != (real)0) || !(omega != (real)0)) break;
        const real beta = (rho_new / rho) * (alpha / omega);
        // p = r + beta (p - omega v); q = p / d; v = A q = p - c K q (d q = p)
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) {
            const real pn = it == 0 ? r[idx] : r[idx] + beta * (p[idx] - omega * v[idx]);
            p[idx] = pn;
            q[idx] = pn / d[idx];
            v[idx] = pn;
        }
        __syncthreads();
        xmv<true>(S, n1, n2, q, v, theta, -c);
        __syncthreads();
        real r0v = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) r0v += r0[idx] * v[idx];
        r0v = block_sum(r0v, red);
        if (!(r0v != (real)0)) break;
        alpha = rho_new / r0v;
        // x += alpha q; s = r - alpha v (into r); q = s / d; t = A q = s - c K q
        real ss = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) {
            x[idx] += alpha * q[idx];
            const real s = r[idx] - alpha * v[idx];
            r[idx] = s;
            q[idx] = s / d[idx];
            t[idx] = s;
            ss += s * s;
        }
        ss = block_sum(ss, red);
        ++it;
        if (ss <= thresh) {
            __syncthreads();
            return it;
        }
        __syncthreads();
        xmv<true>(S, n1, n2, q, t, theta, -c);
        __syncthreads();
        real ts = 0, tt = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) {
            ts += t[idx] * r[idx];
            tt += t[idx] * t[idx];
        }
        block_sum2(ts, tt, red);
        if (!(tt > (real)0)) break;
        omega = ts / tt;
        real rr = 0;
        #pragma unroll 1
        for (int idx = tid; idx < N; idx += bd) {
            x[idx] += omega * q[idx];
            const real rn = r[idx] - omega * t[idx];
            r[idx] = rn;
            rr += rn * rn;
        }
        rr = block_sum(rr, red);
        if (rr <= thresh) {
            __syncthreads();
            return it;
        }
        rho = rho_new;
    }
    // the limit reached, a breakdown or a non-finite value
    *conv = false;
    __syncthreads();
    return it;
}

// v = s f f' kv^k for k = (code & 3) - 1.
static __device__ __forceinline__ real kp_factor(const real s, const real f, const real g, const int code,
                                                 const real kv) {
    const real v = s * f * g;
    const int k = (code & 3) - 1;
    return k == 0 ? v : (k > 0 ? v * kv : v / kv);
}

// d, b and o of a factored job into gd, gb, go (see the opening comment).
static __device__ __forceinline__ void kp_generate(const GraphSet& A, const int na0, const GraphSet& B,
                                                   const int nb0, const int n2, const int N,
                                                   const real* __restrict__ fa, const real* __restrict__ fb,
                                                   const real* __restrict__ fs, const int lpow,
                                                   const real* __restrict__ theta, real* __restrict__ gd,
                                                   real* __restrict__ gb, real* __restrict__ go) {
    const bool labels = lpow != (1 | (1 << 2) | (1 << 4));
    const real sd = fs[0], sb = fs[1], so = fs[2];
    #pragma unroll 1
    for (int idx = threadIdx.x; idx < N; idx += (int)blockDim.x) {
        const int i = idx / n2, j = idx - i * n2;
        const real* a = fa + 3 * (long long)(na0 + i);
        const real* b = fb + 3 * (long long)(nb0 + j);
        const real kv = labels ? kappa_node(A.vlab[na0 + i], B.vlab[nb0 + j], theta) : (real)1;
        gd[idx] = kp_factor(sd, a[0], b[0], lpow, kv);
        gb[idx] = kp_factor(sb, a[1], b[1], lpow >> 2, kv);
        go[idx] = kp_factor(so, a[2], b[2], lpow >> 4, kv);
    }
    __syncthreads();
}

extern "C" __global__ void __launch_bounds__(1024) KRON_PAIRS_NAME(
    const GraphSet A, const GraphSet B,
    const int* __restrict__ jobs,            // [2 * n_jobs] (graph in A, graph in B), in launch order
    const int n_jobs,
    const real* __restrict__ theta_g,        // the edge kernel's hyperparameters
    const real c,                            // the coupling
    const real tol,
    const int max_iter,
    const unsigned char* __restrict__ flags, // [n_jobs] KP_* bits
    const long long* __restrict__ voff,      // [n_jobs] first product node of the job's vectors
    const real* __restrict__ dg,             // diagonals
    const real* __restrict__ bg,             // right-hand sides
    const real* __restrict__ og,             // output functionals
    const real* __restrict__ fa,             // null (dg, bg, og given), or the factors of A's nodes [3 * nodes]
    const real* __restrict__ fb,             // with fa: the factors of B's nodes
    const real* __restrict__ fs,             // with fa: the scales s_d, s_b, s_o
    const int lpow,                          // with fa: the label powers (see the opening comment)
    real* __restrict__ xg,                   // null, or the solutions (same offsets)
    real* __restrict__ yg,                   // null, or the adjoint solutions A y = o
    real* __restrict__ kxg,                  // null (with yg), or K x
    real* __restrict__ scratch,              // [gridDim.x * nvec * scratch_n]
    const int nvec,                          // vectors per block in scratch (4, or 7 with directed jobs; 3 more
                                             // for d, b and o with fa)
    const long long scratch_n,               // largest N of any job
    unsigned char* __restrict__ gstage,      // [gridDim.x * gstage_bytes] or null
    const long long gstage_bytes,
    double* __restrict__ out,                // [n_jobs] o' x
    int* __restrict__ iters,                 // [n_jobs] forward iterations
    int* __restrict__ status,                // [n_jobs] bit 0: forward, bit 1: adjoint not converged
    unsigned int* __restrict__ counter)      // job counter, 0 at launch
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
    real* w0 = scratch + (long long)blockIdx.x * nvec * scratch_n;
    real* w[7];
#pragma unroll
    for (int k = 0; k < 7; ++k) w[k] = w0 + (k < nvec ? k : 0) * scratch_n;
    // a factored job's d, b and o: the last three vectors
    real* gen = w0 + (fa ? nvec - 3 : 0) * scratch_n;
    const int tid = threadIdx.x;

    for (;;) {
        const int job = next_job(counter, &s_job);
        if (job >= n_jobs) return;
        const int ga = jobs[2 * job], gb = jobs[2 * job + 1];
        const int na0 = A.node_off[ga], n1 = A.node_off[ga + 1] - na0;
        const int nb0 = B.node_off[gb], n2 = B.node_off[gb + 1] - nb0;
        const int N = n1 * n2;
        const unsigned char f = flags[job];
        const long long o0 = voff[job];
        const real* d = fa ? gen : dg + o0;
        const real* b = fa ? gen + scratch_n : bg + o0;
        const real* o = fa ? gen + 2 * scratch_n : og + o0;
        if (N == 0) {
            if (tid == 0) {
                out[job] = 0.0;
                iters[job] = 0;
                status[job] = 0;
            }
            continue;
        }
        // p and y first in shared memory when they are there, then the graphs
        const bool vs = (f & KP_VEC_SHARED) != 0;
        unsigned char* base = (f & KP_STAGE_GLOBAL) ? gstage + blockIdx.x * gstage_bytes
                              : reinterpret_cast<unsigned char*>(sp) + (vs ? align8(2 * sizeof(real) * (size_t)N) : 0);
        Staged S;
        stage_pair(A, ga, n1, B, gb, base, S);
        if (fa) kp_generate(A, na0, B, nb0, n2, N, fa, fb, fs, lpow, theta, gen, gen + scratch_n, gen + 2 * scratch_n);
        __syncthreads();
        real* x = xg ? xg + o0 : w[0];
        bool conv = true, conv_adj = true;
        double ox = 0;  // this thread's share of o' x (values only)
        int it;
        if (f & KP_DIRECTED) {
            it = kp_bicgstab(S, n1, n2, d, b, c, theta, tol, max_iter, x, w[1], w[2], w[3], w[4], w[5], w[6], red,
                             &conv);
        } else if (!xg) {
            // values only: x is never stored
            if (vs) {
                it = kp_pcg<false>(S, n1, n2, d, b, o, c, theta, tol, max_iter, x, w[1], sp, sp + N, red, &conv, &ox);
            } else {
                it = kp_pcg<false>(S, n1, n2, d, b, o, c, theta, tol, max_iter, x, w[1], w[2], w[3], red, &conv,
                                   &ox);
            }
        } else if (vs) {
            it = kp_pcg<true>(S, n1, n2, d, b, o, c, theta, tol, max_iter, x, w[1], sp, sp + N, red, &conv, &ox);
            if (yg)
                kp_pcg<true>(S, n1, n2, d, o, o, c, theta, tol, max_iter, yg + o0, w[1], sp, sp + N, red, &conv_adj,
                             &ox);
        } else {
            it = kp_pcg<true>(S, n1, n2, d, b, o, c, theta, tol, max_iter, x, w[1], w[2], w[3], red, &conv, &ox);
            if (yg)
                kp_pcg<true>(S, n1, n2, d, o, o, c, theta, tol, max_iter, yg + o0, w[1], w[2], w[3], red, &conv_adj,
                             &ox);
        }
        if (kxg) {
            real* kx = kxg + o0;
            #pragma unroll 1
            for (int idx = tid; idx < N; idx += (int)blockDim.x) kx[idx] = 0;
            __syncthreads();
            xmv<true>(S, n1, n2, x, kx, theta, (real)1);
            __syncthreads();
        }
        const bool has_x = xg || (f & KP_DIRECTED);
        double k = has_x ? 0.0 : ox;
        #pragma unroll 1
        for (int idx = tid; idx < N && has_x; idx += (int)blockDim.x) k += (double)o[idx] * (double)x[idx];
        k = block_sum(k, redd);
        if (tid == 0) {
            out[job] = k;
            iters[job] = it;
            status[job] = (conv ? 0 : 1) | (conv_adj ? 0 : 2);
        }
        __syncthreads();
    }
}
