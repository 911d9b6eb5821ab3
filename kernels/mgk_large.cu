// Marginalized graph kernel of ONE large pair: the pieces of a PCG iteration as separate
// kernels, driven by a host loop (src/mgk/gpu/large.rs), vectors in global memory.
//
// Appended after kernels/mgk_common.cu (reuses GraphSet, warp_sum and tile_pair_product).
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

// y += alpha ((W (x) W') .* E) p (alpha = -1 in the PCG): one warp per pair of non-empty octiles
// (ta of G, tb of G'). Also the product of the device KronProduct (src/mgk/gpu/kron_device.rs).
extern "C" __global__ void MGK_CAT(MGK_LARGE_NAME, _xmv)(const GraphSet A, const GraphSet B, const PairInfo P,
                                                         const real* __restrict__ theta, const int dense_min,
                                                         const real alpha, const real* __restrict__ p,
                                                         real* __restrict__ y) {
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    const long long pairs = (long long)P.nta * P.ntb;
    // Views of the two graphs' octiles in global memory (weights and labels read directly).
    const TileView SA = {A.tile_bm + P.ta0, A.nz_w + P.za0, A.nz_e + P.za0, A.tile_ij + P.ta0,
                         A.tile_nz + P.ta0, A.nz_pos + P.za0, P.nta,         P.nza,         P.za0};
    const TileView SB = {B.tile_bm + P.tb0, B.nz_w + P.zb0, B.nz_e + P.zb0, B.tile_ij + P.tb0,
                         B.tile_nz + P.tb0, B.nz_pos + P.zb0, P.ntb,         P.nzb,         P.zb0};
    #pragma unroll 1
    for (long long tp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; tp < pairs; tp += warps) {
        const int ta = (int)(tp / P.ntb), tb = (int)(tp - (long long)ta * P.ntb);
        tile_pair_product<long long>(SA, ta, SB, tb, (long long)P.n2, dense_min, alpha, p, y, theta);
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
