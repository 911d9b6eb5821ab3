// Pieces shared by the batched kernel (mgk_pcg.cu) and the single-large-pair kernels
// (mgk_large.cu): the packed graph set, block reductions, the job fetch and the tile-pair
// product of the tile-pair schemes. Expects the generated preface
// (real, labels, kappa_node/kappa_edge).

#ifndef MGK_MAX_THETA
#define MGK_MAX_THETA 1
#endif

struct GraphSet {
    const int* node_off;                  // [graphs + 1]
    const int* tile_off;                  // [graphs + 1]
    const int* nz_off;                    // [graphs + 1]
    const unsigned int* tile_ij;          // [tiles] (I << 16) | J
    const unsigned long long* tile_bm;    // [tiles] bit 8a+b: entry (8I+a, 8J+b)
    const int* tile_nz;                   // [tiles] first nonzero of the tile
    const unsigned char* nz_pos;          // [nonzeros] 8a+b
    const real* nz_w;                     // [nonzeros] weight
    const edge_label* nz_e;               // [nonzeros] edge label
    const real* deg;                      // [nodes] degree (1 where 0)
    const node_label* vlab;               // [nodes] node label
    const real* start;                    // [nodes] start probability
};

template <typename T>
static __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum of v over the block; every thread gets the result. red: 2 * 33 T in shared memory.
template <typename T>
static __device__ __forceinline__ T block_sum(T v, T* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        T t = lane < (int)(blockDim.x >> 5) ? red[lane] : (T)0;
        t = warp_sum(t);
        if (lane == 0) red[32] = t;
    }
    __syncthreads();
    return red[32];
}

// Two sums at once.
static __device__ __forceinline__ void block_sum2(real& a, real& b, real* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = warp_sum(a);
    b = warp_sum(b);
    __syncthreads();
    if (lane == 0) {
        red[warp] = a;
        red[33 + warp] = b;
    }
    __syncthreads();
    if (warp == 0) {
        real s = lane < (int)(blockDim.x >> 5) ? red[lane] : (real)0;
        real t = lane < (int)(blockDim.x >> 5) ? red[33 + lane] : (real)0;
        s = warp_sum(s);
        t = warp_sum(t);
        if (lane == 0) {
            red[32] = s;
            red[65] = t;
        }
    }
    __syncthreads();
    a = red[32];
    b = red[65];
}

static __device__ __forceinline__ size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

// The next job of a persistent block from the atomic job counter (every thread gets it).
static __device__ __forceinline__ int next_job(unsigned int* counter, int* s_job) {
    if (threadIdx.x == 0) *s_job = (int)atomicAdd(counter, 1u);
    __syncthreads();
    const int job = *s_job;
    __syncthreads();
    return job;
}

// One graph's octiles (src/cuda/pack.rs), in shared or global memory: the nonzeros of tile t
// are w, e and pos at nzs[t] - z0, in the order of the bitmap's bits.
struct TileView {
    const unsigned long long* bm;  // [nt] bitmap: bit 8a+b for entry (8I+a, 8J+b)
    const real* w;                 // [nz] weight
    const edge_label* e;           // [nz] edge label
    const unsigned int* ij;        // [nt] (I << 16) | J
    const int* nzs;                // [nt] first nonzero of each tile, plus z0
    const unsigned char* pos;      // [nz] 8a+b within the tile
    int nt;
    int nz;
    int z0;
};

// y += sign ((W (x) W') .* E) p over one pair of octiles (tile ta of A, tile tb of B), by one warp;
// index (i, i') -> i * n2 + i', p and y in shared or global memory (atomics on y). With at least
// dense_min nonzero products the row-structured primitive: each lane owns the output entries
// (8I + a, 8I2 + a2) for c = 8a + a2 = lane and lane + 32 and sums over the nonzeros of row a of
// tile ta times those of row a2 of tile tb; else the sparse primitive: the lanes share out the
// nonzero pairs and add each product on its own. Index: int, or long long for large products.
template <typename Index>
static __device__ __forceinline__ void tile_pair_product(const TileView& A, const int ta, const TileView& B,
                                                         const int tb, const Index n2, const int dense_min,
                                                         const real sign, const real* __restrict__ p, real* y,
                                                         const real* __restrict__ theta) {
    const int lane = threadIdx.x & 31;
    const unsigned int ija = A.ij[ta], ijb = B.ij[tb];
    const Index I = ija >> 16, J = ija & 0xffff, I2 = ijb >> 16, J2 = ijb & 0xffff;
    const unsigned long long bma = A.bm[ta], bmb = B.bm[tb];
    const int za = A.nzs[ta] - A.z0, zb = B.nzs[tb] - B.z0;
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
                    const real wa = A.w[ka];
                    const edge_label ea = A.e[ka];
                    const real* pc = p + (J * 8 + b) * n2 + J2 * 8;
                    int kb = kb0;
                    for (unsigned int rb = rowb; rb != 0u; rb &= rb - 1u, ++kb) {
                        const int b2 = __ffs(rb) - 1;
                        sum += wa * B.w[kb] * kappa_edge(ea, B.e[kb], theta) * pc[b2];
                    }
                }
                atomicAdd(&y[(I * 8 + a) * n2 + I2 * 8 + a2], sign * sum);
            }
        }
    } else {
        // nonzero pair k = qa * nzb + rb, stepped by 32 without a division per step
        const int total = nza * nzb;
        int qa = lane / nzb, rb = lane - qa * nzb;
        const int sq = 32 / nzb, sr = 32 - sq * nzb;
#pragma unroll 1
        for (int k = lane; k < total; k += 32) {
            const int ka = za + qa, kb = zb + rb;
            const int pa = A.pos[ka], pb = B.pos[kb];
            const real v = A.w[ka] * B.w[kb] * kappa_edge(A.e[ka], B.e[kb], theta) *
                           p[(J * 8 + (pa & 7)) * n2 + J2 * 8 + (pb & 7)];
            atomicAdd(&y[(I * 8 + (pa >> 3)) * n2 + I2 * 8 + (pb >> 3)], sign * v);
            rb += sr;
            qa += sq;
            if (rb >= nzb) {
                rb -= nzb;
                ++qa;
            }
        }
    }
}
