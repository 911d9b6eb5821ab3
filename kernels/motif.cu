// Vertex-localized constrained multilinear sieve over GF(2^8) (modulus
// 0x11D), bit-sliced: a thread holds 32 evaluation points as eight 32-bit
// planes (bit t of plane b = bit b of point t). Kaski, Lauri, Thejaswi
// (SEA 2018), section 3: workloads of shape n x D, each thread S = 32
// scalars, memory layout (U/A = 2) x n x D x (A = 4 words), i.e. two
// coalesced uint4 accesses per line.
//
// P[s][h][i][t] (uint4) at ((s * 2 + h) * n + i) * D + t, s = level - 1.
// Random values: the same counter-based hash as src/motif/random.rs.

typedef unsigned int u32;
typedef unsigned long long u64;

#define TAG_MU 1ull
#define TAG_NU 2ull
#define TAG_ALPHA 3ull

__device__ __forceinline__ u64 mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ __forceinline__ u64 draw(u64 key, u64 tag, u64 a, u64 b) {
    return mix64(mix64(mix64(key ^ tag) ^ a) ^ b);
}

// scalar GF(2^8) product (shift and add), for the labels
__device__ __forceinline__ u32 gf256_mul(u32 a, u32 b) {
    u32 p = 0;
    for (int i = 0; i < 8; ++i) {
        if (b & 1) p ^= a;
        u32 hi = a & 0x80;
        a = (a << 1) & 0xFF;
        if (hi) a ^= 0x1D;
        b >>= 1;
    }
    return p;
}

__device__ __forceinline__ void load_line(const uint4* __restrict__ P, long long lo, long long hi, u32 a[8]) {
    uint4 x = P[lo];
    uint4 y = P[hi];
    a[0] = x.x; a[1] = x.y; a[2] = x.z; a[3] = x.w;
    a[4] = y.x; a[5] = y.y; a[6] = y.z; a[7] = y.w;
}

__device__ __forceinline__ void store_line(uint4* __restrict__ P, long long lo, long long hi, const u32 a[8]) {
    P[lo] = make_uint4(a[0], a[1], a[2], a[3]);
    P[hi] = make_uint4(a[4], a[5], a[6], a[7]);
}

// c (15 planes) reduced modulo x^8 + x^4 + x^3 + x^2 + 1 into its low 8 planes
__device__ __forceinline__ void reduce15(u32 c[15]) {
#pragma unroll
    for (int d = 14; d >= 8; --d) {
        c[d - 4] ^= c[d];
        c[d - 5] ^= c[d];
        c[d - 6] ^= c[d];
        c[d - 8] ^= c[d];
    }
}

// (b) label evaluation: zeta[i * k + l] = sum over shades d of the colour of i of mu_{i,d} nu_{d,l}
extern "C" __global__ void motif_labels(int n, int k, u64 key, const u32* __restrict__ shade_first,
                                        const u32* __restrict__ shade_count, unsigned char* __restrict__ zeta) {
    long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)n * k) return;
    int i = (int)(id / k), l = (int)(id % k);
    u32 f = shade_first[i], c = shade_count[i], z = 0;
    for (u32 d = f; d < f + c; ++d) {
        u32 mu = (u32)(draw(key, TAG_MU, (u64)i, (u64)d) & 0xFF);
        u32 nu = (u32)(draw(key, TAG_NU, (u64)d, (u64)l) & 0xFF);
        z ^= gf256_mul(mu, nu);
    }
    zeta[id] = (unsigned char)z;
}

// the random alpha_{s,e} of every level s = 2..k and arc e, once per run: alpha[(s - 2) * m + e]
extern "C" __global__ void motif_alpha(long long m, int k, u64 key, unsigned char* __restrict__ alpha) {
    long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= m * (long long)(k - 1)) return;
    long long e = id % m;
    int s = (int)(id / m) + 2;
    alpha[id] = (unsigned char)(draw(key, TAG_ALPHA, (u64)e, (u64)s) & 0xFF);
}

// (c) label sums, level 1: thread (i, t) holds the points first + 32 t + (0..32)
extern "C" __global__ void motif_init(int n, int k, int D, u64 first, const unsigned char* __restrict__ zeta,
                                      uint4* __restrict__ P) {
    long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)n * D) return;
    int i = (int)(id / D), t = (int)(id % D);
    const u32 pat[5] = {0xAAAAAAAAu, 0xCCCCCCCCu, 0xF0F0F0F0u, 0xFF00FF00u, 0xFFFF0000u};
    u64 base = first + 32ull * (u64)t;
    u32 a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int l = 0; l < k; ++l) {
        u32 bits = l < 5 ? pat[l] : (u32)0 - (u32)((base >> l) & 1ull);
        u32 z = zeta[(long long)i * k + l];
#pragma unroll
        for (int b = 0; b < 8; ++b) a[b] ^= bits & ((u32)0 - ((z >> b) & 1u));
    }
    long long nd = (long long)n * D;
    store_line(P, (long long)i * D + t, nd + (long long)i * D + t, a);
}

// (d) level s of the recurrence:
// P_{i,s} = sum_{s1=1}^{s-1} P_{i,s1} . sum_{j in N(i)} alpha_{s,(i,j)} P_{j,s-s1}
extern "C" __global__ void motif_level(int n, int s, int D, long long m, const long long* __restrict__ indptr,
                                       const u32* __restrict__ indices, const unsigned char* __restrict__ alpha,
                                       uint4* __restrict__ P) {
    long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)n * D) return;
    int i = (int)(id / D), t = (int)(id % D);
    long long nd = (long long)n * D;
    long long e0 = indptr[i], e1 = indptr[i + 1];
    const unsigned char* al = alpha + (long long)(s - 2) * m;
    u32 acc[15];
#pragma unroll
    for (int d = 0; d < 15; ++d) acc[d] = 0;
    for (int s1 = 1; s1 < s; ++s1) {
        int s2 = s - s1;
        u32 u[15];
#pragma unroll
        for (int d = 0; d < 15; ++d) u[d] = 0;
        long long lvl = (long long)(s2 - 1) * 2 * nd;
        for (long long e = e0; e < e1; ++e) {
            long long j = indices[e];
            u32 x[8];
            load_line(P, lvl + j * D + t, lvl + nd + j * D + t, x);
            u32 al8 = al[e];
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) {
                u32 msk = (u32)0 - ((al8 >> jb) & 1u);
#pragma unroll
                for (int b = 0; b < 8; ++b) u[b + jb] ^= x[b] & msk;
            }
        }
        reduce15(u);
        u32 p[8];
        long long own = (long long)(s1 - 1) * 2 * nd;
        load_line(P, own + (long long)i * D + t, own + nd + (long long)i * D + t, p);
#pragma unroll
        for (int a = 0; a < 8; ++a)
#pragma unroll
            for (int b = 0; b < 8; ++b) acc[a + b] ^= p[a] & u[b];
    }
    reduce15(acc);
    long long out = (long long)(s - 1) * 2 * nd;
    store_line(P, out + (long long)i * D + t, out + nd + (long long)i * D + t, acc);
}

// (e) per-vertex sums of level k over this chunk's `count` valid points, added into Q[i]
extern "C" __global__ void motif_sum(int n, int k, int D, long long count, const uint4* __restrict__ P,
                                     u32* __restrict__ Q) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long nd = (long long)n * D;
    long long top = (long long)(k - 1) * 2 * nd;
    u32 par[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int t = 0; t < D; ++t) {
        long long lo = 32ll * t;
        if (lo >= count) break;
        u32 valid = count - lo >= 32 ? 0xFFFFFFFFu : ((1u << (u32)(count - lo)) - 1u);
        u32 a[8];
        load_line(P, top + (long long)i * D + t, top + nd + (long long)i * D + t, a);
#pragma unroll
        for (int b = 0; b < 8; ++b) par[b] ^= (u32)__popc(a[b] & valid) & 1u;
    }
    u32 q = 0;
#pragma unroll
    for (int b = 0; b < 8; ++b) q |= par[b] << b;
    Q[i] ^= q;
}
