// Vertex-localized constrained multilinear sieve over GF(2^8) (modulus
// 0x11D), bit-sliced: a thread holds 32 evaluation points as eight 32-bit
// planes (bit t of plane b = bit b of point t). Kaski, Lauri, Thejaswi
// (SEA 2018), section 3: workloads of shape n x D, each thread S = 32
// scalars, memory layout (U/A = 2) x n x D x (A = 4 words), i.e. two
// coalesced uint4 accesses per line.
//
// P[q][h][i][t] (uint4) at ((q * 2 + h) * n + i) * D + t: slot q = s - 1 is level s; the slots
// after the k levels hold the neighbour sums that motif_pass keeps for a later pass.
// The recurrence runs as k - 1 passes (motif_pass), pass l reading every neighbour line of
// level l once for all the levels above it (the seed's kernel reads the lines of levels 1..s-1
// again for every level s: k(k-1)/2 neighbour lines per arc against k - 1 here).
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

// x <- x * t modulo x^8 + x^4 + x^3 + x^2 + 1 (8 planes)
__device__ __forceinline__ void mul_t(u32 x[8]) {
    u32 hi = x[7];
    x[7] = x[6]; x[6] = x[5]; x[5] = x[4];
    x[4] = x[3] ^ hi; x[3] = x[2] ^ hi; x[2] = x[1] ^ hi;
    x[1] = x[0]; x[0] = hi;
}

// c (15 planes, unreduced) += a * b
__device__ __forceinline__ void mul_add15(u32 c[15], const u32 a[8], const u32 b[8]) {
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < 8; ++y) c[x + y] ^= a[x] & b[y];
}

// The buffer holds slots of n x D lines: slot s - 1 is level s (s = 1..k); after them, slot
// k + tslot(k, l, s) holds T^{(s)}_{i,l} for the pairs l < s with s > 2 l (see motif_pass).
// Line (slot q, vertex i, thread t) at ((q * 2 + h) * n + i) * D + t, h = 0, 1 its halves.
__device__ __forceinline__ long long tslot(int k, int l, int s) {
    return (long long)(l - 1) * k - (long long)(l - 1) * l + (s - 2 * l - 1);
}

// (d) the recurrence, pass l (levels 1..l complete): with
//   T^{(s)}_{i,l} = sum_{j in N(i)} alpha_{s,(i,j)} P_{j,l}                       (s = s_lo .. s_lo + G - 1, all > l)
//   P_{i,s} = sum_{s1 + s2 = s} P_{i,s1} . T^{(s)}_{i,s2},
// each neighbour line of level l is read once for the G levels s (G accumulators of 8 planes; the
// products by alpha as sums of x t^b over the bits b of alpha). With MOTIF_MASK_PRODUCTS defined
// (MotifTuning::mask_products, for measurements) the bits select by masks instead. The pair (s1, s2) is added to
// P_{i,s} in the pass max(s1, s2): in pass l, for s <= 2 l, the pair (s - l, l) and, when s < 2 l,
// the pair (l, s - l) with T^{(s)}_{i,s-l} stored by pass s - l; for s > 2 l, T^{(s)}_{i,l} is stored
// for pass s - l. P_{i,s} is first written in pass ceil(s / 2) and complete after pass s - 1.
template <int G>
__device__ __forceinline__ void pass_body(int n, int k, int l, int s_lo, int D, long long m,
                                          const long long* __restrict__ indptr, const u32* __restrict__ indices,
                                          const unsigned char* __restrict__ alpha, uint4* __restrict__ P) {
    long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (long long)n * D) return;
    long long nd = (long long)n * D;
    long long i = id / D;
    long long e0 = indptr[i], e1 = indptr[i + 1];
    long long t = id - i * D;
    const unsigned char* al = alpha + (long long)(s_lo - 2) * m;
    u32 z[G][8];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
        for (int b = 0; b < 8; ++b) z[g][b] = 0;
    long long lvl = (long long)(l - 1) * 2 * nd + t;
    // the next neighbour's line and alphas are loaded before this one's products (one in flight)
    u32 xn[8], an[G];
    if (e0 < e1) {
        long long j = indices[e0];
        load_line(P, lvl + j * D, lvl + nd + j * D, xn);
#pragma unroll
        for (int g = 0; g < G; ++g) an[g] = al[(long long)g * m + e0];
    }
    for (long long e = e0; e < e1; ++e) {
        u32 x[8], a[G];
#pragma unroll
        for (int c = 0; c < 8; ++c) x[c] = xn[c];
#pragma unroll
        for (int g = 0; g < G; ++g) a[g] = an[g];
        if (e + 1 < e1) {
            long long j = indices[e + 1];
            load_line(P, lvl + j * D, lvl + nd + j * D, xn);
#pragma unroll
            for (int g = 0; g < G; ++g) an[g] = al[(long long)g * m + e + 1];
        }
#pragma unroll
        for (int b = 0; b < 8; ++b) {
#pragma unroll
            for (int g = 0; g < G; ++g) {
#ifdef MOTIF_MASK_PRODUCTS
                // all ones when bit b of alpha is set
                u32 msk = (u32)((int)(a[g] << (31 - b)) >> 31);
#pragma unroll
                for (int c = 0; c < 8; ++c) z[g][c] ^= x[c] & msk;
#else
                // bit b of alpha times the planes as integer products: IMAD runs on the FMA pipe,
                // beside the logic pipe that adds them (masked ANDs would put both on the latter)
                u32 bit = (a[g] >> b) & 1u;
#pragma unroll
                for (int c = 0; c < 8; ++c) z[g][c] ^= x[c] * bit;
#endif
            }
            if (b < 7) mul_t(x);
        }
    }
    long long own = i * D + t;
#pragma unroll
    for (int g = 0; g < G; ++g) {
        int s = s_lo + g;
        if (s > 2 * l) {
            long long q = (long long)(k + tslot(k, l, s)) * 2 * nd + own;
            store_line(P, q, q + nd, z[g]);
            continue;
        }
        u32 c[15], p[8];
#pragma unroll
        for (int d = 0; d < 15; ++d) c[d] = 0;
        long long q = (long long)(s - l - 1) * 2 * nd + own;
        load_line(P, q, q + nd, p);
        mul_add15(c, p, z[g]);
        if (s < 2 * l) {
            u32 w[8];
            q = (long long)(l - 1) * 2 * nd + own;
            load_line(P, q, q + nd, p);
            q = (long long)(k + tslot(k, s - l, s)) * 2 * nd + own;
            load_line(P, q, q + nd, w);
            mul_add15(c, p, w);
        }
        reduce15(c);
        q = (long long)(s - 1) * 2 * nd + own;
        if (s < 2 * l - 1) {
            load_line(P, q, q + nd, p);
#pragma unroll
            for (int b = 0; b < 8; ++b) c[b] ^= p[b];
        }
        store_line(P, q, q + nd, c);
    }
}

#define MOTIF_PASS(G)                                                                                             \
    extern "C" __global__ void __launch_bounds__(256, 2) motif_pass##G(                                              \
        int n, int k, int l, int s_lo, int D, long long m, const long long* __restrict__ indptr,                  \
        const u32* __restrict__ indices, const unsigned char* __restrict__ alpha, uint4* __restrict__ P) {         \
        pass_body<G>(n, k, l, s_lo, D, m, indptr, indices, alpha, P);                                             \
    }
MOTIF_PASS(1)
MOTIF_PASS(2)
MOTIF_PASS(3)
MOTIF_PASS(4)
MOTIF_PASS(5)
MOTIF_PASS(6)
MOTIF_PASS(7)
MOTIF_PASS(8)

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
