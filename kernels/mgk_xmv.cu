// Batched marginalized graph kernel, first part: the design, the launch macros, and the
// staging of a pair and its product (XMV) in each scheme. kernels/mgk_pcg.cu (the PCG of a
// pair and the value kernel) follows it; src/mgk/gpu/codegen.rs joins the two (MGK_PCG_TEMPLATE).
//
// Appended after kernels/mgk_common.cu. Expects the generated preface (src/mgk/gpu/codegen.rs):
//   real, node_label, edge_label, kappa_node(a, b, theta), kappa_edge(a, b, theta),
//   MGK_LANE_NZ (nonzeros of G' per lane) and MGK_KERNEL_NAME; optionally MGK_XMV_TILES (1: the
//   tile-pair scheme below; 0 or absent: the row scheme) and MGK_DENSE_MIN (tile-pair scheme
//   only, default 64). Any block size from 32 to 1024 threads (a multiple of 32) works: the
//   source does not depend on it.
//
// Per pair (G with n nodes, G' with n2 nodes, N = n * n2, index (i, i') -> i * n2 + i'):
//   A = D V^-1 - (W (x) W') .* E,  D = (d d') * dscale,  V = diag kappa_node,
//   solve A x = D 1 by PCG with M = D V^-1 (Jacobi), x0 = 0,
//   stop when ||r|| <= tol ||D 1|| or after max_iter iterations;
//   K = sum p p' x  (minus sum p p' kappa_node when lmin = 1).
//
// Work distribution: persistent blocks take jobs (pairs) from an atomic counter; one block
// solves one pair. The search direction p and the product y = (W (x) W' .* E) p live in
// shared memory; x, r, M^-1 and diag(A) in a per-block global scratch. Mid-size pairs (N >
// shared_n, a launch argument) whose vectors do not fit in shared memory keep p and y in the
// global scratch too (mostly served by L2), the graphs still staged in shared memory: the
// whole PCG stays on the device, one block per pair, as many pairs at once as blocks (such a
// pair computes diag(A) and M^-1 where it needs them, and without nodal output sums K instead
// of storing x: see pcg_global). Only the staging of the
// pair (stage_pair, struct Staged) and the product (xmv) depend on the scheme; the operator
// weights w w' kappa_edge are computed on the fly in both.
//
// Row scheme (the default; the gradient kernel, kernels/mgk_grad.cu, always uses it): both
// graphs are staged in shared memory from their octiles, G by rows
// (each node row's nonzeros: column, weight, edge label) and G' as its list of nonzeros in
// octile order ((row, column), weight, edge label). A work item is one row i of G and a
// chunk of 32 * MGK_LANE_NZ nonzeros of G'; a warp takes items in turn. Each lane holds
// MGK_LANE_NZ nonzeros (i', j') of G' in registers and loops over row i of G (the same
// nonzero (i, j) for the whole warp, read by broadcast), summing
//   w_ij kappa_edge(e_ij, e'_i'j') p[j, j']
// in registers; then one shared atomic adds w'_i'j' times the sum to y[i, i']. Octile order
// keeps the lanes of a warp on few tiles of G', so the reads of p hit distinct banks or the
// same word. Cost per item: |row i| * 32 * MGK_LANE_NZ products, MGK_LANE_NZ atomics per lane.
// Shared memory: 2N reals, (real + edge label + 4) bytes per nonzero of each graph and
// 4 (n + 1) bytes of row pointers (and 4 (n' + 1) for G' with MGK_XMV_CSR).
//
// Tile-pair scheme (MGK_XMV_TILES = 1, the earlier design, kept for comparison): both graphs
// are staged as octiles (bitmap, (I, J), first nonzero per tile; position in the tile, weight,
// edge label per nonzero). The warps share out the pairs of non-empty octiles (tile T of G,
// tile T' of G'), one pair per warp at a time. A tile pair with nnz(T) * nnz(T') >=
// MGK_DENSE_MIN uses the row-structured ("dense") primitive: each lane owns two of the 64
// output entries (8I + a, 8I' + a') of the tile pair and sums over the nonzeros of row a of T
// and row a' of T', then adds its sum with one shared atomic; else the sparse primitive: the
// lanes share out the nnz(T) * nnz(T') nonzero pairs and add each product with a shared
// atomic. Cost: every tile pair is visited, so a pair costs at least nt * nt' warp steps
// however few products they hold. Shared memory: 2N reals and, per graph, 16 bytes per tile
// and (real + edge label + 1) bytes per nonzero.

// The fast tier (src/cuda/jit.rs, FAST_TIER_DEFINE: the image a first call runs while the full
// one compiles) leaves out the unrolled copies: one nonzero per lane, one entry per vector-pass
// step, one global-vector copy. Same results up to the order of the sums.
#ifdef KRONOGRAPH_FAST_TIER
#undef MGK_LANE_NZ
#define MGK_LANE_NZ 1
#undef MGK_VEC_BATCH
#define MGK_VEC_BATCH 1
#undef MGK_GLOBAL_COPIES
#define MGK_GLOBAL_COPIES 1
#endif
#ifndef MGK_LANE_NZ
#define MGK_LANE_NZ 1
#endif
#ifndef MGK_XMV_TILES
#define MGK_XMV_TILES 0
#endif
// Row scheme only. 1: G' is staged in row-major (CSR) order rather than octile order, and a lane
// holds MGK_LANE_NZ consecutive nonzeros (lane * MGK_LANE_NZ + r of its chunk) rather than every
// 32nd: a lane's nonzeros of the same row of G' are summed in registers and added with one shared
// atomic (per row of G, a graph of mean degree d needs about 1 + (MGK_LANE_NZ - 1) / d atomics
// per lane rather than MGK_LANE_NZ), and lanes rarely add to the same entry at once. 0: octile
// order, every 32nd nonzero. Same sums up to their order.
#ifndef MGK_XMV_CSR
#define MGK_XMV_CSR 0
#endif
#ifndef MGK_DENSE_MIN
#define MGK_DENSE_MIN 64
#endif
// 1 (the default): the value kernel holds the three placements of a pair's PCG (vectors in shared
// memory; vectors in global memory, graphs in shared; both in global). 0: only the first, for
// launches whose every pair keeps its vectors in shared memory (shared_n >= scratch_n): a third
// of the code, so NVRTC compiles it in about a third of the time (src/mgk/gpu/codegen.rs,
// VectorPlacement).
#ifndef MGK_GLOBAL_VECTORS
#define MGK_GLOBAL_VECTORS 1
#endif
// 0: the value kernel leaves out the PCG with vectors in shared memory, for launches whose every
// pair keeps its vectors in global memory (src/mgk/gpu/codegen.rs, VectorPlacement::Global; less
// to compile). 1 (the default): it holds it.
#ifndef MGK_SHARED_VECTORS
#define MGK_SHARED_VECTORS 1
#endif
// Entries per thread whose loads each PCG vector pass issues together before any store (the
// vectors may alias as far as the compiler knows, so it would not hoist loads over stores by
// itself): the memory-level parallelism that the passes over vectors in global memory need. Each
// thread still visits its entries in the same order, so the sums are the same to the bit.
#ifndef MGK_VEC_BATCH
#define MGK_VEC_BATCH (MGK_REAL_IS_DOUBLE ? 2 : 4)
#endif
// Inlined copies of the global-vector PCG in the value kernel (MGK_GLOBAL_VECTORS 1): 2, one
// for graphs staged in shared memory and one for graphs staged in global memory (shared loads
// in the first); 1, one copy for both (generic loads; less to compile).
#ifndef MGK_GLOBAL_COPIES
#define MGK_GLOBAL_COPIES 2
#endif
#if MGK_XMV_TILES && defined(MGK_GRAD)
#error "the gradient kernel (kernels/mgk_grad.cu) reads the row-scheme staging: leave MGK_XMV_TILES undefined"
#endif

#if MGK_XMV_TILES
// ---- tile-pair scheme ----

// The pair being solved, staged in shared memory: both graphs as octiles.
struct Staged {
    TileView a;  // G
    TileView b;  // G'
};

// Copies graph g of G to shared memory at base as octiles; returns the end (8-byte aligned).
static __device__ __forceinline__ unsigned char* stage_tiles(const GraphSet& G, int g, unsigned char* base,
                                                             TileView& S) {
    const int t0 = G.tile_off[g], nt = G.tile_off[g + 1] - t0;
    const int z0 = G.nz_off[g], nz = G.nz_off[g + 1] - z0;
    size_t off = 0;
    unsigned long long* bm = reinterpret_cast<unsigned long long*>(base);
    off += 8 * (size_t)nt;
    real* w = reinterpret_cast<real*>(base + off);
    off = align8(off + sizeof(real) * (size_t)nz);
    edge_label* e = reinterpret_cast<edge_label*>(base + off);
    off = align8(off + sizeof(edge_label) * (size_t)nz);
    unsigned int* ij = reinterpret_cast<unsigned int*>(base + off);
    off += 4 * (size_t)nt;
    int* nzs = reinterpret_cast<int*>(base + off);
    off += 4 * (size_t)nt;
    unsigned char* pos = base + off;
    off = align8(off + (size_t)nz);
    #pragma unroll 1
    for (int i = threadIdx.x; i < nt; i += (int)blockDim.x) {
        bm[i] = G.tile_bm[t0 + i];
        ij[i] = G.tile_ij[t0 + i];
        nzs[i] = G.tile_nz[t0 + i] - z0;
    }
    #pragma unroll 1
    for (int i = threadIdx.x; i < nz; i += (int)blockDim.x) {
        w[i] = G.nz_w[z0 + i];
        e[i] = G.nz_e[z0 + i];
        pos[i] = G.nz_pos[z0 + i];
    }
    S.bm = bm;
    S.w = w;
    S.e = e;
    S.ij = ij;
    S.nzs = nzs;
    S.pos = pos;
    S.nt = nt;
    S.nz = nz;
    S.z0 = 0;
    return base + off;
}

// Stages the pair (graph ga of A with n1 nodes, graph gb of B) at base.
static __device__ __forceinline__ void stage_pair(const GraphSet& A, int ga, int n1, const GraphSet& B, int gb,
                                                  unsigned char* base, Staged& S) {
    (void)n1;
    base = stage_tiles(A, ga, base, S.a);
    stage_tiles(B, gb, base, S.b);
}

// The tile-pair xmv does not sum p' ((W (x) W') .* E) p on the way (see the row scheme's xmv).
#define MGK_XMV_PAP 0

// y += sign ((W (x) W') .* E) p for the staged pair (G with n rows); p and y in shared (or
// global) memory. Tile pair by tile pair, one per warp at a time. Returns 0 (MGK_XMV_PAP 0).
template <bool PAP = false>
static __device__ __forceinline__ real xmv(const Staged& S, const int n, const int n2, const real* __restrict__ p,
                                           real* y, const real* __restrict__ theta, const real sign = (real)1) {
    (void)n;
    const TileView& A = S.a;
    const TileView& B = S.b;
    const int warp = threadIdx.x >> 5;
    const int nwarps = (int)(blockDim.x >> 5);
    const int nta = A.nt, ntb = B.nt;
    const int pairs = nta * ntb;
    if (pairs == 0) return (real)0;
    // tile pair tp = ta * ntb + tb, stepped by nwarps
    int ta = warp / ntb, tb = warp - (warp / ntb) * ntb;
    const int step_a = nwarps / ntb, step_b = nwarps - step_a * ntb;
    for (int tp = warp; tp < pairs; tp += nwarps) {
        tile_pair_product<int>(A, ta, B, tb, n2, MGK_DENSE_MIN, sign, p, y, theta);
        ta += step_a;
        tb += step_b;
        if (tb >= ntb) {
            tb -= ntb;
            ++ta;
        }
    }
    return (real)0;
}

#else  // MGK_XMV_TILES
// ---- row scheme ----

// The pair being solved, staged in shared memory.
struct Staged {
    // G by rows
    const int* row_ptr;       // [n + 1] first nonzero of each row
    const int* col;           // [nz] column j
    const real* w;            // [nz] weight
    const edge_label* e;      // [nz] edge label
    // G' as nonzeros in octile order
    int nz2;
    const unsigned int* rc2;  // [nz2] (row << 16) | column
    const real* w2;           // [nz2] weight
    const edge_label* e2;     // [nz2] edge label
};

// Stages graph g of G by rows at base: row pointers, then the nonzeros of each row in column
// order (one thread per row walks the row's tiles and their bitmaps). Returns the end.
static __device__ __forceinline__ unsigned char* stage_rows(const GraphSet& G, int g, int n,
                                                            unsigned char* base, Staged& S) {
    const int t0 = G.tile_off[g], nt = G.tile_off[g + 1] - t0;
    const int z0 = G.nz_off[g], nz = G.nz_off[g + 1] - z0;
    size_t off = 0;
    real* w = reinterpret_cast<real*>(base);
    off = align8(off + sizeof(real) * (size_t)nz);
    edge_label* e = reinterpret_cast<edge_label*>(base + off);
    off = align8(off + sizeof(edge_label) * (size_t)nz);
    int* row_ptr = reinterpret_cast<int*>(base + off);
    off += 4 * (size_t)(n + 1);
    int* col = reinterpret_cast<int*>(base + off);
    off = align8(off + 4 * (size_t)nz);
    // row pointers: row i's count is the popcount of bitmap row (i % 8) over tile row i / 8;
    // first tile of tile row I by binary search over the row-major tile list.
    #pragma unroll 1
    for (int i = threadIdx.x; i < n; i += (int)blockDim.x) {
        const int I = i >> 3, a = i & 7;
        int lo = 0, hi = nt;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if ((int)(G.tile_ij[t0 + mid] >> 16) < I) lo = mid + 1; else hi = mid;
        }
        int cnt = 0;
        #pragma unroll 1
        for (int t = lo; t < nt && (int)(G.tile_ij[t0 + t] >> 16) == I; ++t)
            cnt += __popc((unsigned int)(G.tile_bm[t0 + t] >> (8 * a)) & 0xffu);
        row_ptr[i + 1] = cnt;
    }
    __syncthreads();
    // prefix sum of the counts by warp 0: each lane scans a contiguous segment
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x, per = (n + 31) >> 5;
        const int s0 = min(n, lane * per), s1 = min(n, s0 + per);
        int sum = 0;
        #pragma unroll 1
        for (int i = s0; i < s1; ++i) sum += row_ptr[i + 1];
        int incl = sum;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const int t = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += t;
        }
        int run = incl - sum;
        #pragma unroll 1
        for (int i = s0; i < s1; ++i) {
            run += row_ptr[i + 1];
            row_ptr[i + 1] = run;
        }
        if (lane == 0) row_ptr[0] = 0;
    }
    __syncthreads();
    #pragma unroll 1
    for (int i = threadIdx.x; i < n; i += (int)blockDim.x) {
        const int I = i >> 3, a = i & 7;
        int lo = 0, hi = nt;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if ((int)(G.tile_ij[t0 + mid] >> 16) < I) lo = mid + 1; else hi = mid;
        }
        int k = row_ptr[i];
        #pragma unroll 1
        for (int t = lo; t < nt; ++t) {
            const unsigned int ij = G.tile_ij[t0 + t];
            if ((int)(ij >> 16) != I) break;
            const unsigned long long bm = G.tile_bm[t0 + t];
            unsigned int bits = (unsigned int)(bm >> (8 * a)) & 0xffu;
            int src = G.tile_nz[t0 + t] - z0 + __popcll(bm & ((1ull << (8 * a)) - 1ull));
            const int j8 = (int)(ij & 0xffffu) * 8;
            #pragma unroll 1
            for (; bits != 0u; bits &= bits - 1u, ++k, ++src) {
                col[k] = j8 + __ffs(bits) - 1;
                w[k] = G.nz_w[z0 + src];
                e[k] = G.nz_e[z0 + src];
            }
        }
    }
    S.row_ptr = row_ptr;
    S.col = col;
    S.w = w;
    S.e = e;
    return base + off;
}

// Stages graph g of G' at base as its nonzeros in octile order: (row << 16) | column, weight,
// edge label. Returns the end.
static __device__ __forceinline__ unsigned char* stage_nonzeros(const GraphSet& G, int g, unsigned char* base,
                                                                Staged& S) {
    const int t0 = G.tile_off[g], nt = G.tile_off[g + 1] - t0;
    const int z0 = G.nz_off[g], nz = G.nz_off[g + 1] - z0;
    size_t off = 0;
    real* w = reinterpret_cast<real*>(base);
    off = align8(off + sizeof(real) * (size_t)nz);
    edge_label* e = reinterpret_cast<edge_label*>(base + off);
    off = align8(off + sizeof(edge_label) * (size_t)nz);
    unsigned int* rc = reinterpret_cast<unsigned int*>(base + off);
    off = align8(off + 4 * (size_t)nz);
    #pragma unroll 1
    for (int t = threadIdx.x; t < nt; t += (int)blockDim.x) {
        const unsigned int ij = G.tile_ij[t0 + t];
        const unsigned int i8 = (ij >> 16) * 8, j8 = (ij & 0xffffu) * 8;
        const int z = G.tile_nz[t0 + t] - z0, cnt = __popcll(G.tile_bm[t0 + t]);
        #pragma unroll 1
        for (int k = z; k < z + cnt; ++k) {
            const unsigned int pos = G.nz_pos[z0 + k];
            rc[k] = ((i8 + (pos >> 3)) << 16) | (j8 + (pos & 7u));
        }
    }
    #pragma unroll 1
    for (int k = threadIdx.x; k < nz; k += (int)blockDim.x) {
        w[k] = G.nz_w[z0 + k];
        e[k] = G.nz_e[z0 + k];
    }
    S.nz2 = nz;
    S.rc2 = rc;
    S.w2 = w;
    S.e2 = e;
    return base + off;
}

// The row-scheme xmv sums p' ((W (x) W') .* E) p on the way when asked (PAP).
#define MGK_XMV_PAP 1

// y += sign ((W (x) W') .* E) p for the staged pair (G with n rows); p and y in shared (or
// global) memory. With PAP, returns this thread's share of p' ((W (x) W') .* E) p: each
// atomic's addend times p at its entry (an extra read of p next to each atomic on y, mostly
// from L1), so that a PCG whose y starts at diag(A) p gets p' A p without another pass over
// its vectors; else 0.
template <bool PAP = false>
static __device__ __forceinline__ real xmv(const Staged& S, const int n, const int n2, const real* __restrict__ p,
                                           real* y, const real* __restrict__ theta, const real sign = (real)1) {
    real pw = 0;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = (int)(blockDim.x >> 5);
    const int per_item = 32 * MGK_LANE_NZ;
    const int chunks = (S.nz2 + per_item - 1) / per_item;
    const int items = n * chunks;
    #pragma unroll 1
    for (int item = warp; item < items; item += nwarps) {
        const int i = item / chunks, c = item - i * chunks;
        const int k0 = S.row_ptr[i], k1 = S.row_ptr[i + 1];
        if (k0 == k1) continue;
        int kb[MGK_LANE_NZ], cb[MGK_LANE_NZ];
        edge_label eb[MGK_LANE_NZ];
        real acc[MGK_LANE_NZ];
#pragma unroll
        for (int r = 0; r < MGK_LANE_NZ; ++r) {
            const int k = MGK_XMV_CSR ? c * per_item + lane * MGK_LANE_NZ + r : c * per_item + r * 32 + lane;
            kb[r] = k < S.nz2 ? k : -1;
            const int ks = k < S.nz2 ? k : 0;
            cb[r] = (int)(S.rc2[ks] & 0xffffu);
            eb[r] = S.e2[ks];
            acc[r] = 0;
        }
        for (int k = k0; k < k1; ++k) {
            const real wa = S.w[k];
            const edge_label ea = S.e[k];
            const real* prow = p + S.col[k] * n2;
#pragma unroll
            for (int r = 0; r < MGK_LANE_NZ; ++r) acc[r] += wa * kappa_edge(ea, eb[r], theta) * prow[cb[r]];
        }
#if MGK_XMV_CSR
        // the lane's nonzeros are consecutive in row-major order (the valid ones first): the
        // terms of one row of G' summed, one atomic per row
        real v = 0;
        int row = -1;
#pragma unroll
        for (int r = 0; r < MGK_LANE_NZ; ++r) {
            if (kb[r] >= 0) {
                const int rr = (int)(S.rc2[kb[r]] >> 16);
                if (rr != row && row >= 0) {
                    const int o = i * n2 + row;
                    atomicAdd(&y[o], PAP ? sign * v : v);
                    if (PAP) pw += p[o] * v;
                    v = 0;
                }
                row = rr;
                v += S.w2[kb[r]] * acc[r];
            }
        }
        if (row >= 0) {
            const int o = i * n2 + row;
            atomicAdd(&y[o], PAP ? sign * v : v);
            if (PAP) pw += p[o] * v;
        }
#else
#pragma unroll
        for (int r = 0; r < MGK_LANE_NZ; ++r) {
            if (kb[r] >= 0) {
                const int o = i * n2 + (int)(S.rc2[kb[r]] >> 16);
                const real v = S.w2[kb[r]] * acc[r];
                atomicAdd(&y[o], PAP ? sign * v : v);
                if (PAP) pw += p[o] * v;
            }
        }
#endif
    }
    return pw;
}

// Stages graph g of G' (n nodes) at base as its nonzeros in row-major order (MGK_XMV_CSR): by
// rows as stage_rows, then each column made (row << 16) | column in place. Returns the end.
static __device__ __forceinline__ unsigned char* stage_nonzeros_csr(const GraphSet& G, int g, int n,
                                                                    unsigned char* base, Staged& S) {
    Staged T;
    unsigned char* end = stage_rows(G, g, n, base, T);
    int* col = const_cast<int*>(T.col);
    // the thread that wrote row i's columns in stage_rows (same row loop) tags them
    #pragma unroll 1
    for (int i = threadIdx.x; i < n; i += (int)blockDim.x) {
        #pragma unroll 1
        for (int k = T.row_ptr[i]; k < T.row_ptr[i + 1]; ++k) col[k] |= i << 16;
    }
    S.nz2 = G.nz_off[g + 1] - G.nz_off[g];
    S.rc2 = reinterpret_cast<const unsigned int*>(col);
    S.w2 = T.w;
    S.e2 = T.e;
    return end;
}

// Stages the pair (graph ga of A with n1 nodes, graph gb of B) at base.
static __device__ __forceinline__ void stage_pair(const GraphSet& A, int ga, int n1, const GraphSet& B, int gb,
                                                  unsigned char* base, Staged& S) {
    base = stage_rows(A, ga, n1, base, S);
#if MGK_XMV_CSR
    stage_nonzeros_csr(B, gb, B.node_off[gb + 1] - B.node_off[gb], base, S);
#else
    stage_nonzeros(B, gb, base, S);
#endif
}
#endif  // MGK_XMV_TILES
