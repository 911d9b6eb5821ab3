// The raw and net frequencies on the GPU (appended to kernels/fglt.cu's
// module after the net transform's table, which src/graphlets/gpu.rs
// writes from transform.rs's NET_TERMS: NET_NT terms per orbit, NET_COEF and
// NET_IDX, zero-padded).
//
// The raw formulas are those of transform.rs's raw_row, in wrapping u64
// arithmetic: exact because the host launches this only when the maximum
// degree D has D³ < 2^64, which bounds every primitive, every raw count and
// (an induced copy being a copy) every net count below 2^64; each
// difference below is then a non-negative count, exact modulo 2^64, hence
// exact. Larger degrees take the host's checked assembly.

// Row order[r] of raw and net (n × 16, row-major, the graph's own vertex
// order) from the primitives at position r.
extern "C" __global__ void fglt_assemble(int n, const int* __restrict__ order, const u64* __restrict__ dv,
                                         const u64* __restrict__ ad, const u64* __restrict__ aad,
                                         const u64* __restrict__ a_c2, const u64* __restrict__ w1,
                                         const u64* __restrict__ a_w1, const u64* __restrict__ w_dm2,
                                         const u64* __restrict__ w_c2, const u64* __restrict__ aba,
                                         const u64* __restrict__ c4, const u64* __restrict__ k4,
                                         u64* __restrict__ raw, u64* __restrict__ net) {
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < n; r += gridDim.x * blockDim.x) {
        u64 d = dv[r], d4 = w1[r] / 2, d2 = ad[r] - d, a_d2 = aad[r] - ad[r];
        u64 x[16];
        x[0] = 1;
        x[1] = d;
        x[2] = d2;
        x[3] = d * (d - 1) / 2;
        x[4] = d4;
        x[5] = a_d2 - d * (d - 1) - 2 * d4;
        x[6] = d2 * (d > 0 ? d - 1 : 0) - 2 * d4;
        x[7] = a_c2[r];
        x[8] = d < 3 ? 0 : d * (d - 1) * (d - 2) / 6;
        x[9] = a_w1[r] / 2 - 2 * d4;
        x[10] = w_dm2[r];
        x[11] = (d > 2 ? d - 2 : 0) * d4;
        x[12] = c4[r];
        x[13] = aba[r] / 2;
        x[14] = w_c2[r];
        x[15] = k4[r];
        long long v = order[r];
        u64* rr = raw + v * 16;
        u64* nr = net + v * 16;
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            u64 s = 0;
#pragma unroll
            for (int t = 0; t < NET_NT; ++t) s += (u64)(long long)NET_COEF[k * NET_NT + t] * x[NET_IDX[k * NET_NT + t]];
            rr[k] = x[k];
            nr[k] = s;
        }
    }
}
