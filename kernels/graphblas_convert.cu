// Sparse <-> bitmap vectors of one element type kg_t (from the preface), for
// the element-wise operations on sparse vectors. Indices are kg_idx_t (from
// the preface).

typedef unsigned long long kg_u64;

__device__ __forceinline__ kg_u64 gbc_tid() { return (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ kg_u64 gbc_stride() { return (kg_u64)gridDim.x * blockDim.x; }

// val[idx[p]] = sval[p], pres[idx[p]] = 1 for p < nnz (pres zeroed before).
extern "C" __global__ void gbc_scatter(kg_idx_t nnz, const kg_idx_t *idx, const kg_t *sval, kg_t *val,
                                       unsigned char *pres) {
    for (kg_u64 p = gbc_tid(); p < nnz; p += gbc_stride()) {
        val[idx[p]] = sval[p];
        pres[idx[p]] = 1;
    }
}

// The present positions i < n, in order, at pos[i] (the exclusive scan of flag).
extern "C" __global__ void gbc_compact(kg_idx_t n, const kg_idx_t *flag, const kg_idx_t *pos, const kg_t *val,
                                       kg_idx_t *oidx, kg_t *oval) {
    for (kg_u64 i = gbc_tid(); i < n; i += gbc_stride()) {
        if (flag[i]) {
            oidx[pos[i]] = (kg_idx_t)i;
            oval[pos[i]] = val[i];
        }
    }
}
