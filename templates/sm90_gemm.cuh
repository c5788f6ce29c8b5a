/* sm90_gemm: the Hopper (sm_90a) scaled FP8/INT8 GEMM, persistent and warp-specialized.
 *
 *   out[m, n] = sa[m] · sb[n] · Σ_k A[m, k] · B[n, k]  (− azp[m] · b_col_sums[n]) (+ bias[n])
 *
 * One producer warpgroup (one elected thread) streams A (M×K) and B (N×K) tiles, both
 * K-major, with TMA (128-byte swizzle, 128-byte K blocks) into a ring of STAGES buffers
 * guarded by full/empty mbarriers. CONSUMERS warpgroups each own BLOCK_M/CONSUMERS rows of
 * the tile and issue wgmma.m64nBLOCK_Nk32 from shared memory into register accumulators
 * (f32 for FP8, exact s32 for INT8). The grid is persistent: CTA i takes tiles i,
 * i + gridDim.x, … in a grouped raster order; the producer runs ahead into the next tile
 * while the consumers run the epilogue. TMA zero-fills out-of-bounds boxes, so M, N and K
 * tails need no code in the main loop; a last tile partly past M or N moves back inside
 * where it fits (sm90_tile_start; not with SWAP), since the zero fill costs time. The epilogue either
 * writes straight to global memory (two adjacent columns per store, rows and columns
 * predicated; EPILOGUE 0) or (EPILOGUE 1) stages the consumer's rows in shared memory
 * (16-bit outputs with stmatrix), swizzled like the TMA box, and one thread issues TMA
 * stores that run while the consumer starts the next tile's main loop; the map clips the M
 * and N tails. EPILOGUE 2 stages two boxes at a time, storing each as soon as it is written:
 * less shared memory, so a deeper ring. The host falls back to direct stores at run time
 * (tma_store 0) when the output cannot be a TMA map (address or row pitch not 16-byte
 * aligned) or N·out bytes is not a multiple of 16 (the store clips N only to whole 16-byte
 * chunks).
 *
 * Kernel parameters (the host encodes the maps with cuTensorMapEncodeTiled: A and B UINT8,
 * dims {K, rows}, strides {ld bytes}, box {128, BLOCK_M (A_ROWS when set) or BLOCK_N /
 * CLUSTER}, SWIZZLE_128B, zero fill; C the out dtype, dims {N, M}, strides {ldc bytes}, box
 * {SM90_C_BOX_BYTES / out bytes, rows per consumer}, the swizzle of SM90_C_SWIZZLE_BITS):
 *   tma_a, tma_b, tma_c   const __grid_constant__ sm90_tensor_map (tma_c unused unless
 *                         tma_store)
 *   args                  w8a8_gemm_args (common/gemm_args.h)
 *   tma_store             1: EPILOGUE 1 and 2 store through tma_c; 0: direct stores
 *   raster, group         the tile order (the config's raster and group, below): launch
 *                         arguments, so the configs that differ only there share a cubin
 *   whole                 TAIL > 1: the units that go whole (TAIL below; a multiple of the
 *                         grid, or every unit); unused otherwise
 *   trigger               programmatic dependent launch (common/pdl.cuh): 0, the producer
 *                         triggers the next kernel's launch once it has issued its last load;
 *                         1, no explicit trigger: the next kernel launches as our CTAs exit
 * Launch: block 128·(CONSUMERS+1) threads, dynamic shared memory SM90_SMEM_BYTES (below:
 * STAGES·(BLOCK_M+BLOCK_N)·BLOCK_K + the epilogue staging + 16·STAGES + 16 + 1024 alignment
 * slack; with A_ROWS the ring is STAGES·(A_ROWS+BLOCK_N)·BLOCK_K + (BLOCK_M−A_ROWS)·128), a
 * multiple of CLUSTER CTAs with the cluster launch attribute {CLUSTER, 1, 1}, at most the
 * number of tile units (CLUSTER tiles each).
 *
 * Config macros (W8A8_<NAME>, from the generated prologue) and their legal values:
 *   BLOCK_M     64, 128, 256; rows per consumer (BLOCK_M / CONSUMERS, or BLOCK_M with
 *               PINGPONG) must be 64 or 128
 *   BLOCK_N     FP8: 8…256 in steps of 8; INT8: 8, 16, 24, 32, 48…256 in steps of 16
 *   BLOCK_K     K bytes a stage: 128 (one 128-byte swizzle row), or 256 / 512 (fast
 *               accumulation only: not promoted, no block scales): a stage holds 2 or 4
 *               boxes of 128 K bytes side by side (each [rows][128 bytes], swizzled as one),
 *               loaded back to back, so every tile row's 256 / 512 bytes are read at once,
 *               and one full barrier covers them. Measured with bench/stream_probe.cu on an
 *               H200 (session 45, P1/P2): 64-row weight tiles of 4 boxes a stage read
 *               3-4 % faster than of one (4.04-4.10 against 3.90-3.98 TB/s at 57344×8192);
 *               in this kernel (swap-AB, 16 per-tensor decode keys: session 46, D1, D3) the
 *               best config of each BLOCK_K within 2 % of the others, 256 ahead at M = 16, 32
 *   STAGES      2…16, within the shared-memory limit
 *   CONSUMERS   1 or 2 consumer warpgroups
 *   PINGPONG    0: the consumers share each tile (BLOCK_M / CONSUMERS rows each);
 *               1 (needs CONSUMERS 2): each consumer takes every other tile of the CTA
 *               whole (BLOCK_M = 64 or 128 rows), so one warpgroup's epilogue overlaps
 *               the other's main loop
 *   raster      (launch argument) 0: groups of `group` tile-rows, M index fastest inside a
 *               group; 1: groups of `group` tile-columns, N index fastest
 *   group       (launch argument) 1…64
 *   CLUSTER     1, or 2 (BLOCK_N a multiple of 16): the two CTAs of a cluster take tiles
 *               (2u, n) and (2u + 1, n) of the same B tile; each loads its own A tile and
 *               half of the B tile's rows, multicast into both CTAs, so B crosses L2 once
 *               per pair. A consumer releases a stage to both producers (the empty barrier
 *               counts the consumer warps of both CTAs). Units are rastered like tiles.
 *   EPILOGUE    0: direct global stores; 1: shared-memory staging of the consumer's rows and
 *               TMA stores; 2 (two boxes or more, of at least 32 bytes): staging of two boxes
 *               of them (one when a row is two boxes), each stored when written
 *               (SM90_C_SLOTS)
 *   SPECIALIZE  0, or 1: the problem's N and K are compiled in (W8A8_N, W8A8_K): the K loop's
 *               trip count and the grid's tile count are constants, and when BLOCK_N divides
 *               N the epilogue drops its column predicates (every tile is whole along N). The
 *               cubin then serves that (N, K) only; the host adds the two defines.
 *   SWAP        0, or 1 (EPILOGUE 0, STAGGER 0): swap-AB, the weights on wgmma's M
 *               side and the tokens on its N (below).
 *   A_ROWS      0, or 8, 16, 24, 32, 48, 64, 96 below BLOCK_M (not with SWAP): the rows of A a
 *               stage loads (SM90_A_ROWS above). Not a config item: the host adds it from M
 *               (M <= 96), as it adds N and K for SPECIALIZE.
 *   SPLIT       1, 2 or 4 (CLUSTER 1, no PINGPONG): split-K inside a cluster of SPLIT CTAs.
 *               The CTAs of a cluster take the same tile, rank r the K blocks
 *               [r·kb/SPLIT, (r+1)·kb/SPLIT) (with OVERLAP, whole groups of them). After
 *               its slice a rank r > 0 waits until rank 0 has read its previous tile
 *               ("free" mbarrier), writes its accumulators to its own shared memory
 *               (thread t's group q of four at (q·128 + t)·16: conflict-free 16-byte
 *               stores) and arrives on rank 0's "ready" mbarrier (release.cluster);
 *               rank 0 waits on it (acquire.cluster), adds ranks 1, 2, … in that order with
 *               ld.shared::cluster, so the sum is bitwise the same run to run, releases each
 *               rank's buffer, and runs the epilogue. No global workspace and no atomics: a
 *               launch is safe under CUDA graph capture. Few tiles (small M) then keep every
 *               SM streaming with tiles large enough to reuse their operands.
 *   TAIL        1, 2 or 4 (CLUSTER 1, SPLIT 1, no PINGPONG, SWAP or STAGGER): the partial
 *               last wave split along K. The grid is clusters of TAIL CTAs. The first
 *               `whole` units (a launch argument: a multiple of the grid, chosen by the
 *               host) go whole to the CTAs in turn, as without TAIL; each of the rest goes
 *               to one cluster, its ranks taking the K slices and meeting as with SPLIT
 *               (the same barriers and fixed order). The host splits only a rest of at most
 *               one tile a cluster (sm90_tail_whole in src/sm90_gemm.c: 448 tiles of 128×128
 *               on 132 SMs go 396 whole and 52 in halves), so a CTA's split tile is its last:
 *               its ring is idle after the main loop, and ranks > 0 hand their partial sums
 *               over in the ring's shared memory (no shared memory beyond TAIL 1's but the
 *               barriers), once both consumers' wgmmas are done with it. Which tiles are
 *               split depends on the tile count, so a row's last bits can depend on M; two
 *               runs of one problem are bitwise equal.
 * Problem traits (common/gemm_args.h values): A_TYPE, B_TYPE (E4M3/E5M2 mixes, or INT8
 * with INT8), OUT_TYPE (BF16, FP16, FP32), BIAS_TYPE (NONE, OUT_TYPE or FP32), A_SCALE and
 * B_SCALE (TENSOR, ROW, or BLOCK on both: see below), AZP (INT8 only: NONE, TENSOR, TOKEN),
 * PROMOTE (FP8 with per-tensor / per-row scales: 0 or 1, see below).
 *
 * Block scales (A_SCALE = B_SCALE = BLOCK, FP8 only; the host admits only A 1×128 and
 * B 128×128 groups, either scale matrix row-major or K-major with its ld): promoted
 * accumulation. Each consumer keeps a second accumulator set; the 4 k32 wgmmas of one K
 * block go into it, and after wait_group 0 the consumer adds tmp·sa[m,kb]·sb[n/128,kb] into
 * the main set in fp32. The scales travel with the ring: beside each stage's A and B tiles
 * the stage holds the tile's BLOCK_M A scales and its SM90_SB_COUNT B scales of that K block
 * (SM90_SCALE_STAGE_BYTES), which warps 1 and 2 of the producer warpgroup copy with cp.async
 * (zero past M, N or K, either layout) and hand over on the stage's full barrier (64
 * cp.async arrivals beside the TMA producer's one). K-major A scales at a 16-byte aligned
 * address and pitch travel instead as one bulk copy a stage, issued by loader 0's lane 0 and
 * counted as transaction bytes on the same barrier (tiles of up to 128 rows; the scale areas
 * start zeroed). A consumer reads its scales from shared
 * memory right after the full barrier, before its wgmmas, so no global load latency sits
 * in the K loop. The stage is released right after the wait. A partial last K block (TMA
 * zero fill) uses its own scale. valid() counts the doubled accumulators.
 * PROMOTE 1 (per-tensor / per-row FP8, W8A8_ACCUM_PROMOTED) runs the same main loop with
 * no scales: acc += tmp every K block, so the tensor core's reduced-precision accumulator
 * never sums more than 128 products; the scales stay in the epilogue. OVERLAP, STAGGER and
 * WAVE apply to it as to block scales.
 *   OVERLAP     0, or 1…5 (promoted accumulation): a third accumulator set. K
 *               blocks go in groups of 2^OVERLAP (2 … 32): the group's first
 *               two issued, then each block promoted while the next one's wgmmas run
 *               (wait_group 1), the two temporary sets taking turns; only the group's last
 *               promotion waits for the tensor cores (wait_group 0), so 1 in 2^OVERLAP
 *               promotions is exposed. The group is unrolled: 4 and 5 trade a longer loop
 *               body (about 100 instructions a K block) for fewer drains of the tensor
 *               pipe. A K block count that is not a multiple of the group
 *               gets blocks past K (zero-filled by TMA, scales 0); with SPLIT the ranks'
 *               slices are whole groups. valid() counts three sets.
 *   STAGGER     0, or 1 (block scales, two cooperative consumers): the consumers issue each
 *               K block's wgmmas (with OVERLAP: see there) in turn, consumer 0 first, through
 *               named barriers 3 (0 has issued) and 4 (1 has issued; 0 waits for it before
 *               its next K block). The tensor cores then run one consumer's wgmmas while the
 *               other promotes, instead of both finishing together and idling through both
 *               promotions.
 *   WAVE        0, or 1 (promoted, OVERLAP 0, SWAP 0, 128 rows a consumer): one temporary
 *               set of a 64-row sub-tile instead of one per sub-tile. Per K block a consumer
 *               issues sub-tile 0's wgmmas, waits, promotes them, then sub-tile 1's; the
 *               stage goes back after the last sub-tile's wgmmas. 128-row consumers then fit
 *               block-scaled tiles such as 256×112 (two consumers) or 128×128 (one).
 *
 * SWAP 0, or 1 (swap-AB, for few tokens; EPILOGUE 0, STAGGER 0): the host builds
 * tma_a over B (the weights, boxes of BLOCK_M rows) and tma_b over A (the tokens, boxes of
 * BLOCK_N rows), so the weights fill wgmma's M side (64 rows a warpgroup) and the tokens
 * its N = BLOCK_N (8…64) instead of padding 64-row tiles of a few tokens. The kernel's tile
 * rows are then output columns and its tile columns output rows: tiles count over N × M,
 * and the epilogue (sm90_epilogue_swap) writes the transposed tile with direct stores, sb,
 * bias and the zero point's column sums by tile row, sa and the zero point by tile column.
 * Everything else (ring, split-K, ping-pong, promoted accumulation, specialization) is the
 * same code on the exchanged operands. With block scales (BLOCK_N ≤ 64) a stage's scale area
 * holds the tile's BLOCK_N token scales sa[m, kb] and the SM90_RB_COUNT scales of the 128-row
 * weight blocks its rows touch; a consumer promotes acc[r, c] += tmp[r, c] · sb[r / 128, kb] ·
 * sa[c, kb] (sm90_swap_scales). OVERLAP runs as without SWAP (each K block promoted while the
 * next one's wgmmas run); STAGGER stays 0.
 *
 * EVICT 0, or 1 (CLUSTER 1, or SWAP: its weights are tma_a, never multicast): the weights' TMA
 * loads (tma_b; with SWAP tma_a) carry an L2
 * evict-first policy, for weights streamed once (few tokens): on an H200 (session 20, X9) the
 * decode grid's sm90_gemm rows ran 0.4 % (per-tensor) to 1.3 % (per-row) faster with it, up to
 * 3.4 %, and two block-scaled swap rows at N = 28672, K = 4096 5.5 % slower; the tuner
 * chooses (scripts/sm90_swap.lua).
 *
 * Extension planned as a parameter of this family (not implemented yet):
 *   - CLUSTER 2 sharing A instead of B (pairs along N), for shapes with few tile-rows.
 */
#include "common/gemm_args.h"
#include "common/sm90.cuh"
#include "common/pdl.cuh"

#if !defined(W8A8_A_TYPE) || !defined(W8A8_B_TYPE) || !defined(W8A8_OUT_TYPE)
#error "sm90_gemm needs the problem traits W8A8_A_TYPE, W8A8_B_TYPE, W8A8_OUT_TYPE"
#endif
#ifndef W8A8_BIAS_TYPE
#define W8A8_BIAS_TYPE W8A8_T_NONE
#endif
#ifndef W8A8_A_SCALE
#define W8A8_A_SCALE W8A8_S_TENSOR
#endif
#ifndef W8A8_B_SCALE
#define W8A8_B_SCALE W8A8_S_TENSOR
#endif
#ifndef W8A8_AZP
#define W8A8_AZP W8A8_Z_NONE
#endif
#ifndef W8A8_BLOCK_M
#define W8A8_BLOCK_M 128
#endif
#ifndef W8A8_BLOCK_N
#define W8A8_BLOCK_N 128
#endif
#ifndef W8A8_BLOCK_K
#define W8A8_BLOCK_K 128
#endif
#ifndef W8A8_STAGES
#define W8A8_STAGES 4
#endif
#ifndef W8A8_CONSUMERS
#define W8A8_CONSUMERS 2
#endif
#ifndef W8A8_CLUSTER
#define W8A8_CLUSTER 1
#endif
#ifndef W8A8_PINGPONG
#define W8A8_PINGPONG 0
#endif
#ifndef W8A8_EPILOGUE
#define W8A8_EPILOGUE 0
#endif
#ifndef W8A8_SPLIT
#define W8A8_SPLIT 1
#endif
#ifndef W8A8_SPECIALIZE
#define W8A8_SPECIALIZE 0
#endif
#ifndef W8A8_OVERLAP
#define W8A8_OVERLAP 0
#endif
#ifndef W8A8_STAGGER
#define W8A8_STAGGER 0
#endif
#ifndef W8A8_WAVE
#define W8A8_WAVE 0
#endif
#ifndef W8A8_PROMOTE
#define W8A8_PROMOTE 0
#endif
#ifndef W8A8_EVICT
#define W8A8_EVICT 0
#endif
#ifndef W8A8_SWAP
#define W8A8_SWAP 0
#endif
#ifndef W8A8_TAIL
#define W8A8_TAIL 1
#endif
/* N and K: compiled in (SPECIALIZE) or the run-time arguments (args in scope). */
#if W8A8_SPECIALIZE
#if !defined(W8A8_N) || !defined(W8A8_K)
#error "sm90_gemm: SPECIALIZE needs W8A8_N and W8A8_K"
#endif
#define SM90_N ((long long)W8A8_N)
#define SM90_K ((long long)W8A8_K)
/* no tile crosses N (tile columns are N's unless SWAP) */
#define SM90_WHOLE_N (!W8A8_SWAP && W8A8_N % W8A8_BLOCK_N == 0)
#else
#define SM90_N (args.n)
#define SM90_K (args.k)
#define SM90_WHOLE_N 0
#endif
/* The extents of the kernel's tile rows (wgmma M, tma_a's rows) and tile columns. */
#if W8A8_SWAP
#define SM90_ROWS SM90_N
#define SM90_COLS (args.m)
#else
#define SM90_ROWS (args.m)
#define SM90_COLS SM90_N
#endif

#define SM90_THREADS (128 * (W8A8_CONSUMERS + 1))
#if W8A8_PINGPONG
#define SM90_WG_M W8A8_BLOCK_M                    /* rows per consumer warpgroup */
#define SM90_TILE_OWNERS 1                        /* consumer warpgroups per tile */
#else
#define SM90_WG_M (W8A8_BLOCK_M / W8A8_CONSUMERS)
#define SM90_TILE_OWNERS W8A8_CONSUMERS
#endif
#define SM90_SUB_M (SM90_WG_M / 64)               /* m64 wgmmas per k32 step */
#define SM90_ACC (W8A8_BLOCK_N / 2)               /* accumulators per m64 block, per thread */
#define SM90_BK 128                               /* K bytes of a box: one swizzle row */
#define SM90_KBOXES (W8A8_BLOCK_K / SM90_BK)      /* boxes a stage, side by side along K */
/* A_ROWS (set by the host for M <= 96, never with SWAP): a stage holds only the tile's first
 * A_ROWS rows of A (the TMA box is that tall), so the loads skip the rows past M that TMA would
 * zero-fill: on an H200, 16x10240x8192 per-tensor ran 24.5 -> 22.5 us with the same 64x80
 * config (bench/results-2026-11-27-s27, D7). wgmma still reads BLOCK_M rows from the stage's
 * start; the ones past A_ROWS are the next stages' rows (or SM90_A_PAD past the last stage)
 * and give accumulator rows past M, which the epilogues never store. */
#ifndef W8A8_A_ROWS
#define W8A8_A_ROWS 0
#endif
#define SM90_A_ROWS (W8A8_A_ROWS ? W8A8_A_ROWS : W8A8_BLOCK_M)
#define SM90_A_BOX (SM90_A_ROWS * SM90_BK)        /* one box of a stage's A */
#define SM90_A_BYTES (SM90_A_BOX * SM90_KBOXES)   /* a stage's A: loaded bytes and stride */
#define SM90_A_PAD ((W8A8_BLOCK_M - SM90_A_ROWS) * SM90_BK)
#define SM90_B_BOX (W8A8_BLOCK_N * SM90_BK)
#define SM90_B_BYTES (SM90_B_BOX * SM90_KBOXES)
#define SM90_INT8 (W8A8_A_TYPE == W8A8_T_INT8)
/* wgmma's A operand (tile rows) and B operand (tile columns): SWAP exchanges the problem's */
#define SM90_OP_A_TYPE (W8A8_SWAP ? W8A8_B_TYPE : W8A8_A_TYPE)
#define SM90_OP_B_TYPE (W8A8_SWAP ? W8A8_A_TYPE : W8A8_B_TYPE)
/* Epilogue staging (EPILOGUE 1): per consumer warpgroup SM90_WG_M rows of the tile, as
 * SM90_C_BOXES TMA boxes of SM90_C_BOX_BYTES-wide rows (the widest of 128/64/32/16 bytes that
 * divides a tile row), each box SM90_WG_M·SM90_C_BOX_BYTES bytes (a multiple of 1024) and
 * swizzled as the map says: bits 4… of an offset XOR bits 7… (SM90_C_SWIZZLE_BITS of them). */
#define SM90_OUT_BYTES (W8A8_OUT_TYPE == W8A8_T_FP32 ? 4 : 2) /* W8A8_OUT_BYTES of common/epilogue.cuh */
#define SM90_C_ROW_BYTES (W8A8_BLOCK_N * SM90_OUT_BYTES)
#define SM90_C_BOX_BYTES                                                                          \
    (SM90_C_ROW_BYTES % 128 == 0 ? 128 : SM90_C_ROW_BYTES % 64 == 0 ? 64 : SM90_C_ROW_BYTES % 32 == 0 ? 32 : 16)
#define SM90_C_SWIZZLE_BITS                                                                       \
    (SM90_C_BOX_BYTES == 128 ? 3 : SM90_C_BOX_BYTES == 64 ? 2 : SM90_C_BOX_BYTES == 32 ? 1 : 0)
#define SM90_C_BOXES (SM90_C_ROW_BYTES / SM90_C_BOX_BYTES)
/* EPILOGUE 2: a consumer stages two boxes at a time (one when a tile row is two boxes), box b
 * in slot b % SLOTS, each stored as soon as it is written (box b + SLOTS waits until box b's
 * store has read its slot); EPILOGUE 1 stages all of them (slot = box) and stores them
 * together. */
#define SM90_C_SLOTS (W8A8_EPILOGUE == 2 ? (SM90_C_BOXES > 2 ? 2 : 1) : SM90_C_BOXES)
#define SM90_C_BOX_AREA (SM90_WG_M * SM90_C_BOX_BYTES)
#define SM90_C_WG_BYTES (SM90_C_SLOTS * SM90_C_BOX_AREA)
#define SM90_C_BYTES (W8A8_EPILOGUE ? W8A8_CONSUMERS * SM90_C_WG_BYTES : 0)
/* SPLIT > 1 or TAIL > 1 (SM90_KSPLIT K slices of a tile in a cluster): each consumer's
 * partial sums (4 bytes per accumulator of its rows × BLOCK_N; TAIL's in the ring) and a
 * ready and a free mbarrier per consumer. */
#define SM90_KSPLIT (W8A8_SPLIT * W8A8_TAIL)
#define SM90_CTAS (W8A8_CLUSTER * SM90_KSPLIT) /* CTAs of a cluster */
#define SM90_RED_WG_BYTES (SM90_WG_M * W8A8_BLOCK_N * 4)
#define SM90_RED_BYTES (W8A8_SPLIT > 1 ? W8A8_CONSUMERS * SM90_RED_WG_BYTES : 0)
#define SM90_RED_BAR_BYTES (SM90_KSPLIT > 1 ? 32 : 0)
/* Block scales: per stage the tile's BLOCK_M A scales, then its SM90_SB_COUNT B scales (one
 * when no tile straddles a 128-column block, else one per block a tile can touch), padded to
 * 16 bytes; after the barriers. */
#define SM90_BLOCK (W8A8_A_SCALE == W8A8_S_BLOCK)
#define SM90_SB_ONE (128 % W8A8_BLOCK_N == 0)
#define SM90_SB_COUNT (SM90_SB_ONE ? 1 : (W8A8_BLOCK_N + 127) / 128 + 1)
/* SWAP: the tile's BLOCK_N token (A) scales, then the scales of the 128-row weight (B) blocks
 * its rows touch (SM90_RB_COUNT: tiles start at multiples of BLOCK_M, so 1, or 2 of 256 rows) */
#define SM90_RB_COUNT (W8A8_BLOCK_M > 128 ? W8A8_BLOCK_M / 128 : 1)
#define SM90_SCALE_STAGE_BYTES                                                                    \
    (SM90_BLOCK ? (W8A8_SWAP ? W8A8_BLOCK_N : W8A8_BLOCK_M) * 4 + 16 : 0)
#define SM90_LOADERS 2 /* block scales: the producer warpgroup's warps that copy them */
#define SM90_SMEM_BYTES                                                                           \
    (W8A8_STAGES * (SM90_A_BYTES + SM90_B_BYTES) + SM90_A_PAD + SM90_C_BYTES + SM90_RED_BYTES +  \
     16 * W8A8_STAGES + 16 + SM90_RED_BAR_BYTES + W8A8_STAGES * SM90_SCALE_STAGE_BYTES + 1024)

static_assert(W8A8_BLOCK_M == 64 || W8A8_BLOCK_M == 128 || W8A8_BLOCK_M == 256, "BLOCK_M");
static_assert(W8A8_CONSUMERS == 1 || W8A8_CONSUMERS == 2, "CONSUMERS is 1 or 2");
static_assert(SM90_WG_M == 64 || SM90_WG_M == 128, "rows per consumer must be 64 or 128");
static_assert(!W8A8_PINGPONG || W8A8_CONSUMERS == 2, "PINGPONG needs 2 consumers");
static_assert(W8A8_BLOCK_N % 8 == 0 && W8A8_BLOCK_N >= 8 && W8A8_BLOCK_N <= 256, "BLOCK_N");
static_assert(!SM90_INT8 || W8A8_BLOCK_N <= 32 || W8A8_BLOCK_N % 16 == 0,
              "INT8 wgmma N: 8, 16, 24, 32, 48..256 step 16");
static_assert(W8A8_STAGES >= 2 && W8A8_STAGES <= 16, "STAGES");
static_assert(W8A8_BLOCK_K == 128 || W8A8_BLOCK_K == 256 || W8A8_BLOCK_K == 512,
              "BLOCK_K is 128, 256 or 512");
static_assert(W8A8_A_ROWS == 0 || (W8A8_A_ROWS % 8 == 0 && W8A8_A_ROWS < W8A8_BLOCK_M && !W8A8_SWAP),
              "A_ROWS: 0, or a multiple of 8 below BLOCK_M (whole 1024-byte swizzle atoms), not "
              "with SWAP");
static_assert(W8A8_CLUSTER == 1 || (W8A8_CLUSTER == 2 && W8A8_BLOCK_N % 16 == 0),
              "CLUSTER 1, or 2 with BLOCK_N a multiple of 16 (half a B tile is whole 1024-byte atoms)");
static_assert(W8A8_EPILOGUE >= 0 && W8A8_EPILOGUE <= 2, "EPILOGUE is 0, 1 or 2");
static_assert(W8A8_EPILOGUE != 2 || (SM90_C_BOXES >= 2 && SM90_C_BOX_BYTES >= 32),
              "EPILOGUE 2 needs two boxes or more of at least 32 bytes (else it is EPILOGUE 1)");
static_assert(W8A8_SPLIT == 1 || W8A8_SPLIT == 2 || W8A8_SPLIT == 4, "SPLIT is 1, 2 or 4");
static_assert(W8A8_SPECIALIZE == 0 || W8A8_SPECIALIZE == 1, "SPECIALIZE is 0 or 1");
static_assert(W8A8_SPLIT == 1 || (W8A8_CLUSTER == 1 && !W8A8_PINGPONG),
              "SPLIT > 1 needs CLUSTER 1 and no PINGPONG");
static_assert(W8A8_TAIL == 1 || ((W8A8_TAIL == 2 || W8A8_TAIL == 4) && W8A8_CLUSTER == 1 &&
                                 W8A8_SPLIT == 1 && !W8A8_PINGPONG && !W8A8_SWAP &&
                                 !W8A8_STAGGER),
              "TAIL is 1, or 2 or 4 with CLUSTER 1, SPLIT 1 and no PINGPONG, SWAP or STAGGER");
static_assert(W8A8_TAIL == 1 ||
                  (W8A8_A_ROWS == 0 &&
                   W8A8_CONSUMERS * SM90_RED_WG_BYTES <= W8A8_STAGES * (SM90_A_BYTES + SM90_B_BYTES)),
              "TAIL: the partial sums fit the ring (of whole A tiles: no A_ROWS)");
static_assert(SM90_C_ROW_BYTES % 16 == 0, "a staged row is whole 16-byte chunks");
static_assert(SM90_INT8 == (W8A8_B_TYPE == W8A8_T_INT8), "INT8 pairs only with INT8");
static_assert(W8A8_A_TYPE == W8A8_T_E4M3 || W8A8_A_TYPE == W8A8_T_E5M2 || SM90_INT8, "A_TYPE");
static_assert(W8A8_B_TYPE == W8A8_T_E4M3 || W8A8_B_TYPE == W8A8_T_E5M2 || SM90_INT8, "B_TYPE");
/* Block scales: A 1×128, B 128×128 (the host checks the group shapes), FP8 only, promoted. */
static_assert(SM90_SB_COUNT <= 4, "a stage's B scales fit its 16 bytes");
static_assert(SM90_BLOCK == (W8A8_B_SCALE == W8A8_S_BLOCK), "block scales on both sides or none");
static_assert(!SM90_BLOCK || !SM90_INT8, "block scales need FP8");
static_assert(!SM90_BLOCK || W8A8_AZP == W8A8_Z_NONE, "no zero point with block scales");
static_assert(W8A8_PROMOTE == 0 || (W8A8_PROMOTE == 1 && !SM90_BLOCK && !SM90_INT8),
              "PROMOTE is 0, or 1 with FP8 per-tensor / per-row scales (block scales always "
              "promote; INT8 sums exactly)");
/* Promoted accumulation: a K block's wgmmas into tmp, then acc += tmp (times its block
 * scales when there are any). */
#define SM90_PROMOTED (SM90_BLOCK || W8A8_PROMOTE)
static_assert(W8A8_BLOCK_K == 128 || !SM90_PROMOTED,
              "BLOCK_K 256, 512: fast accumulation only (promotion and block scales go by 128 K)");
static_assert(W8A8_OVERLAP == 0 || (W8A8_OVERLAP >= 1 && W8A8_OVERLAP <= 5 && SM90_PROMOTED),
              "OVERLAP is 0, or 1..5 with promoted accumulation");
static_assert(W8A8_OVERLAP <= 3 || !SM90_BLOCK || 128 % W8A8_BLOCK_N == 0 || W8A8_PINGPONG,
              "OVERLAP 4, 5 with block scales: BLOCK_N dividing 128, or PINGPONG (a straddling "
              "tile compiles its K loop once per column offset)");
/* OVERLAP: K blocks per group */
#define SM90_GROUP (1 << W8A8_OVERLAP)
static_assert(W8A8_STAGGER == 0 ||
                  (W8A8_STAGGER == 1 && SM90_PROMOTED && W8A8_CONSUMERS == 2 && !W8A8_PINGPONG),
              "STAGGER is 0, or 1 with promoted accumulation and two cooperative consumers");
static_assert(W8A8_WAVE == 0 || (W8A8_WAVE == 1 && SM90_PROMOTED && !W8A8_OVERLAP && !W8A8_SWAP &&
                                  SM90_SUB_M >= 2),
              "WAVE is 0, or 1 with promoted accumulation, OVERLAP 0, SWAP 0 and 128 rows a "
              "consumer");
static_assert(W8A8_AZP == W8A8_Z_NONE || SM90_INT8, "a zero point needs INT8");
static_assert(W8A8_EVICT == 0 || (W8A8_EVICT == 1 && (W8A8_CLUSTER == 1 || W8A8_SWAP)),
              "EVICT is 0, or 1 with CLUSTER 1 or SWAP (the weights, tma_a, are never multicast)");
static_assert(W8A8_SWAP == 0 || (W8A8_SWAP == 1 && W8A8_EPILOGUE == 0 && !W8A8_STAGGER),
              "SWAP is 0, or 1 with EPILOGUE 0 and STAGGER 0");
static_assert(!W8A8_SWAP || !SM90_BLOCK || W8A8_BLOCK_N <= 64,
              "SWAP with block scales: the tokens' scales of a stage are one per loader lane");
static_assert(W8A8_OUT_TYPE == W8A8_T_BF16 || W8A8_OUT_TYPE == W8A8_T_FP16 ||
              W8A8_OUT_TYPE == W8A8_T_FP32, "OUT_TYPE");

/* ---- the wgmma instruction for this BLOCK_N: sm90_acc_t, sm90_wgmma ---------------------- */
#include "common/sm90_wgmma.cuh"
/* ---- bias, stores, epilogue scales, block-scale index: shared with every family -------- */
#include "common/epilogue.cuh"

/* ---- tile order --------------------------------------------------------------------------
 * raster 0: groups of `group` tile-rows; inside a group the M index moves fastest, so the
 * CTAs of one wave share few B tiles (weights) and `group` A tiles in L2. raster 1: the same
 * with the roles of M and N exchanged. Both are launch arguments (the host checked them:
 * raster 0 or 1, group ≥ 1), computed once per tile. */
__device__ __forceinline__ void sm90_tile_coords(int tile, int m_tiles, int n_tiles, int raster,
                                                 int group_size, int &mt, int &nt)
{
    const int major = raster ? n_tiles : m_tiles, minor = raster ? m_tiles : n_tiles;
    const int per_group = group_size * minor;
    const int group = tile / per_group;
    const int first = group * group_size;
    const int size = major - first < group_size ? major - first : group_size;
    const int rest = tile - group * per_group;
    const int fast = first + rest % size, slow = rest / size;
    mt = raster ? slow : fast;
    nt = raster ? fast : slow;
}

/* ---- epilogue ---------------------------------------------------------------------------- */

/* The staging buffer: SM90_C_SLOTS slots of one box, SM90_WG_M rows × SM90_C_BOX_BYTES,
 * swizzled as the map says (bits 4… of an offset XOR bits 7…). A row's 16-byte chunk ch
 * (counted from the tile row's first byte) lies in box ch / SM90_C_CHUNKS (its slot: that
 * modulo SM90_C_SLOTS), chunk ch % SM90_C_CHUNKS of the box row; the swizzle XORs that chunk
 * with sm90_c_swizzle(row), which is the same for every row 8·i apart (boxes are multiples of
 * 1024 bytes, 8 rows of 128). */
#define SM90_C_CHUNKS (SM90_C_BOX_BYTES / 16)
__device__ __forceinline__ int sm90_c_swizzle(int row)
{
    return ((row * SM90_C_BOX_BYTES) >> 7) & ((1 << SM90_C_SWIZZLE_BITS) - 1);
}
__device__ __forceinline__ sm90_u32 sm90_c_offset(int row, int swz, int ch)
{
    return (sm90_u32)((ch / SM90_C_CHUNKS % SM90_C_SLOTS) * SM90_C_BOX_AREA +
                      row * SM90_C_BOX_BYTES + (((ch % SM90_C_CHUNKS) ^ swz) << 4));
}

/* stmatrix: 8×8 16-bit matrices from the accumulator fragment layout (thread l holds row
 * l / 4, columns 2·(l % 4) + {0, 1} of each) to shared memory; lane L gives the address of
 * row L % 8 of matrix L / 8. */
__device__ __forceinline__ void sm90_stmatrix_x4(sm90_u32 addr, sm90_u32 m0, sm90_u32 m1,
                                                 sm90_u32 m2, sm90_u32 m3)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
                 "r"(m0), "r"(m1), "r"(m2), "r"(m3)
                 : "memory");
}
__device__ __forceinline__ void sm90_stmatrix_x2(sm90_u32 addr, sm90_u32 m0, sm90_u32 m1)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(m0),
                 "r"(m1)
                 : "memory");
}

/* Per 8-column group: the B scales, bias and (zero point) column sums of its two columns. */
struct sm90_col_terms {
    float sb0, sb1, bias0, bias1;
#if W8A8_AZP != W8A8_Z_NONE
    int cs0, cs1;
#endif
};

__device__ __forceinline__ sm90_col_terms sm90_col_terms_at(const w8a8_gemm_args &args,
                                                            long long col, float sb_tensor)
{
    /* (tile columns start at even offsets, so with whole tiles col + 1 < N as well) */
    const bool in = SM90_WHOLE_N || col < SM90_N, pair = SM90_WHOLE_N || col + 1 < SM90_N;
    sm90_col_terms t;
#if W8A8_B_SCALE == W8A8_S_ROW
    (void)sb_tensor;
    t.sb0 = in ? __ldg(args.b_scale + col) : 0.0f;
    t.sb1 = pair ? __ldg(args.b_scale + col + 1) : 0.0f;
#else
    t.sb0 = t.sb1 = sb_tensor;
#endif
#if W8A8_BIAS_TYPE != W8A8_T_NONE
    t.bias0 = in ? w8a8_load_bias(args.bias, col) : 0.0f;
    t.bias1 = pair ? w8a8_load_bias(args.bias, col + 1) : 0.0f;
#else
    t.bias0 = t.bias1 = 0.0f;
#endif
#if W8A8_AZP != W8A8_Z_NONE
    t.cs0 = in ? __ldg(args.b_col_sums + col) : 0;
    t.cs1 = pair ? __ldg(args.b_col_sums + col + 1) : 0;
#endif
    (void)in;
    (void)pair;
    return t;
}

/* Scales, corrects and converts this thread's accumulators, then writes them to global memory
 * (staging 0: rows and columns predicated) or to the consumer's staging buffer (every row and
 * column: the TMA store clips the tails, and loads past M or N read 0; 16-bit outputs with
 * stmatrix). Thread (warp w, lane l) holds rows row0 + 64·s + {0, 8} (row0 = 16w + l/4 from
 * the warpgroup's first row, r0 in the tile) and, per 8-column group j, columns col0 + 8j +
 * {0, 1} (col0: the tile's first column + 2·(l%4)). */
template <typename BeforeBox, typename AfterBox>
__device__ __forceinline__ void sm90_epilogue(const sm90_acc_t (&acc)[SM90_SUB_M][SM90_ACC],
                                              const w8a8_gemm_args &args, long long row0,
                                              long long col0, sm90_u32 staging, int r0,
                                              int lane, BeforeBox before_box, AfterBox after_box)
{
    (void)staging;
    (void)before_box;
    (void)after_box;
    (void)r0;
    (void)lane;
    float sa[SM90_SUB_M][2];
#if W8A8_AZP != W8A8_Z_NONE
    int zp[SM90_SUB_M][2];
#endif
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long row = row0 + 64 * s + 8 * h;
            const bool in = row < args.m;
#if SM90_BLOCK
            sa[s][h] = 1.0f; /* applied in the main loop */
#else
            sa[s][h] = in ? w8a8_a_scale_at(args, row) : 0.0f;
#endif
#if W8A8_AZP == W8A8_Z_TOKEN
            zp[s][h] = in ? __ldg(args.azp + row) : 0;
#elif W8A8_AZP == W8A8_Z_TENSOR
            zp[s][h] = __ldg(args.azp);
#endif
            (void)in;
        }
#if W8A8_B_SCALE == W8A8_S_TENSOR
    const float sb_tensor = __ldg(args.b_scale);
#else
    const float sb_tensor = 1.0f;
#endif
    /* output (row h of sub-tile s, column 2·(l%4) + e of group j) as float */
    auto value = [&](int s, int h, int j, int e, const sm90_col_terms &t) {
#if W8A8_AZP != W8A8_Z_NONE
        const float a = (float)(acc[s][4 * j + 2 * h + e] - zp[s][h] * (e ? t.cs1 : t.cs0));
#else
        const float a = (float)acc[s][4 * j + 2 * h + e];
#endif
        return a * sa[s][h] * (e ? t.sb1 : t.sb0) + (e ? t.bias1 : t.bias0);
    };
#if W8A8_EPILOGUE
    if (staging) {
        /* 8-column groups per box: box b holds groups b·groups_per_box … (b + 1)·groups_per_box - 1 */
        constexpr int groups_per_box = SM90_C_BOX_BYTES / (8 * SM90_OUT_BYTES);
#if SM90_OUT_BYTES == 2
        /* Per sub-tile and pair of groups (j, j + 1) of a box: four matrices, rows 0-7 and
         * 8-15 of group j, then of j + 1 (one group, two matrices, when j is the box's last);
         * lane L addresses tile row r0 - l/4 + 8·(L/8 % 2) + L % 8, chunk j + L/16. */
        const int lrow = r0 - lane / 4 + 8 * ((lane >> 3) & 1) + (lane & 7);
        const int swz = sm90_c_swizzle(lrow);
#else
        /* fp32: 8 bytes per row and group; chunk 2j + (l%4)/2, byte 8·(l%2) in it */
        const int swz = sm90_c_swizzle(r0);
#endif
#pragma unroll
        for (int b = 0; b < SM90_C_BOXES; ++b) {
            before_box(b);
            const int j_end = (b + 1) * groups_per_box;
#if SM90_OUT_BYTES == 2
#pragma unroll
            for (int j = b * groups_per_box; j < j_end; j += 2) {
                const bool two = j + 1 < j_end;
                const sm90_col_terms t0 = sm90_col_terms_at(args, col0 + 8 * j, sb_tensor);
                const sm90_col_terms t1 =
                    two ? sm90_col_terms_at(args, col0 + 8 * (j + 1), sb_tensor) : t0;
#pragma unroll
                for (int s = 0; s < SM90_SUB_M; ++s) {
                    const sm90_u32 m0 =
                        w8a8_pack_out2(value(s, 0, j, 0, t0), value(s, 0, j, 1, t0));
                    const sm90_u32 m1 =
                        w8a8_pack_out2(value(s, 1, j, 0, t0), value(s, 1, j, 1, t0));
                    const sm90_u32 addr =
                        staging + sm90_c_offset(lrow + 64 * s, swz, j + (lane >> 4));
                    if (two) {
                        const int k = j + 1;
                        const sm90_u32 m2 =
                            w8a8_pack_out2(value(s, 0, k, 0, t1), value(s, 0, k, 1, t1));
                        const sm90_u32 m3 =
                            w8a8_pack_out2(value(s, 1, k, 0, t1), value(s, 1, k, 1, t1));
                        sm90_stmatrix_x4(addr, m0, m1, m2, m3);
                    } else {
                        sm90_stmatrix_x2(addr, m0, m1); /* lanes 0-15's addresses: chunk j */
                    }
                }
            }
#else
#pragma unroll
            for (int j = b * groups_per_box; j < j_end; ++j) {
                const sm90_col_terms t = sm90_col_terms_at(args, col0 + 8 * j, sb_tensor);
#pragma unroll
                for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        sm90_st_shared_f32x2(staging + sm90_c_offset(r0 + 64 * s + 8 * h, swz,
                                                                     2 * j + (lane & 3) / 2) +
                                                 8 * (lane & 1),
                                             value(s, h, j, 0, t), value(s, h, j, 1, t));
            }
#endif
            after_box(b);
        }
        return;
    }
#endif
    char *const out = (char *)args.out;
    const long long row_bytes = args.ldc * SM90_OUT_BYTES;
#pragma unroll
    for (int j = 0; j < W8A8_BLOCK_N / 8; ++j) {
        const long long col = col0 + 8 * j;
        if (!(SM90_WHOLE_N || col < SM90_N))
            continue;
        const bool pair = SM90_WHOLE_N || col + 1 < SM90_N;
        const sm90_col_terms t = sm90_col_terms_at(args, col, sb_tensor);
#pragma unroll
        for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const long long row = row0 + 64 * s + 8 * h;
                if (row < args.m)
                    w8a8_store2(out + row * row_bytes, col, value(s, h, j, 0, t),
                                value(s, h, j, 1, t), pair);
            }
    }
}

#if W8A8_SWAP
/* SWAP: the tile is the output's transpose. The thread's rows row0 + 64·s + {0, 8} are output
 * columns (B's rows: sb, bias, the zero point's column sums), its columns col0 + 8j + {0, 1}
 * output rows (tokens: sa, the zero point). Each value is stored alone: the 8 lanes of one
 * l % 4 write 8 adjacent outputs of one row, a few kilobytes a tile. */
__device__ __forceinline__ void sm90_epilogue_swap(const sm90_acc_t (&acc)[SM90_SUB_M][SM90_ACC],
                                                   const w8a8_gemm_args &args, long long row0,
                                                   long long col0)
{
    char *const out = (char *)args.out;
    const long long row_bytes = args.ldc * SM90_OUT_BYTES;
    float sb[SM90_SUB_M][2], bias[SM90_SUB_M][2];
#if W8A8_AZP != W8A8_Z_NONE
    int cs[SM90_SUB_M][2];
#endif
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long n = row0 + 64 * s + 8 * h;
            const bool in = n < SM90_N;
            sb[s][h] = in ? w8a8_b_scale_at(args, n) : 0.0f;
            bias[s][h] = in ? w8a8_load_bias(args.bias, n) : 0.0f;
#if W8A8_AZP != W8A8_Z_NONE
            cs[s][h] = in ? __ldg(args.b_col_sums + n) : 0;
#endif
        }
    /* the tokens' scales (and zero points) before the first store, which later loads would
     * wait behind (ptxas keeps loads behind stores that may alias them) */
    float sa[W8A8_BLOCK_N / 8][2];
#if W8A8_AZP != W8A8_Z_NONE
    int zp[W8A8_BLOCK_N / 8][2];
#endif
#pragma unroll
    for (int j = 0; j < W8A8_BLOCK_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const long long m = col0 + 8 * j + e;
            const bool in = m < args.m;
            sa[j][e] = in ? w8a8_a_scale_at(args, m) : 0.0f;
#if W8A8_AZP == W8A8_Z_TOKEN
            zp[j][e] = in ? __ldg(args.azp + m) : 0;
#elif W8A8_AZP == W8A8_Z_TENSOR
            zp[j][e] = __ldg(args.azp);
#endif
        }
#pragma unroll
    for (int j = 0; j < W8A8_BLOCK_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            const long long m = col0 + 8 * j + e;
            if (m >= args.m)
                continue;
            void *const row = out + m * row_bytes;
#pragma unroll
            for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const long long n = row0 + 64 * s + 8 * h;
#if W8A8_AZP != W8A8_Z_NONE
                    const float a = (float)(acc[s][4 * j + 2 * h + e] - zp[j][e] * cs[s][h]);
#else
                    const float a = (float)acc[s][4 * j + 2 * h + e];
#endif
                    if (n < SM90_N)
                        w8a8_store1(row, n, a * sa[j][e] * sb[s][h] + bias[s][h]);
                }
        }
}
#endif /* W8A8_SWAP */

/* ---- block scales: promoted accumulation ------------------------------------------------
 * A's scales are 1×128 (sa[m, kb]), B's 128×128 (sb[n/128, kb]), each row-major or K-major
 * with its ld; the scale loaders copy them into the ring beside the tiles. Per K block a
 * consumer reads its scales from the stage, runs its 4 k32 wgmmas into tmp, waits, and adds
 * tmp·sa·sb into acc in fp32. A thread's rows are row0 + 64s + 8h; its columns within an
 * 8-column group never cross a 128-column boundary (tile origins are multiples of 8), so
 * each group j needs one sb: block (col_off + 8j) / 128 counted from the tile's first one.
 * When 128 % BLOCK_N == 0 no tile straddles a boundary and one sb serves the whole tile.
 * PROMOTE without block scales: the same calls with no scales (an empty struct) and
 * acc += tmp. */
#if SM90_PROMOTED
#if SM90_BLOCK
/* The last scale loader's lane l (the caller keeps the lanes below the count of blocks a
 * tile touches) copies K block kb's scale of the 128-row weight (B) block (first >> 7) + l to
 * dst + 4l; blocks past N, and every block when !kb_in (a K block past the last), get 0.
 * first: the tile's first weight row (col_tile, or row_tile with SWAP). */
__device__ __forceinline__ void sm90_weight_scale_fetch(sm90_u32 dst, const w8a8_gemm_args &args,
                                                        long long first, int kb, bool kb_in,
                                                        int lane)
{
    const long long nb = (first >> 7) + lane;
    const bool in = kb_in && nb < ((SM90_N + 127) >> 7);
    sm90_cp_async_4(dst + 4 * lane,
                    in ? w8a8_block_scale_ptr(args.b_scale, args.b_scale_k_major,
                                              args.b_scale_ld, nb, kb)
                       : args.b_scale,
                    in);
}

#if !W8A8_SWAP
struct sm90_block_scales {
    float sa[SM90_SUB_M][2];
    float sb[SM90_SB_COUNT];
};

/* The scale loaders (warps 1 and 2 of the producer warpgroup, loader j = warp - 1) copy K
 * block kb's scales of the tile at (row_tile, col_tile) into a stage's scale area dst with
 * cp.async: loader j's lane l rows 32i + l for i = j, j + 2, … of the tile, loader 1's lane
 * l B scale l. Rows past M, 128-column blocks past N and K blocks past the last (k_blocks)
 * get 0. The caller then arrives on the stage's full barrier. The loaders keep pace with
 * the consumers only if a K block costs them few instructions: one address per lane,
 * stepped by 64 rows. They run on the producer's 40 registers, so they keep no state
 * between K blocks. */
__device__ __forceinline__ void sm90_scale_fetch(sm90_u32 dst, const w8a8_gemm_args &args,
                                                 long long row_tile, long long col_tile, int kb,
                                                 int k_blocks, int loader, int lane)
{
    const bool kb_in = kb < k_blocks;
    const long long row = row_tile + 32 * loader + lane;
    const float *p =
        w8a8_block_scale_ptr(args.a_scale, args.a_scale_k_major, args.a_scale_ld, row, kb);
    const long long step = (args.a_scale_k_major ? 32 : 32 * args.a_scale_ld) * SM90_LOADERS;
#pragma unroll
    for (int i = 0; i < W8A8_BLOCK_M / 32; i += SM90_LOADERS) {
        const bool in = kb_in && row + 32 * i < args.m;
        sm90_cp_async_4(dst + (32 * (i + loader) + lane) * 4, in ? p : args.a_scale, in);
        p += step;
    }
    if (loader == SM90_LOADERS - 1 && lane < SM90_SB_COUNT)
        sm90_weight_scale_fetch(dst + W8A8_BLOCK_M * 4, args, col_tile, kb, kb_in, lane);
}

/* The same with K-major A scales at a 16-byte aligned address and pitch: the tile's rows of K
 * block kb are one run up to A's ld (rows past M are padding, whose products are 0 and never
 * stored), copied by loader 0's lane 0 with one bulk copy that completes transaction bytes
 * on the stage's full barrier `full`; rows past ld keep the zeros written at the start. The
 * B scales as in sm90_scale_fetch. */
__device__ __forceinline__ void sm90_scale_fetch_bulk(sm90_u32 dst, const w8a8_gemm_args &args,
                                                      long long row_tile, long long col_tile,
                                                      int kb, int k_blocks, int loader, int lane,
                                                      sm90_u32 full)
{
    const bool kb_in = kb < k_blocks;
    const long long rows = args.a_scale_ld - row_tile;
    if (loader == 0 && lane == 0 && kb_in && rows > 0) {
        const sm90_u32 bytes = 4u * (sm90_u32)(rows < W8A8_BLOCK_M ? rows : W8A8_BLOCK_M);
        sm90_bar_expect_tx(full, bytes);
        sm90_bulk_load(dst, args.a_scale + (long long)kb * args.a_scale_ld + row_tile, bytes, full);
    }
    if (loader == SM90_LOADERS - 1 && lane < SM90_SB_COUNT)
        sm90_weight_scale_fetch(dst + W8A8_BLOCK_M * 4, args, col_tile, kb, kb_in, lane);
}

/* A consumer thread's scales of one K block from its stage's scale area src: rows r0 + 64s
 * + 8h of the tile (r0 tile-relative), and the tile's B scales. */
__device__ __forceinline__ void sm90_block_scales_read(sm90_block_scales &bs, sm90_u32 src, int r0)
{
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            bs.sa[s][h] = sm90_ld_shared_f32(src + (r0 + 64 * s + 8 * h) * 4);
#pragma unroll
    for (int q = 0; q < SM90_SB_COUNT; ++q)
        bs.sb[q] = sm90_ld_shared_f32(src + W8A8_BLOCK_M * 4 + 4 * q);
}

#else /* SWAP: tile rows are weight rows, tile columns tokens */
struct sm90_block_scales {
    float sb[SM90_SUB_M];          /* the 128-row weight block of each 64-row sub-tile */
    float sa[W8A8_BLOCK_N / 8][2]; /* this thread's token columns 8j + 2·(l % 4) + {0, 1} */
};

/* SWAP: loader j's lane l copies the scale of token col_tile + 32j + l (BLOCK_N ≤ 64, one a
 * lane), loader 1's lanes below SM90_RB_COUNT those of the 128-row weight blocks from row_tile
 * on; tokens past M, blocks past N and K blocks past the last get 0. */
__device__ __forceinline__ void sm90_scale_fetch(sm90_u32 dst, const w8a8_gemm_args &args,
                                                 long long row_tile, long long col_tile, int kb,
                                                 int k_blocks, int loader, int lane)
{
    const bool kb_in = kb < k_blocks;
    const int c = 32 * loader + lane;
    if (c < W8A8_BLOCK_N) {
        const long long m = col_tile + c;
        const bool in = kb_in && m < args.m;
        sm90_cp_async_4(dst + c * 4,
                        in ? w8a8_block_scale_ptr(args.a_scale, args.a_scale_k_major,
                                                  args.a_scale_ld, m, kb)
                           : args.a_scale,
                        in);
    }
    if (loader == SM90_LOADERS - 1 && lane < SM90_RB_COUNT)
        sm90_weight_scale_fetch(dst + W8A8_BLOCK_N * 4, args, row_tile, kb, kb_in, lane);
}

/* SWAP: r0 is the thread's first row in the tile; its consumer's rows start at r0 & ~63 (a
 * multiple of 64), sub-tile s at 64 rows further each, inside one 128-row weight block. */
__device__ __forceinline__ void sm90_block_scales_read(sm90_block_scales &bs, sm90_u32 src, int r0)
{
    const int first = r0 & ~63, c0 = 2 * (int)(threadIdx.x % 4);
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
        bs.sb[s] = sm90_ld_shared_f32(src + W8A8_BLOCK_N * 4 + 4 * ((first + 64 * s) >> 7));
#pragma unroll
    for (int j = 0; j < W8A8_BLOCK_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e)
            bs.sa[j][e] = sm90_ld_shared_f32(src + (8 * j + c0 + e) * 4);
}

#endif /* W8A8_SWAP */

/* acc[i], acc[i + 1] += sc · tmp[i], tmp[i + 1] */
__device__ __forceinline__ void sm90_fma2(float (&acc)[SM90_ACC], const float (&tmp)[SM90_ACC],
                                          int i, float sc)
{
    acc[i] = __fmaf_rn(tmp[i], sc, acc[i]);
    acc[i + 1] = __fmaf_rn(tmp[i + 1], sc, acc[i + 1]);
}

/* A tile that straddles 128-column blocks (not PINGPONG): its first column modulo 128
 * (col_off, uniform over the tile's threads) is a multiple of SM90_OFF_STEP = gcd(BLOCK_N,
 * 128). For each of those values the promotion is compiled with the column blocks as
 * constants: one product sa · sb per row and block touched, then one FFMA an element.
 * Choosing the block per 8 columns at run time costs a select and two multiplies per 8
 * columns (BLOCK_N 112: 98 instructions a K block and sub-tile instead of 60). Measured on an
 * H200 (bench/results-2026-11-28-s35, D2, D5, D8): cooperative and one-consumer tiles
 * 1.02-1.14x faster with the constants (128x112, 128x176, 256x112 wave); a ping-pong 64x112
 * config with overlap 3 0.88x at 128x7168x2048 (16 K blocks) and 0.975x at 64x28672x4096, so
 * ping-pong tiles (whose two consumers run different tiles) keep the run-time selects. Why
 * the constants lose there was not profiled.
 * The whole K loop is compiled per offset and the tile's chosen once, at its start
 * (sm90_promoted_k_loop_at), not per K block: a binary search of three uniform branches a K
 * block had been on the promotion's critical path, where the tensor cores wait while both
 * consumers promote. Session 36 (bench/results-2026-11-28-s36, D3, D4): the 12-13 top-ranked
 * straddling configs at four keys 1.034-1.050x (geomean), their best 1.03-1.07x; on the
 * shipped rows 4096x2112x7168 (128x176) 1.087x, 128x28672x4096 (128x112, overlap 3, 32 K
 * blocks) 0.956x, the other 80 block rows of the grids within noise. */
#define SM90_OFF_CONST (!W8A8_SWAP && !SM90_SB_ONE && !W8A8_PINGPONG)
#if SM90_OFF_CONST
#define SM90_OFF_STEP ((W8A8_BLOCK_N & -W8A8_BLOCK_N) < 128 ? (W8A8_BLOCK_N & -W8A8_BLOCK_N) : 128)

/* A column offset known at compile time: the consumer's K loop (sm90_promoted_k_loop) is
 * compiled once per offset and chosen once per tile (sm90_promoted_k_loop_at). */
template <int OFF>
struct sm90_col_off {
};

/* acc += tmp · sa · sb for m64 sub-tile s, the tile's first column modulo 128 being OFF */
template <int OFF>
__device__ __forceinline__ void sm90_promote_sub(float (&acc)[SM90_ACC],
                                                 const float (&tmp)[SM90_ACC],
                                                 const sm90_block_scales &bs, int s,
                                                 sm90_col_off<OFF>)
{
    float sc[2][SM90_SB_COUNT];
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int q = 0; q < SM90_SB_COUNT; ++q)
            sc[h][q] = bs.sa[s][h] * bs.sb[q];
#pragma unroll
    for (int j = 0; j < W8A8_BLOCK_N / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            sm90_fma2(acc, tmp, 4 * j + 2 * h, sc[h][(OFF + 8 * j) >> 7]);
}
#endif

#if !W8A8_SWAP
/* acc += tmp · sa · sb for m64 sub-tile s of the consumer's rows; col_off is the tile's first
 * column modulo 128. */
__device__ __forceinline__ void sm90_promote_sub(float (&acc)[SM90_ACC], const float (&tmp)[SM90_ACC],
                                                 const sm90_block_scales &bs, int s, int col_off)
{
#if SM90_SB_ONE
    (void)col_off;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const float sc = bs.sa[s][h] * bs.sb[0];
#pragma unroll
        for (int j = 0; j < W8A8_BLOCK_N / 8; ++j)
            sm90_fma2(acc, tmp, 4 * j + 2 * h, sc);
    }
#else
#pragma unroll
    for (int j = 0; j < W8A8_BLOCK_N / 8; ++j) {
        const int q = (col_off + 8 * j) >> 7;
        float sb = bs.sb[0];
#pragma unroll
        for (int t = 1; t < SM90_SB_COUNT; ++t)
            sb = q == t ? bs.sb[t] : sb;
#pragma unroll
        for (int h = 0; h < 2; ++h)
            sm90_fma2(acc, tmp, 4 * j + 2 * h, bs.sa[s][h] * sb);
    }
#endif
}
#else
/* SWAP: acc[r, c] += tmp[r, c] · sb[r / 128] · sa[c] (col_off unused). */
__device__ __forceinline__ void sm90_promote(float (&acc)[SM90_SUB_M][SM90_ACC],
                                             const float (&tmp)[SM90_SUB_M][SM90_ACC],
                                             const sm90_block_scales &bs, int col_off)
{
    (void)col_off;
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
        for (int j = 0; j < W8A8_BLOCK_N / 8; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const float sc = bs.sb[s] * bs.sa[j][e];
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int i = 4 * j + 2 * h + e;
                    acc[s][i] = __fmaf_rn(tmp[s][i], sc, acc[s][i]);
                }
            }
}
#endif /* W8A8_SWAP */
#else /* PROMOTE: the scales wait for the epilogue */
struct sm90_block_scales {
};

__device__ __forceinline__ void sm90_block_scales_read(sm90_block_scales &, sm90_u32, int) {}

__device__ __forceinline__ void sm90_promote_sub(float (&acc)[SM90_ACC], const float (&tmp)[SM90_ACC],
                                                 const sm90_block_scales &, int, int)
{
#pragma unroll
    for (int i = 0; i < SM90_ACC; ++i)
        acc[i] += tmp[i];
}
#endif /* SM90_BLOCK */

#if !(SM90_BLOCK && W8A8_SWAP)
/* acc += tmp (· sa · sb with block scales) over the consumer's sub-tiles; col_off an int or
 * an sm90_col_off */
template <typename ColOff>
__device__ __forceinline__ void sm90_promote(float (&acc)[SM90_SUB_M][SM90_ACC],
                                             const float (&tmp)[SM90_SUB_M][SM90_ACC],
                                             const sm90_block_scales &bs, ColOff col_off)
{
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
        sm90_promote_sub(acc[s], tmp[s], bs, s, col_off);
}
#endif
#endif /* SM90_PROMOTED */

/* ---- the kernel -------------------------------------------------------------------------- */

/* The ring position after this one: stages wrap, and the barrier parity flips each lap. */
__device__ __forceinline__ void sm90_ring_next(int &stage, sm90_u32 &phase)
{
    if (++stage == W8A8_STAGES) {
        stage = 0;
        phase ^= 1u;
    }
}

/* The wgmma of k32 step k of a 128-byte K block for m64 sub-tile s of the consumer's rows
 * (descriptors of A at its first row, and of B): +32 bytes per k32 step (2 in the >>4 address
 * field); +8192 bytes (64 rows of 128 bytes) per m64 sub-tile. */
__device__ __forceinline__ void sm90_wgmma_step(sm90_acc_t (&d)[SM90_ACC], sm90_u64 desc_a,
                                                sm90_u64 desc_b, int k, int s, bool accumulate)
{
    sm90_wgmma(d, desc_a + 2 * k + (8192 >> 4) * s, desc_b + 2 * k, accumulate);
}

/* Issues (and commits as one group) the wgmmas of one stage's K block for a consumer's rows
 * (descriptors of A at its first row, and of B, in the stage's first box): per 128-byte box
 * (KBOXES, each A_BOX / B_BOX bytes further) 4 k32 steps × SUB_M m64 blocks. The first step
 * overwrites acc when kb is 0 (pass 0 to always overwrite). */
__device__ __forceinline__ void sm90_issue_k_block(sm90_acc_t (&acc)[SM90_SUB_M][SM90_ACC],
                                                   sm90_u64 desc_a, sm90_u64 desc_b, int kb)
{
    sm90_wgmma_fence();
#pragma unroll
    for (int j = 0; j < SM90_KBOXES; ++j)
#pragma unroll
        for (int k = 0; k < SM90_BK / 32; ++k)
#pragma unroll
            for (int s = 0; s < SM90_SUB_M; ++s)
                sm90_wgmma_step(acc[s], desc_a + (SM90_A_BOX >> 4) * j,
                                desc_b + (SM90_B_BOX >> 4) * j, k, s, (kb | j | k) != 0);
    sm90_wgmma_commit();
}

/* WAVE: the wgmmas of one K block for m64 sub-tile s of the consumer's rows only, into t. */
__device__ __forceinline__ void sm90_issue_sub(sm90_acc_t (&t)[SM90_ACC], sm90_u64 desc_a,
                                               sm90_u64 desc_b, int s)
{
    sm90_wgmma_fence();
#pragma unroll
    for (int k = 0; k < SM90_BK / 32; ++k)
        sm90_wgmma_step(t, desc_a, desc_b, k, s, k != 0);
    sm90_wgmma_commit();
}

/* PINGPONG: opens the other consumer's next main loop (one arrival per warp). */
__device__ __forceinline__ void sm90_pass_turn(sm90_u32 turn_bar, int consumer, int lane)
{
    if (lane == 0)
        sm90_bar_arrive(turn_bar + 8 * (consumer ^ 1));
}

/* Hands a ring stage back to its producer(s): one arrival per consumer warp, on this CTA's
 * empty barrier, and with CLUSTER 2 on the peer's too (its producer multicasts into ours). */
__device__ __forceinline__ void sm90_release(sm90_u32 empty, int lane)
{
    if (lane != 0)
        return;
#if W8A8_CLUSTER == 2
    sm90_bar_arrive_cluster(empty, 0);
    sm90_bar_arrive_cluster(empty, 1);
#else
    sm90_bar_arrive(empty);
#endif
}

/* Keeps the compiler from moving reads of a set of accumulators above the wgmma wait. */
template <typename T>
__device__ __forceinline__ void sm90_fence_set(T (&set)[SM90_ACC])
{
#pragma unroll
    for (int i = 0; i < SM90_ACC; ++i)
        sm90_reg_fence(set[i]);
}

#if SM90_PROMOTED
/* Hands a K block's stage back and adds its partial sums (tmp, its wgmmas done) into acc. */
template <typename ColOff>
__device__ __forceinline__ void sm90_promote_block(float (&acc)[SM90_SUB_M][SM90_ACC],
                                                   float (&tmp)[SM90_SUB_M][SM90_ACC],
                                                   const sm90_block_scales &bs, ColOff col_off,
                                                   sm90_u32 empty, int lane)
{
#pragma unroll
    for (int s = 0; s < SM90_SUB_M; ++s)
        sm90_fence_set(tmp[s]);
    sm90_release(empty, lane);
    sm90_promote(acc, tmp, bs, col_off);
}

/* STAGGER: before a K block's (or pair's) wgmmas, consumer 1 waits until consumer 0 has
 * issued its own, and consumer 0 (from its second on) until consumer 1 has issued the
 * previous one; after them each signals the other (consumer 1 not after its last). `first`
 * and `last` count over every tile of the CTA, not per tile: the consumers then alternate
 * strictly, consumer 0 at most one K block ahead, so an arrival can never be counted in the
 * wrong round of a barrier. (Resetting per tile let consumer 0 run into the next tile and
 * arrive twice before consumer 1 waited once: a hang, seen on an H100 with several tiles per
 * CTA.) */
__device__ __forceinline__ void sm90_stagger_before(int consumer, bool first)
{
#if W8A8_STAGGER
    if (consumer == 1)
        sm90_named_sync(3, 256);
    else if (!first)
        sm90_named_sync(4, 256);
#else
    (void)consumer;
    (void)first;
#endif
}

__device__ __forceinline__ void sm90_stagger_after(int consumer, bool last)
{
#if W8A8_STAGGER
    if (consumer == 0)
        sm90_named_arrive(3, 256);
    else if (!last)
        sm90_named_arrive(4, 256);
#else
    (void)consumer;
    (void)last;
#endif
}

/* What a consumer's K loop over one tile needs besides its registers. */
struct sm90_k_walk {
    int kb_begin, kb_end;        /* the tile's K blocks (this CTA's slice) */
    sm90_u32 full_bar, empty_bar, scale_smem, a_smem, b_smem;
    sm90_u32 a_rows;             /* the consumer's first row's offset in an A stage */
    int r_tile;                  /* the thread's first row in the tile */
    int consumer, nth, lane;
    bool last_unit;              /* STAGGER: the CTA's last tile */
};

/* A consumer's promoted main loop over one tile (block scales or PROMOTE): col_off, the tile's
 * first column modulo 128, an sm90_col_off for tiles that straddle scale blocks
 * (SM90_OFF_CONST), else an int. tmp2 is used with OVERLAP only. */
template <typename ColOff>
__device__ __forceinline__ void sm90_promoted_k_loop(
    float (&acc)[SM90_SUB_M][SM90_ACC], float (&tmp)[W8A8_WAVE ? 1 : SM90_SUB_M][SM90_ACC],
    float (&tmp2)[W8A8_OVERLAP ? SM90_SUB_M : 1][SM90_ACC], int &stage, sm90_u32 &phase,
    const sm90_k_walk &w, ColOff col_off)
{
    (void)tmp2;
    sm90_block_scales scales;
#if W8A8_OVERLAP
    /* K blocks in groups of SM90_GROUP (w.kb_end - w.kb_begin is a multiple): block g + 1
     * is issued into one temporary set while block g, in the other, is promoted
     * (wait_group 1); the group's last waits for everything (wait_group 0). Each group
     * finishes within its iteration: with a wgmma group still in flight across the
     * loop's back edge, ptxas serializes every wgmma (C7514). The group is unrolled, so
     * which set and which scales a block uses are constants. With STAGGER a turn is the
     * group's first two issues, then each further issue. */
    sm90_block_scales scales1; /* the odd blocks' (scales: the even ones') */
    for (int kb = w.kb_begin; kb < w.kb_end; kb += SM90_GROUP) {
        int done = stage; /* the stage of the next block to promote */
        sm90_bar_wait(w.full_bar + 8 * stage, phase);
        sm90_block_scales_read(scales, w.scale_smem + stage * SM90_SCALE_STAGE_BYTES, w.r_tile);
        sm90_stagger_before(w.consumer, w.nth == 0 && kb == w.kb_begin);
        sm90_issue_k_block(tmp, sm90_desc_k128(w.a_smem + stage * SM90_A_BYTES + w.a_rows),
                           sm90_desc_k128(w.b_smem + stage * SM90_B_BYTES), 0);
        sm90_ring_next(stage, phase);
#pragma unroll
        for (int g = 0; g < SM90_GROUP; ++g) {
            if (g + 1 < SM90_GROUP) {
                sm90_bar_wait(w.full_bar + 8 * stage, phase);
                sm90_block_scales_read(g & 1 ? scales : scales1,
                                       w.scale_smem + stage * SM90_SCALE_STAGE_BYTES, w.r_tile);
                if (g > 0)
                    sm90_stagger_before(w.consumer, false);
                sm90_issue_k_block(g & 1 ? tmp : tmp2,
                                   sm90_desc_k128(w.a_smem + stage * SM90_A_BYTES + w.a_rows),
                                   sm90_desc_k128(w.b_smem + stage * SM90_B_BYTES), 0);
                sm90_stagger_after(w.consumer, w.last_unit && kb + SM90_GROUP == w.kb_end &&
                                                 g + 2 == SM90_GROUP);
                sm90_ring_next(stage, phase);
                sm90_wgmma_wait<1>();
            } else {
                sm90_wgmma_wait<0>();
            }
            sm90_promote_block(acc, g & 1 ? tmp2 : tmp, g & 1 ? scales1 : scales,
                               col_off, w.empty_bar + 8 * done, w.lane);
            done = done + 1 == W8A8_STAGES ? 0 : done + 1;
        }
    }
#else
    for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
        sm90_bar_wait(w.full_bar + 8 * stage, phase);
        /* the scales first: shared-memory reads finish before the wgmmas' fence */
        sm90_block_scales_read(scales, w.scale_smem + stage * SM90_SCALE_STAGE_BYTES, w.r_tile);
        sm90_stagger_before(w.consumer, w.nth == 0 && kb == w.kb_begin);
#if W8A8_WAVE
        /* one temporary set: each sub-tile's wgmmas, then its promotion, in turn; the
         * stage goes back once the last sub-tile's wgmmas are done */
        const sm90_u64 da = sm90_desc_k128(w.a_smem + stage * SM90_A_BYTES + w.a_rows);
        const sm90_u64 db = sm90_desc_k128(w.b_smem + stage * SM90_B_BYTES);
#pragma unroll
        for (int s = 0; s < SM90_SUB_M; ++s) {
            sm90_issue_sub(tmp[0], da, db, s);
            if (s == SM90_SUB_M - 1)
                sm90_stagger_after(w.consumer, w.last_unit && kb + 1 == w.kb_end);
            sm90_wgmma_wait<0>();
            sm90_fence_set(tmp[0]);
            if (s == SM90_SUB_M - 1)
                sm90_release(w.empty_bar + 8 * stage, w.lane);
            sm90_promote_sub(acc[s], tmp[0], scales, s, col_off);
        }
#else
        sm90_issue_k_block(tmp, sm90_desc_k128(w.a_smem + stage * SM90_A_BYTES + w.a_rows),
                           sm90_desc_k128(w.b_smem + stage * SM90_B_BYTES), 0);
        sm90_stagger_after(w.consumer, w.last_unit && kb + 1 == w.kb_end);
        sm90_wgmma_wait<0>();
        sm90_promote_block(acc, tmp, scales, col_off, w.empty_bar + 8 * stage, w.lane);
#endif
        sm90_ring_next(stage, phase);
    }
#endif
}

#if SM90_OFF_CONST
/* Runs the K loop compiled for col_off among the COUNT offsets from LO on: a binary search
 * over uniform branches (three compares for 8 offsets), once per tile. */
template <int LO, int COUNT>
__device__ __forceinline__ void sm90_promoted_k_loop_at(
    float (&acc)[SM90_SUB_M][SM90_ACC], float (&tmp)[W8A8_WAVE ? 1 : SM90_SUB_M][SM90_ACC],
    float (&tmp2)[W8A8_OVERLAP ? SM90_SUB_M : 1][SM90_ACC], int &stage, sm90_u32 &phase,
    const sm90_k_walk &w, int col_off)
{
    if constexpr (COUNT == 1) {
        (void)col_off;
        sm90_promoted_k_loop(acc, tmp, tmp2, stage, phase, w, sm90_col_off<LO>{});
    } else {
        constexpr int MID = LO + (COUNT / 2) * SM90_OFF_STEP;
        if (col_off < MID)
            sm90_promoted_k_loop_at<LO, COUNT / 2>(acc, tmp, tmp2, stage, phase, w, col_off);
        else
            sm90_promoted_k_loop_at<MID, COUNT - COUNT / 2>(acc, tmp, tmp2, stage, phase, w,
                                                            col_off);
    }
}
#endif

#endif /* SM90_PROMOTED */

/* The work split: a unit is CLUSTER tiles stacked along M that share one B tile; the
 * clusters (CTAs without clusters) take units u, u + their count, … in raster order. */
struct sm90_units {
    int m_units, n_tiles, count, first, step, rank;
    int raster, group; /* the tile order (sm90_tile_coords) */
    int k_rank; /* SPLIT > 1: this CTA's K slice (its rank in the cluster); else 0 */
    int whole;  /* TAIL > 1: the units that go whole (the kernel's argument) */
};

__device__ __forceinline__ sm90_units sm90_units_make(int m_tiles, int n_tiles, int raster,
                                                      int group, int whole)
{
    sm90_units u;
    u.raster = raster;
    u.group = group;
    u.k_rank = 0;
    u.whole = whole;
#if W8A8_CLUSTER == 2
    u.rank = (int)sm90_cluster_rank();
    u.first = (int)sm90_cluster_id();
    u.step = (int)sm90_cluster_count();
#elif W8A8_SPLIT > 1
    u.rank = 0;
    u.k_rank = (int)sm90_cluster_rank();
    u.first = (int)sm90_cluster_id();
    u.step = (int)sm90_cluster_count();
#else
    u.rank = 0;
    u.first = blockIdx.x;
    u.step = gridDim.x;
#endif
    u.m_units = (m_tiles + W8A8_CLUSTER - 1) / W8A8_CLUSTER;
    u.n_tiles = n_tiles;
    u.count = u.m_units * n_tiles;
    return u;
}

/* This CTA's tile of unit `unit`; with CLUSTER 2 and an odd tile-row count the last unit's
 * second tile lies past M (zero-filled loads, nothing stored). */
__device__ __forceinline__ void sm90_unit_tile(const sm90_units &u, int unit, int &mt, int &nt)
{
    int mu;
    sm90_tile_coords(unit, u.m_units, u.n_tiles, u.raster, u.group, mu, nt);
    mt = mu * W8A8_CLUSTER + u.rank;
}

#if W8A8_TAIL > 1
/* TAIL (above): this CTA's tiles in order. Units blockIdx.x, + gridDim.x, … below `whole` go
 * whole (K blocks [0, k_steps)); then units whole + the cluster's id, + the cluster count, …
 * each with this rank's K slice (whole groups of SM90_GROUP blocks). The host splits only
 * when every slice has a group (sm90_tail_whole), and `whole` is a multiple of the grid, so
 * the ranks of a cluster reach each split tile together. */
struct sm90_tail_walk {
    int unit, kb_begin, kb_end; /* the current tile and its K blocks */
    bool split;                 /* the current tile is split (the ranks meet after it) */
    int next_whole, whole, step, next_split, split_step, count, kb_lo, kb_hi, k_steps;

    __device__ __forceinline__ bool next()
    {
        if (next_whole < whole) {
            unit = next_whole;
            next_whole += step;
            kb_begin = 0;
            kb_end = k_steps;
            split = false;
            return true;
        }
        if (next_split < count) {
            unit = next_split;
            next_split += split_step;
            kb_begin = kb_lo;
            kb_end = kb_hi;
            split = true;
            return true;
        }
        return false;
    }
};

__device__ __forceinline__ sm90_tail_walk sm90_tail_walk_make(const sm90_units &u, int k_steps)
{
    sm90_tail_walk w;
    const int rank = (int)sm90_cluster_rank(), groups = k_steps / SM90_GROUP;
    w.count = u.count;
    w.whole = u.whole;
    w.k_steps = k_steps;
    w.next_whole = (int)blockIdx.x;
    w.step = (int)gridDim.x;
    w.next_split = u.whole + (int)sm90_cluster_id();
    w.split_step = (int)sm90_cluster_count();
    w.kb_lo = SM90_GROUP * (rank * groups / W8A8_TAIL);
    w.kb_hi = SM90_GROUP * ((rank + 1) * groups / W8A8_TAIL);
    w.unit = w.kb_begin = w.kb_end = 0;
    w.split = false;
    return w;
}
#endif

/* Tile origins. Tile t of a dimension starts at t·BLOCK, except a last tile that would run
 * past the extent while a whole tile fits inside it: that one moves back to end at the extent
 * (its start rounded up to the dimension's alignment, so at most align − 1 rows stay past
 * it). Its loads then read rows of the operand instead of TMA's zero fill, which costs in
 * proportion to the rows it fills (H200, session 27, D11: per-row 4096×4096 with one config
 * ran 12.0 µs at M = 129 and 9.7 µs at M = 192, 14.0 µs at M = 200 and 9.9 µs at M = 256).
 * Moving it back ran the previous build's rows 1.07-1.13x faster over odd M = 100...3000
 * (up to 1.59x at 129x4096x14336) and M a multiple of 128 within 1 % (session 28, D1, D2).
 * The rows it shares with the tile before it are computed again from the same operands in
 * the same order and stored again with bitwise the same values. A tile wholly past the
 * extent (CLUSTER 2's second tile of an odd tile-row count) keeps its origin.
 * Alignments: the tokens' rows 1, or 4 with block scales (the bulk copy of K-major A scales
 * needs a 16-byte aligned start); weight columns 8 (the epilogue's column pairs and 16-byte
 * TMA store chunks stay aligned as with t·BLOCK_N). Block-scaled weights keep their origins
 * (their 128-row scale blocks are indexed from them). Swap-AB keeps every origin: its weight
 * tiles are whole at the Llama models' N (the DeepSeek-V3 ones are block-scaled, which never
 * moved), its token tiles are the small operand, and with nothing to move its kernels are
 * session 27's instruction for instruction (the consumer takes the origin at the tile's
 * start, below). The code that moved them (origins worked out
 * after the main loop) had cost the INT8 64×8 kernel 9 % at 8×4096×14336 on an H200 with
 * no tile to move (session 28, D4; session 29, D2 got it back). */
#if W8A8_SWAP
#define SM90_ROW_ALIGN 0 /* tile rows: weights */
#define SM90_COL_ALIGN 0 /* tile columns: tokens */
#else
#define SM90_ROW_ALIGN (SM90_BLOCK ? 4 : 1) /* tile rows: tokens */
#define SM90_COL_ALIGN (SM90_BLOCK ? 0 : 8) /* tile columns: weights */
#endif
template <int Block, int Align>
__device__ __forceinline__ long long sm90_tile_start(int t, long long extent)
{
    const long long start = (long long)t * Block;
    if (Align == 0 || start + Block <= extent || start >= extent || extent < Block)
        return start;
    return (extent - Block + Align - 1) / Align * Align;
}
/* tile (mt, nt)'s first row and column (args in scope) */
#define SM90_TILE_ROW(mt) (sm90_tile_start<W8A8_BLOCK_M, SM90_ROW_ALIGN>((mt), SM90_ROWS))
#define SM90_TILE_COL(nt) (sm90_tile_start<W8A8_BLOCK_N, SM90_COL_ALIGN>((nt), SM90_COLS))

/* The producers' walk of the ring (the TMA thread's, and the scale loaders'): for every tile
 * of this CTA and every K block of its slice, in the consumers' order, waits until the next
 * stage is empty and calls fill(stage, mt, nt, kb), which starts that stage's loads and
 * accounts them on its full barrier. */
template <typename Fill>
__device__ __forceinline__ void sm90_ring_fill(const sm90_units &units, int kb_begin, int kb_end,
                                               sm90_u32 empty_bar, Fill fill)
{
    int stage = 0;
    sm90_u32 phase = 0;
#if W8A8_TAIL > 1
    (void)kb_begin; /* 0: TAIL has no SPLIT */
    sm90_tail_walk walk = sm90_tail_walk_make(units, kb_end);
    while (walk.next()) {
        int mt, nt;
        sm90_unit_tile(units, walk.unit, mt, nt);
        for (int kb = walk.kb_begin; kb < walk.kb_end; ++kb) {
            sm90_bar_wait(empty_bar + 8 * stage, phase ^ 1u);
            fill(stage, mt, nt, kb);
            sm90_ring_next(stage, phase);
        }
    }
#else
    for (int unit = units.first; unit < units.count; unit += units.step) {
        int mt, nt;
        sm90_unit_tile(units, unit, mt, nt);
        for (int kb = kb_begin; kb < kb_end; ++kb) {
            sm90_bar_wait(empty_bar + 8 * stage, phase ^ 1u);
            fill(stage, mt, nt, kb);
            sm90_ring_next(stage, phase);
        }
    }
#endif
}

#if SM90_KSPLIT > 1
/* Split-K: sums the consumer's partial accumulators over the cluster's K slices into rank
 * 0's (see SPLIT above; TAIL's split tiles the same). buf: this consumer's buffer; ready,
 * free_bar: its barriers; phase: the parity of this tile (flips per tile). Ranks > 0 return
 * once their partials are handed over; rank 0 returns with the whole sum. */
__device__ __forceinline__ void sm90_split_reduce(sm90_acc_t (&acc)[SM90_SUB_M][SM90_ACC],
                                                  sm90_u32 buf, sm90_u32 ready,
                                                  sm90_u32 free_bar, int k_rank, sm90_u32 phase)
{
    const sm90_u32 slot = buf + (threadIdx.x % 128) * 16;
    if (k_rank != 0) {
        sm90_bar_wait_cluster(free_bar, phase ^ 1u); /* rank 0 read our previous tile */
#pragma unroll
        for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
            for (int i = 0; i < SM90_ACC; i += 4)
                sm90_st_shared_v4(slot + ((s * SM90_ACC + i) / 4) * 2048, acc[s], i);
        sm90_bar_arrive_remote_release(ready, 0);
        return;
    }
    sm90_bar_wait_cluster(ready, phase);
#pragma unroll
    for (int r = 1; r < SM90_KSPLIT; ++r) {
        const sm90_u32 peer = sm90_map_cta(slot, (sm90_u32)r);
#pragma unroll
        for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
            for (int i = 0; i < SM90_ACC; i += 4)
                sm90_add_cluster_v4(peer + ((s * SM90_ACC + i) / 4) * 2048, acc[s], i);
    }
#pragma unroll
    for (int r = 1; r < SM90_KSPLIT; ++r)
        sm90_bar_arrive_remote_release(free_bar, (sm90_u32)r);
}
#endif

extern "C" __global__ void __launch_bounds__(SM90_THREADS, 1)
    w8a8_sm90_gemm(const __grid_constant__ sm90_tensor_map tma_a,
                   const __grid_constant__ sm90_tensor_map tma_b,
                   const __grid_constant__ sm90_tensor_map tma_c, const w8a8_gemm_args args,
                   const int tma_store, const int raster, const int group, const int whole,
                   const int trigger)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    /* Buffers must be 1024-byte aligned for the 128-byte swizzle; the host adds slack. The
     * layout is the same in every CTA (multicast writes at the same offsets). */
    const sm90_u32 smem = (sm90_smem_u32(smem_raw) + 1023u) & ~1023u;
    const sm90_u32 a_smem = smem;
    const sm90_u32 b_smem = a_smem + W8A8_STAGES * SM90_A_BYTES + SM90_A_PAD;
    const sm90_u32 c_smem = b_smem + W8A8_STAGES * SM90_B_BYTES; /* SM90_C_BYTES */
    const sm90_u32 red_smem = c_smem + SM90_C_BYTES;             /* SM90_RED_BYTES */
    const sm90_u32 full_bar = red_smem + SM90_RED_BYTES; /* STAGES × 8 bytes */
    const sm90_u32 empty_bar = full_bar + 8 * W8A8_STAGES;
    /* PINGPONG: turn_bar + 8·c opens consumer c's next main loop once the other consumer has
     * finished waiting on its own tile's stages. This keeps each consumer within one phase
     * of every full barrier, which parity waits need. */
    const sm90_u32 turn_bar = empty_bar + 8 * W8A8_STAGES;
    /* SPLIT > 1: consumer c's ready barrier at red_bar + 8·c, its free barrier 16 further */
    const sm90_u32 red_bar = turn_bar + 16;
    /* block scales: STAGES areas of SM90_SCALE_STAGE_BYTES (16-byte aligned) */
    const sm90_u32 scale_smem = red_bar + SM90_RED_BAR_BYTES;
    (void)scale_smem;
    (void)c_smem;
    (void)red_smem;
    (void)red_bar;
    (void)tma_c;
    (void)tma_store;

    /* Warp-uniform to the compiler too (a shuffle from lane 0): what derives from it (the
     * consumer, its rows of A, and so each K block's wgmma descriptors) can then live in
     * uniform registers, and branches on it are uniform. */
    const int warpgroup = __shfl_sync(0xffffffffu, (int)(threadIdx.x / 128), 0);
#if SM90_BLOCK && !W8A8_SWAP && W8A8_BLOCK_M <= 128
    /* K-major A scales at a 16-byte aligned address and pitch: one bulk copy a stage
     * (sm90_scale_fetch_bulk); the scale areas start zeroed for the rows past A's ld. The
     * loaders' cp.async cost the block loop 10 % of its cycles by executing (not by their
     * latency); the bulk copy ran 59 shipped block keys 1.011x (M >= 512: 1.022x, up to
     * 1.10x) on an H200, and 256-row tiles 0.97-0.98x, which keep the loaders
     * (bench/results-2026-11-26-s23, F3, F5, A11). */
    const bool bulk_a = args.a_scale_k_major && ((unsigned long long)args.a_scale & 15u) == 0 &&
                        (args.a_scale_ld & 3) == 0;
    if (bulk_a && warpgroup == 0) {
        for (int i = threadIdx.x; i < W8A8_STAGES * SM90_SCALE_STAGE_BYTES / 4; i += 128)
            sm90_st_shared_u32(scale_smem + 4 * i, 0u);
        sm90_fence_async_smem(); /* before the bulk copies (the async proxy) */
    }
#else
    const bool bulk_a = false;
#endif
    (void)bulk_a;
    const int m_tiles = (int)((SM90_ROWS + W8A8_BLOCK_M - 1) / W8A8_BLOCK_M);
    const int n_tiles = (int)((SM90_COLS + W8A8_BLOCK_N - 1) / W8A8_BLOCK_N);
    const int k_blocks = (int)((SM90_K + W8A8_BLOCK_K - 1) / W8A8_BLOCK_K); /* stages a tile */
    /* OVERLAP takes K blocks in groups: a count not a multiple of the group gets more, wholly
     * past K (TMA zero-fills them, their scales are 0) */
    const int k_steps = (k_blocks + SM90_GROUP - 1) & ~(SM90_GROUP - 1);
    const sm90_units units = sm90_units_make(m_tiles, n_tiles, raster, group, whole);
    /* this CTA's K blocks of every tile: all of them, or its slice with SPLIT > 1 (whole
     * groups; a separate expression, so the kernels without a split keep their code) */
#if W8A8_SPLIT > 1
    const int k_groups = k_steps / SM90_GROUP;
    const int kb_begin = SM90_GROUP * (int)((long long)units.k_rank * k_groups / W8A8_SPLIT);
    const int kb_end = SM90_GROUP * (int)((long long)(units.k_rank + 1) * k_groups / W8A8_SPLIT);
#else
    const int kb_begin = 0;
    const int kb_end = k_steps;
#endif

    if (threadIdx.x == 0) {
        sm90_tma_prefetch(&tma_a);
        sm90_tma_prefetch(&tma_b);
        if (W8A8_EPILOGUE && tma_store)
            sm90_tma_prefetch(&tma_c);
        for (int s = 0; s < W8A8_STAGES; ++s) {
            /* the producer's expect_tx, and with block scales the loaders' lanes */
            sm90_bar_init(full_bar + 8 * s, SM90_BLOCK ? 1 + 32 * SM90_LOADERS : 1);
            /* one per consumer warp, of every CTA whose producer writes this stage */
            sm90_bar_init(empty_bar + 8 * s, 4 * SM90_TILE_OWNERS * W8A8_CLUSTER);
        }
#if W8A8_PINGPONG
        sm90_bar_init(turn_bar, 4);
        sm90_bar_init(turn_bar + 8, 4);
#endif
#if SM90_KSPLIT > 1
        for (int c = 0; c < W8A8_CONSUMERS; ++c) {
            sm90_bar_init(red_bar + 8 * c, 128 * (SM90_KSPLIT - 1)); /* every peer thread */
            sm90_bar_init(red_bar + 16 + 8 * c, 128);               /* rank 0's threads */
        }
#endif
        sm90_bar_init_fence();
    }
#if SM90_CTAS > 1
    sm90_cluster_sync(); /* the peers' barriers are initialized before anything reaches them */
#else
    __syncthreads();
#endif
    /* Programmatic dependent launch (common/pdl.cuh): wait for the previous kernel before
     * any global memory access. */
    w8a8_pdl_wait();

    if (warpgroup == 0) {
        /* ---- producer ---- */
#if W8A8_CONSUMERS == 2
        sm90_regs_dec<40>();
#endif
        if (threadIdx.x == 0) {
            /* EVICT: the weights' loads (tma_a with SWAP, else tma_b) evict-first in L2 */
            const sm90_u64 weights_policy = W8A8_EVICT ? sm90_l2_evict_first() : 0;
            sm90_ring_fill(units, kb_begin, kb_end, empty_bar,
                           [&](int stage, int mt, int nt, int kb) {
                const sm90_u32 full = full_bar + 8 * stage;
                /* our A tile, and the whole B tile: half from us, half from the peer */
                sm90_bar_arrive_expect_tx(full, SM90_A_BYTES + SM90_B_BYTES);
                const int row = (int)SM90_TILE_ROW(mt), col = (int)SM90_TILE_COL(nt);
                /* the stage's boxes, in K order (past K, TMA zero-fills whole boxes) */
#pragma unroll
                for (int j = 0; j < SM90_KBOXES; ++j) {
                    const int k = (kb * SM90_KBOXES + j) * SM90_BK;
                    sm90_tma_load_2d_policy(a_smem + stage * SM90_A_BYTES + j * SM90_A_BOX,
                                            &tma_a, k, row, full, W8A8_EVICT && W8A8_SWAP,
                                            weights_policy);
#if W8A8_CLUSTER == 2
                    sm90_tma_load_2d_multicast(b_smem + stage * SM90_B_BYTES + j * SM90_B_BOX +
                                                   units.rank * (SM90_B_BOX / 2),
                                               &tma_b, k, col + units.rank * (W8A8_BLOCK_N / 2),
                                               full, (unsigned short)0x3);
#else
                    sm90_tma_load_2d_policy(b_smem + stage * SM90_B_BYTES + j * SM90_B_BOX,
                                            &tma_b, k, col, full, W8A8_EVICT && !W8A8_SWAP,
                                            weights_policy);
#endif
                }
            });
            /* Every load of this CTA is issued: the next kernel may launch once all CTAs are
             * here, its prologue overlapping our last main loop and epilogue. Not earlier: a
             * dependent launched at our start would, with its own dependents, pile grids of
             * waiting CTAs onto the SMs (measured: up to 30 % slower on small grids). trigger
             * 1 leaves it to our CTAs' exit: on an H200 (graph replays of the shipped rows,
             * bench/results-2026-11-28-s38/d7/) that ran 256x4096x14336 per-tensor 1.08x
             * faster (24.6 against 26.7 us; PDL off 24.9) and 256 / 512-row shapes of large N
             * and K 1.02x, but 64-128-row ones 0.94-0.98x. */
            if (!trigger)
                w8a8_pdl_launch_dependents();
        }
#if SM90_BLOCK
        else if (threadIdx.x / 32 >= 1 && threadIdx.x / 32 <= SM90_LOADERS) {
            /* the scale loaders: each stage's block scales, in the producer's order */
            const int loader = threadIdx.x / 32 - 1, lane = threadIdx.x % 32;
            /* Two loops rather than one that chooses per stage: one loop holding both paths
             * spilled the loaders' 40 registers (NVRTC, CUDA 13, 128x128 and 256x112). */
#if !W8A8_SWAP
            if (bulk_a)
                sm90_ring_fill(units, kb_begin, kb_end, empty_bar,
                               [&](int stage, int mt, int nt, int kb) {
                    sm90_scale_fetch_bulk(scale_smem + stage * SM90_SCALE_STAGE_BYTES, args,
                                          SM90_TILE_ROW(mt), SM90_TILE_COL(nt), kb, k_blocks,
                                          loader, lane, full_bar + 8 * stage);
                    sm90_cp_async_arrive(full_bar + 8 * stage);
                });
            else
#endif
                sm90_ring_fill(units, kb_begin, kb_end, empty_bar,
                               [&](int stage, int mt, int nt, int kb) {
                    sm90_scale_fetch(scale_smem + stage * SM90_SCALE_STAGE_BYTES, args,
                                     SM90_TILE_ROW(mt), SM90_TILE_COL(nt), kb, k_blocks, loader,
                                     lane);
                    sm90_cp_async_arrive(full_bar + 8 * stage);
                });
        }
#endif
    } else {
        /* ---- consumers ---- */
#if W8A8_CONSUMERS == 2
        sm90_regs_inc<232>();
#endif
        const int consumer = warpgroup - 1;
        const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
        const int first_row = W8A8_PINGPONG ? 0 : consumer * SM90_WG_M; /* in the tile */
        const sm90_u32 a_rows = first_row * SM90_BK;
        /* EPILOGUE 1: this consumer's staging rows; its thread 0 issues the TMA stores. */
        const sm90_u32 staging =
            W8A8_EPILOGUE && tma_store ? c_smem + consumer * SM90_C_WG_BYTES : 0u;
        const bool store_issuer = (threadIdx.x % 128) == 0;
        (void)store_issuer;
        (void)staging;
        sm90_acc_t acc[SM90_SUB_M][SM90_ACC];
#if SM90_PROMOTED
        /* one K block's partial sums before promotion (WAVE: of one sub-tile at a time) */
        float tmp[W8A8_WAVE ? 1 : SM90_SUB_M][SM90_ACC];
        /* OVERLAP: the next K block's, in flight meanwhile (else unused) */
        float tmp2[W8A8_OVERLAP ? SM90_SUB_M : 1][SM90_ACC];
#endif
        int stage = 0;
        sm90_u32 phase = 0;
        sm90_u32 turn_phase = consumer == 0 ? 1u : 0u; /* consumer 0 goes first */
        (void)turn_phase;
        sm90_u32 red_phase = 0; /* SPLIT, TAIL > 1: parity of the tile's ready/free phases */
        (void)red_phase;
#if W8A8_TAIL > 1
        sm90_tail_walk walk = sm90_tail_walk_make(units, kb_end);
        for (int nth = 0; walk.next(); ++nth) {
            const int unit = walk.unit, kb_begin = walk.kb_begin, kb_end = walk.kb_end;
#else
        for (int unit = units.first, nth = 0; unit < units.count; unit += units.step, ++nth) {
#endif
            if (W8A8_PINGPONG && (nth & 1) != consumer) {
                /* The other consumer's tile: skip its K blocks in the ring. */
                const int ahead = stage + (kb_end - kb_begin);
                phase ^= (sm90_u32)((ahead / W8A8_STAGES) & 1);
                stage = ahead % W8A8_STAGES;
                continue;
            }
            int mt, nt;
            sm90_unit_tile(units, unit, mt, nt);
            int last_stage = 0;
#if W8A8_PINGPONG
            sm90_bar_wait(turn_bar + 8 * consumer, turn_phase);
            turn_phase ^= 1u;
#endif
            /* this thread's first row and column for the epilogue (the tile's origin:
             * sm90_tile_start): with SWAP here, else after the main loop (below; here it
             * holds registers through the main loop: promoted and 128x192 ping-pong kernels
             * then spilled 4 to 36 bytes) */
#define SM90_THREAD_ORIGIN                                                                        \
    const long long row0 = SM90_TILE_ROW(mt) + first_row + 16 * warp + lane / 4;                  \
    const long long col0 = SM90_TILE_COL(nt) + 2 * (lane % 4)
#if W8A8_SWAP
            SM90_THREAD_ORIGIN;
#endif
#if SM90_PROMOTED
            (void)last_stage;
            /* the scale blocks' column offset: block-scaled tiles never move (SM90_COL_ALIGN) */
            const long long col_tile = (long long)nt * W8A8_BLOCK_N;
            const bool last_unit = unit + units.step >= units.count; /* STAGGER */
#pragma unroll
            for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
                for (int i = 0; i < SM90_ACC; ++i)
                    acc[s][i] = 0.0f;
            /* this thread's first row in the tile (its scales' offset in a scale area) */
            const int r_tile = first_row + 16 * warp + lane / 4;
            const sm90_k_walk walk_k = {kb_begin, kb_end, full_bar, empty_bar, scale_smem,
                                        a_smem, b_smem, a_rows, r_tile, consumer, nth, lane,
                                        last_unit};
#if SM90_OFF_CONST
            sm90_promoted_k_loop_at<0, 128 / SM90_OFF_STEP>(acc, tmp, tmp2, stage, phase, walk_k,
                                                            (int)(col_tile & 127));
#else
            sm90_promoted_k_loop(acc, tmp, tmp2, stage, phase, walk_k, (int)(col_tile & 127));
#endif
#if W8A8_PINGPONG
            sm90_pass_turn(turn_bar, consumer, lane);
#endif
#else
#if W8A8_SPLIT > 1
            /* A K slice may be empty (fewer K blocks than ranks): start from zero and always
             * accumulate. Without a split the first wgmma overwrites instead. No branch may
             * write the accumulators: ptxas then keeps them in local memory (measured: 2× slower
             * on an H100). */
#pragma unroll
            for (int s = 0; s < SM90_SUB_M; ++s)
#pragma unroll
                for (int i = 0; i < SM90_ACC; ++i)
                    acc[s][i] = 0;
#endif
            for (int kb = kb_begin; kb < kb_end; ++kb) {
                sm90_bar_wait(full_bar + 8 * stage, phase);
                sm90_issue_k_block(acc, sm90_desc_k128(a_smem + stage * SM90_A_BYTES + a_rows),
                                   sm90_desc_k128(b_smem + stage * SM90_B_BYTES),
                                   W8A8_SPLIT > 1 ? 1 : W8A8_TAIL > 1 ? kb - kb_begin : kb);
                if (kb > kb_begin) {
                    /* The previous K block's wgmmas are done: hand its buffer back. */
                    sm90_wgmma_wait<1>();
                    sm90_release(empty_bar + 8 * last_stage, lane);
                }
                last_stage = stage;
                sm90_ring_next(stage, phase);
            }
#if W8A8_PINGPONG
            sm90_pass_turn(turn_bar, consumer, lane);
#endif
            sm90_wgmma_wait<0>();
#pragma unroll
            for (int s = 0; s < SM90_SUB_M; ++s)
                sm90_fence_set(acc[s]);
            if (W8A8_SPLIT == 1 || kb_end > kb_begin) /* an empty K slice took no stage */
                sm90_release(empty_bar + 8 * last_stage, lane);
#endif
#if W8A8_SPLIT > 1
            sm90_split_reduce(acc, red_smem + consumer * SM90_RED_WG_BYTES, red_bar + 8 * consumer,
                              red_bar + 16 + 8 * consumer, units.k_rank, red_phase);
            red_phase ^= 1u;
            if (units.k_rank != 0)
                continue; /* rank 0 stores the tile */
#endif
#if W8A8_TAIL > 1
            if (walk.split) {
                const int k_rank = (int)sm90_cluster_rank();
                /* the split tile is this CTA's last: ranks > 0 write their sums into the ring
                 * once both consumers' wgmmas have read their last stages */
                if (k_rank != 0 && W8A8_CONSUMERS == 2)
                    sm90_named_sync(5, 256);
                sm90_split_reduce(acc, a_smem + consumer * SM90_RED_WG_BYTES,
                                  red_bar + 8 * consumer, red_bar + 16 + 8 * consumer, k_rank,
                                  red_phase);
                red_phase ^= 1u;
                if (k_rank != 0)
                    continue; /* rank 0 stores the tile */
            }
#endif
#if !W8A8_SWAP
            SM90_THREAD_ORIGIN;
#endif
#undef SM90_THREAD_ORIGIN
#if W8A8_SWAP
            sm90_epilogue_swap(acc, args, row0, col0);
#else
            /* Staged (EPILOGUE 1, 2): before box b, its slot must have been read by the TMA
             * stores that used it last (the previous tile's, or with EPILOGUE 2 box
             * b - SLOTS's); after it, the box is stored (EPILOGUE 2), or every box after the
             * last. */
            auto before_box = [&](int b) {
                if (b == 0 || (W8A8_EPILOGUE == 2 && b >= SM90_C_SLOTS)) {
                    if (store_issuer) {
                        if (b == 0)
                            sm90_bulk_wait_read<0>();
                        else
                            sm90_bulk_wait_read<SM90_C_SLOTS - 1>();
                    }
                    sm90_named_sync(1 + consumer, 128);
                }
            };
            auto after_box = [&](int b) {
                if (W8A8_EPILOGUE == 2 || b == SM90_C_BOXES - 1) {
                    sm90_fence_async_smem();
                    sm90_named_sync(1 + consumer, 128);
                    if (store_issuer) {
                        const int row = (int)SM90_TILE_ROW(mt) + first_row;
#pragma unroll
                        for (int x = W8A8_EPILOGUE == 2 ? b : 0; x <= b; ++x)
                            sm90_tma_store_2d(
                                &tma_c, staging + (x % SM90_C_SLOTS) * SM90_C_BOX_AREA,
                                (int)SM90_TILE_COL(nt) +
                                    x * (SM90_C_BOX_BYTES / SM90_OUT_BYTES),
                                row);
                        sm90_bulk_commit();
                    }
                }
            };
            sm90_epilogue(acc, args, row0, col0, staging, 16 * warp + lane / 4, lane, before_box,
                          after_box);
#endif
        }
#if W8A8_EPILOGUE
        if (staging && store_issuer)
            sm90_bulk_wait_read<0>(); /* the stores have read shared memory before it goes (their
                                     global writes complete with the grid, as any store's) */
#endif
    }
#if SM90_CTAS > 1
    /* No CTA leaves while a peer may still multicast into it, arrive on its barriers or read
     * its partial sums. */
    sm90_cluster_sync();
#endif
}
