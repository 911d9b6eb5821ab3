// Semiring-independent kernels of the GPU GraphBLAS: prefix sums, byte maps
// and the per-level updates of BFS, SSSP and connected components.
// Indices are kg_idx_t (32 or 64 bits, from the preface); 1024 threads per block for the scan kernels.

typedef unsigned long long kg_u64;

__device__ __forceinline__ kg_u64 gb_tid() { return (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ kg_u64 gb_stride() { return (kg_u64)gridDim.x * blockDim.x; }

// out[i] = in[0] + ... + in[i-1] within each block of 1024; sums[block] = the block's total.
extern "C" __global__ void gbu_scan_block(kg_idx_t n, const kg_idx_t *in, kg_idx_t *out, kg_idx_t *sums) {
    __shared__ kg_idx_t ws[32];
    kg_u64 i = gb_tid();
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    kg_idx_t v = i < n ? in[i] : 0u;
    kg_idx_t x = v;
    for (unsigned o = 1; o < 32; o <<= 1) {
        kg_idx_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) ws[warp] = x;
    __syncthreads();
    if (warp == 0) {
        kg_idx_t w = lane < (blockDim.x >> 5) ? ws[lane] : 0u;
        for (unsigned o = 1; o < 32; o <<= 1) {
            kg_idx_t y = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += y;
        }
        ws[lane] = w;
    }
    __syncthreads();
    kg_idx_t incl = x + (warp > 0 ? ws[warp - 1] : 0u);
    if (i < n) out[i] = incl - v;
    if (threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = incl;
}

// out[i] += offsets[block of i] (blocks of 1024).
extern "C" __global__ void gbu_scan_add(kg_idx_t n, kg_idx_t *out, const kg_idx_t *offsets) {
    kg_u64 i = gb_tid();
    if (i < n) out[i] += offsets[blockIdx.x];
}

// flag[i] = (bytes[i] != 0) != comp.
extern "C" __global__ void gbu_flags_from_bytes(kg_idx_t n, const unsigned char *bytes, int comp, kg_idx_t *flag) {
    for (kg_u64 i = gb_tid(); i < n; i += gb_stride()) flag[i] = ((bytes[i] != 0) != (comp != 0)) ? 1u : 0u;
}

// The flagged positions as a list (pos: exclusive scan of flag).
extern "C" __global__ void gbu_compact_indices(kg_idx_t n, const kg_idx_t *flag, const kg_idx_t *pos,
                                               kg_idx_t *out) {
    for (kg_u64 i = gb_tid(); i < n; i += gb_stride()) {
        if (flag[i]) out[pos[i]] = (kg_idx_t)i;
    }
}

// out[s] = dense[idx[s]] (the lowered labels of a relaxation, gathered).
extern "C" __global__ void gbu_gather_u64(kg_idx_t f, const kg_idx_t *idx, const kg_u64 *dense, kg_u64 *out) {
    for (kg_u64 s = gb_tid(); s < f; s += gb_stride()) out[s] = dense[idx[s]];
}

// Relaxation (SSSP, components): for each candidate (idx[s], val[s]) smaller
// than dist[idx[s]], lower it and flag the node as changed.
extern "C" __global__ void gbu_relax_f64(kg_idx_t f, const kg_idx_t *idx, const double *val, double *dist,
                                         kg_idx_t *changed) {
    for (kg_u64 s = gb_tid(); s < f; s += gb_stride()) {
        kg_idx_t v = idx[s];
        if (val[s] < dist[v]) {
            dist[v] = val[s];
            changed[v] = 1u;
        }
    }
}

extern "C" __global__ void gbu_relax_u64(kg_idx_t f, const kg_idx_t *idx, const kg_u64 *val, kg_u64 *dist,
                                         kg_idx_t *changed) {
    for (kg_u64 s = gb_tid(); s < f; s += gb_stride()) {
        kg_idx_t v = idx[s];
        if (val[s] < dist[v]) {
            dist[v] = val[s];
            changed[v] = 1u;
        }
    }
}

// out_val[s] = dist[idx[s]] (the changed nodes' values as the next frontier).
extern "C" __global__ void gbu_gather_f64(kg_idx_t f, const kg_idx_t *idx, const double *dist, double *out) {
    for (kg_u64 s = gb_tid(); s < f; s += gb_stride()) out[s] = dist[idx[s]];
}
