// Element-wise operations of the GPU GraphBLAS: union (KG_KIND 0), intersection
// (1), apply (2) and select (3), with a mask (KG_MASK 0: none, 1: allowed
// where set, 2: complemented) and an optional accumulator (KG_ACCUM), on
// bitmap vectors and on compressed matrices.
//
// This template follows a generated preface: kg_x_t, kg_y_t (inputs), kg_z_t
// (output), kg_s_t (the scalar of apply/select), kg_idx_t (indices, 32 or
// 64 bits), KG_KIND, KG_MASK, KG_ACCUM,
// and the operator: kg_op(x, y, i, j) (union, intersection, bound apply),
// kg_unary(x, s, i, j) (apply), kg_select(x, s, i, j) (select),
// kg_accum(c, t, i, j). Scalars arrive as 64-bit patterns (sbits).
//
// The write rule (GraphBLAS' C<M, replace> = accum(C, T)), the same as the
// CPU's: where the mask allows, with an accumulator z = accum(c, t) where both
// are present, the present one elsewhere (absent if neither); without one z = t
// (absent where t is). Where the mask forbids, z = c, or absent with replace.

typedef unsigned long long kg_u64;

__device__ __forceinline__ kg_u64 gbe_tid() { return (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ kg_u64 gbe_stride() { return (kg_u64)gridDim.x * blockDim.x; }

__device__ __forceinline__ kg_s_t gbe_scalar(kg_u64 sbits) {
    kg_s_t s;
    memcpy(&s, &sbits, sizeof(kg_s_t));
    return s;
}

// t = op(x?, y?) at (i, j); returns whether t is present.
__device__ __forceinline__ bool gbe_compute(bool xp, kg_x_t x, bool yp, kg_y_t y, kg_s_t s, long long i,
                                            long long j, kg_z_t *t) {
#if KG_KIND == 0
    (void)s;
    if (xp && yp) *t = kg_op(x, y, i, j);
    else if (xp) *t = (kg_z_t)x;
    else if (yp) *t = (kg_z_t)y;
    return xp || yp;
#elif KG_KIND == 1
    (void)s;
    if (xp && yp) *t = kg_op(x, y, i, j);
    return xp && yp;
#elif KG_KIND == 2
    (void)yp; (void)y;
    if (xp) *t = kg_unary(x, s, i, j);
    return xp;
#else
    (void)yp; (void)y;
    bool keep = xp && kg_select(x, s, i, j);
    if (keep) *t = (kg_z_t)x;
    return keep;
#endif
}

// The write rule at an allowed position: z from the old c? and the new t?.
__device__ __forceinline__ bool gbe_write(bool cp, kg_z_t c, bool tp, kg_z_t t, long long i, long long j,
                                          kg_z_t *z) {
#if KG_ACCUM
    if (cp && tp) *z = kg_accum(c, t, i, j);
    else if (cp) *z = c;
    else if (tp) *z = t;
    return cp || tp;
#else
    (void)cp; (void)c; (void)i; (void)j;
    if (tp) *z = t;
    return tp;
#endif
}

// Whether the mask allows a position, given whether the mask holds it.
__device__ __forceinline__ bool gbe_allowed(bool in_mask) {
#if KG_MASK == 0
    (void)in_mask;
    return true;
#elif KG_MASK == 1
    return in_mask;
#else
    return !in_mask;
#endif
}

// ------------------------------------------------------------------ bitmap vectors

// w<mask, replace> = accum(w, op(x, y)) over n positions (y ignored by apply and select).
extern "C" __global__ void gbe_vector(kg_idx_t n, const kg_x_t *xval, const unsigned char *xpres,
                                      const kg_y_t *yval, const unsigned char *ypres, kg_u64 sbits,
                                      const unsigned char *mask, int replace, kg_z_t *wval, unsigned char *wpres) {
    kg_s_t s = gbe_scalar(sbits);
    for (kg_u64 r = gbe_tid(); r < n; r += gbe_stride()) {
        kg_idx_t i = (kg_idx_t)r;
        bool in_mask = KG_MASK != 0 && mask[i] != 0;
        if (!gbe_allowed(in_mask)) {
            if (replace) wpres[i] = 0;
            continue;
        }
        bool xp = xpres[i] != 0;
        bool yp = KG_KIND <= 1 && ypres[i] != 0;
        kg_z_t t = kg_z_t(), z = kg_z_t();
        bool tp = gbe_compute(xp, xp ? xval[i] : kg_x_t(), yp, yp ? yval[i] : kg_y_t(), s, (long long)i, 0, &t);
        bool cp = wpres[i] != 0;
        bool zp = gbe_write(cp, cp ? wval[i] : kg_z_t(), tp, t, (long long)i, 0, &z);
        wpres[i] = zp ? 1 : 0;
        if (zp) wval[i] = z;
    }
}

// ------------------------------------------------------------------ compressed matrices

#define GBE_END KG_IDX_MAX

// One row r of the result: a merge of row r of A, B (union and intersection
// only), the old output C and the mask M, all sorted. With `transposed` the
// rows are columns (the CSC pass): operators see (i, j) = (col, r).
// Counts the result's entries of the row; writes them when `out_ind` is set.
__device__ kg_idx_t gbe_row(kg_idx_t r, int transposed, kg_u64 sbits, int replace, const kg_idx_t *aptr,
                            const kg_idx_t *aind, const kg_x_t *aval, const kg_idx_t *bptr, const kg_idx_t *bind,
                            const kg_y_t *bval, const kg_idx_t *cptr, const kg_idx_t *cind, const kg_z_t *cval,
                            const kg_idx_t *mptr, const kg_idx_t *mind, kg_idx_t *out_ind, kg_z_t *out_val) {
    kg_s_t s = gbe_scalar(sbits);
    kg_idx_t pa = aptr[r], ea = aptr[r + 1];
    kg_idx_t pb = 0, eb = 0;
    if (KG_KIND <= 1) {
        pb = bptr[r];
        eb = bptr[r + 1];
    }
    kg_idx_t pc = cptr[r], ec = cptr[r + 1];
    kg_idx_t pm = 0, em = 0;
    if (KG_MASK != 0) {
        pm = mptr[r];
        em = mptr[r + 1];
    }
    kg_idx_t count = 0;
    for (;;) {
        kg_idx_t ja = pa < ea ? aind[pa] : GBE_END;
        kg_idx_t jb = pb < eb ? bind[pb] : GBE_END;
        kg_idx_t jc = pc < ec ? cind[pc] : GBE_END;
        kg_idx_t col = ja < jb ? ja : jb;
        col = jc < col ? jc : col;
        if (col == GBE_END) break;
        bool xp = ja == col, yp = jb == col, cp = jc == col;
        kg_x_t x = xp ? aval[pa++] : kg_x_t();
        kg_y_t y = yp ? bval[pb++] : kg_y_t();
        kg_z_t c = cp ? cval[pc++] : kg_z_t();
        bool in_mask = false;
        if (KG_MASK != 0) {
            while (pm < em && mind[pm] < col) ++pm;
            in_mask = pm < em && mind[pm] == col;
        }
        long long i = transposed ? (long long)col : (long long)r;
        long long j = transposed ? (long long)r : (long long)col;
        kg_z_t z = kg_z_t();
        bool zp;
        if (gbe_allowed(in_mask)) {
            kg_z_t t = kg_z_t();
            bool tp = gbe_compute(xp, x, yp, y, s, i, j, &t);
            zp = gbe_write(cp, c, tp, t, i, j, &z);
        } else {
            zp = cp && !replace;
            z = c;
        }
        if (zp) {
            if (out_ind) {
                out_ind[count] = col;
                out_val[count] = z;
            }
            ++count;
        }
    }
    return count;
}

// counts[r] = entries of result row r, for r < nrows.
extern "C" __global__ void gbe_matrix_count(kg_idx_t nrows, int transposed, kg_u64 sbits, int replace,
                                            const kg_idx_t *aptr, const kg_idx_t *aind, const kg_x_t *aval,
                                            const kg_idx_t *bptr, const kg_idx_t *bind, const kg_y_t *bval,
                                            const kg_idx_t *cptr, const kg_idx_t *cind, const kg_z_t *cval,
                                            const kg_idx_t *mptr, const kg_idx_t *mind, kg_idx_t *counts) {
    for (kg_u64 r = gbe_tid(); r < nrows; r += gbe_stride()) {
        counts[r] = gbe_row((kg_idx_t)r, transposed, sbits, replace, aptr, aind, aval, bptr, bind, bval, cptr, cind,
                            cval, mptr, mind, (kg_idx_t *)0, (kg_z_t *)0);
    }
}

// Writes result row r at optr[r] (optr: the exclusive scan of the counts).
extern "C" __global__ void gbe_matrix_fill(kg_idx_t nrows, int transposed, kg_u64 sbits, int replace,
                                           const kg_idx_t *aptr, const kg_idx_t *aind, const kg_x_t *aval,
                                           const kg_idx_t *bptr, const kg_idx_t *bind, const kg_y_t *bval,
                                           const kg_idx_t *cptr, const kg_idx_t *cind, const kg_z_t *cval,
                                           const kg_idx_t *mptr, const kg_idx_t *mind, const kg_idx_t *optr,
                                           kg_idx_t *oind, kg_z_t *oval) {
    for (kg_u64 r = gbe_tid(); r < nrows; r += gbe_stride()) {
        kg_idx_t o = optr[r];
        gbe_row((kg_idx_t)r, transposed, sbits, replace, aptr, aind, aval, bptr, bind, bval, cptr, cind, cval, mptr,
                mind, oind + o, oval + o);
    }
}
