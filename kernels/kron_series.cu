
// Batched power sums of the random-walk series kernels (src/mgk/gpu/kron_series.rs, for the
// exponential and p-step kernels of src/rw/series_gpu.rs): for each job (graph ga of A, graph gb
// of B) the sums
//   t_k = 1' z_k,  z_0 = m,  z_(k+1) = (lam[job] / div[k]) m .* ((W (x) W') z_k),  k < nterms[job],
// m the 0/1 mask of the node pairs whose classes are equal (ca[i] == cb[i']; all ones when ca is
// null), written to terms[toff[job] + k]. The host folds the t_k with the series' coefficients and
// truncation rule (WalkSeriesKernel::power_series, the one place they live); div[k] is the step's
// divisor from the same place. Appended after kernels/kron_pairs.cu: the staging of a pair and its
// product are the batched marginalized graph kernel's (kernels/mgk_xmv.cu, row scheme), directed
// graphs as they are (the octiles hold the arcs). Persistent blocks take jobs from an atomic
// counter, one block per pair; per job the flag bits of kron_pairs.cu: KP_VEC_SHARED, z and y in
// shared memory (else in the block's global scratch); KP_STAGE_GLOBAL, the graphs staged in global
// memory at gstage. Once a sum is 0 (a nilpotent product: every later one is 0) or not finite,
// the remaining terms get that value without further products.

#define KS_CAT2(a, b) a##b
#define KS_CAT(a, b) KS_CAT2(a, b)

extern "C" __global__ void __launch_bounds__(1024) KS_CAT(KRON_PAIRS_NAME, _series)(
    const GraphSet A, const GraphSet B,
    const int* __restrict__ jobs,            // [2 * n_jobs] (graph in A, graph in B), in launch order
    const int n_jobs,
    const real* __restrict__ theta_g,        // the edge kernel's hyperparameters
    const unsigned char* __restrict__ flags, // [n_jobs] KP_* bits
    const int* __restrict__ ca,              // null, or the class of each node of A
    const int* __restrict__ cb,              // with ca: the class of each node of B
    const double* __restrict__ lam,          // [n_jobs] the job's λ
    const double* __restrict__ div,          // [max nterms] step k multiplies by lam / div[k]
    const int* __restrict__ nterms,          // [n_jobs] sums to compute (>= 1)
    const long long* __restrict__ toff,      // [n_jobs] first sum of the job in terms
    real* __restrict__ scratch,              // [gridDim.x * 2 * scratch_n]
    const long long scratch_n,               // largest N of any job
    unsigned char* __restrict__ gstage,      // [gridDim.x * gstage_bytes] or null
    const long long gstage_bytes,
    double* __restrict__ terms,              // the sums
    unsigned int* __restrict__ counter)      // job counter, 0 at launch
{
    extern __shared__ double smem_d[];
    real* sp = reinterpret_cast<real*>(smem_d);
    __shared__ double redd[66];
    __shared__ int s_job;
    __shared__ real s_theta[MGK_MAX_THETA];
    #pragma unroll 1
    for (int i = threadIdx.x; i < MGK_MAX_THETA; i += (int)blockDim.x) s_theta[i] = theta_g[i];
    const real* theta = s_theta;
    real* w0 = scratch + (long long)blockIdx.x * 2 * scratch_n;
    const int tid = threadIdx.x, bd = (int)blockDim.x;

    for (;;) {
        const int job = next_job(counter, &s_job);
        if (job >= n_jobs) return;
        const int ga = jobs[2 * job], gb = jobs[2 * job + 1];
        const int na0 = A.node_off[ga], n1 = A.node_off[ga + 1] - na0;
        const int nb0 = B.node_off[gb], n2 = B.node_off[gb + 1] - nb0;
        const int N = n1 * n2;
        const int K = nterms[job];
        double* t = terms + toff[job];
        const unsigned char f = flags[job];
        double s = 0;
        int k = 0;
        if (N > 0) {
            const bool vs = (f & KP_VEC_SHARED) != 0;
            unsigned char* base = (f & KP_STAGE_GLOBAL)
                                      ? gstage + blockIdx.x * gstage_bytes
                                      : reinterpret_cast<unsigned char*>(sp) + (vs ? align8(2 * sizeof(real) * (size_t)N) : 0);
            Staged S;
            stage_pair(A, ga, n1, B, gb, base, S);
            real* z = vs ? sp : w0;
            real* y = vs ? sp + N : w0 + scratch_n;
            #pragma unroll 1
            for (int idx = tid; idx < N; idx += bd) {
                const int i = idx / n2, j = idx - i * n2;
                const real m = (!ca || ca[na0 + i] == cb[nb0 + j]) ? (real)1 : (real)0;
                z[idx] = m;
                s += (double)m;
            }
            s = block_sum(s, redd);
            if (tid == 0) t[0] = s;
            k = 1;
            #pragma unroll 1
            for (; k < K && s != 0.0 && isfinite(s); ++k) {
                #pragma unroll 1
                for (int idx = tid; idx < N; idx += bd) y[idx] = 0;
                __syncthreads();
                // (the product's sign argument scales only with PAP: the step's factor is applied below)
                xmv(S, n1, n2, z, y, theta);
                __syncthreads();
                const real factor = (real)(lam[job] / div[k - 1]);
                s = 0;
                #pragma unroll 1
                for (int idx = tid; idx < N; idx += bd) {
                    const int i = idx / n2, j = idx - i * n2;
                    real v = factor * y[idx];
                    if (ca && ca[na0 + i] != cb[nb0 + j]) v = 0;
                    y[idx] = v;
                    s += (double)v;
                }
                s = block_sum(s, redd);
                if (tid == 0) t[k] = s;
                real* tmp = z;
                z = y;
                y = tmp;
            }
        }
        // the rest: 0 after a zero sum (or an empty pair), the non-finite sum after one
        #pragma unroll 1
        for (int j = k + tid; j < K; j += bd) t[j] = s;
        __syncthreads();
    }
}
