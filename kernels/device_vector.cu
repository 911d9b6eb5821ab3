// The vector operations of the iterative solvers over device vectors (src/cuda/vector.rs):
// element-wise updates and reductions, in float (suffix _f32) and double (_f64).
// Reductions write one partial sum (in double) per block and slot into part[block * slots +
// slot]; the host adds the partials in block order, so a result depends only on n (the grid
// is a function of n), never on timing.

#define KV_LOOP(n) \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); \
         i += (long long)gridDim.x * blockDim.x)

// Sum of v over the block, valid in thread 0 (red: 32 doubles of shared memory).
static __device__ __forceinline__ double kv_block_sum(double v, double* red) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = 0;
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? red[lane] : 0.0;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
}

template <typename T>
static __device__ __forceinline__ void kv_fill(const long long n, const T v, T* __restrict__ y) {
    KV_LOOP(n) y[i] = v;
}

// y += a x
template <typename T>
static __device__ __forceinline__ void kv_axpy(const long long n, const T a, const T* __restrict__ x,
                                               T* __restrict__ y) {
    KV_LOOP(n) y[i] += a * x[i];
}

// y = x + a y
template <typename T>
static __device__ __forceinline__ void kv_xpay(const long long n, const T* __restrict__ x, const T a,
                                               T* __restrict__ y) {
    KV_LOOP(n) y[i] = x[i] + a * y[i];
}

// y = x .* d
template <typename T>
static __device__ __forceinline__ void kv_mul(const long long n, const T* __restrict__ x, const T* __restrict__ d,
                                              T* __restrict__ y) {
    KV_LOOP(n) y[i] = x[i] * d[i];
}

// y = 1 ./ y; part[block] = number of non-finite results
template <typename T>
static __device__ __forceinline__ void kv_inv(const long long n, T* __restrict__ y, double* __restrict__ part) {
    __shared__ double red[32];
    double bad = 0;
    KV_LOOP(n) {
        const T v = (T)1 / y[i];
        y[i] = v;
        bad += isfinite(v) ? 0.0 : 1.0;
    }
    bad = kv_block_sum(bad, red);
    if (threadIdx.x == 0) part[blockIdx.x] = bad;
}

// part[block] = sum x .* y (in double)
template <typename T>
static __device__ __forceinline__ void kv_dot(const long long n, const T* __restrict__ x, const T* __restrict__ y,
                                              double* __restrict__ part) {
    __shared__ double red[32];
    double s = 0;
    KV_LOOP(n) s += (double)x[i] * (double)y[i];
    s = kv_block_sum(s, red);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

// One CG step's vector part: x += a p, r -= a q, z = r .* m (z = r when m is null);
// part[2 block] = r.r, part[2 block + 1] = r.z (in double).
template <typename T>
static __device__ __forceinline__ void kv_cg(const long long n, const T a, T* __restrict__ x, T* __restrict__ r,
                                             T* __restrict__ z, const T* __restrict__ p, const T* __restrict__ q,
                                             const T* __restrict__ m, double* __restrict__ part) {
    __shared__ double red[32];
    double rr = 0, rz = 0;
    KV_LOOP(n) {
        x[i] += a * p[i];
        const T ri = r[i] - a * q[i];
        r[i] = ri;
        const T zi = m ? ri * m[i] : ri;
        z[i] = zi;
        rr += (double)ri * (double)ri;
        rz += (double)ri * (double)zi;
    }
    rr = kv_block_sum(rr, red);
    rz = kv_block_sum(rz, red);
    if (threadIdx.x == 0) {
        part[2 * blockIdx.x] = rr;
        part[2 * blockIdx.x + 1] = rz;
    }
}

#define KV_DEFINE(S, T)                                                                                         \
    extern "C" __global__ void kv_fill_##S(const long long n, const T v, T* y) { kv_fill<T>(n, v, y); }         \
    extern "C" __global__ void kv_axpy_##S(const long long n, const T a, const T* x, T* y) {                    \
        kv_axpy<T>(n, a, x, y);                                                                                 \
    }                                                                                                           \
    extern "C" __global__ void kv_xpay_##S(const long long n, const T* x, const T a, T* y) {                    \
        kv_xpay<T>(n, x, a, y);                                                                                 \
    }                                                                                                           \
    extern "C" __global__ void kv_mul_##S(const long long n, const T* x, const T* d, T* y) {                    \
        kv_mul<T>(n, x, d, y);                                                                                  \
    }                                                                                                           \
    extern "C" __global__ void kv_inv_##S(const long long n, T* y, double* part) { kv_inv<T>(n, y, part); }     \
    extern "C" __global__ void kv_dot_##S(const long long n, const T* x, const T* y, double* part) {            \
        kv_dot<T>(n, x, y, part);                                                                               \
    }                                                                                                           \
    extern "C" __global__ void kv_cg_##S(const long long n, const T a, T* x, T* r, T* z, const T* p, const T* q, \
                                         const T* m, double* part) {                                            \
        kv_cg<T>(n, a, x, r, z, p, q, m, part);                                                                 \
    }

KV_DEFINE(f32, float)
KV_DEFINE(f64, double)
