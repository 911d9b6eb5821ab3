// Pieces shared by the batched kernel (mgk_pcg.cu) and the single-large-pair kernels
// (mgk_large.cu): the packed graph set and block reductions. Expects the generated preface
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
