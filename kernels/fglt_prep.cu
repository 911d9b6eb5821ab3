// The FGLT's input preparation on the GPU (appended to kernels/fglt.cu's
// module): from the graph's CSR (row pointers and column indices as 32-bit
// unsigned integers, narrowed by the host as it stages them; rows sorted, at
// most one self-loop per row) to the degree-ordered pattern
// the counting kernels read (32-bit CSR, rows sorted, no self-loops,
// vertices renumbered by increasing degree; ties in any order, which changes
// no count), with row ids per entry. Also a device-wide exclusive scan.

// ---- exclusive scan of a[0, len) in place, total to a[len] ----------------
// Three launches: scan_sums (SCAN_PARTS blocks, one chunk each), scan_parts
// (one block over the chunk sums), scan_apply (each block its chunk).
#define SCAN_PARTS 1024

// Inclusive scan over the block (blockDim a multiple of 32, at most 1024);
// *total gets the block's sum. Every thread must call it.
__device__ int block_scan(int x, int* total) {
    __shared__ int warp_tot[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(FULL_MASK, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) warp_tot[w] = x;
    __syncthreads();
    if (w == 0) {
        int s = lane < nw ? warp_tot[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            int y = __shfl_up_sync(FULL_MASK, s, o);
            if (lane >= o) s += y;
        }
        warp_tot[lane] = s;
    }
    __syncthreads();
    if (w > 0) x += warp_tot[w - 1];
    *total = warp_tot[nw - 1];
    __syncthreads();
    return x;
}

__device__ __forceinline__ long long scan_chunk(long long len) { return (len + SCAN_PARTS - 1) / SCAN_PARTS; }

extern "C" __global__ void fglt_scan_sums(long long len, const int* __restrict__ a, int* __restrict__ parts) {
    long long c = scan_chunk(len), lo = blockIdx.x * c, hi = min(len, lo + c);
    int s = 0;
    for (long long i = lo + threadIdx.x; i < hi; i += blockDim.x) s += a[i];
    int tot;
    block_scan(s, &tot);
    if (threadIdx.x == 0) parts[blockIdx.x] = tot;
}

// One block of SCAN_PARTS threads: parts[] exclusive, the total to parts[SCAN_PARTS].
extern "C" __global__ void fglt_scan_parts(int* __restrict__ parts) {
    int x = parts[threadIdx.x], tot;
    int inc = block_scan(x, &tot);
    parts[threadIdx.x] = inc - x;
    if (threadIdx.x == 0) parts[SCAN_PARTS] = tot;
}

extern "C" __global__ void fglt_scan_apply(long long len, int* __restrict__ a, const int* __restrict__ parts) {
    long long c = scan_chunk(len), lo = blockIdx.x * c, hi = min(len, lo + c);
    int carry = parts[blockIdx.x];
    for (long long base = lo; base < hi; base += blockDim.x) {
        long long i = base + threadIdx.x;
        int x = i < hi ? a[i] : 0, tot;
        int inc = block_scan(x, &tot);
        if (i < hi) a[i] = carry + inc - x;
        carry += tot;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) a[len] = parts[SCAN_PARTS];
}

// ---- degree order -----------------------------------------------------------

// One warp-aggregated atomicAdd of 1 per lane on counter[key]: the lanes of
// equal key share one atomic; each gets the counter's old value + its rank.
__device__ __forceinline__ int aggregated_inc(int* counter, int key) {
    unsigned peers = __match_any_sync(__activemask(), key);
    int leader = __ffs(peers) - 1, lane = threadIdx.x & 31;
    int base = 0;
    if (lane == leader) base = atomicAdd(&counter[key], __popc(peers));
    base = __shfl_sync(peers, base, leader);
    return base + __popc(peers & ((1u << lane) - 1));
}

// Degree without the self-loop, the degree histogram, and stats[0] += self
// loops, stats[1] = max degree. hist (n + 1 entries) and stats must be zero.
extern "C" __global__ void fglt_in_degrees(int n, const u32* __restrict__ iptr, const u32* __restrict__ iidx,
                                          int* __restrict__ deg, int* __restrict__ hist, u32* __restrict__ stats) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        long long lo = (long long)iptr[v], hi = (long long)iptr[v + 1], a = lo, b = hi;
        while (a < b) {
            long long m = a + ((b - a) >> 1);
            if (iidx[m] < (u32)v) a = m + 1; else b = m;
        }
        int loop = a < hi && iidx[a] == (u32)v;
        int d = (int)(hi - lo) - loop;
        deg[v] = d;
        aggregated_inc(hist, d);
        if (loop) atomicAdd(&stats[0], 1u);
        unsigned act = __activemask();
        u32 dmax = __reduce_max_sync(act, (u32)d);
        if ((threadIdx.x & 31) == __ffs(act) - 1) atomicMax(&stats[1], dmax);
    }
}

// Places every vertex after the scan of the histogram (start: the first
// position of each degree, advanced here): order[r] = v, rank[v] = r,
// len[r] = ptr[r] = deg[v] (ptr to be scanned into row pointers).
extern "C" __global__ void fglt_place(int n, const int* __restrict__ deg, int* __restrict__ start,
                                      int* __restrict__ order, int* __restrict__ rank, int* __restrict__ len,
                                      int* __restrict__ ptr) {
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        int d = deg[v];
        int r = aggregated_inc(start, d);
        order[r] = v;
        rank[v] = r;
        len[r] = d;
        ptr[r] = d;
    }
}

// Row r of the pattern (unsorted): the ranks of order[r]'s neighbours, its
// self-loop skipped; row_of its row id. One warp per row.
extern "C" __global__ void fglt_relabel(int n, const u32* __restrict__ iptr, const u32* __restrict__ iidx,
                                        const int* __restrict__ order, const int* __restrict__ rank,
                                        const int* __restrict__ ptr, int* __restrict__ idx, int* __restrict__ row_of) {
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < n; r += warps) {
        int v = order[r];
        long long lo = (long long)iptr[v], hi = (long long)iptr[v + 1];
        int out = ptr[r];
        int loop = (long long)(ptr[r + 1] - out) < hi - lo;
        for (long long p = lo + lane; p < hi; p += 32) {
            u32 u = iidx[p];
            if (u == (u32)v) continue;
            int k = (int)(p - lo) - (loop && u > (u32)v);
            idx[out + k] = rank[u];
            row_of[out + k] = r;
        }
    }
}

// First row whose length exceeds `bound` (len is non-decreasing).
__device__ __forceinline__ int first_longer(const int* __restrict__ len, int n, int bound) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + ((hi - lo) >> 1);
        if (len[mid] <= bound) lo = mid + 1; else hi = mid;
    }
    return lo;
}

#define SORT_WARP 32
#define SORT_BLOCK 4096

// Sorts the rows of at most 32 entries: one warp per row, each lane's entry
// placed by its rank (entries of a row are distinct).
extern "C" __global__ void fglt_sort_warp(int n, const int* __restrict__ len, const int* __restrict__ ptr,
                                          int* __restrict__ idx) {
    int lane = threadIdx.x & 31;
    int warps = (gridDim.x * blockDim.x) >> 5;
    int end = first_longer(len, n, SORT_WARP);
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < end; r += warps) {
        int l = len[r], s = ptr[r];
        if (l < 2) continue;
        int x = lane < l ? idx[s + lane] : 0x7fffffff, k = 0;
        for (int j = 0; j < 32; ++j) k += __shfl_sync(FULL_MASK, x, j) < x;
        if (lane < l) idx[s + k] = x;
    }
}

// Sorts the rows of 33 to 4096 entries: one block per row, bitonic sort in
// shared memory.
extern "C" __global__ void fglt_sort_block(int n, const int* __restrict__ len, const int* __restrict__ ptr,
                                           int* __restrict__ idx) {
    __shared__ int s[SORT_BLOCK];
    int begin = first_longer(len, n, SORT_WARP), end = first_longer(len, n, SORT_BLOCK);
    for (int r = begin + blockIdx.x; r < end; r += gridDim.x) {
        int l = len[r], o = ptr[r], p2 = 64;
        while (p2 < l) p2 <<= 1;
        for (int i = threadIdx.x; i < p2; i += blockDim.x) s[i] = i < l ? idx[o + i] : 0x7fffffff;
        __syncthreads();
        for (int k = 2; k <= p2; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int i = threadIdx.x; i < p2; i += blockDim.x) {
                    int ij = i ^ j;
                    if (ij > i) {
                        int a = s[i], b = s[ij];
                        if ((a > b) == ((i & k) == 0)) { s[i] = b; s[ij] = a; }
                    }
                }
                __syncthreads();
            }
        }
        for (int i = threadIdx.x; i < l; i += blockDim.x) idx[o + i] = s[i];
        __syncthreads();
    }
}

// Sorts the rows of more than 4096 entries: one block per row marks the
// row's entries in its own bitmap of n bits (words per block) and reads
// them back in order.
extern "C" __global__ void fglt_sort_bitmap(int n, long long words, const int* __restrict__ len,
                                            const int* __restrict__ ptr, int* __restrict__ idx, u32* __restrict__ bits_all) {
    u32* bits = bits_all + blockIdx.x * words;
    int begin = first_longer(len, n, SORT_BLOCK);
    for (int r = begin + blockIdx.x; r < n; r += gridDim.x) {
        int l = len[r], o = ptr[r];
        for (long long w = threadIdx.x; w < words; w += blockDim.x) bits[w] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < l; i += blockDim.x) {
            int x = idx[o + i];
            atomicOr(&bits[x >> 5], 1u << (x & 31));
        }
        __syncthreads();
        int carry = 0;
        for (long long base = 0; base < words; base += blockDim.x) {
            long long w = base + threadIdx.x;
            u32 b = w < words ? bits[w] : 0u;
            int c = __popc(b), tot;
            int pos = carry + block_scan(c, &tot) - c;
            while (b) {
                int t = __ffs(b) - 1;
                idx[o + pos++] = (int)(w * 32 + t);
                b &= b - 1;
            }
            carry += tot;
        }
        __syncthreads();
    }
}
