// Marginalized graph kernel of ONE large pair: the pieces of a PCG iteration as separate
// kernels, driven by a host loop (src/cuda/large.rs), vectors in global memory.
//
// Appended after kernels/mgk_common.cu (reuses GraphSet and warp_sum).
// Expects MGK_LARGE_NAME (the family name of this module's kernels).
//
// Pair (G: graph ga of A, n1 nodes; G': graph gb of B, n2 nodes), N = n1 * n2,
// index (i, i') -> i * n2 + i':
//   y = A p = D V^-1 p - ((W (x) W') .* E) p, computed as y = diag .* p (mgk_ap) followed by
//   y -= the off-diagonal product on the fly from the octiles in global memory (mgk_xmv: one
//   warp per tile pair, many blocks over all tile pairs, global atomics).
// Reductions accumulate in double into acc[] (atomics after a block reduction).

#define MGK_CAT2(a, b) a##b
#define MGK_CAT(a, b) MGK_CAT2(a, b)

// One graph's octiles in global memory.
struct OctView {
    const unsigned long long* bm;
    const real* w;
    const edge_label* e;
    const unsigned int* ij;
    const int* nzs;
    const unsigned char* pos;
};

// The weight of one nonzero of the Kronecker operator, w_a w_b kappa_edge(e_a, e_b).
static __device__ __forceinline__ real large_weight(const OctView& A, const OctView& B, int ka, int kb,
                                                    const real* __restrict__ theta) {
    return A.w[ka] * B.w[kb] * kappa_edge(A.e[ka], B.e[kb], theta);
}

struct PairInfo {
    int na0, n1, nb0, n2;  // first node and node count of each graph
    int ta0, nta, tb0, ntb;  // first tile and tile count
    int za0, nza, zb0, nzb;  // first nonzero and nonzero count
};

// Adds a block's partial sum of v into *acc (double atomics).
static __device__ __forceinline__ void block_acc(double v, double* acc) {
    __shared__ double part[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        double t = lane < (int)(blockDim.x >> 5) ? part[lane] : 0.0;
        t = warp_sum(t);
        if (lane == 0) atomicAdd(acc, t);
    }
    __syncthreads();
}

// x = 0, r = b = D 1, minv = M^-1, diag = D V^-1, p = M^-1 r; acc[0] += r.z, acc[1] += b.b.
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _init)(const GraphSet A, const GraphSet B, const PairInfo P,
                                                          const real* __restrict__ theta, const real dscale,
                                                          real* __restrict__ x, real* __restrict__ r,
                                                          real* __restrict__ p, real* __restrict__ minv,
                                                          real* __restrict__ diag, double* __restrict__ acc) {
    const long long N = (long long)P.n1 * P.n2;
    double rz = 0, bb = 0;
    #pragma unroll 1
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < N;
         idx += (long long)gridDim.x * blockDim.x) {
        const int i = (int)(idx / P.n2), j = (int)(idx - (long long)i * P.n2);
        const real d = A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale;
        const real kv = kappa_node(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta);
        const real dg = d / kv;
        const real mi = (real)1 / dg;
        x[idx] = 0;
        r[idx] = d;
        minv[idx] = mi;
        diag[idx] = dg;
        p[idx] = mi * d;
        rz += (double)d * (double)(mi * d);
        bb += (double)d * (double)d;
    }
    block_acc(rz, acc);
    block_acc(bb, acc + 1);
}

// y = diag .* p
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _ap)(const long long N, const real* __restrict__ diag,
                                                        const real* __restrict__ p, real* __restrict__ y) {
    #pragma unroll 1
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < N;
         idx += (long long)gridDim.x * blockDim.x)
        y[idx] = diag[idx] * p[idx];
}

// y -= ((W (x) W') .* E) p: one warp per pair of non-empty octiles (ta of G, tb of G').
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _xmv)(const GraphSet A, const GraphSet B, const PairInfo P,
                                                         const real* __restrict__ theta, const int dense_min,
                                                         const real* __restrict__ p, real* __restrict__ y) {
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    const long long pairs = (long long)P.nta * P.ntb;
    const int n2 = P.n2;
    // Staged views of the two graphs in global memory (weights and labels read directly).
    OctView SA, SB;
    SA.bm = A.tile_bm + P.ta0;
    SA.w = A.nz_w + P.za0;
    SA.e = A.nz_e + P.za0;
    SA.ij = A.tile_ij + P.ta0;
    SA.nzs = A.tile_nz + P.ta0;
    SA.pos = A.nz_pos + P.za0;
    SB.bm = B.tile_bm + P.tb0;
    SB.w = B.nz_w + P.zb0;
    SB.e = B.nz_e + P.zb0;
    SB.ij = B.tile_ij + P.tb0;
    SB.nzs = B.tile_nz + P.tb0;
    SB.pos = B.nz_pos + P.zb0;
    #pragma unroll 1
    for (long long tp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; tp < pairs; tp += warps) {
        const int ta = (int)(tp / P.ntb), tb = (int)(tp - (long long)ta * P.ntb);
        const unsigned int ija = SA.ij[ta], ijb = SB.ij[tb];
        const int I = ija >> 16, J = ija & 0xffff, I2 = ijb >> 16, J2 = ijb & 0xffff;
        const unsigned long long bma = SA.bm[ta], bmb = SB.bm[tb];
        const int za = SA.nzs[ta] - P.za0, zb = SB.nzs[tb] - P.zb0;
        const int nza = __popcll(bma), nzb = __popcll(bmb);
        if (nza * nzb >= dense_min) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int c = lane + 32 * h;
                const int a = c >> 3, a2 = c & 7;
                unsigned int rowa = (unsigned int)(bma >> (8 * a)) & 0xffu;
                const unsigned int rowb = (unsigned int)(bmb >> (8 * a2)) & 0xffu;
                if (rowa != 0u && rowb != 0u) {
                    int ka = za + __popcll(bma & ((1ull << (8 * a)) - 1ull));
                    const int kb0 = zb + __popcll(bmb & ((1ull << (8 * a2)) - 1ull));
                    real sum = 0;
                    for (; rowa != 0u; rowa &= rowa - 1u, ++ka) {
                        const int b = __ffs(rowa) - 1;
                        const real* pc = p + (long long)(J * 8 + b) * n2 + J2 * 8;
                        int kb = kb0;
                        for (unsigned int rb = rowb; rb != 0u; rb &= rb - 1u, ++kb) {
                            const int b2 = __ffs(rb) - 1;
                            sum += large_weight(SA, SB, ka, kb, theta) * pc[b2];
                        }
                    }
                    atomicAdd(&y[(long long)(I * 8 + a) * n2 + I2 * 8 + a2], -sum);
                }
            }
        } else {
            const int total = nza * nzb;
            #pragma unroll 1
            for (int k = lane; k < total; k += 32) {
                const int qa = k / nzb, rb = k - qa * nzb;
                const int ka = za + qa, kb = zb + rb;
                const int pa = SA.pos[ka], pb = SB.pos[kb];
                const real v = large_weight(SA, SB, ka, kb, theta) *
                               p[(long long)(J * 8 + (pa & 7)) * n2 + J2 * 8 + (pb & 7)];
                atomicAdd(&y[(long long)(I * 8 + (pa >> 3)) * n2 + I2 * 8 + (pb >> 3)], -v);
            }
        }
    }
}

// acc[0] += p.y
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _dot)(const long long N, const real* __restrict__ a,
                                                         const real* __restrict__ b, double* __restrict__ acc) {
    double s = 0;
    #pragma unroll 1
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < N;
         idx += (long long)gridDim.x * blockDim.x)
        s += (double)a[idx] * (double)b[idx];
    block_acc(s, acc);
}

// x += alpha p; r -= alpha y; acc[0] += r.r, acc[1] += r.M^-1 r
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _update)(const long long N, const real alpha,
                                                            real* __restrict__ x, real* __restrict__ r,
                                                            const real* __restrict__ p, const real* __restrict__ y,
                                                            const real* __restrict__ minv, double* __restrict__ acc) {
    double rr = 0, rz = 0;
    #pragma unroll 1
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < N;
         idx += (long long)gridDim.x * blockDim.x) {
        x[idx] += alpha * p[idx];
        const real rn = r[idx] - alpha * y[idx];
        r[idx] = rn;
        rr += (double)rn * (double)rn;
        rz += (double)rn * (double)(minv[idx] * rn);
    }
    block_acc(rr, acc);
    block_acc(rz, acc + 1);
}

// p = M^-1 r + beta p
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _dir)(const long long N, const real beta,
                                                         real* __restrict__ p, const real* __restrict__ r,
                                                         const real* __restrict__ minv) {
    #pragma unroll 1
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < N;
         idx += (long long)gridDim.x * blockDim.x)
        p[idx] = minv[idx] * r[idx] + beta * p[idx];
}

// acc[0] += sum p_i p'_i' (x - lmin kappa_node); nodal (when not null) gets each term.
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _final)(const GraphSet A, const GraphSet B, const PairInfo P,
                                                           const real* __restrict__ theta, const int lmin,
                                                           const real* __restrict__ x, double* __restrict__ nodal,
                                                           double* __restrict__ acc) {
    const long long N = (long long)P.n1 * P.n2;
    double k = 0;
    #pragma unroll 1
    for (long long idx = blockIdx.x * (long long)blockDim.x + threadIdx.x; idx < N;
         idx += (long long)gridDim.x * blockDim.x) {
        const int i = (int)(idx / P.n2), j = (int)(idx - (long long)i * P.n2);
        const double pp = (double)A.start[P.na0 + i] * (double)B.start[P.nb0 + j];
        double v = (double)x[idx];
        if (lmin) v -= (double)kappa_node(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta);
        v *= pp;
        if (nodal) nodal[idx] = v;
        k += v;
    }
    block_acc(k, acc);
}
