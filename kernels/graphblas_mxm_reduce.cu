// The masked product reduced to one value, ⊕ of the entries of
// C<M> = A B' under a plain mask, C never stored: the device form of
// reduce_mxm (a triangle count is its plus-pair case). Appended to the hash
// template (kernels/graphblas_mxm_hash.cu: gbh_hash, GBH_EMPTY, GBH_LOAD_*).
//
// Each row i has a set S(i) and an outer list O(i); each entry o of O(i)
// has a probe list P(o), and every key of P(o) found in S(i) is one term:
// - form 0 (dot products at the mask's positions): S(i) = A(i,:),
//   O(i) = M(i,:), P(j) = B'(:,j) (a row of B'ᵀ): a key k found is the term
//   A(i,k) ⊗ B'(k,j) of C(i,j);
// - form 1 (by rows): S(i) = M(i,:), O(i) = A(i,:), P(k) = B'(k,:): a key j
//   found is the term A(i,k) ⊗ B'(k,j) of C(i,j).
// ⊕ over the terms is ⊕ over the entries of C (the monoid is commutative).
//
// The intersection is chosen per row by its lengths. gbr_rows: a warp per
// row whose set fits a warp's shared hash table (at most GBR_WSLOTS / 4
// keys) and whose outer list is short (at most GBR_OUTER_BIG); the rest are
// cut into items of GBR_PIECE outer entries for gbr_big: a block per item,
// the set in a block's shared table (at most GBR_BSLOTS / 4 keys), or, for
// a larger set, a binary search of the sorted row. In both a warp takes 32
// outer entries at a time: probe lists longer than GBR_LONG are walked by
// the whole warp one after the other (coalesced), the shorter ones are
// flattened across the lanes (a lane finds its list by a search over the
// warp's prefix sums), so no lane waits on another's list. Each thread folds
// its terms in a register; one atomic update per block at the end.

#define GBR_WARPS 8
#define GBR_BIG_THREADS 512
// a warp's table: 4 KiB of keys (2 KiB and as many of positions when A is
// read); a block's: 32 KiB (16 KiB of each when A is read). Tables are at
// most a quarter full (short probe chains: most probes miss)
#define GBR_WSLOTS ((KG_READ_A ? 2048 : 4096) / (int)sizeof(kg_idx_t))
#define GBR_BSLOTS ((KG_READ_A ? 16384 : 32768) / (int)sizeof(kg_idx_t))
// the host sizes the items for GBR_OUTER_BIG >= 128 and GBR_PIECE >= 256
// (and sets of more than GBR_WSLOTS / 4 >= 64 keys)
#ifndef GBR_OUTER_BIG
#define GBR_OUTER_BIG 256
#endif
#ifndef GBR_PIECE
#define GBR_PIECE 1024
#endif
#ifndef GBR_LONG
#define GBR_LONG 64
#endif

// The table's slot of key k (tables at most half full), or -1 when absent.
__device__ __forceinline__ long long gbr_find(const kg_idx_t *key, kg_idx_t size, kg_idx_t k) {
    kg_idx_t s = gbh_hash(k, size - 1);
    while (true) {
        kg_idx_t x = key[s];
        if (x == k) return (long long)s;
        if (x == GBH_EMPTY) return -1;
        s = (s + 1) & (size - 1);
    }
}

// The position of k in the sorted ind[s0, s1), or -1 when absent.
__device__ __forceinline__ long long gbr_search(const kg_idx_t *ind, kg_idx_t s0, kg_idx_t s1, kg_idx_t k) {
    while (s0 < s1) {
        kg_idx_t m = s0 + (s1 - s0) / 2;
        kg_idx_t x = ind[m];
        if (x == k) return (long long)m;
        if (x < k) {
            s0 = m + 1;
        } else {
            s1 = m;
        }
    }
    return -1;
}

// Fills the table key[0, size) with the set sind[s0, s1) (pos: each key's
// position, kept when A is read), by threads t of nt; the caller syncs.
__device__ __forceinline__ void gbr_fill(kg_idx_t *key, kg_idx_t *pos, kg_idx_t size, const kg_idx_t *sind,
                                         kg_idx_t s0, kg_idx_t s1, unsigned t, unsigned nt) {
    for (kg_idx_t e = s0 + t; e < s1; e += nt) {
        kg_idx_t k = sind[e];
        kg_idx_t s = gbh_hash(k, size - 1);
        while (atomicCAS(&key[s], GBH_EMPTY, k) != GBH_EMPTY) s = (s + 1) & (size - 1);
        if (KG_READ_A) pos[s] = e;
    }
}

// What one warp needs to fold the terms of a row.
struct gbr_row {
    int form;
    kg_idx_t i;
    const kg_idx_t *sind;  // the set's sorted list (searched when key is null)
    kg_idx_t s0, s1;
    const kg_idx_t *key;  // the set's table, or null
    const kg_idx_t *pos;
    kg_idx_t size;
    const kg_a_t *aval;
    const kg_idx_t *pptr, *pind;
    const kg_b_t *pval;
};

// The term of key x (at probe position q) of outer entry o (at outer
// position e), found or not: in the table when TABLE, else by a search.
template <bool TABLE>
__device__ __forceinline__ void gbr_term(const gbr_row &r, kg_idx_t o, kg_idx_t e, kg_idx_t q, kg_idx_t x,
                                         kg_c_t &acc, bool &any) {
    long long hit = TABLE ? gbr_find(r.key, r.size, x) : gbr_search(r.sind, r.s0, r.s1, x);
    if (hit < 0) return;
    kg_c_t t;
    if (r.form == 0) {
        kg_idx_t ap = KG_READ_A ? (TABLE ? r.pos[hit] : (kg_idx_t)hit) : 0;
        t = kg_mul(GBH_LOAD_A(r.aval, ap), GBH_LOAD_B(r.pval, q), r.i, x, o);
    } else {
        t = kg_mul(GBH_LOAD_A(r.aval, e), GBH_LOAD_B(r.pval, q), r.i, o, x);
    }
    acc = any ? kg_add(acc, t) : t;
    any = true;
}

// Folds the terms of the outer entries oind[base, base + 32) ∩ [base, o1)
// of row r into (acc, any); called by a whole warp. A long list is read
// GBR_UNROLL loads ahead (independent loads in flight per lane).
#ifndef GBR_UNROLL
#define GBR_UNROLL 4
#endif
template <bool TABLE>
__device__ __forceinline__ void gbr_chunk(const gbr_row &r, const kg_idx_t *oind, kg_idx_t base, kg_idx_t o1,
                                          kg_c_t &acc, bool &any) {
    const unsigned lane = threadIdx.x & 31u;
    const kg_idx_t e = base + lane;
    const bool valid = e < o1;
    const kg_idx_t o = valid ? oind[e] : 0;
    const kg_idx_t q0 = valid ? r.pptr[o] : 0;
    const kg_idx_t len = valid ? r.pptr[o + 1] - q0 : 0;
    // the long lists, one after the other, by the whole warp
    unsigned longs = __ballot_sync(GBH_FULL, len > GBR_LONG);
    while (longs) {
        const int src = __ffs(longs) - 1;
        longs &= longs - 1;
        const kg_idx_t lo = __shfl_sync(GBH_FULL, o, src), le = __shfl_sync(GBH_FULL, e, src);
        const kg_idx_t lq = __shfl_sync(GBH_FULL, q0, src), ll = __shfl_sync(GBH_FULL, len, src);
        const kg_idx_t end = lq + ll;
        for (kg_idx_t q = lq + lane; q < end; q += 32 * GBR_UNROLL) {
            kg_idx_t x[GBR_UNROLL];
#pragma unroll
            for (int u = 0; u < GBR_UNROLL; ++u) x[u] = q + 32 * u < end ? r.pind[q + 32 * u] : 0;
#pragma unroll
            for (int u = 0; u < GBR_UNROLL; ++u) {
                if (q + 32 * u < end) gbr_term<TABLE>(r, lo, le, q + 32 * u, x[u], acc, any);
            }
        }
    }
    // the short ones flattened: term t of the chunk belongs to the last lane whose prefix is <= t
    const unsigned n = len > GBR_LONG ? 0u : (unsigned)len;
    unsigned incl = n;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned y = __shfl_up_sync(GBH_FULL, incl, d);
        if (lane >= (unsigned)d) incl += y;
    }
    const unsigned total = __shfl_sync(GBH_FULL, incl, 31), excl = incl - n;
    for (unsigned t0 = 0; t0 < total; t0 += 32) {
        const unsigned t = t0 + lane;
        int src = 0;
        for (int step = 16; step > 0; step >>= 1) {
            unsigned x = __shfl_sync(GBH_FULL, excl, src + step);
            if (x <= t) src += step;
        }
        const kg_idx_t so = __shfl_sync(GBH_FULL, o, src), se = __shfl_sync(GBH_FULL, e, src);
        const kg_idx_t sq = __shfl_sync(GBH_FULL, q0, src);
        const unsigned sx = __shfl_sync(GBH_FULL, excl, src);
        if (t < total) {
            const kg_idx_t q = sq + (t - sx);
            gbr_term<TABLE>(r, so, se, q, r.pind[q], acc, any);
        }
    }
}

// out = out ⊕ (⊕ of the threads' folds), one atomic update per block of
// THREADS threads.
template <int THREADS>
__device__ __forceinline__ void gbr_block_fold(kg_c_t acc, bool any, kg_c_t *out) {
    __shared__ kg_c_t s[THREADS];
    __shared__ unsigned char h[THREADS];
    s[threadIdx.x] = acc;
    h[threadIdx.x] = any ? 1 : 0;
    __syncthreads();
    for (unsigned w = THREADS / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w && h[threadIdx.x + w]) {
            s[threadIdx.x] = h[threadIdx.x] ? kg_add(s[threadIdx.x], s[threadIdx.x + w]) : s[threadIdx.x + w];
            h[threadIdx.x] = 1;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && h[0]) kg_atomic_add(out, s[0]);
}

// The table size of a set of m keys: a power of two at least 4m (and 32).
__device__ __forceinline__ kg_idx_t gbr_size(kg_idx_t m) {
    kg_idx_t size = 32;
    while (size < 4 * m) size <<= 1;
    return size;
}

// The rows a warp takes (see above); the others become items (row,
// first outer position) at items_row / items_beg, their number in
// counts[0] (counts[1] stays 0 unless more than cap were needed).
extern "C" __global__ void __launch_bounds__(GBR_WARPS * 32)
    gbr_rows(kg_idx_t nrows, int form, const kg_idx_t *sptr, const kg_idx_t *sind, const kg_idx_t *optr,
             const kg_idx_t *oind, const kg_a_t *aval, const kg_idx_t *pptr, const kg_idx_t *pind,
             const kg_b_t *pval, kg_idx_t *items_row, kg_idx_t *items_beg, kg_u64 cap, kg_u64 *counts,
             kg_c_t *out) {
    __shared__ kg_idx_t tkey[GBR_WARPS][GBR_WSLOTS];
    __shared__ kg_idx_t tpos[KG_READ_A ? GBR_WARPS : 1][KG_READ_A ? GBR_WSLOTS : 1];
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    kg_c_t acc = KG_IDENTITY;
    bool any = false;
    gbr_row r;
    r.form = form;
    r.sind = sind;
    r.key = tkey[w];
    r.pos = KG_READ_A ? tpos[w] : 0;
    r.aval = aval;
    r.pptr = pptr;
    r.pind = pind;
    r.pval = pval;
    for (kg_u64 row = (kg_u64)blockIdx.x * GBR_WARPS + w; row < nrows; row += (kg_u64)gridDim.x * GBR_WARPS) {
        const kg_idx_t i = (kg_idx_t)row;
        const kg_idx_t s0 = sptr[i], s1 = sptr[i + 1], o0 = optr[i], o1 = optr[i + 1];
        if (s0 == s1 || o0 == o1) continue;
        if (s1 - s0 > GBR_WSLOTS / 4 || o1 - o0 > GBR_OUTER_BIG) {
            if (lane == 0) {
                kg_u64 np = (o1 - o0 + GBR_PIECE - 1) / GBR_PIECE;
                kg_u64 at = atomicAdd(&counts[0], np);
                if (at + np > cap) {
                    atomicAdd(&counts[1], 1ULL);
                } else {
                    for (kg_u64 p = 0; p < np; ++p) {
                        items_row[at + p] = i;
                        items_beg[at + p] = o0 + (kg_idx_t)(p * GBR_PIECE);
                    }
                }
            }
            continue;
        }
        const kg_idx_t size = gbr_size(s1 - s0);
        for (kg_idx_t s = lane; s < size; s += 32) tkey[w][s] = GBH_EMPTY;
        __syncwarp();
        gbr_fill(tkey[w], tpos[KG_READ_A ? w : 0], size, sind, s0, s1, lane, 32);
        __syncwarp();
        r.i = i;
        r.s0 = s0;
        r.s1 = s1;
        r.size = size;
        for (kg_idx_t base = o0; base < o1; base += 32) gbr_chunk<true>(r, oind, base, o1, acc, any);
        __syncwarp();
    }
    gbr_block_fold<GBR_WARPS * 32>(acc, any, out);
}

// The items gbr_rows left (counts[0] of them, taken in turn through
// counts[2]): a block per item, its set in the block's table or searched.
extern "C" __global__ void __launch_bounds__(GBR_BIG_THREADS)
    gbr_big(int form, const kg_idx_t *sptr, const kg_idx_t *sind, const kg_idx_t *optr, const kg_idx_t *oind,
            const kg_a_t *aval, const kg_idx_t *pptr, const kg_idx_t *pind, const kg_b_t *pval,
            const kg_idx_t *items_row, const kg_idx_t *items_beg, kg_u64 cap, kg_u64 *counts, kg_c_t *out) {
    __shared__ kg_idx_t tkey[GBR_BSLOTS];
    __shared__ kg_idx_t tpos[KG_READ_A ? GBR_BSLOTS : 1];
    __shared__ kg_u64 next;
    const unsigned w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const kg_u64 n = counts[0] < cap ? counts[0] : cap;
    kg_c_t acc = KG_IDENTITY;
    bool any = false;
    gbr_row r;
    r.form = form;
    r.sind = sind;
    r.pos = KG_READ_A ? tpos : 0;
    r.aval = aval;
    r.pptr = pptr;
    r.pind = pind;
    r.pval = pval;
    while (true) {
        if (threadIdx.x == 0) next = atomicAdd(&counts[2], 1ULL);
        __syncthreads();
        const kg_u64 item = next;
        if (item >= n) break;
        const kg_idx_t i = items_row[item], beg = items_beg[item];
        const kg_idx_t s0 = sptr[i], s1 = sptr[i + 1], o1e = optr[i + 1];
        const kg_idx_t o1 = beg + GBR_PIECE < o1e ? beg + GBR_PIECE : o1e;
        const bool table = s1 - s0 <= GBR_BSLOTS / 4;
        const kg_idx_t size = table ? gbr_size(s1 - s0) : 0;
        if (table) {
            for (kg_idx_t s = threadIdx.x; s < size; s += blockDim.x) tkey[s] = GBH_EMPTY;
            __syncthreads();
            gbr_fill(tkey, tpos, size, sind, s0, s1, threadIdx.x, blockDim.x);
        }
        __syncthreads();
        r.i = i;
        r.s0 = s0;
        r.s1 = s1;
        r.key = table ? tkey : 0;
        r.size = size;
        if (table) {
            for (kg_idx_t base = beg + 32 * w; base < o1; base += 32 * nw) gbr_chunk<true>(r, oind, base, o1, acc, any);
        } else {
            for (kg_idx_t base = beg + 32 * w; base < o1; base += 32 * nw) gbr_chunk<false>(r, oind, base, o1, acc, any);
        }
        __syncthreads();
    }
    gbr_block_fold<GBR_BIG_THREADS>(acc, any, out);
}
