// Index-only building blocks of sparse results built on the device (the
// unmasked and masked matrix product, extract, assign): compaction of
// flagged entries, remapping of rows and columns, sorting within rows, the
// transpose (CSR to CSC), and gathers of values by element size (the
// values' type does not matter to a permutation, so one module per index
// width serves every element type).
//
// Appended to graphblas_util.cu (kg_u64, gb_tid, gb_stride come from
// there), after the index preface (kg_idx_t, KG_IDX_MAX).

#define GBS_NONE KG_IDX_MAX

// dst[k] = src[perm[k]] for k < n; where perm[k] is GBS_NONE dst keeps its
// value. One kernel per element size.
#define GBS_GATHER(name, type)                                                                                   \
    extern "C" __global__ void name(kg_idx_t n, const kg_idx_t *perm, const type *src, type *dst) {              \
        for (kg_u64 k = gb_tid(); k < n; k += gb_stride()) {                                                     \
            kg_idx_t p = perm[k];                                                                                \
            if (p != GBS_NONE) dst[k] = src[p];                                                                  \
        }                                                                                                        \
    }
GBS_GATHER(gbs_gather_1, unsigned char)
GBS_GATHER(gbs_gather_2, unsigned short)
GBS_GATHER(gbs_gather_4, unsigned int)
GBS_GATHER(gbs_gather_8, kg_u64)

// Row pointers of a compacted CSR: out[i] = pos[ptr[i]] for i <= nrows, pos
// the exclusive scan of the entries' keep flags (nnz + 1 of them, the last
// the total).
extern "C" __global__ void gbs_row_starts(kg_idx_t nrows, const kg_idx_t *ptr, const kg_idx_t *pos, kg_idx_t *out) {
    for (kg_u64 i = gb_tid(); i <= (kg_u64)nrows; i += gb_stride()) out[i] = pos[ptr[i]];
}

// flag[e] = 1 for each entry (i, j) of a CSR outside the region rows x cols
// (rowmap[i] or colmap[j] is GBS_NONE), else 0.
extern "C" __global__ void gbs_region_flags(kg_idx_t nrows, const kg_idx_t *ptr, const kg_idx_t *ind,
                                            const kg_idx_t *rowmap, const kg_idx_t *colmap, kg_idx_t *flag) {
    for (kg_u64 r = gb_tid(); r < nrows; r += gb_stride()) {
        const kg_idx_t i = (kg_idx_t)r;
        const bool out_row = rowmap[i] == GBS_NONE;
        for (kg_idx_t e = ptr[i]; e < ptr[i + 1]; ++e) flag[e] = (out_row || colmap[ind[e]] == GBS_NONE) ? 1 : 0;
    }
}

// Remapping: output row r takes row rowmap[r] of A (none when GBS_NONE);
// an entry of A in column j becomes the entries in columns
// colq[colptr[j] .. colptr[j + 1]) (extract: the positions q with J[q] = j;
// assign: the one column J[j]). cnt[r]: row r's number of entries.
extern "C" __global__ void gbs_remap_count(kg_idx_t nout, const kg_idx_t *rowmap, const kg_idx_t *aptr,
                                           const kg_idx_t *aind, const kg_idx_t *colptr, kg_idx_t *cnt) {
    for (kg_u64 r = gb_tid(); r < nout; r += gb_stride()) {
        const kg_idx_t p = rowmap[r];
        kg_idx_t c = 0;
        if (p != GBS_NONE) {
            for (kg_idx_t e = aptr[p]; e < aptr[p + 1]; ++e) {
                const kg_idx_t j = aind[e];
                c += colptr[j + 1] - colptr[j];
            }
        }
        cnt[r] = c;
    }
}

// The entries of the remapping from ptr[r] (the scan of the counts): their
// column in key, the position of their value in A in perm (rows unsorted
// until gbs_sort_segments).
extern "C" __global__ void gbs_remap_fill(kg_idx_t nout, const kg_idx_t *rowmap, const kg_idx_t *aptr,
                                          const kg_idx_t *aind, const kg_idx_t *colptr, const kg_idx_t *colq,
                                          const kg_idx_t *ptr, kg_idx_t *key, kg_idx_t *perm) {
    for (kg_u64 r = gb_tid(); r < nout; r += gb_stride()) {
        const kg_idx_t p = rowmap[r];
        if (p == GBS_NONE) continue;
        kg_idx_t o = ptr[r];
        for (kg_idx_t e = aptr[p]; e < aptr[p + 1]; ++e) {
            const kg_idx_t j = aind[e];
            for (kg_idx_t q = colptr[j]; q < colptr[j + 1]; ++q) {
                key[o] = colq[q];
                perm[o] = e;
                ++o;
            }
        }
    }
}

// The unordered rows a kernel left at off[i] (the hash product's), moved to
// ptr[i] (the scan of their counts): key the column, perm the old position.
extern "C" __global__ void gbs_rows_gather(kg_idx_t nrows, const kg_u64 *off, const kg_idx_t *ptr,
                                           const kg_idx_t *oind, kg_idx_t *key, kg_idx_t *perm) {
    for (kg_u64 r = gb_tid(); r < nrows; r += gb_stride()) {
        const kg_idx_t o = ptr[r], n = ptr[r + 1] - o;
        for (kg_idx_t t = 0; t < n; ++t) {
            key[o + t] = oind[off[r] + t];
            perm[o + t] = (kg_idx_t)(off[r] + t);
        }
    }
}

__device__ __forceinline__ void gbs_swap(kg_idx_t *k, kg_idx_t *v, kg_idx_t a, kg_idx_t b) {
    kg_idx_t t = k[a];
    k[a] = k[b];
    k[b] = t;
    t = v[a];
    v[a] = v[b];
    v[b] = t;
}

// Sifts k[root] down the max-heap k[0 .. n).
__device__ void gbs_sift(kg_idx_t *k, kg_idx_t *v, kg_idx_t root, kg_idx_t n) {
    while (true) {
        kg_idx_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && k[c + 1] > k[c]) ++c;
        if (k[root] >= k[c]) return;
        gbs_swap(k, v, root, c);
        root = c;
    }
}

// Sorts each segment [ptr[s], ptr[s + 1]) of key by key (distinct within a
// segment), perm moving along: insertion sort for short segments, heap sort
// for long ones (a thread per segment).
extern "C" __global__ void gbs_sort_segments(kg_idx_t nseg, const kg_idx_t *ptr, kg_idx_t *key, kg_idx_t *perm) {
    for (kg_u64 s = gb_tid(); s < nseg; s += gb_stride()) {
        kg_idx_t *k = key + ptr[s], *v = perm + ptr[s];
        const kg_idx_t n = ptr[s + 1] - ptr[s];
        if (n <= 32) {
            for (kg_idx_t a = 1; a < n; ++a) {
                const kg_idx_t x = k[a], y = v[a];
                kg_idx_t b = a;
                for (; b > 0 && k[b - 1] > x; --b) {
                    k[b] = k[b - 1];
                    v[b] = v[b - 1];
                }
                k[b] = x;
                v[b] = y;
            }
            continue;
        }
        for (kg_idx_t r = n / 2; r > 0; --r) gbs_sift(k, v, r - 1, n);
        for (kg_idx_t end = n - 1; end > 0; --end) {
            gbs_swap(k, v, 0, end);
            gbs_sift(k, v, 0, end);
        }
    }
}

// Transpose, first pass: cnt[j] += the entries in column j (cnt zeroed).
extern "C" __global__ void gbs_col_counts(kg_idx_t nnz, const kg_idx_t *ind, kg_idx_t *cnt) {
    for (kg_u64 e = gb_tid(); e < nnz; e += gb_stride()) atomicAdd(&cnt[ind[e]], (kg_idx_t)1);
}

// Transpose, second pass: each entry e = (i, j) to a free place of column j
// (tptr the scan of the counts, fill zeroed): key = i, perm = e; the
// columns are then sorted by gbs_sort_segments.
extern "C" __global__ void gbs_transpose_fill(kg_idx_t nrows, const kg_idx_t *ptr, const kg_idx_t *ind,
                                              const kg_idx_t *tptr, kg_idx_t *fill, kg_idx_t *key, kg_idx_t *perm) {
    for (kg_u64 r = gb_tid(); r < nrows; r += gb_stride()) {
        const kg_idx_t i = (kg_idx_t)r;
        for (kg_idx_t e = ptr[i]; e < ptr[i + 1]; ++e) {
            const kg_idx_t j = ind[e];
            const kg_idx_t o = tptr[j] + atomicAdd(&fill[j], (kg_idx_t)1);
            key[o] = i;
            perm[o] = e;
        }
    }
}
