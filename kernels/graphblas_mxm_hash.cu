// Masked matrix product C<M> = A B by rows (Gustavson) with a hash
// accumulator per row, over one semiring.
//
// This template follows a generated preface: the semiring's CUDA form
// (kg_a_t, kg_b_t, kg_c_t, KG_IDENTITY, kg_add, kg_mul) and KG_READ_A /
// KG_READ_B (0 when the semiring does not read that operand), and the index
// type kg_idx_t (32 or 64 bits; KG_IDX_MAX marks an empty slot, KG_IDX_TOP
// a present value).
//
// One warp per output row i. Its hash table (open addressing, linear
// probing, at most half full) lives in shared memory when it has at most
// GBH_SLOTS slots, else in a global region of the row (offset goff[i]). The
// mask row is inserted first: for a plain mask each entry keeps its mask
// position (the output slot), and a product whose column is not in the
// table is dropped; for a complemented mask the entries are marked
// blocked, and products insert their column (unless blocked). Then the warp
// walks A(i,:) in increasing k; for each k its lanes take 32 entries of
// B(k,:) at a time (distinct columns, so no two lanes update one slot) and
// fold A(i,k) ⊗ B(k,j) into the slot of j; a __syncwarp separates the
// chunks, so each slot folds its terms in increasing k, as the CPU does.

typedef unsigned long long kg_u64;

#define GBH_FULL 0xffffffffu
#define GBH_EMPTY KG_IDX_MAX
#define GBH_WARPS 4
#define GBH_SLOTS 256
#define GBH_PRESENT KG_IDX_TOP
#define GBH_BLOCKED (KG_IDX_TOP - 1)
#define GBH_LOAD_A(p, q) (KG_READ_A ? (p)[q] : (kg_a_t)0)
#define GBH_LOAD_B(p, q) (KG_READ_B ? (p)[q] : (kg_b_t)0)

__device__ __forceinline__ kg_idx_t gbh_hash(kg_idx_t j, kg_idx_t mask) { return (j * 0x9E3779B1u) & mask; }

// The slot of key j, inserting it if absent (the table has a free slot).
__device__ __forceinline__ kg_idx_t gbh_insert(kg_idx_t *key, kg_idx_t size, kg_idx_t j) {
    kg_idx_t s = gbh_hash(j, size - 1);
    while (true) {
        kg_idx_t old = atomicCAS(&key[s], GBH_EMPTY, j);
        if (old == GBH_EMPTY || old == j) return s;
        s = (s + 1) & (size - 1);
    }
}

// The slot of key j, or GBH_EMPTY when absent.
__device__ __forceinline__ kg_idx_t gbh_find(const kg_idx_t *key, kg_idx_t size, kg_idx_t j) {
    kg_idx_t s = gbh_hash(j, size - 1);
    while (true) {
        kg_idx_t k = key[s];
        if (k == j) return s;
        if (k == GBH_EMPTY) return GBH_EMPTY;
        s = (s + 1) & (size - 1);
    }
}

// flops[i] = sum over k in A(i,:) of |B(k,:)|; costs[0] += |A(i,:)| + |B'(j,:)|
// over the mask entries (i, j) (the dot form's merge length, `bt` the rows
// of B' = the columns of B), costs[1] += flops[i] + |M(i,:)| (the hash form's).
extern "C" __global__ void gbh_costs(kg_idx_t nrows, const kg_idx_t *aptr, const kg_idx_t *aind, const kg_idx_t *bptr,
                                     const kg_idx_t *btptr, const kg_idx_t *mptr, const kg_idx_t *mind,
                                     kg_idx_t *flops, kg_u64 *costs) {
    kg_u64 dot = 0, hash = 0;
    for (kg_u64 r = (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; r < nrows; r += (kg_u64)gridDim.x * blockDim.x) {
        kg_idx_t i = (kg_idx_t)r;
        kg_idx_t alen = aptr[i + 1] - aptr[i];
        kg_u64 f = 0;
        for (kg_idx_t p = aptr[i]; p < aptr[i + 1]; ++p) {
            kg_idx_t k = aind[p];
            f += bptr[k + 1] - bptr[k];
        }
        flops[i] = f > (kg_u64)(GBH_BLOCKED) ? GBH_BLOCKED : (kg_idx_t)f;
        kg_idx_t m0 = mptr[i], m1 = mptr[i + 1];
        hash += f + (m1 - m0);
        for (kg_idx_t e = m0; e < m1; ++e) {
            kg_idx_t j = mind[e];
            dot += alen + (btptr[j + 1] - btptr[j]);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        dot += __shfl_down_sync(GBH_FULL, dot, o);
        hash += __shfl_down_sync(GBH_FULL, hash, o);
    }
    if ((threadIdx.x & 31u) == 0) {
        atomicAdd(&costs[0], dot);
        atomicAdd(&costs[1], hash);
    }
}

// The product. tsz[i]: the table size of row i (a power of two, 0 for a
// row with nothing to compute); goff[i]: its global region when tsz[i] >
// GBH_SLOTS. Plain mask (comp = 0): cval / cpres per mask position.
// Complemented: row i's entries, unordered, at oind / oval (opres set to 1)
// from ooff[i], their count in ocount[i] (opres and ocount zeroed on entry).
extern "C" __global__ void __launch_bounds__(GBH_WARPS * 32)
    gbh_mxm(kg_idx_t nrows, const kg_idx_t *aptr, const kg_idx_t *aind, const kg_a_t *aval, const kg_idx_t *bptr,
            const kg_idx_t *bind, const kg_b_t *bval, const kg_idx_t *mptr, const kg_idx_t *mind, int comp,
            const kg_idx_t *tsz, const kg_u64 *goff, kg_idx_t *gkey, kg_idx_t *gaux, kg_c_t *gval, kg_c_t *cval,
            unsigned char *cpres, const kg_u64 *ooff, kg_idx_t *oind, kg_c_t *oval, unsigned char *opres,
            kg_idx_t *ocount) {
    __shared__ kg_idx_t skey[GBH_WARPS][GBH_SLOTS];
    __shared__ kg_idx_t saux[GBH_WARPS][GBH_SLOTS];
    __shared__ kg_c_t sval[GBH_WARPS][GBH_SLOTS];
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    for (kg_u64 r = (kg_u64)blockIdx.x * GBH_WARPS + w; r < nrows; r += (kg_u64)gridDim.x * GBH_WARPS) {
        const kg_idx_t i = (kg_idx_t)r;
        const kg_idx_t size = tsz[i];
        if (size == 0) continue;
        kg_idx_t *key, *aux;
        kg_c_t *val;
        if (size <= GBH_SLOTS) {
            key = skey[w];
            aux = saux[w];
            val = sval[w];
        } else {
            key = gkey + goff[i];
            aux = gaux + goff[i];
            val = gval + goff[i];
        }
        for (kg_idx_t s = lane; s < size; s += 32) {
            key[s] = GBH_EMPTY;
            aux[s] = 0;
        }
        __syncwarp();
        const kg_idx_t m0 = mptr[i], m1 = mptr[i + 1];
        for (kg_idx_t e = m0 + lane; e < m1; e += 32) {
            kg_idx_t s = gbh_insert(key, size, mind[e]);
            aux[s] = comp ? GBH_BLOCKED : e;
        }
        __syncwarp();
        for (kg_idx_t p = aptr[i]; p < aptr[i + 1]; ++p) {
            const kg_idx_t k = aind[p];
            const kg_a_t x = GBH_LOAD_A(aval, p);
            const kg_idx_t q1 = bptr[k + 1];
            for (kg_idx_t q0 = bptr[k]; q0 < q1; q0 += 32) {
                kg_idx_t q = q0 + lane;
                if (q < q1) {
                    kg_idx_t j = bind[q];
                    kg_idx_t s = comp ? gbh_insert(key, size, j) : gbh_find(key, size, j);
                    if (s != GBH_EMPTY) {
                        kg_idx_t a = aux[s];
                        if (a != GBH_BLOCKED) {
                            kg_c_t t = kg_mul(x, GBH_LOAD_B(bval, q), i, k, j);
                            val[s] = (a & GBH_PRESENT) ? kg_add(val[s], t) : t;
                            aux[s] = a | GBH_PRESENT;
                        }
                    }
                }
                __syncwarp();
            }
        }
        if (!comp) {
            for (kg_idx_t s = lane; s < size; s += 32) {
                if (key[s] == GBH_EMPTY) continue;
                kg_idx_t a = aux[s];
                kg_idx_t e = a & ~GBH_PRESENT;
                cpres[e] = (a & GBH_PRESENT) ? 1 : 0;
                if (a & GBH_PRESENT) cval[e] = val[s];
            }
        } else {
            for (kg_idx_t s = lane; s < size; s += 32) {
                kg_idx_t a = aux[s];
                if (key[s] == GBH_EMPTY || a == GBH_BLOCKED || !(a & GBH_PRESENT)) continue;
                kg_idx_t pos = atomicAdd(&ocount[i], (kg_idx_t)1);
                oind[ooff[i] + pos] = key[s];
                oval[ooff[i] + pos] = val[s];
                opres[ooff[i] + pos] = 1;
            }
        }
        __syncwarp();
    }
}
