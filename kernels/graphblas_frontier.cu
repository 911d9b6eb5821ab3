// Frontier kernels of kronograph::algorithms::gpu: the fused BFS (GpuBfs,
// kgb_*) and near-far delta-stepping SSSP (GpuSssp, kgs_*).
//
// The fused BFS: per level one push
// launch (a warp per frontier node; nodes of out-degree >= KG_BIG are put on
// a list that a second, fixed-size launch expands with the whole grid) or
// one pull launch (a thread per unvisited node scanning its in-arcs, stopping
// at the first one from the frontier). The visited check is the level array
// itself (-1: unvisited); a push claims a node with atomicCAS. Each launch
// appends the nodes it discovers to the next frontier queue (warp-aggregated)
// and adds their count and out-arcs to device counters, which the host reads
// once per level to choose the next direction.
//
// counters[0]: nodes discovered, counters[1]: their out-arcs,
// counters[2]: high-degree frontier nodes on the big list.
//
// Node ids and arc positions are kg_idx_t (32 or 64 bits, from the preface).

typedef unsigned int kg_u32;
typedef unsigned long long kg_u64;

#define KG_BIG 1024u
#define KG_FULL 0xffffffffu

__device__ __forceinline__ kg_u64 kg_tid() { return (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ kg_u64 kg_stride() { return (kg_u64)gridDim.x * blockDim.x; }

// Called by all 32 lanes of a warp together: appends the lanes' `v` where
// `found` to `queue` and adds the count and the degrees to the counters.
__device__ __forceinline__ void kg_append(bool found, kg_idx_t v, kg_idx_t deg, kg_idx_t *queue, kg_u64 *counters) {
    kg_u32 mask = __ballot_sync(KG_FULL, found);
    if (mask == 0) return;
    int lane = threadIdx.x & 31;
    kg_u64 arcs = found ? deg : 0;
    for (int o = 16; o > 0; o >>= 1) arcs += __shfl_down_sync(KG_FULL, arcs, o);
    kg_u64 base = 0;
    if (lane == 0) {
        base = atomicAdd(&counters[0], (kg_u64)__popc(mask));
        atomicAdd(&counters[1], arcs);
    }
    base = __shfl_sync(KG_FULL, base, 0);
    if (found) queue[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

// Calls arcs(u, valid, p) with all 32 lanes of a warp together for each
// chunk of 32 arcs of each queue node of out-degree < KG_BIG (a warp per
// node; `valid` false past the node's last arc); puts the other nodes on the
// big list (count in counters[2]) for kg_grid_per_big_node.
template <typename F>
__device__ __forceinline__ void kg_warp_per_node(kg_idx_t f, const kg_idx_t *queue, const kg_idx_t *ptr, kg_u64 *counters,
                                                 kg_idx_t *big, F arcs) {
    int lane = threadIdx.x & 31;
    kg_u64 warp = kg_tid() >> 5, warps = kg_stride() >> 5;
    for (kg_u64 s = warp; s < f; s += warps) {
        kg_idx_t u = queue[s];
        kg_idx_t b = ptr[u], e = ptr[u + 1];
        if (e - b >= KG_BIG) {
            if (lane == 0) big[atomicAdd(&counters[2], 1ull)] = u;
            continue;
        }
        for (kg_idx_t k = b; k < e; k += 32) arcs(u, k + lane < e, k + lane);
    }
}

// Calls arc(u, valid, p) over the arcs of each node u of the big list,
// spread over the whole grid (whole warps together, `valid` false past the
// last arc).
template <typename F>
__device__ __forceinline__ void kg_grid_per_big_node(const kg_idx_t *ptr, const kg_u64 *counters, const kg_idx_t *big,
                                                     F arc) {
    kg_u64 nb = counters[2];
    for (kg_u64 j = 0; j < nb; j++) {
        kg_idx_t u = big[j];
        kg_idx_t b = ptr[u];
        kg_u64 len = ptr[u + 1] - b;
        kg_u64 rounded = (len + 31) & ~31ull;
        for (kg_u64 o = kg_tid(); o < rounded; o += kg_stride()) arc(u, o < len, b + (kg_idx_t)o);
    }
}

extern "C" __global__ void kgb_init(kg_idx_t n, kg_idx_t source, int *levels, long long *parents, kg_idx_t *queue) {
    for (kg_u64 i = kg_tid(); i < n; i += kg_stride()) {
        levels[i] = i == source ? 0 : -1;
        parents[i] = i == source ? (long long)source : -1;
    }
    if (kg_tid() == 0) queue[0] = source;
}

// Tries to claim `v` for level `level + 1` from parent `u`.
__device__ __forceinline__ bool kg_claim(kg_idx_t v, kg_idx_t u, int level, int *levels, long long *parents) {
    if (levels[v] >= 0) return false;
    if (atomicCAS(&levels[v], -1, level + 1) != -1) return false;
    parents[v] = (long long)u;
    return true;
}

// Claims the target of arc p of u (when valid) and appends it to the next queue.
__device__ __forceinline__ void kg_push_arc(kg_idx_t u, bool valid, kg_idx_t p, const kg_idx_t *ptr, const kg_idx_t *ind,
                                            int level, int *levels, long long *parents, kg_idx_t *next,
                                            kg_u64 *counters) {
    kg_idx_t v = 0, dv = 0;
    bool found = false;
    if (valid) {
        v = ind[p];
        found = kg_claim(v, u, level, levels, parents);
        if (found) dv = ptr[v + 1] - ptr[v];
    }
    kg_append(found, v, dv, next, counters);
}

// Push: a warp per frontier node of out-degree < KG_BIG (the others go to `big`).
extern "C" __global__ void kgb_push(kg_idx_t f, const kg_idx_t *frontier, const kg_idx_t *ptr, const kg_idx_t *ind,
                                    int level, int *levels, long long *parents, kg_idx_t *next, kg_u64 *counters,
                                    kg_idx_t *big) {
    kg_warp_per_node(f, frontier, ptr, counters, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        kg_push_arc(u, valid, p, ptr, ind, level, levels, parents, next, counters);
    });
}

// Push of the big list: every node's arcs spread over the whole grid.
extern "C" __global__ void kgb_push_big(const kg_idx_t *ptr, const kg_idx_t *ind, int level, int *levels,
                                        long long *parents, kg_idx_t *next, kg_u64 *counters, const kg_idx_t *big) {
    kg_grid_per_big_node(ptr, counters, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        kg_push_arc(u, valid, p, ptr, ind, level, levels, parents, next, counters);
    });
}

// Pull: every unvisited node scans its in-arcs (CSC) for a node of `level`.
extern "C" __global__ void kgb_pull(kg_idx_t n, const kg_idx_t *cptr, const kg_idx_t *cind, const kg_idx_t *rptr, int level,
                                    int *levels, long long *parents, kg_idx_t *next, kg_u64 *counters) {
    kg_u64 rounded = ((kg_u64)n + 31) & ~31ull;
    for (kg_u64 v = kg_tid(); v < rounded; v += kg_stride()) {
        bool found = false;
        kg_idx_t dv = 0;
        if (v < n && levels[v] < 0) {
            kg_idx_t e = cptr[v + 1];
            for (kg_idx_t p = cptr[v]; p < e; p++) {
                kg_idx_t u = cind[p];
                if (levels[u] == level) {
                    levels[v] = level + 1;
                    parents[v] = (long long)u;
                    found = true;
                    dv = rptr[v + 1] - rptr[v];
                    break;
                }
            }
        }
        kg_append(found, (kg_idx_t)v, dv, next, counters);
    }
}

// ---- SSSP: near-far delta-stepping (Davidson, Baxter, Garland & Owens 2014).
// Distances are kept as the bit patterns of non-negative doubles, which order
// as unsigned integers, so atomicMin on them is the minimum of the doubles.
// counters[0]: near queue size, counters[2]: big list size (both cleared per
// relaxation); counters[4]: far queue size, counters[6]: max of ~bits of the
// far distances (their minimum; both cleared per split).

#define KG_INF_BITS 0x7ff0000000000000ull

extern "C" __global__ void kgs_init(kg_idx_t n, kg_idx_t source, kg_u64 *dist, kg_u32 *stamp, kg_u32 *in_far,
                                    kg_idx_t *queue) {
    for (kg_u64 i = kg_tid(); i < n; i += kg_stride()) {
        dist[i] = i == source ? 0ull : KG_INF_BITS;
        stamp[i] = 0;
        in_far[i] = 0;
    }
    if (kg_tid() == 0) queue[0] = source;
}

// Weight statistics: stats[0] the number of weights not finite or negative,
// stats[1] the largest weight's bits, stats[2] max of ~bits of the positive
// weights (the smallest positive weight). Zeroed by the caller.
extern "C" __global__ void kgs_weights(kg_u64 nnz, const double *w, kg_u64 *stats) {
    kg_u64 bad = 0, mx = 0, mn = 0;
    for (kg_u64 k = kg_tid(); k < nnz; k += kg_stride()) {
        double x = w[k];
        if (!(x >= 0.0 && x <= 1.7976931348623157e308)) { bad++; continue; }
        kg_u64 b = (kg_u64)__double_as_longlong(x);
        mx = b > mx ? b : mx;
        if (x > 0.0 && ~b > mn) mn = ~b;
    }
    for (int o = 16; o > 0; o >>= 1) {
        bad += __shfl_down_sync(KG_FULL, bad, o);
        kg_u64 a = __shfl_down_sync(KG_FULL, mx, o), c = __shfl_down_sync(KG_FULL, mn, o);
        mx = a > mx ? a : mx;
        mn = c > mn ? c : mn;
    }
    if ((threadIdx.x & 31) == 0) {
        if (bad) atomicAdd(&stats[0], bad);
        atomicMax(&stats[1], mx);
        atomicMax(&stats[2], mn);
    }
}

// Relaxes arc p of node u (distance du): lowers dist[v]; a lowered node goes
// to the near queue (once per relaxation round: stamp) below `thr`, else to
// the far queue (once while there: in_far).
__device__ __forceinline__ void kg_relax_arc(bool valid, kg_idx_t p, double du, const kg_idx_t *ind, const double *w,
                                             double thr, kg_u32 round, kg_u64 *dist, kg_u32 *stamp, kg_u32 *in_far,
                                             kg_idx_t *near_next, kg_idx_t *far, kg_u64 *counters) {
    bool to_near = false, to_far = false;
    kg_idx_t v = 0;
    if (valid) {
        v = ind[p];
        double nd = du + w[p];
        kg_u64 nb = (kg_u64)__double_as_longlong(nd);
        if (nb < dist[v] && nb < atomicMin(&dist[v], nb)) {
            if (nd < thr) to_near = atomicExch(&stamp[v], round) != round;
            else to_far = atomicExch(&in_far[v], 1u) == 0u;
        }
    }
    kg_append(to_near, v, 0, near_next, counters);
    kg_append(to_far, v, 0, far, counters + 4);
}

// A relaxation round over the near queue: a warp per node of out-degree <
// KG_BIG (the others go to `big`).
extern "C" __global__ void kgs_relax(kg_idx_t f, const kg_idx_t *near, const kg_idx_t *ptr, const kg_idx_t *ind,
                                     const double *w, double thr, kg_u32 round, kg_u64 *dist, kg_u32 *stamp,
                                     kg_u32 *in_far, kg_idx_t *near_next, kg_idx_t *far, kg_u64 *counters, kg_idx_t *big) {
    kg_warp_per_node(f, near, ptr, counters, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        double du = __longlong_as_double((long long)dist[u]);
        kg_relax_arc(valid, p, du, ind, w, thr, round, dist, stamp, in_far, near_next, far, counters);
    });
}

// The big list of a relaxation round, every node's arcs over the whole grid.
extern "C" __global__ void kgs_relax_big(const kg_idx_t *ptr, const kg_idx_t *ind, const double *w, double thr,
                                         kg_u32 round, kg_u64 *dist, kg_u32 *stamp, kg_u32 *in_far,
                                         kg_idx_t *near_next, kg_idx_t *far, kg_u64 *counters, const kg_idx_t *big) {
    kg_grid_per_big_node(ptr, counters, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        double du = __longlong_as_double((long long)dist[u]);
        kg_relax_arc(valid, p, du, ind, w, thr, round, dist, stamp, in_far, near_next, far, counters);
    });
}

// Splits the far queue at `thr`: nodes with a distance in [lo, thr) go to
// the near queue, those at or past `thr` to the next far queue; below `lo`
// they were settled by an earlier near phase and are dropped.
extern "C" __global__ void kgs_split(kg_idx_t nf, const kg_idx_t *far, double lo, double thr, const kg_u64 *dist,
                                     kg_u32 *in_far, kg_idx_t *near, kg_idx_t *far_next, kg_u64 *counters) {
    kg_u64 rounded = ((kg_u64)nf + 31) & ~31ull;
    for (kg_u64 s = kg_tid(); s < rounded; s += kg_stride()) {
        bool to_near = false, to_far = false;
        kg_idx_t v = 0;
        kg_u64 inv = 0;
        if (s < nf) {
            v = far[s];
            double d = __longlong_as_double((long long)dist[v]);
            to_near = d >= lo && d < thr;
            to_far = d >= thr;
            in_far[v] = to_far ? 1u : 0u;
            if (to_far) inv = ~dist[v];
        }
        for (int o = 16; o > 0; o >>= 1) {
            kg_u64 c = __shfl_down_sync(KG_FULL, inv, o);
            inv = c > inv ? c : inv;
        }
        if ((threadIdx.x & 31) == 0 && inv) atomicMax(&counters[6], inv);
        kg_append(to_near, v, 0, near, counters);
        kg_append(to_far, v, 0, far_next, counters + 4);
    }
}
