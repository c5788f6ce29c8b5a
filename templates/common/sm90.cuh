/* Hopper (sm_90a) device helpers as inline PTX: shared-memory addresses, mbarriers, TMA
 * loads, cp.async, wgmma fences and descriptors, setmaxnreg, narrow conversions. No toolkit
 * header: these compile under NVRTC alone. Prefix: sm90_. */
#ifndef W8A8_SM90_CUH
#define W8A8_SM90_CUH

typedef unsigned int sm90_u32;
typedef unsigned long long sm90_u64;

/* A CUtensorMap as a kernel parameter: 128 opaque bytes, 64-byte aligned. */
struct __align__(64) sm90_tensor_map {
    sm90_u64 opaque[16];
};

/* ---- addresses ------------------------------------------------------------------------- */

__device__ __forceinline__ sm90_u32 sm90_smem_u32(const void *ptr)
{
    sm90_u32 addr;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(addr) : "l"(ptr));
    return addr;
}

/* ---- mbarriers (shared::cta, 8 bytes each) --------------------------------------------- */

__device__ __forceinline__ void sm90_bar_init(sm90_u32 bar, sm90_u32 count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

/* Makes barrier initialization visible to the async proxy (TMA) and the cluster. */
__device__ __forceinline__ void sm90_bar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void sm90_bar_arrive(sm90_u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* One arrival that also announces `bytes` of TMA transactions for the current phase. */
__device__ __forceinline__ void sm90_bar_arrive_expect_tx(sm90_u32 bar, sm90_u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* Waits until the phase of parity `parity` has completed, with CTA-scope acquire or (CLUSTER)
 * cluster-scope acquire: what the arrivals' CTAs wrote before their release-cluster arrivals
 * (sm90_bar_arrive_remote_release) is visible after it. A fresh barrier counts the phase
 * before it (parity 1) as completed, which is how producers start on an empty ring. */
template <bool CLUSTER> __device__ __forceinline__ void sm90_bar_wait_scoped(sm90_u32 bar,
                                                                            sm90_u32 parity)
{
    sm90_u32 done;
    do {
        if (CLUSTER)
            asm volatile("{ .reg .pred p;\n"
                         "  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                         "  selp.u32 %0, 1, 0, p; }"
                         : "=r"(done)
                         : "r"(bar), "r"(parity)
                         : "memory");
        else
            asm volatile("{ .reg .pred p;\n"
                         "  mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                         "  selp.u32 %0, 1, 0, p; }"
                         : "=r"(done)
                         : "r"(bar), "r"(parity)
                         : "memory");
    } while (!done);
}

__device__ __forceinline__ void sm90_bar_wait(sm90_u32 bar, sm90_u32 parity)
{
    sm90_bar_wait_scoped<false>(bar, parity);
}

/* ---- TMA ------------------------------------------------------------------------------- */

__device__ __forceinline__ void sm90_tma_prefetch(const sm90_tensor_map *map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

/* Loads the box at (inner, outer) of a 2-D map into shared memory at dst; completion is
 * reported to bar as transaction bytes. */
__device__ __forceinline__ void sm90_tma_load_2d(sm90_u32 dst, const sm90_tensor_map *map,
                                                 int inner, int outer, sm90_u32 bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"(map), "r"(inner), "r"(outer), "r"(bar)
                 : "memory");
}

/* The same load with an L2 cache policy (sm90_l2_evict_first) for data read once. */
__device__ __forceinline__ void sm90_tma_load_2d_hint(sm90_u32 dst, const sm90_tensor_map *map,
                                                      int inner, int outer, sm90_u32 bar,
                                                      sm90_u64 policy)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
                 "l"(map), "r"(inner), "r"(outer), "r"(bar), "l"(policy)
                 : "memory");
}

/* sm90_tma_load_2d, with the L2 policy when hint (a compile-time constant at the call). */
__device__ __forceinline__ void sm90_tma_load_2d_policy(sm90_u32 dst, const sm90_tensor_map *map,
                                                        int inner, int outer, sm90_u32 bar,
                                                        bool hint, sm90_u64 policy)
{
    if (hint)
        sm90_tma_load_2d_hint(dst, map, inner, outer, bar, policy);
    else
        sm90_tma_load_2d(dst, map, inner, outer, bar);
}

/* An L2 policy that evicts what it covers first: for operands streamed once (decode weights). */
__device__ __forceinline__ sm90_u64 sm90_l2_evict_first()
{
    sm90_u64 policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

/* The same box, multicast: it lands at dst in every CTA of the cluster named in cta_mask and
 * completes transaction bytes on the barrier at the same offset in each of them. */
__device__ __forceinline__ void sm90_tma_load_2d_multicast(sm90_u32 dst, const sm90_tensor_map *map,
                                                           int inner, int outer, sm90_u32 bar,
                                                           unsigned short cta_mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
                 "l"(map), "r"(inner), "r"(outer), "r"(bar), "h"(cta_mask)
                 : "memory");
}

/* Stores the shared-memory box at src to (inner, outer) of a 2-D map; the map clips what
 * lies outside its dims. Completion is tracked by bulk groups (commit, wait below). */
__device__ __forceinline__ void sm90_tma_store_2d(const sm90_tensor_map *map, sm90_u32 src,
                                                  int inner, int outer)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(map), "r"(inner), "r"(outer), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void sm90_bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
/* Waits until all but the newest `Pending` committed groups of bulk stores have read their
 * shared-memory source. */
template <int Pending> __device__ __forceinline__ void sm90_bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

/* Orders this thread's generic-proxy shared-memory writes before later async-proxy (TMA,
 * wgmma) accesses. */
__device__ __forceinline__ void sm90_fence_async_smem()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Named barrier `id` (1…15) over `threads` threads (a multiple of 32). */
__device__ __forceinline__ void sm90_named_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* Arrives on named barrier `id` without waiting (its other threads bar.sync on it). */
__device__ __forceinline__ void sm90_named_arrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* ---- clusters -------------------------------------------------------------------------- */

__device__ __forceinline__ sm90_u32 sm90_cluster_rank()
{
    sm90_u32 r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ sm90_u32 sm90_cluster_id()
{
    sm90_u32 r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}
__device__ __forceinline__ sm90_u32 sm90_cluster_count()
{
    sm90_u32 r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}

/* Every thread of the cluster arrives and waits: orders barrier initialization before any
 * remote access, and keeps a CTA's shared memory alive until its peers are done with it. */
__device__ __forceinline__ void sm90_cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

/* Arrives on the barrier at the same shared-memory offset in CTA `cta` of the cluster, with
 * the default (.release.cta) semantics: the stage's readers are wgmmas already waited for,
 * and .release.cluster costs a MEMBAR.ALL.GPU per arrival (SASS), which made cluster=2
 * kernels 2-3x slower on an H200. */
__device__ __forceinline__ void sm90_bar_arrive_cluster(sm90_u32 bar, sm90_u32 cta)
{
    asm volatile("{ .reg .b32 remote;\n"
                 "  mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "  mbarrier.arrive.shared::cluster.b64 _, [remote];\n}"
                 ::"r"(bar), "r"(cta)
                 : "memory");
}

__device__ __forceinline__ void sm90_bar_wait_cluster(sm90_u32 bar, sm90_u32 parity)
{
    sm90_bar_wait_scoped<true>(bar, parity);
}

/* Arrives on the barrier at the same offset in CTA `cta` with .release.cluster semantics:
 * this thread's earlier shared-memory accesses (its writes, and its reads of a peer's
 * memory) are ordered before the arrival for whoever waits with sm90_bar_wait_cluster. It
 * costs a memory barrier (see above): once per tile, not per K block. */
__device__ __forceinline__ void sm90_bar_arrive_remote_release(sm90_u32 bar, sm90_u32 cta)
{
    asm volatile("{ .reg .b32 remote;\n"
                 "  mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}"
                 ::"r"(bar), "r"(cta)
                 : "memory");
}

/* The shared::cluster address of `addr` (a shared::cta address of ours) in CTA `cta`. */
__device__ __forceinline__ sm90_u32 sm90_map_cta(sm90_u32 addr, sm90_u32 cta)
{
    sm90_u32 remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(addr), "r"(cta));
    return remote;
}

/* 16-byte accesses of the four accumulators acc[i … i+3] (i a multiple of 4, a constant
 * after unrolling: the array stays in registers): stored to our shared memory, or added
 * from a peer's (a shared::cluster address from sm90_map_cta). */
template <int N> __device__ __forceinline__ void sm90_st_shared_v4(sm90_u32 addr,
                                                                   const float (&acc)[N], int i)
{
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(acc[i]),
                 "f"(acc[i + 1]), "f"(acc[i + 2]), "f"(acc[i + 3])
                 : "memory");
}
template <int N> __device__ __forceinline__ void sm90_st_shared_v4(sm90_u32 addr,
                                                                   const int (&acc)[N], int i)
{
    asm volatile("st.shared.v4.s32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(acc[i]),
                 "r"(acc[i + 1]), "r"(acc[i + 2]), "r"(acc[i + 3])
                 : "memory");
}
template <int N> __device__ __forceinline__ void sm90_add_cluster_v4(sm90_u32 addr,
                                                                     float (&acc)[N], int i)
{
    float a, b, c, d;
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
                 : "r"(addr)
                 : "memory");
    acc[i] += a;
    acc[i + 1] += b;
    acc[i + 2] += c;
    acc[i + 3] += d;
}
template <int N> __device__ __forceinline__ void sm90_add_cluster_v4(sm90_u32 addr,
                                                                     int (&acc)[N], int i)
{
    int a, b, c, d;
    asm volatile("ld.shared::cluster.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "r"(addr)
                 : "memory");
    acc[i] += a;
    acc[i + 1] += b;
    acc[i + 2] += c;
    acc[i + 3] += d;
}

/* ---- shared-memory stores and loads ---------------------------------------------------- */

__device__ __forceinline__ void sm90_st_shared_u32(sm90_u32 addr, sm90_u32 v)
{
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void sm90_st_shared_f32x2(sm90_u32 addr, float v0, float v1)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(v0), "f"(v1) : "memory");
}

__device__ __forceinline__ float sm90_ld_shared_f32(sm90_u32 addr)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
    return v;
}

/* ---- cp.async: small global → shared copies whose completion an mbarrier counts --------- */

/* Copies 4 bytes from src to shared dst, or writes 4 zero bytes (src not read) when !valid. */
__device__ __forceinline__ void sm90_cp_async_4(sm90_u32 dst, const void *src, bool valid)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 4 : 0)
                 : "memory");
}

/* One arrival on bar once every cp.async this thread issued so far has landed. It is one of
 * the arrivals the barrier was initialized to expect (.noinc). */
__device__ __forceinline__ void sm90_cp_async_arrive(sm90_u32 bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

/* ---- bulk copies: global → shared through the TMA engine, counted as transaction bytes -- */

/* Adds `bytes` to the transaction count the current phase of bar waits for, without an
 * arrival. */
__device__ __forceinline__ void sm90_bar_expect_tx(sm90_u32 bar, sm90_u32 bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from src to shared dst;
 * their arrival completes that many transaction bytes on bar. */
__device__ __forceinline__ void sm90_bulk_load(sm90_u32 dst, const void *src, sm90_u32 bytes,
                                               sm90_u32 bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

/* ---- wgmma ----------------------------------------------------------------------------- */

__device__ __forceinline__ void sm90_wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void sm90_wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ __forceinline__ void sm90_wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving accesses of an accumulator register across a wgmma
 * wait (the asm claims to read and write it). */
__device__ __forceinline__ void sm90_reg_fence(float &r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void sm90_reg_fence(int &r) { asm volatile("" : "+r"(r)::"memory"); }

/* Shared-memory matrix descriptor of a K-major tile with 128-byte swizzle: rows of 128
 * bytes, 8-row atoms of 1024 bytes (stride byte offset 1024), leading byte offset unused
 * (encoded 1). addr must be 1024-byte aligned apart from the in-atom K offset (+32 bytes
 * per k32 step). */
__device__ __forceinline__ sm90_u64 sm90_desc_k128(sm90_u32 addr)
{
    return (sm90_u64)((addr & 0x3FFFFu) >> 4) | ((sm90_u64)1 << 16) | ((sm90_u64)(1024 >> 4) << 32) |
           ((sm90_u64)1 << 62);
}

/* ---- registers ------------------------------------------------------------------------- */

template <int REGS> __device__ __forceinline__ void sm90_regs_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS> __device__ __forceinline__ void sm90_regs_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}

#endif
