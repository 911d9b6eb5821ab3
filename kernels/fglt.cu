// The fast graphlet transform on the GPU: the per-vertex primitives of
// src/graphlets/transform.rs (degrees, A·x, W = A² ∘ A and its sums,
// diag(A (W − A) A), 4-cycles, 4-cliques) on the degree-ordered pattern of
// src/graphlets/pattern.rs: a CSR of n vertices, rows sorted, no diagonal,
// a vertex's lower-numbered neighbours of degree at most its own.
//
// Counts are unsigned 64-bit integers; accumulated outputs (aba, c4, k4)
// must be zero before the launch, assigned ones are written everywhere.

typedef unsigned long long u64;
typedef unsigned int u32;

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ u64 warp_sum(u64 x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL_MASK, x, o);
    return x;
}

__device__ __forceinline__ u64 choose2(u64 x) { return x < 2 ? 0 : x * (x - 1) / 2; }

// First position in idx[lo, hi) holding a value >= key.
__device__ __forceinline__ int lower_bound(const int* __restrict__ idx, int lo, int hi, int key) {
    while (lo < hi) {
        int mid = lo + ((hi - lo) >> 1);
        if (idx[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// Position of key in idx[lo, hi), or -1.
__device__ __forceinline__ int find(const int* __restrict__ idx, int lo, int hi, int key) {
    int p = lower_bound(idx, lo, hi, key);
    return (p < hi && idx[p] == key) ? p : -1;
}

// out[i] = value (poisoning outputs that every vertex must overwrite).
extern "C" __global__ void fglt_fill(long long n, u64* __restrict__ out, u64 value) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        out[i] = value;
}

// d = row lengths; c2m1 = C(d − 1, 2); dm2 = max(d − 2, 0).
extern "C" __global__ void fglt_degrees(int n, const int* __restrict__ ptr, u64* __restrict__ d,
                                        u64* __restrict__ c2m1, u64* __restrict__ dm2) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u64 di = (u64)(ptr[i + 1] - ptr[i]);
        d[i] = di;
        c2m1[i] = di == 0 ? 0 : choose2(di - 1);
        dm2[i] = di < 2 ? 0 : di - 2;
    }
}

// y = A x over (+, ×): one warp per row.
extern "C" __global__ void fglt_spmv(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                     const u64* __restrict__ x, u64* __restrict__ y) {
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        u64 s = 0;
        for (int p = ptr[i] + lane; p < ptr[i + 1]; p += 32) s += x[idx[p]];
        s = warp_sum(s);
        if (lane == 0) y[i] = s;
    }
}

// Entries whose shorter row has more than LONG_ROW entries are intersected
// by the whole warp (lanes share the shorter row, each binary-searching the
// longer); the others by one lane each (a merge with a moving lower bound).
#define LONG_ROW 32

// The lower entries (i, j), j < i (a prefix of each sorted row), listed
// compactly: each undirected edge once, for the kernels that handle both of
// its slots together. cnt[i] = their number in row i; after an exclusive
// scan into start (total at start[n]), list[start[i] + k] = ptr[i] + k.
extern "C" __global__ void fglt_lower_count(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                            int* __restrict__ cnt) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        cnt[i] = lower_bound(idx, ptr[i], ptr[i + 1], i) - ptr[i];
}

extern "C" __global__ void fglt_lower_list(int n, const int* __restrict__ ptr, const int* __restrict__ start,
                                           int* __restrict__ list) {
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        int s = start[i], c = start[i + 1] - s, p = ptr[i];
        for (int k = lane; k < c; k += 32) list[s + k] = p + k;
    }
}

// W on every stored entry: |N(i) ∩ N(j)|, computed once per edge from its
// lower entry (i, j) (list of fglt_lower_list, m = start[n] of them) and
// written to both slots, (i, j) and (j, i). A warp takes 32 edges, one per
// lane, then the long ones together.
extern "C" __global__ void fglt_w(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                  const int* __restrict__ row_of, const int* __restrict__ start,
                                  const int* __restrict__ list, u32* __restrict__ w) {
    long long m = start[n];
    int lane = threadIdx.x & 31;
    long long step = ((long long)gridDim.x * blockDim.x) & ~31ll;
    for (long long base = (blockIdx.x * (long long)blockDim.x + threadIdx.x) & ~31ll; base < m; base += step) {
        long long t = base + lane;
        bool wide = false;
        if (t < m) {
            int e = list[t];
            int i = row_of[e], j = idx[e];
            int a0 = ptr[i], a1 = ptr[i + 1], b0 = ptr[j], b1 = ptr[j + 1];
            int mirror = find(idx, b0, b1, i);
            if (a1 - a0 > b1 - b0) { int x = a0; a0 = b0; b0 = x; x = a1; a1 = b1; b1 = x; }
            if (a1 - a0 > LONG_ROW) {
                wide = true;
            } else {
                u32 c = 0;
                int lo = b0;
                for (int p = a0; p < a1 && lo < b1; ++p) {
                    lo = lower_bound(idx, lo, b1, idx[p]);
                    if (lo < b1 && idx[lo] == idx[p]) ++c;
                }
                w[e] = c;
                w[mirror] = c;
            }
        }
        for (unsigned bits = __ballot_sync(FULL_MASK, wide); bits; bits &= bits - 1) {
            int e = list[base + __ffs(bits) - 1];
            int i = row_of[e], j = idx[e];
            int a0 = ptr[i], a1 = ptr[i + 1], b0 = ptr[j], b1 = ptr[j + 1];
            if (a1 - a0 > b1 - b0) { int x = a0; a0 = b0; b0 = x; x = a1; a1 = b1; b1 = x; }
            u64 c = 0;
            for (int p = a0 + lane; p < a1; p += 32) c += find(idx, b0, b1, idx[p]) >= 0;
            c = warp_sum(c);
            if (lane == 0) {
                w[e] = (u32)c;
                w[find(idx, ptr[j], ptr[j + 1], i)] = (u32)c;
            }
        }
    }
}

// Row sums over W: w1 = W e, w_dm2 = W (d − 2), w_c2 = Σ_j C(W_ij, 2). One warp per row.
extern "C" __global__ void fglt_w_sums(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                       const u32* __restrict__ w, const u64* __restrict__ dm2, u64* __restrict__ w1,
                                       u64* __restrict__ w_dm2, u64* __restrict__ w_c2) {
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < n; i += warps) {
        u64 s1 = 0, s2 = 0, s3 = 0;
        for (int p = ptr[i] + lane; p < ptr[i + 1]; p += 32) {
            u64 c = w[p];
            s1 += c;
            s2 += c * dm2[idx[p]];
            s3 += choose2(c);
        }
        s1 = warp_sum(s1);
        s2 = warp_sum(s2);
        s3 = warp_sum(s3);
        if (lane == 0) {
            w1[i] = s1;
            w_dm2[i] = s2;
            w_c2[i] = s3;
        }
    }
}

// For the edge of rows i = [a0, a1) and j = [b0, b1), over the lanes' share
// (lane, stride) of the shorter row: *si += Σ_{k ∈ N(i) ∩ N(j)} (W_jk − 1)
// and *sj += Σ_k (W_ik − 1) (each common neighbour's two slots: the walked
// row's directly, the other's found by search).
__device__ __forceinline__ void aba_edge(const int* __restrict__ idx, const u32* __restrict__ w, int a0, int a1,
                                         int b0, int b1, int lane, int stride, u64* si, u64* sj) {
    u64 x = 0, y = 0;
    if (a1 - a0 <= b1 - b0) {
        for (int p = a0 + lane; p < a1; p += stride) {
            int q = find(idx, b0, b1, idx[p]);
            if (q >= 0) { x += (u64)w[q] - 1; y += (u64)w[p] - 1; }
        }
    } else {
        for (int q = b0 + lane; q < b1; q += stride) {
            int p = find(idx, a0, a1, idx[q]);
            if (p >= 0) { x += (u64)w[q] - 1; y += (u64)w[p] - 1; }
        }
    }
    *si = x;
    *sj = y;
}

// diag(A (W − A) A): for every stored entry (i, j), aba[i] += Σ_{k ∈ N(i)
// ∩ N(j)} (W_jk − 1); both entries of an edge from one intersection, over
// the lower entries (list, m = start[n]). A warp takes 32 edges, one per
// lane, then the long ones together; aba must be zero.
extern "C" __global__ void fglt_aba(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                    const int* __restrict__ row_of, const int* __restrict__ start,
                                    const int* __restrict__ list, const u32* __restrict__ w, u64* __restrict__ aba) {
    long long m = start[n];
    int lane = threadIdx.x & 31;
    long long step = ((long long)gridDim.x * blockDim.x) & ~31ll;
    for (long long base = (blockIdx.x * (long long)blockDim.x + threadIdx.x) & ~31ll; base < m; base += step) {
        long long t = base + lane;
        bool wide = false;
        if (t < m) {
            int e = list[t];
            int i = row_of[e], j = idx[e];
            int a0 = ptr[i], a1 = ptr[i + 1], b0 = ptr[j], b1 = ptr[j + 1];
            if (min(a1 - a0, b1 - b0) > LONG_ROW) {
                wide = true;
            } else {
                u64 si, sj;
                aba_edge(idx, w, a0, a1, b0, b1, 0, 1, &si, &sj);
                if (si) atomicAdd(&aba[i], si);
                if (sj) atomicAdd(&aba[j], sj);
            }
        }
        for (unsigned bits = __ballot_sync(FULL_MASK, wide); bits; bits &= bits - 1) {
            int e = list[base + __ffs(bits) - 1];
            int i = row_of[e], j = idx[e];
            u64 si, sj;
            aba_edge(idx, w, ptr[i], ptr[i + 1], ptr[j], ptr[j + 1], lane, 32, &si, &sj);
            si = warp_sum(si);
            sj = warp_sum(sj);
            if (lane == 0 && si) atomicAdd(&aba[i], si);
            if (lane == 0 && sj) atomicAdd(&aba[j], sj);
        }
    }
}

// 4-cycles through each vertex. A block takes vertices u in turn (grid
// stride) and counts the wedges u–v–w with v, w < u by their end w: u and w
// share C(a_w, 2) cycles (a_w wedges end at w), and each middle v is in
// a_w − 1 of them. The counters live in a hash table in shared memory
// (C4_SLOTS slots, linear probing) when u's wedges (bounded by the degrees
// of its lower neighbours) fill at most half of it, else in the block's own
// array acc of n counters in global memory (zero between vertices), each w
// reached listed in touched. c4 must be zero.
#define C4_SLOTS 4096

__device__ __forceinline__ u32 c4_hash(int w) { return ((u32)w * 2654435761u) >> 20; }  // 12 bits

// The slot of w in the table of `size` slots (a power of two), inserting
// it (count 0) if absent.
__device__ __forceinline__ int c4_slot(int* keys, int w, u32 mask) {
    for (u32 h = c4_hash(w) & mask;; h = (h + 1) & mask) {
        int k = keys[h];
        if (k == w) return (int)h;
        if (k < 0) {
            int old = atomicCAS(&keys[h], -1, w);
            if (old < 0 || old == w) return (int)h;
        }
    }
}

__device__ __forceinline__ int c4_find(const int* keys, int w, u32 mask) {
    for (u32 h = c4_hash(w) & mask;; h = (h + 1) & mask)
        if (keys[h] == w) return (int)h;
}

extern "C" __global__ void fglt_c4(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                   u32* __restrict__ acc_all, int* __restrict__ touched_all, u64* __restrict__ c4) {
    __shared__ int ntouched;
    __shared__ u64 block_sum[32];
    __shared__ int keys[C4_SLOTS];
    __shared__ u32 vals[C4_SLOTS];
    __shared__ long long bound_sh;
    u32* acc = acc_all + (long long)blockIdx.x * n;
    int* touched = touched_all + (long long)blockIdx.x * n;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    if (threadIdx.x == 0) ntouched = 0;
    __syncthreads();
    for (int u = blockIdx.x; u < n; u += gridDim.x) {
        int u0 = ptr[u];
        int u1 = lower_bound(idx, u0, ptr[u + 1], u);  // N(u) ∩ [0, u)
        if (u1 - u0 < 2) continue;  // a cycle needs two middles (uniform over the block)
        // wedge bound: the degrees of the lower neighbours
        if (threadIdx.x == 0) bound_sh = 0;
        __syncthreads();
        long long b = 0;
        for (int p = u0 + threadIdx.x; p < u1; p += blockDim.x) b += ptr[idx[p] + 1] - ptr[idx[p]];
        for (int o = 16; o > 0; o >>= 1) b += __shfl_down_sync(FULL_MASK, b, o);
        if (lane == 0 && b) atomicAdd((unsigned long long*)&bound_sh, (unsigned long long)b);
        __syncthreads();
        long long bound = bound_sh;
        bool local = 2 * bound <= C4_SLOTS;
        u32 mask = 0;
        if (local) {
            u32 size = 64;
            while (size < 2 * bound) size <<= 1;
            mask = size - 1;
            for (int t = threadIdx.x; t < (int)size; t += blockDim.x) { keys[t] = -1; vals[t] = 0; }
            __syncthreads();
        }
        for (int p = u0 + warp; p < u1; p += nwarps) {
            int v = idx[p];
            for (int q = ptr[v] + lane; q < ptr[v + 1]; q += 32) {
                int w = idx[q];
                if (w >= u) break;
                if (local) atomicAdd(&vals[c4_slot(keys, w, mask)], 1u);
                else if (atomicAdd(&acc[w], 1u) == 0) touched[atomicAdd(&ntouched, 1)] = w;
            }
        }
        __syncthreads();
        u64 own = 0;
        if (local) {
            for (int t = threadIdx.x; t <= (int)mask; t += blockDim.x) {
                u64 c = choose2(vals[t]);
                if (c) {
                    own += c;
                    atomicAdd(&c4[keys[t]], c);
                }
            }
        } else {
            int nt = ntouched;
            for (int t = threadIdx.x; t < nt; t += blockDim.x) {
                int w = touched[t];
                u64 c = choose2(acc[w]);
                if (c) {
                    own += c;
                    atomicAdd(&c4[w], c);
                }
            }
        }
        for (int p = u0 + warp; p < u1; p += nwarps) {
            int v = idx[p];
            u64 s = 0;
            for (int q = ptr[v] + lane; q < ptr[v + 1]; q += 32) {
                int w = idx[q];
                if (w >= u) break;
                s += (u64)(local ? vals[c4_find(keys, w, mask)] : acc[w]) - 1;
            }
            s = warp_sum(s);
            if (lane == 0 && s) atomicAdd(&c4[v], s);
        }
        own = warp_sum(own);
        if (lane == 0) block_sum[warp] = own;
        __syncthreads();
        if (threadIdx.x == 0) {
            u64 tot = 0;
            for (int k = 0; k < nwarps; ++k) tot += block_sum[k];
            if (tot) atomicAdd(&c4[u], tot);
        }
        if (!local) {
            int nt = ntouched;
            for (int t = threadIdx.x; t < nt; t += blockDim.x) acc[touched[t]] = 0;
        }
        __syncthreads();
        if (threadIdx.x == 0) ntouched = 0;
        __syncthreads();
    }
}

// 4-cliques through each vertex. Each clique u < v < w < x is found once,
// from its lowest vertex u, as a triangle of the graph H_u induced on
// N⁺(u) (u's higher-numbered neighbours). Vertices with |N⁺(u)| ≤ K4_LOCAL
// take fglt_k4_local; the others fglt_k4_wide (k4 must be zero before both).
#define K4_LOCAL 512
#define K4_WORDS (K4_LOCAL / 32)

// First position of row u (in idx[ptr[u], ptr[u+1])) above u: N⁺(u) starts there.
__device__ __forceinline__ int upper_start(const int* __restrict__ ptr, const int* __restrict__ idx, int u) {
    return lower_bound(idx, ptr[u], ptr[u + 1], u + 1);
}

// The 4-cliques with lowest vertex u (N⁺(u) = idx[u0, u0 + k)), by the
// whole block: H_u's rows as bitsets (bit t of row s: L[s] ~ L[t], L =
// N⁺(u); rows of `words` words); each edge s < t of H_u is in
// c_st = |row s ∩ row t| triangles of H_u, added to cnt[s] and cnt[t] (one
// intersection per edge); a vertex s of H_u is then in cnt[s] / 2
// triangles of H_u, i.e. 4-cliques with u below, and u in a third of their
// sum. L, cnt and rows in shared or global memory; the intersections by the
// lanes over t (short rows) or over the words.
__device__ void k4_vertex(int u, int u0, int k, const int* __restrict__ ptr, const int* __restrict__ idx, int* L,
                          u32* cnt, u32* rows, bool lanes_over_words, u64* warp_tot, u64* __restrict__ k4) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    int words = (k + 31) >> 5;
    for (int i = threadIdx.x; i < k; i += blockDim.x) {
        L[i] = idx[u0 + i];
        cnt[i] = 0;
    }
    for (long long i = threadIdx.x; i < (long long)k * words; i += blockDim.x) rows[i] = 0;
    __syncthreads();
    int lo_v = L[0], hi_v = L[k - 1];
    for (int s = warp; s < k; s += nwarps) {
        int v = L[s], v1 = ptr[v + 1];
        for (int q = lower_bound(idx, ptr[v], v1, lo_v) + lane; q < v1; q += 32) {
            int x = idx[q];
            if (x > hi_v) break;
            int a = lower_bound(L, 0, k, x);
            if (a < k && L[a] == x) atomicOr(&rows[(long long)s * words + (a >> 5)], 1u << (a & 31));
        }
    }
    __syncthreads();
    for (int s = warp; s < k; s += nwarps) {
        const u32* rs = rows + (long long)s * words;
        u32 own = 0;  // Σ_{t > s} c_st (this lane's share)
        if (lanes_over_words) {
            for (int tw = (s + 1) >> 5; tw < words; ++tw) {
                u32 bits = rs[tw];
                if (tw == (s + 1) >> 5) bits &= ~0u << ((s + 1) & 31);
                for (; bits; bits &= bits - 1) {
                    int t = tw * 32 + __ffs(bits) - 1;
                    const u32* rt = rows + (long long)t * words;
                    u32 c = 0;
                    for (int w = lane; w < words; w += 32) c += __popc(rs[w] & rt[w]);
                    c = __reduce_add_sync(FULL_MASK, c);
                    if (lane == 0 && c) atomicAdd(&cnt[t], c);
                    own += c;
                }
            }
            own = lane == 0 ? own : 0;
        } else {
            for (int t = s + 1 + lane; t < k; t += 32) {
                if (!((rs[t >> 5] >> (t & 31)) & 1u)) continue;
                const u32* rt = rows + (long long)t * words;
                u32 c = 0;
                for (int w = 0; w < words; ++w) c += __popc(rs[w] & rt[w]);
                if (c) atomicAdd(&cnt[t], c);
                own += c;
            }
        }
        own = __reduce_add_sync(FULL_MASK, own);
        if (lane == 0 && own) atomicAdd(&cnt[s], own);
    }
    __syncthreads();
    u64 mine = 0;
    for (int s = threadIdx.x; s < k; s += blockDim.x) {
        u64 c = cnt[s] / 2;  // triangles of H_u at s
        if (c) {
            atomicAdd(&k4[L[s]], c);
            mine += c;
        }
    }
    mine = warp_sum(mine);
    if (lane == 0) warp_tot[warp] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 tot = 0;
        for (int w = 0; w < nwarps; ++w) tot += warp_tot[w];
        if (tot) atomicAdd(&k4[u], tot / 3);
    }
    __syncthreads();
}

// One block per vertex u with 3 ≤ |N⁺(u)| ≤ K4_LOCAL, H_u in shared memory.
extern "C" __global__ void fglt_k4_local(int n, const int* __restrict__ ptr, const int* __restrict__ idx,
                                         u64* __restrict__ k4) {
    __shared__ int L[K4_LOCAL];
    __shared__ u32 cnt[K4_LOCAL];
    __shared__ u32 rows[K4_LOCAL * K4_WORDS];
    __shared__ u64 warp_tot[32];
    for (int u = blockIdx.x; u < n; u += gridDim.x) {
        int u1 = ptr[u + 1], u0 = upper_start(ptr, idx, u), k = u1 - u0;
        if (k < 3 || k > K4_LOCAL) continue;  // uniform over the block
        k4_vertex(u, u0, k, ptr, idx, L, cnt, rows, false, warp_tot, k4);
    }
}

// One block per vertex u with |N⁺(u)| > K4_LOCAL, H_u, N⁺(u) and the
// counts in the block's own part of global scratch (kmax rows and 2 kmax
// entries, kmax ≥
// every |N⁺(u)|: √nnz bounds it in degree order, each w of N⁺(u) having
// degree ≥ |N⁺(u)|).
extern "C" __global__ void fglt_k4_wide(int n, int kmax, const int* __restrict__ ptr, const int* __restrict__ idx,
                                        u32* __restrict__ rows_all, int* __restrict__ L_all, u64* __restrict__ k4) {
    __shared__ u64 warp_tot[32];
    long long wmax = (kmax + 31) >> 5;
    u32* rows = rows_all + (long long)blockIdx.x * kmax * wmax;
    int* L = L_all + 2 * (long long)blockIdx.x * kmax;
    u32* cnt = (u32*)(L + kmax);
    for (int u = blockIdx.x; u < n; u += gridDim.x) {
        int u1 = ptr[u + 1], u0 = upper_start(ptr, idx, u), k = u1 - u0;
        if (k <= K4_LOCAL) continue;  // uniform over the block
        k4_vertex(u, u0, k, ptr, idx, L, cnt, rows, true, warp_tot, k4);
    }
}
