// Batched marginalized graph kernel: one PCG solve per graph pair.
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
// 4 (n + 1) bytes of row pointers.
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

#ifndef MGK_LANE_NZ
#define MGK_LANE_NZ 1
#endif
#ifndef MGK_XMV_TILES
#define MGK_XMV_TILES 0
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
            const int k = c * per_item + r * 32 + lane;
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
#pragma unroll
        for (int r = 0; r < MGK_LANE_NZ; ++r) {
            if (kb[r] >= 0) {
                const int o = i * n2 + (int)(S.rc2[kb[r]] >> 16);
                const real v = S.w2[kb[r]] * acc[r];
                atomicAdd(&y[o], PAP ? sign * v : v);
                if (PAP) pw += p[o] * v;
            }
        }
    }
    return pw;
}

// Stages the pair (graph ga of A with n1 nodes, graph gb of B) at base.
static __device__ __forceinline__ void stage_pair(const GraphSet& A, int ga, int n1, const GraphSet& B, int gb,
                                                  unsigned char* base, Staged& S) {
    base = stage_rows(A, ga, n1, base, S);
    stage_nonzeros(B, gb, base, S);
}
#endif  // MGK_XMV_TILES

// The pair a block is working on.
struct Pair {
    int na0, n1, nb0, n2, N;
    Staged S;
    real* p;     // shared (or global for a pair too large for shared memory), N
    real* y;     // as p, N
    real* minv;  // global scratch, N; null for a pair with p and y in global memory (computed)
    real* diag;  // as minv
};

// diag(A) at product node idx = i * n2 + j: D V^-1 = d_i d'_j dscale / kappa_node(v_i, v'_j).
static __device__ __forceinline__ real diag_at(const GraphSet& A, const GraphSet& B, const Pair& P, const int idx,
                                               const real dscale, const real* __restrict__ theta) {
    const int i = idx / P.n2, j = idx - i * P.n2;
    const real d = A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale;
    const real kv = kappa_node(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta);
    return d / kv;
}

// Stages the pair (ga of A, gb of B) and computes diag(A) = D V^-1 and M^-1 into scratch.
// With gpy null, p and y go to shared memory before the staged graphs; else (a pair whose
// vectors do not fit in shared memory) p and y are gpy[0, N) and gpy[N, 2N) in global memory
// and the graphs are staged in shared memory, or at gstage in global memory when not null (a
// pair whose graphs do not fit either; read back through L1 and L2); such a pair's passes over
// its vectors are bound by memory traffic, so it stores neither diag(A) nor M^-1 (P.diag and
// P.minv null): the PCG computes them where it needs them (diag_at, the same values).
static __device__ __forceinline__ void pair_setup(const GraphSet& A, const GraphSet& B, int ga, int gb, real* sp,
                                                  real* scratch_minv, real* scratch_diag, const real dscale,
                                                  const real* __restrict__ theta, Pair& P, real* gpy,
                                                  unsigned char* gstage) {
    P.na0 = A.node_off[ga];
    P.n1 = A.node_off[ga + 1] - P.na0;
    P.nb0 = B.node_off[gb];
    P.n2 = B.node_off[gb + 1] - P.nb0;
    P.N = P.n1 * P.n2;
    P.minv = gpy ? nullptr : scratch_minv;
    P.diag = gpy ? nullptr : scratch_diag;
    unsigned char* base;
    if (gpy) {
        P.p = gpy;
        P.y = gpy + P.N;
        base = gstage ? gstage : reinterpret_cast<unsigned char*>(sp);
    } else {
        P.p = sp;
        P.y = sp + P.N;
        base = reinterpret_cast<unsigned char*>(sp) + align8(2 * sizeof(real) * (size_t)P.N);
    }
    stage_pair(A, ga, P.n1, B, gb, base, P.S);
    #pragma unroll 1
    for (int idx = threadIdx.x; idx < P.N && P.diag; idx += (int)blockDim.x) {
        const real dg = diag_at(A, B, P, idx, dscale, theta);
        P.diag[idx] = dg;
        P.minv[idx] = (real)1 / dg;
    }
    __syncthreads();
}

// Right-hand sides of the solves.
enum Rhs { RHS_DEGREE = 0, RHS_START = 1 };

// Solves A x = b by Jacobi PCG from x0 = 0 (b = D 1 or p p') for a pair whose p and y are in
// shared memory; x, r, M^-1 and diag(A) in global scratch. Returns the number of iterations.
// On return x holds the solution (all threads synchronized).
static __device__ __forceinline__ int pcg(const GraphSet& A, const GraphSet& B, const Pair& P, const Rhs rhs,
                                          const real dscale, const real* __restrict__ theta, const real tol,
                                          const int max_iter, real* __restrict__ x, real* __restrict__ r,
                                          real* red) {
    const int tid = threadIdx.x, N = P.N, n2 = P.n2;
    real* p = P.p;
    real* y = P.y;
    real rz = 0, bb = 0;
    #pragma unroll 1
    for (int idx = tid; idx < N; idx += (int)blockDim.x) {
        const int i = idx / n2, j = idx - i * n2;
        const real b = rhs == RHS_DEGREE ? A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale
                                         : A.start[P.na0 + i] * B.start[P.nb0 + j];
        const real z = P.minv[idx] * b;
        x[idx] = 0;
        r[idx] = b;
        p[idx] = z;
        y[idx] = 0;
        rz += b * z;
        bb += b * b;
    }
    block_sum2(rz, bb, red);
    const real thresh = tol * tol * bb;
    int it = 0;
    // b = 0: x = 0 is exact
    if (!(bb > (real)0)) return 0;
    while (it < max_iter) {
        __syncthreads();
        xmv(P.S, P.n1, n2, p, y, theta);
        __syncthreads();
        // each pass: a thread's entries idx = i0 + u * blockDim.x, u < MGK_VEC_BATCH, loaded
        // together, then computed and stored in order
        const int bd = (int)blockDim.x;
        real pap = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real dv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH], yv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                dv[u] = in ? P.diag[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
                yv[u] = in ? y[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    const real ap = dv[u] * pv[u] - yv[u];
                    y[idx] = ap;
                    pap += pv[u] * ap;
                }
            }
        }
        pap = block_sum(pap, red);
        const real alpha = rz / pap;
        real rr = 0, rzn = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real xv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH], rv[MGK_VEC_BATCH], yv[MGK_VEC_BATCH], mv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                xv[u] = in ? x[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
                rv[u] = in ? r[idx] : (real)0;
                yv[u] = in ? y[idx] : (real)0;
                mv[u] = in ? P.minv[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    x[idx] = xv[u] + alpha * pv[u];
                    const real rn = rv[u] - alpha * yv[u];
                    r[idx] = rn;
                    rr += rn * rn;
                    rzn += rn * mv[u] * rn;
                }
            }
        }
        block_sum2(rr, rzn, red);
        ++it;
        if (!(rr > thresh)) break;
        const real beta = rzn / rz;
        rz = rzn;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real mv[MGK_VEC_BATCH], rv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                mv[u] = in ? P.minv[idx] : (real)0;
                rv[u] = in ? r[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    p[idx] = mv[u] * rv[u] + beta * pv[u];
                    y[idx] = 0;
                }
            }
        }
    }
    __syncthreads();
    return it;
}

// The same solve for a pair whose p and y are in global memory (pair_setup with gpy): bound by
// the passes over its vectors, so it reorganizes them to move fewer bytes; same iterates in
// exact arithmetic, same start, preconditioner and stopping rule.
//  - diag(A) and M^-1 are computed where needed (diag_at), never stored (P.diag null);
//  - y starts each iteration at diag(A) p (written by the pass that writes p), the xmv
//    subtracts ((W (x) W') .* E) p, so y = A p when it ends, and p' A p is the sum of
//    d p^2 (summed where p is written) less the xmv's own sum of p' ((W (x) W') .* E) p
//    (MGK_XMV_PAP; the tile-pair scheme sums p . y in a pass of its own): no pass computes A p;
//  - the update of r reads r and y only; with x null (the value kernel without nodal output)
//    x is never stored: *kx gets this thread's share of K's sum p p' . x = sum_k alpha_k
//    (p p' . p_k), the sum p p' . p_k taken where p_k is written.
// Per iteration: the xmv (p, y), one pass reading r and y writing r, one reading r and p
// writing p and y: seven vector streams, against eleven for the shared-memory pcg's passes.
static __device__ __forceinline__ int pcg_global(const GraphSet& A, const GraphSet& B, const Pair& P, const Rhs rhs,
                                                 const real dscale, const real* __restrict__ theta, const real tol,
                                                 const int max_iter, real* __restrict__ x, real* __restrict__ r,
                                                 real* red, double* kx) {
    const int tid = threadIdx.x, N = P.N, n1 = P.n1, n2 = P.n2, bd = (int)blockDim.x;
    real* p = P.p;
    real* y = P.y;
    // this thread's shares of rz, b'b, d p^2 (for p'Ap) and p p' . p (for K without x)
    real rz = 0, bb = 0, dpp = 0, spp = 0;
    #pragma unroll 1
    for (int idx = tid; idx < N; idx += bd) {
        const int i = idx / n2, j = idx - i * n2;
        const real b = rhs == RHS_DEGREE ? A.deg[P.na0 + i] * B.deg[P.nb0 + j] * dscale
                                         : A.start[P.na0 + i] * B.start[P.nb0 + j];
        const real d = diag_at(A, B, P, idx, dscale, theta);
        const real z = ((real)1 / d) * b;
        if (x) x[idx] = 0;
        r[idx] = b;
        p[idx] = z;
        y[idx] = d * z;
        rz += b * z;
        bb += b * b;
        dpp += d * z * z;
        if (!x) spp += A.start[P.na0 + i] * B.start[P.nb0 + j] * z;
    }
    block_sum2(rz, bb, red);
    const real thresh = tol * tol * bb;
    int it = 0;
    // b = 0: x = 0 is exact
    if (!(bb > (real)0)) return 0;
    while (it < max_iter) {
        __syncthreads();
        const real pwp = xmv<true>(P.S, n1, n2, p, y, theta, (real)-1);
        __syncthreads();
        real pap = 0;
        if (MGK_XMV_PAP) {
            pap = dpp - pwp;
        } else {
            #pragma unroll 1
            for (int idx = tid; idx < N; idx += bd) pap += p[idx] * y[idx];
        }
        pap = block_sum(pap, red);
        const real alpha = rz / pap;
        if (!x) *kx += (double)alpha * (double)spp;
        real rr = 0, rzn = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real xv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH], rv[MGK_VEC_BATCH], yv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                xv[u] = in && x ? x[idx] : (real)0;
                pv[u] = in && x ? p[idx] : (real)0;
                rv[u] = in ? r[idx] : (real)0;
                yv[u] = in ? y[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    if (x) x[idx] = xv[u] + alpha * pv[u];
                    const real rn = rv[u] - alpha * yv[u];
                    r[idx] = rn;
                    rr += rn * rn;
                    rzn += rn * ((real)1 / diag_at(A, B, P, idx, dscale, theta)) * rn;
                }
            }
        }
        block_sum2(rr, rzn, red);
        ++it;
        if (!(rr > thresh)) break;
        const real beta = rzn / rz;
        rz = rzn;
        dpp = 0;
        spp = 0;
        #pragma unroll 1
        for (int i0 = tid; i0 < N; i0 += MGK_VEC_BATCH * bd) {
            real rv[MGK_VEC_BATCH], pv[MGK_VEC_BATCH];
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                const bool in = idx < N;
                rv[u] = in ? r[idx] : (real)0;
                pv[u] = in ? p[idx] : (real)0;
            }
#pragma unroll
            for (int u = 0, idx = i0; u < MGK_VEC_BATCH; ++u, idx += bd) {
                if (idx < N) {
                    const real d = diag_at(A, B, P, idx, dscale, theta);
                    const real pn = ((real)1 / d) * rv[u] + beta * pv[u];
                    p[idx] = pn;
                    y[idx] = d * pn;
                    dpp += d * pn * pn;
                    if (!x) {
                        const int i = idx / n2, j = idx - i * n2;
                        spp += A.start[P.na0 + i] * B.start[P.nb0 + j] * pn;
                    }
                }
            }
        }
    }
    __syncthreads();
    return it;
}

#ifndef MGK_GRAD
extern "C" __global__ void __launch_bounds__(1024) MGK_KERNEL_NAME(
    const GraphSet A, const GraphSet B,
    const int* __restrict__ jobs,        // [2 * n_jobs] (graph in A, graph in B)
    const int n_jobs,
    const real* __restrict__ theta_g,    // hyperparameters
    const real dscale,                   // 1 / (1 - q)^2
    const real tol,                      // relative residual tolerance
    const int max_iter,
    const int lmin,
    real* __restrict__ scratch,          // [gridDim.x * (4 or 6) * scratch_n]
    const long long scratch_n,           // largest N of any job
    const long long shared_n,            // jobs with N > shared_n keep p and y in global scratch
    const unsigned char* __restrict__ stage_global,  // null, or per job 1: stage the graphs in gstage
    unsigned char* __restrict__ gstage,  // [gridDim.x * gstage_bytes] global staging
    const long long gstage_bytes,
    double* __restrict__ out,            // [n_jobs] K
    int* __restrict__ iters,             // [n_jobs] PCG iterations
    double* __restrict__ nodal,          // null, or the nodal outputs: job k's N values at nodal_off[k]
    const long long* __restrict__ nodal_off,
    unsigned int* __restrict__ counter)  // job counter, 0 at launch
{
    extern __shared__ double smem_d[];
    real* sp = reinterpret_cast<real*>(smem_d);
    __shared__ real red[66];
    __shared__ double redd[66];
    __shared__ int s_job;
    __shared__ real s_theta[MGK_MAX_THETA];
    #pragma unroll 1
    for (int i = threadIdx.x; i < MGK_MAX_THETA; i += (int)blockDim.x) s_theta[i] = theta_g[i];
    const real* theta = s_theta;

    // per block: x, r, M^-1, diag(A), and (when some job has N > shared_n) p and y
    const int nvec = shared_n < scratch_n ? 6 : 4;
    real* x = scratch + (long long)blockIdx.x * nvec * scratch_n;
    real* r = x + scratch_n;
    real* minv = r + scratch_n;
    real* diag = minv + scratch_n;
    real* gpy = diag + scratch_n;
    const int tid = threadIdx.x;

    for (;;) {
        const int job = next_job(counter, &s_job);
        if (job >= n_jobs) return;
        const int ga = jobs[2 * job], gb = jobs[2 * job + 1];
        const int N = (A.node_off[ga + 1] - A.node_off[ga]) * (B.node_off[gb + 1] - B.node_off[gb]);
        if (N == 0) {
            if (tid == 0) {
                out[job] = 0.0;
                iters[job] = 0;
            }
            continue;
        }
        Pair P;
        int it;
        // K's sum p p' . x, when the PCG does not store x (vectors in global memory, no nodal output)
        double kx = 0;
        real* xk = nodal ? x : nullptr;
        // one inlined copy per placement, so that the compiler sees what is in shared memory
        // (shared loads and atomics rather than generic ones)
#if MGK_GLOBAL_VECTORS && MGK_GLOBAL_COPIES == 1
        if (N > shared_n) {
            unsigned char* gs = stage_global && stage_global[job] ? gstage + blockIdx.x * gstage_bytes : nullptr;
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, gs);
            it = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, xk, r, red, &kx);
        } else
#elif MGK_GLOBAL_VECTORS
        if (N > shared_n && stage_global && stage_global[job]) {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, gstage + blockIdx.x * gstage_bytes);
            it = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, xk, r, red, &kx);
        } else if (N > shared_n) {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, gpy, nullptr);
            it = pcg_global(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, xk, r, red, &kx);
        } else
#else
        (void)stage_global;
        (void)gstage;
        (void)gstage_bytes;
        (void)gpy;
        (void)xk;
#endif
        {
            pair_setup(A, B, ga, gb, sp, minv, diag, dscale, theta, P, nullptr, nullptr);
            it = pcg(A, B, P, RHS_DEGREE, dscale, theta, tol, max_iter, x, r, red);
        }

        const bool has_x = nodal || N <= shared_n;
        double k = has_x ? 0.0 : kx;
        double* nd = nodal ? nodal + nodal_off[job] : nullptr;
        #pragma unroll 1
        for (int idx = tid; idx < N && (has_x || lmin); idx += (int)blockDim.x) {
            const int i = idx / P.n2, j = idx - i * P.n2;
            const double pp = (double)A.start[P.na0 + i] * (double)B.start[P.nb0 + j];
            double v = has_x ? (double)x[idx] : 0.0;
            if (lmin) v -= (double)kappa_node(A.vlab[P.na0 + i], B.vlab[P.nb0 + j], theta);
            v *= pp;
            if (nd) nd[idx] = v;
            k += v;
        }
        k = block_sum(k, redd);
        if (tid == 0) {
            out[job] = k;
            iters[job] = it;
        }
    }
}
#endif  // MGK_GRAD
