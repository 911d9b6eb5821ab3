// Frontier kernels of kronograph::matrix::gpu: the BFS level steps
// (kgb_*, the device implementation of vxm_visit and visit_levels) and the
// near-far delta-stepping relaxation (kgs_*).
//
// BFS: a level step k (the frontier at level k, the new nodes get k + 1) is
// two launches of a fixed grid, kgb_step then kgb_step_big, that read
// everything they need from the step log on the device, so the host
// enqueues many steps and reads the log once (visit_levels). kgb_step
// decides the direction (Beamer's rule on the log, or forced), then either
// pushes (a warp per frontier node; the arcs of nodes of out-degree >= KG_BIG
// cut into chunks of KG_BIG on the big list, which kgb_step_big expands a
// block per chunk) or pulls (a thread per unvisited node scanning its
// in-arcs, stopping at the first frontier node, the frontier read as a
// bitmap). The visited check is the level array itself (-1: unvisited); a
// push claims a node with atomicCAS. Each step appends its new nodes to the
// next frontier queue (warp-aggregated) and sets their bits in the next
// frontier bitmap; three bitmaps rotate (level k's read, k + 1's written,
// k + 2's cleared).
//
// The step log is a ring of KG_RING slots of KG_SLOT counters; slot k
// describes the frontier at level k: [0] its nodes, [1] their out-arcs,
// [2] the chunks on the big list of step k - 1, [3] whether step k - 1
// pulled, [4] the arcs not expanded before level k (stored arcs minus the
// out-arcs of levels 0 .. k - 1). A step whose frontier has no node or no
// arc does nothing, so every later step of the batch does nothing either.
//
// Node ids and arc positions are kg_idx_t (32 or 64 bits, from the preface).

typedef unsigned int kg_u32;
typedef unsigned long long kg_u64;

#define KG_BIG 1024u
#define KG_FULL 0xffffffffu
#define KG_SLOT 8
#define KG_RING 40

__device__ __forceinline__ kg_u64 kg_tid() { return (kg_u64)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ kg_u64 kg_stride() { return (kg_u64)gridDim.x * blockDim.x; }

// Called by all 32 lanes of a warp together: appends the lanes' `v` where
// `found` to `queue` and adds the count and the degrees to counters[0] and [1].
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
// node; `valid` false past the node's last arc); the arcs of the other
// nodes go to the big list as chunks of KG_BIG (pairs node, first arc;
// their count in counters[2]) for kg_block_per_chunk.
template <typename F>
__device__ __forceinline__ void kg_warp_per_node(kg_u64 f, const kg_idx_t *queue, const kg_idx_t *ptr, kg_u64 *counters,
                                                 kg_idx_t *big, F arcs) {
    int lane = threadIdx.x & 31;
    kg_u64 warp = kg_tid() >> 5, warps = kg_stride() >> 5;
    for (kg_u64 s = warp; s < f; s += warps) {
        kg_idx_t u = queue[s];
        kg_idx_t b = ptr[u], e = ptr[u + 1];
        if (e - b >= KG_BIG) {
            kg_u64 chunks = ((kg_u64)(e - b) + KG_BIG - 1) / KG_BIG, base = 0;
            if (lane == 0) base = atomicAdd(&counters[2], chunks);
            base = __shfl_sync(KG_FULL, base, 0);
            for (kg_u64 c = lane; c < chunks; c += 32) {
                big[2 * (base + c)] = u;
                big[2 * (base + c) + 1] = b + (kg_idx_t)(c * KG_BIG);
            }
            continue;
        }
        for (kg_idx_t k = b; k < e; k += 32) arcs(u, k + lane < e, k + lane);
    }
}

// Calls arc(u, valid, p) over the arcs of each chunk of the big list
// (counters[2] chunks), a block per chunk (whole warps together, `valid`
// false past the node's last arc).
template <typename F>
__device__ __forceinline__ void kg_block_per_chunk(const kg_idx_t *ptr, const kg_u64 *counters, const kg_idx_t *big,
                                                   F arc) {
    kg_u64 nc = counters[2];
    for (kg_u64 c = blockIdx.x; c < nc; c += gridDim.x) {
        kg_idx_t u = big[2 * c], b = big[2 * c + 1];
        kg_idx_t e = ptr[u + 1];
        kg_u64 len = (kg_u64)(e - b);
        if (len > KG_BIG) len = KG_BIG;
        kg_u64 rounded = (len + 31) & ~31ull;
        for (kg_u64 o = threadIdx.x; o < rounded; o += blockDim.x) arc(u, o < len, b + (kg_idx_t)o);
    }
}

__device__ __forceinline__ kg_u64 *kg_slot(kg_u64 *log, int k) { return log + (kg_u64)(k % KG_RING) * KG_SLOT; }

// Levels -1 and parents -1 but the source's (0, itself); the source the
// only node of queue 0 and bitmap 0; bitmaps 1 and 2 cleared.
extern "C" __global__ void kgb_init(kg_idx_t n, kg_idx_t source, kg_u64 words, int *levels, long long *parents,
                                    kg_idx_t *queue, kg_u32 *bits) {
    for (kg_u64 i = kg_tid(); i < n; i += kg_stride()) {
        levels[i] = i == source ? 0 : -1;
        parents[i] = i == source ? (long long)source : -1;
    }
    for (kg_u64 i = kg_tid(); i < 3 * words; i += kg_stride()) bits[i] = i == (kg_u64)(source >> 5) ? 1u << (source & 31) : 0u;
    if (kg_tid() == 0) queue[0] = source;
}

// Before a batch of `steps` steps from level k (one block): slot k set to
// the host's state, the slots the batch writes (k + 1 .. k + steps) cleared.
extern "C" __global__ void kgb_seed(kg_u64 *log, int k, int steps, kg_u64 nodes, kg_u64 arcs, kg_u64 pulling,
                                    kg_u64 before) {
    for (int i = threadIdx.x; i < steps * KG_SLOT; i += blockDim.x) kg_slot(log, k + 1 + i / KG_SLOT)[i % KG_SLOT] = 0;
    if (threadIdx.x == 0) {
        kg_u64 *s = kg_slot(log, k);
        s[0] = nodes;
        s[1] = arcs;
        s[2] = 0;
        s[3] = pulling;
        s[4] = before;
    }
}

// Tries to claim the target of arc p of u (when valid) for level k + 1,
// then appends it to the next queue and bitmap.
__device__ __forceinline__ void kg_push_arc(kg_idx_t u, bool valid, kg_idx_t p, const kg_idx_t *ptr, const kg_idx_t *ind,
                                            int k, int *levels, long long *parents, kg_idx_t *next, kg_u32 *nb,
                                            kg_u64 *counters) {
    kg_idx_t v = 0, dv = 0;
    bool found = false;
    if (valid) {
        v = ind[p];
        if (levels[v] < 0 && atomicCAS(&levels[v], -1, k + 1) == -1) {
            parents[v] = (long long)u;
            found = true;
            dv = ptr[v + 1] - ptr[v];
            atomicOr(&nb[v >> 5], 1u << (v & 31));
        }
    }
    kg_append(found, v, dv, next, counters);
}

// Level step k: the direction by `mode` (0 push, 1 pull, 2 Beamer's rule
// with alpha and beta, as BfsDirection::pulls: push -> pull when the
// frontier's arcs exceed unexplored / alpha, pull -> push when the frontier
// falls below n / beta), then the push or the pull.
extern "C" __global__ void kgb_step(int k, int mode, double alpha, double beta, kg_idx_t n, kg_u64 words,
                                    const kg_idx_t *rptr, const kg_idx_t *rind, const kg_idx_t *cptr,
                                    const kg_idx_t *cind, int *levels, long long *parents, const kg_idx_t *queue,
                                    kg_idx_t *next, kg_u32 *bits, kg_u64 *log, kg_idx_t *big) {
    kg_u64 *cur = kg_slot(log, k), *nxt = kg_slot(log, k + 1);
    kg_u64 f = cur[0], a = cur[1];
    if (f == 0 || a == 0) return;
    kg_u64 unexplored = cur[4] > a ? cur[4] - a : 0;
    bool pull = mode == 1;
    if (mode == 2) pull = cur[3] == 0 ? (double)a > (double)unexplored / alpha : (double)f >= (double)n / beta;
    if (kg_tid() == 0) {
        nxt[3] = pull ? 1 : 0;
        nxt[4] = unexplored;
    }
    const kg_u32 *fb = bits + (kg_u64)(k % 3) * words;
    kg_u32 *nb = bits + (kg_u64)((k + 1) % 3) * words;
    kg_u32 *zb = bits + (kg_u64)((k + 2) % 3) * words;
    for (kg_u64 i = kg_tid(); i < words; i += kg_stride()) zb[i] = 0u;
    if (!pull) {
        kg_warp_per_node(f, queue, rptr, nxt, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
            kg_push_arc(u, valid, p, rptr, rind, k, levels, parents, next, nb, nxt);
        });
        return;
    }
    kg_u64 rounded = ((kg_u64)n + 31) & ~31ull;
    for (kg_u64 v = kg_tid(); v < rounded; v += kg_stride()) {
        bool found = false;
        kg_idx_t dv = 0;
        if (v < n && levels[v] < 0) {
            kg_idx_t e = cptr[v + 1];
            for (kg_idx_t p = cptr[v]; p < e; p++) {
                kg_idx_t u = cind[p];
                if ((fb[u >> 5] >> (u & 31)) & 1u) {
                    levels[v] = k + 1;
                    parents[v] = (long long)u;
                    found = true;
                    dv = rptr[v + 1] - rptr[v];
                    break;
                }
            }
        }
        kg_u32 m = __ballot_sync(KG_FULL, found);
        if ((threadIdx.x & 31) == 0 && m) nb[v >> 5] = m;
        kg_append(found, (kg_idx_t)v, dv, next, nxt);
    }
}

// The big list of level step k (empty after a pull or a skipped step).
extern "C" __global__ void kgb_step_big(int k, kg_u64 words, const kg_idx_t *rptr, const kg_idx_t *rind, int *levels,
                                        long long *parents, kg_idx_t *next, kg_u32 *bits, kg_u64 *log,
                                        const kg_idx_t *big) {
    kg_u64 *nxt = kg_slot(log, k + 1);
    kg_u32 *nb = bits + (kg_u64)((k + 1) % 3) * words;
    kg_block_per_chunk(rptr, nxt, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        kg_push_arc(u, valid, p, rptr, rind, k, levels, parents, next, nb, nxt);
    });
}

// ---- SSSP: near-far delta-stepping (Davidson, Baxter, Garland & Owens 2014).
// Distances are kept as the bit patterns of non-negative doubles, which order
// as unsigned integers, so atomicMin on them is the minimum of the doubles.
// The relaxation rounds count the near queues in the step log (as the BFS
// steps: slot j the near queue of round j), so a batch of rounds is
// enqueued at once and read once. counters[0]: the near queue of a split;
// counters[4]: far queue size, counters[6]: max of ~bits of the far
// distances (their minimum); all cleared per split.

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
// to the near queue (once per relaxation round: stamp; count in near_c[0])
// below `thr`, else to the far queue (once while there: in_far; far_c[0]).
__device__ __forceinline__ void kg_relax_arc(bool valid, kg_idx_t p, double du, const kg_idx_t *ind, const double *w,
                                             double thr, kg_u32 round, kg_u64 *dist, kg_u32 *stamp, kg_u32 *in_far,
                                             kg_idx_t *near_next, kg_idx_t *far, kg_u64 *near_c, kg_u64 *far_c) {
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
    kg_append(to_near, v, 0, near_next, near_c);
    kg_append(to_far, v, 0, far, far_c);
}

// Relaxation round j of a batch (round stamp `round`): the near queue's size
// from slot j of the step log, the next near queue's (and the big list's
// chunks) counted in slot j + 1, the far queue's size in counters[4]; a warp
// per node of out-degree < KG_BIG, the others' arcs in chunks on `big`.
// Nothing when the near queue is empty.
extern "C" __global__ void kgs_relax(int j, const kg_idx_t *near, const kg_idx_t *ptr, const kg_idx_t *ind,
                                     const double *w, double thr, kg_u32 round, kg_u64 *dist, kg_u32 *stamp,
                                     kg_u32 *in_far, kg_idx_t *near_next, kg_idx_t *far, kg_u64 *log,
                                     kg_u64 *counters, kg_idx_t *big) {
    kg_u64 *cur = kg_slot(log, j), *nxt = kg_slot(log, j + 1);
    kg_u64 f = cur[0];
    if (f == 0) return;
    kg_warp_per_node(f, near, ptr, nxt, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        double du = __longlong_as_double((long long)dist[u]);
        kg_relax_arc(valid, p, du, ind, w, thr, round, dist, stamp, in_far, near_next, far, nxt, counters + 4);
    });
}

// The big list of relaxation round j, a block per chunk.
extern "C" __global__ void kgs_relax_big(int j, const kg_idx_t *ptr, const kg_idx_t *ind, const double *w, double thr,
                                         kg_u32 round, kg_u64 *dist, kg_u32 *stamp, kg_u32 *in_far,
                                         kg_idx_t *near_next, kg_idx_t *far, kg_u64 *log, kg_u64 *counters,
                                         const kg_idx_t *big) {
    kg_u64 *nxt = kg_slot(log, j + 1);
    kg_block_per_chunk(ptr, nxt, big, [&](kg_idx_t u, bool valid, kg_idx_t p) {
        double du = __longlong_as_double((long long)dist[u]);
        kg_relax_arc(valid, p, du, ind, w, thr, round, dist, stamp, in_far, near_next, far, nxt, counters + 4);
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
