// GraphBLAS operations on the GPU over one semiring.
//
// This template follows a generated preface: the semiring's CUDA form
// (kg_a_t, kg_b_t, kg_c_t, KG_IDENTITY, KG_IS_TERMINAL, kg_add, kg_mul,
// kg_atomic_add) and KG_READ_A / KG_READ_B (0 when the semiring does not
// read that operand: its buffer may then hold another type and is never
// dereferenced). Indices are kg_idx_t (32 or 64 bits, from the preface:
// one source, one module per width). Masks are byte maps over the
// output positions: a position is allowed when use_mask is 0 or
// (mask[i] != 0) != comp.
//
// The order of ⊕ matches the CPU where the kernel folds sequentially (pull,
// dot products, the sort-based SpMSpV: terms of an output in increasing k);
// the scatter SpMSpV and reductions combine atomically in any order.

typedef unsigned long long kg_u64;

#define GB_FULL 0xffffffffu
#define GB_LOAD_A(p, q) (KG_READ_A ? (p)[q] : (kg_a_t)0)
#define GB_LOAD_B(p, q) (KG_READ_B ? (p)[q] : (kg_b_t)0)

__device__ __forceinline__ bool gb_allowed(const unsigned char *mask, int use_mask, int comp, kg_idx_t i) {
    return !use_mask || ((mask[i] != 0) != (comp != 0));
}

__device__ __forceinline__ kg_u64 gb_tid() { return (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ kg_u64 gb_stride() { return (kg_u64)gridDim.x * blockDim.x; }

// ------------------------------------------------------------------ pull (dense vector)

// w<mask> = A x: one thread per output row i, terms A(i,k) ⊗ x(k) in increasing k.
extern "C" __global__ void gb_mxv_pull(kg_idx_t nrows, const kg_idx_t *ptr, const kg_idx_t *ind, const kg_a_t *aval,
                                       const kg_b_t *xval, const unsigned char *xpres, const unsigned char *mask,
                                       int use_mask, int comp, int replace, kg_c_t *wval, unsigned char *wpres) {
    for (kg_u64 r = gb_tid(); r < nrows; r += gb_stride()) {
        kg_idx_t i = (kg_idx_t)r;
        if (!gb_allowed(mask, use_mask, comp, i)) {
            if (replace) wpres[i] = 0;
            continue;
        }
        kg_c_t acc = KG_IDENTITY;
        bool any = false;
        for (kg_idx_t p = ptr[i]; p < ptr[i + 1]; ++p) {
            kg_idx_t k = ind[p];
            if (!xpres[k]) continue;
            kg_c_t t = kg_mul(GB_LOAD_A(aval, p), GB_LOAD_B(xval, k), i, k, 0);
            acc = any ? kg_add(acc, t) : t;
            any = true;
            if (KG_IS_TERMINAL(acc)) break;
        }
        wpres[i] = any ? 1 : 0;
        if (any) wval[i] = acc;
    }
}

// w<mask> = u^T A over the rows of A^T (the CSC of A): terms u(k) ⊗ A(k,j) in increasing k.
extern "C" __global__ void gb_vxm_pull(kg_idx_t ncols, const kg_idx_t *ptr, const kg_idx_t *ind, const kg_b_t *aval,
                                       const kg_a_t *uval, const unsigned char *upres, const unsigned char *mask,
                                       int use_mask, int comp, int replace, kg_c_t *wval, unsigned char *wpres) {
    for (kg_u64 r = gb_tid(); r < ncols; r += gb_stride()) {
        kg_idx_t j = (kg_idx_t)r;
        if (!gb_allowed(mask, use_mask, comp, j)) {
            if (replace) wpres[j] = 0;
            continue;
        }
        kg_c_t acc = KG_IDENTITY;
        bool any = false;
        for (kg_idx_t p = ptr[j]; p < ptr[j + 1]; ++p) {
            kg_idx_t k = ind[p];
            if (!upres[k]) continue;
            kg_c_t t = kg_mul(GB_LOAD_A(uval, k), GB_LOAD_B(aval, p), 0, k, j);
            acc = any ? kg_add(acc, t) : t;
            any = true;
            if (KG_IS_TERMINAL(acc)) break;
        }
        wpres[j] = any ? 1 : 0;
        if (any) wval[j] = acc;
    }
}

// ------------------------------------------------------------------ SpMSpV (push)

// deg[s] = stored entries of row fidx[s].
extern "C" __global__ void gb_frontier_degrees(kg_idx_t f, const kg_idx_t *fidx, const kg_idx_t *ptr, kg_idx_t *deg) {
    for (kg_u64 s = gb_tid(); s < f; s += gb_stride()) {
        kg_idx_t k = fidx[s];
        deg[s] = ptr[k + 1] - ptr[k];
    }
}

// The frontier entry s holding term t: the largest s with off[s] <= t.
__device__ __forceinline__ kg_idx_t gb_owner(const kg_idx_t *off, kg_idx_t f, kg_idx_t t) {
    kg_idx_t lo = 0, hi = f;
    while (hi - lo > 1) {
        kg_idx_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
}

// The term t of the expansion: output index j (in *j) and its value.
// form 0 (vxm): u(k) ⊗ A(k, j), pos (0, k, j); form 1 (mxv over A^T rows): A(j, k) ⊗ u(k), pos (j, k, 0).
__device__ __forceinline__ kg_c_t gb_term(int form, kg_idx_t s, kg_idx_t t, const kg_idx_t *fidx, const void *fval,
                                          const kg_idx_t *off, const kg_idx_t *ptr, const kg_idx_t *ind,
                                          const void *aval, kg_idx_t *j) {
    kg_idx_t k = fidx[s];
    kg_idx_t p = ptr[k] + (t - off[s]);
    *j = ind[p];
    if (form == 0) {
        return kg_mul(GB_LOAD_A((const kg_a_t *)fval, s), GB_LOAD_B((const kg_b_t *)aval, p), 0, k, *j);
    }
    return kg_mul(GB_LOAD_A((const kg_a_t *)aval, p), GB_LOAD_B((const kg_b_t *)fval, s), *j, k, 0);
}

// No-sort strategy: every allowed term is combined atomically into acc[j]
// (initialized to the identity) and flag[j] is set.
extern "C" __global__ void gb_spmspv_scatter(int form, kg_idx_t f, const kg_idx_t *fidx, const void *fval,
                                             const kg_idx_t *off, kg_idx_t m, const kg_idx_t *ptr,
                                             const kg_idx_t *ind, const void *aval, const unsigned char *mask,
                                             int use_mask, int comp, kg_c_t *acc, kg_idx_t *flag) {
    for (kg_u64 r = gb_tid(); r < m; r += gb_stride()) {
        kg_idx_t t = (kg_idx_t)r;
        kg_idx_t s = gb_owner(off, f, t);
        kg_idx_t k = fidx[s];
        kg_idx_t j = ind[ptr[k] + (t - off[s])];
        if (!gb_allowed(mask, use_mask, comp, j)) continue;
        kg_c_t v = gb_term(form, s, t, fidx, fval, off, ptr, ind, aval, &j);
        kg_atomic_add(&acc[j], v);
        if (flag[j] == 0) flag[j] = 1;
    }
}

// Sorting strategies: the expansion as (key, value) pairs; a term the mask
// forbids gets the key `sentinel` (sorted last, dropped by the fold).
extern "C" __global__ void gb_spmspv_expand(int form, kg_idx_t f, const kg_idx_t *fidx, const void *fval,
                                            const kg_idx_t *off, kg_idx_t m, const kg_idx_t *ptr, const kg_idx_t *ind,
                                            const void *aval, const unsigned char *mask, int use_mask, int comp,
                                            kg_idx_t sentinel, kg_idx_t *keys, kg_c_t *vals) {
    for (kg_u64 r = gb_tid(); r < m; r += gb_stride()) {
        kg_idx_t t = (kg_idx_t)r;
        kg_idx_t s = gb_owner(off, f, t);
        kg_idx_t j;
        kg_c_t v = gb_term(form, s, t, fidx, fval, off, ptr, ind, aval, &j);
        bool ok = gb_allowed(mask, use_mask, comp, j);
        keys[t] = ok ? j : sentinel;
        vals[t] = v;
    }
}

// One pass of a stable bottom-up merge sort by key: runs of `width` merged in pairs.
extern "C" __global__ void gb_merge_pass(kg_idx_t m, kg_u64 width, const kg_idx_t *kin, const kg_c_t *vin,
                                         kg_idx_t *kout, kg_c_t *vout) {
    for (kg_u64 i = gb_tid(); i < m; i += gb_stride()) {
        kg_u64 base = (i / (2 * width)) * 2 * width;
        kg_u64 mid = base + width < m ? base + width : m;
        kg_u64 end = base + 2 * width < m ? base + 2 * width : m;
        kg_idx_t key = kin[i];
        kg_u64 dst;
        if (i < mid) {
            // rank among the right run: elements < key
            kg_u64 lo = mid, hi = end;
            while (lo < hi) {
                kg_u64 c = lo + (hi - lo) / 2;
                if (kin[c] < key) lo = c + 1; else hi = c;
            }
            dst = i + (lo - mid);
        } else {
            // rank among the left run: elements <= key
            kg_u64 lo = base, hi = mid;
            while (lo < hi) {
                kg_u64 c = lo + (hi - lo) / 2;
                if (kin[c] <= key) lo = c + 1; else hi = c;
            }
            dst = (i - mid) + lo;
        }
        kout[dst] = key;
        vout[dst] = vin[i];
    }
}

// LSD radix sort, 4-bit digits, 256 threads per block and one item per
// thread (no grid stride: the grid covers the items). hist is digit-major:
// hist[d * gridDim.x + block].
extern "C" __global__ void gb_radix_count(kg_idx_t m, const kg_idx_t *keys, int shift, kg_idx_t *hist) {
    __shared__ kg_idx_t cnt[16];
    if (threadIdx.x < 16) cnt[threadIdx.x] = 0;
    __syncthreads();
    kg_u64 i = gb_tid();
    if (i < m) atomicAdd(&cnt[(keys[i] >> shift) & 15u], (kg_idx_t)1);
    __syncthreads();
    if (threadIdx.x < 16) hist[(kg_u64)threadIdx.x * gridDim.x + blockIdx.x] = cnt[threadIdx.x];
}

extern "C" __global__ void gb_radix_scatter(kg_idx_t m, const kg_idx_t *kin, const kg_c_t *vin, int shift,
                                            const kg_idx_t *base, kg_idx_t *kout, kg_c_t *vout) {
    __shared__ kg_idx_t wc[8][16];
    kg_u64 i = gb_tid();
    bool valid = i < m;
    kg_idx_t d = valid ? ((kin[i] >> shift) & 15u) : 16u;
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (threadIdx.x < 128) wc[threadIdx.x >> 4][threadIdx.x & 15u] = 0;
    __syncthreads();
    unsigned same = __match_any_sync(GB_FULL, d);
    unsigned r = __popc(same & ((1u << lane) - 1u));
    if (valid && r == 0) wc[warp][d] = __popc(same);
    __syncthreads();
    if (valid) {
        for (unsigned w = 0; w < warp; ++w) r += wc[w][d];
        kg_idx_t dst = base[(kg_u64)d * gridDim.x + blockIdx.x] + r;
        kout[dst] = kin[i];
        vout[dst] = vin[i];
    }
}

// head[t] = 1 where a run of equal keys (below sentinel) starts.
extern "C" __global__ void gb_run_heads(kg_idx_t m, kg_idx_t sentinel, const kg_idx_t *keys, kg_idx_t *head) {
    for (kg_u64 t = gb_tid(); t < m; t += gb_stride()) {
        kg_idx_t k = keys[t];
        head[t] = (k < sentinel && (t == 0 || keys[t - 1] != k)) ? 1u : 0u;
    }
}

// Folds each run in order (stopping at a terminal value) into output slot pos[t].
extern "C" __global__ void gb_fold_runs(kg_idx_t m, const kg_idx_t *keys, const kg_c_t *vals, const kg_idx_t *head,
                                        const kg_idx_t *pos, kg_idx_t *out_idx, kg_c_t *out_val) {
    for (kg_u64 t = gb_tid(); t < m; t += gb_stride()) {
        if (!head[t]) continue;
        kg_idx_t j = keys[t];
        kg_c_t acc = vals[t];
        for (kg_u64 u = t + 1; u < m && keys[u] == j; ++u) {
            if (KG_IS_TERMINAL(acc)) break;
            acc = kg_add(acc, vals[u]);
        }
        out_idx[pos[t]] = j;
        out_val[pos[t]] = acc;
    }
}

// Sets n accumulators to the identity.
extern "C" __global__ void gb_fill_identity(kg_idx_t n, kg_c_t *acc) {
    for (kg_u64 i = gb_tid(); i < n; i += gb_stride()) acc[i] = KG_IDENTITY;
}

// The flagged positions of a dense array as a sparse vector (pos: exclusive scan of flag).
extern "C" __global__ void gb_compact(kg_idx_t n, const kg_idx_t *flag, const kg_idx_t *pos, const kg_c_t *val,
                                      kg_idx_t *out_idx, kg_c_t *out_val) {
    for (kg_u64 i = gb_tid(); i < n; i += gb_stride()) {
        if (flag[i]) {
            out_idx[pos[i]] = (kg_idx_t)i;
            out_val[pos[i]] = val[i];
        }
    }
}

// ------------------------------------------------------------------ masked mxm (dot) and reduce

// C<M> = A B by dot products, for each stored entry e = (i, j) of the mask
// (row_of[e] = i, mind[e] = j): ⊕_k A(i,k) ⊗ B(k,j), A's row i and B's
// column j (row j of bt = B^T) merged in increasing k.
extern "C" __global__ void gb_mxm_dot(kg_idx_t mnnz, const kg_idx_t *row_of, const kg_idx_t *mind,
                                      const kg_idx_t *aptr, const kg_idx_t *aind, const kg_a_t *aval,
                                      const kg_idx_t *bptr, const kg_idx_t *bind, const kg_b_t *bval, kg_c_t *cval,
                                      unsigned char *cpres) {
    for (kg_u64 r = gb_tid(); r < mnnz; r += gb_stride()) {
        kg_idx_t i = row_of[r], j = mind[r];
        kg_idx_t p = aptr[i], pe = aptr[i + 1], q = bptr[j], qe = bptr[j + 1];
        kg_c_t acc = KG_IDENTITY;
        bool any = false;
        while (p < pe && q < qe) {
            kg_idx_t ka = aind[p], kb = bind[q];
            if (ka < kb) {
                ++p;
            } else if (kb < ka) {
                ++q;
            } else {
                kg_c_t t = kg_mul(GB_LOAD_A(aval, p), GB_LOAD_B(bval, q), i, ka, j);
                acc = any ? kg_add(acc, t) : t;
                any = true;
                if (KG_IS_TERMINAL(acc)) break;
                ++p;
                ++q;
            }
        }
        cpres[r] = any ? 1 : 0;
        if (any) cval[r] = acc;
    }
}

// *out = *out ⊕ (⊕ of the present values): a block reduction over present
// values only (so that the ANY monoid, whose ⊕ keeps its first operand, never
// meets the identity), then one atomic update per block that saw a value.
extern "C" __global__ void gb_reduce(kg_idx_t m, const kg_c_t *val, const unsigned char *pres, kg_c_t *out) {
    __shared__ kg_c_t s[256];
    __shared__ unsigned char h[256];
    kg_c_t acc = KG_IDENTITY;
    bool any = false;
    for (kg_u64 i = gb_tid(); i < m; i += gb_stride()) {
        if (pres[i]) {
            acc = any ? kg_add(acc, val[i]) : val[i];
            any = true;
        }
    }
    s[threadIdx.x] = acc;
    h[threadIdx.x] = any ? 1 : 0;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w && h[threadIdx.x + w]) {
            s[threadIdx.x] = h[threadIdx.x] ? kg_add(s[threadIdx.x], s[threadIdx.x + w]) : s[threadIdx.x + w];
            h[threadIdx.x] = 1;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && h[0]) kg_atomic_add(out, s[0]);
}
