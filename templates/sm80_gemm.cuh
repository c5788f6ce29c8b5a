/* sm80_gemm: the portable tensor-core scaled FP8/INT8 GEMM on mma.sync, for Ampere and Ada
 * (sm_80, sm_86, sm_89) and, compiled for plain sm_90, Hopper:
 *
 *   out[m, n] = sa[m] · sb[n] · Σ_k A[m, k] · B[n, k]  (− azp[m] · b_col_sums[n]) (+ bias[n])
 *
 * A CTA computes a BLOCK_M × BLOCK_N tile of out. Its operands stream through a ring of
 * STAGES shared-memory stages, each BLOCK_K bytes of K for the tile's A rows and B rows,
 * loaded with 16-byte cp.async (zero-filled past M, N and K, so tails need no other
 * predication). A CTA whose tile lies inside M and N, when K is a multiple of BLOCK_K, runs
 * its own instance of the main loop (g80_main_loop<true>; not with block scales) whose copies
 * carry no predicate: a pointer a thread and operand, stepped a pass and a K tile. Its loop
 * issues about half the other instructions (neither mma nor ldmatrix) of the predicated one.
 * Rows are stored with an XOR swizzle of their 16-byte chunks (chunk ^ (row % 8) for 128- and
 * 256-byte rows, chunk ^ ((row / 2) % 4) for 64-byte rows), so both the cp.async writes
 * and the ldmatrix reads of 8 rows at one chunk hit 8 distinct bank groups. One barrier per K
 * tile: after it, every warp has finished the stage the next load overwrites.
 *
 * The warps form a WARPS_M × WARPS_N grid over the tile (warp tile WM × WN = BLOCK_M / WARPS_M
 * × BLOCK_N / WARPS_N), times SLICE_K slices that split each K tile's k32 steps (slice s takes
 * steps s, s + SLICE_K, …): in-CTA split-K for small M, where a tile has too few rows to keep
 * the warps busy. The slices' partial sums are added in shared memory in slice order
 * (deterministic, bitwise identical run to run, no global workspace: safe under graph
 * capture). Each k32 step a warp loads its A fragments (one ldmatrix.x4 per 16 rows) and B
 * fragments (one ldmatrix.x4 per 16 columns; B is N×K, K-major, which is mma.sync's "col"
 * operand as stored) and issues (WM / 16) · (WN / 8) mma.sync.m16n8k32 (FP8 on sm_80/86/90,
 * which have no FP8 mma.sync: two f16 m16n8k16 each, on fragments unpacked once, G80_F16);
 * the next step's fragments load while this step's mmas run. Two main loops (PREFETCH):
 *   0  per K tile: wait for its stage, barrier, issue the copies of tile kt + STAGES − 1,
 *      then the tile's steps (its first fragments load after the barrier);
 *   1  the fragments run ahead across tiles too: the barrier for tile kt + 1 follows the mmas
 *      of tile kt's second-to-last step (the last step's fragments are in registers, so the
 *      tensor pipe has work while the warps wait), and the last step's mmas cover the ldmatrix
 *      of tile kt + 1's first fragments; a tile's copies are issued in two parts (A before its
 *      first step, B before its second when it has more than two), so ldmatrix does not queue
 *      behind a whole tile of copies; a 256-byte K tile (8 steps) spreads them evenly over its
 *      first 6 steps, or its first 2 on a 2-stage ring, where the tile being loaded is needed
 *      after step 6 (G80_COPY_STEPS; in the two parts a 128×256 INT8 tile spilled 24 bytes). It
 *      keeps more registers live (ptxas, CUDA 13, sm_90, INT8: 126 → 196 for a 64×32 warp tile,
 *      which then loses its second CTA per SM; 220 → 234 for 64×64, which keeps its CTAs per SM
 *      either way: one of 8 warps, where it measured 10–20 % faster on an H100, or two of 4
 *      warps at 254 registers, 1.07× on an H200: scripts/sm80_gemm.lua offers it for 64×64 warp
 *      tiles).
 *
 * Block scales (A 1×128, B 128×128): BLOCK_K = 128 makes a K tile one scale block, so the
 * tile's mmas go into a zeroed temporary and are promoted, acc += tmp · sa[m, kb] · sb[n/128,
 * kb], in fp32 (the FP8 tensor-core accumulator keeps ~14 bits); a warp's columns lie in one
 * 128-column block (128 % WN == 0). Per-tensor / per-row scales, the INT8 zero point and the
 * bias are applied in the epilogue straight from registers (common/epilogue.cuh).
 *
 * Tiles are rastered in groups of GROUP tile-rows: consecutive CTAs walk down M inside a group
 * and share B columns through L2 (grid: one dimension, tiles_m · tiles_n CTAs).
 *
 * The epilogue (EPILOGUE) stores from registers, or stages the tile in shared memory (the
 * ring, free once the loop is done) and stores whole 16-byte row chunks.
 *
 * Launched with programmatic dependent launch from sm_90 on (the host's ctx->pdl): it lets the
 * next kernel start at once and waits for the previous one before touching memory.
 *
 * PERSIST 1: the grid is at most the CTAs that fit the device at once, each looping over tiles
 * (g80_persistent): the next tile's first K tiles load during the epilogue.
 *
 * Kernel parameters: args (w8a8_gemm_args, common/gemm_args.h). Launch: block 32 · WARPS_M ·
 * WARPS_N · SLICE_K, grid (ceil(M / BLOCK_M) · ceil(N / BLOCK_N), PERSIST 1: at most the
 * CTAs resident at once), dynamic shared memory
 * max(STAGES · (BLOCK_M + BLOCK_N) · BLOCK_K, (SLICE_K − 1) · BLOCK_M · BLOCK_N · 4,
 * EPILOGUE · BLOCK_M · (BLOCK_N · out bytes + 16)) bytes (the ring, reused for the slices'
 * partial sums and the staged tile).
 *
 * Config macros (W8A8_<NAME>) and their legal values:
 *   BLOCK_M   16, 32, 64, 128, 256   rows of the tile
 *   BLOCK_N   16 … 256, a multiple of 16   columns of the tile
 *   BLOCK_K   64, 128, 256           K bytes per stage (block scales: 128)
 *   STAGES    2 … 6                  depth of the cp.async ring
 *   WARPS_M, WARPS_N   warp grid; BLOCK_M / WARPS_M and BLOCK_N / WARPS_N multiples of 16
 *   SLICE_K   1, 2, 4                K slices (dividing BLOCK_K / 32); all warps:
 *                                    WARPS_M · WARPS_N · SLICE_K is 4 or 8
 *   GROUP     1 … 64                 tile-rows per raster group
 *   PREFETCH  0, 1                   the main loop (above)
 *   EPILOGUE  0, 1                   0: each lane stores its accumulators' pairs (4 or 8
 *                                    bytes, 8 rows a warp store); 1: the tile is staged in
 *                                    shared memory (rows padded by 16 bytes) and leaves in
 *                                    16-byte row chunks (element stores where a chunk
 *                                    crosses N or out / ldc are not 16-byte aligned; a
 *                                    tile inside M and N without any bounds check)
 *   PERSIST   0, 1                   1: persistent CTAs (above); SLICE_K 1, no block scales
 * Problem traits: A_TYPE, B_TYPE (E4M3/E5M2 mixes or INT8 with INT8, from sm_80 on; FP8 on
 * sm_80/86/90 as f16 mmas, G80_F16), OUT_TYPE (BF16, FP16, FP32), BIAS_TYPE (NONE, OUT_TYPE
 * or FP32), A_SCALE and B_SCALE (TENSOR or ROW each, or BLOCK on both), AZP (INT8 only: NONE,
 * TENSOR, TOKEN). Test hook: SOFT_FP8 1 unpacks FP8 with integer operations on any arch, as
 * sm_80/86 do (default 0). */
#include "common/gemm_args.h"
#include "common/types.cuh"

/* The host (src/sm80_gemm.c) always defines every trait and every config value; PREFETCH,
 * EPILOGUE and PERSIST, added later, are 0 when a hand-written set of defines leaves them out. */
#ifndef W8A8_PREFETCH
#define W8A8_PREFETCH 0
#endif
#ifndef W8A8_EPILOGUE
#define W8A8_EPILOGUE 0
#endif
#ifndef W8A8_PERSIST
#define W8A8_PERSIST 0
#endif
#if !defined(W8A8_A_TYPE) || !defined(W8A8_B_TYPE) || !defined(W8A8_OUT_TYPE) ||            \
    !defined(W8A8_BIAS_TYPE) || !defined(W8A8_A_SCALE) || !defined(W8A8_B_SCALE) ||         \
    !defined(W8A8_AZP)
#error "sm80_gemm needs W8A8_A_TYPE, B_TYPE, OUT_TYPE, BIAS_TYPE, A_SCALE, B_SCALE, AZP"
#endif
#if !defined(W8A8_BLOCK_M) || !defined(W8A8_BLOCK_N) || !defined(W8A8_BLOCK_K) ||            \
    !defined(W8A8_STAGES) || !defined(W8A8_WARPS_M) || !defined(W8A8_WARPS_N) ||             \
    !defined(W8A8_SLICE_K) || !defined(W8A8_GROUP)
#error "sm80_gemm needs W8A8_BLOCK_M, BLOCK_N, BLOCK_K, STAGES, WARPS_M, WARPS_N, SLICE_K, GROUP"
#endif

#include "common/epilogue.cuh"
#include "common/pdl.cuh"
#include "common/sm80.cuh"

#define G80_INT8 (W8A8_A_TYPE == W8A8_T_INT8)
#define G80_BLOCK (W8A8_A_SCALE == W8A8_S_BLOCK)
#define G80_BM W8A8_BLOCK_M
#define G80_BN W8A8_BLOCK_N
#define G80_BK W8A8_BLOCK_K
#define G80_SLICE_WARPS (W8A8_WARPS_M * W8A8_WARPS_N)   /* warps of one K slice */
#define G80_WARPS (G80_SLICE_WARPS * W8A8_SLICE_K)
#define G80_THREADS (32 * G80_WARPS)
#define G80_WM (G80_BM / W8A8_WARPS_M)                   /* warp tile */
#define G80_WN (G80_BN / W8A8_WARPS_N)
#define G80_MT (G80_WM / 16)                             /* m16 tiles of a warp */
#define G80_NT (G80_WN / 8)                              /* n8 tiles of a warp */
#define G80_CHUNKS (G80_BK / 16)                         /* 16-byte chunks of a smem row */
#define G80_STEPS (G80_BK / 32 / W8A8_SLICE_K)           /* k32 steps of a slice per K tile */
/* PREFETCH 1: the step before which B's copies are issued and the tile's group is closed
 * (before the barrier, which follows step STEPS − 2) */
#define G80_B_STEP (G80_STEPS > 2 ? 1 : 0)
#define G80_A_STAGE_BYTES (G80_BM * G80_BK)
#define G80_STAGE_BYTES ((G80_BM + G80_BN) * G80_BK)
#define G80_ROWS_PER_PASS (G80_THREADS / G80_CHUNKS)     /* rows one pass of cp.async covers */
#define G80_PASSES(ROWS) (((ROWS) + G80_ROWS_PER_PASS - 1) / G80_ROWS_PER_PASS)
/* PREFETCH 1 with 8 k32 steps a tile (BLOCK_K 256): a tile's copies are spread over its first
 * COPY_STEPS steps, COPY_PER passes a step (A's passes, then B's), and the group closes after
 * the last of them: over 6 steps (all but the last two) with 3 stages or more; over 2 with 2
 * stages, where the tile being loaded is the next one, needed after step 6. With 4 steps or
 * fewer they go as two parts (G80_B_STEP, above). */
#define G80_COPY_STEPS (G80_STEPS == 8 ? (W8A8_STAGES == 2 ? 2 : G80_STEPS - 2) : 0)
#define G80_COPY_PER                                                                              \
    ((G80_PASSES(G80_BM) + G80_PASSES(G80_BN) + G80_COPY_STEPS - 1) /                             \
     (G80_COPY_STEPS ? G80_COPY_STEPS : 1))
/* the step whose copies close the tile's cp.async group */
#define G80_COPY_CLOSE (G80_COPY_STEPS ? G80_COPY_STEPS - 1 : G80_B_STEP)

static_assert(G80_BM == 16 || G80_BM == 32 || G80_BM == 64 || G80_BM == 128 || G80_BM == 256,
              "BLOCK_M is 16, 32, 64, 128 or 256");
static_assert(G80_BN % 16 == 0 && G80_BN >= 16 && G80_BN <= 256, "BLOCK_N: 16..256 step 16");
static_assert(G80_BK == 64 || G80_BK == 128 || G80_BK == 256, "BLOCK_K is 64, 128 or 256 bytes");
static_assert(W8A8_STAGES >= 2 && W8A8_STAGES <= 6, "STAGES is 2..6");
static_assert(W8A8_SLICE_K == 1 || W8A8_SLICE_K == 2 || W8A8_SLICE_K == 4, "SLICE_K");
static_assert((G80_BK / 32) % W8A8_SLICE_K == 0, "SLICE_K divides the K tile's k32 steps");
static_assert(G80_WARPS == 4 || G80_WARPS == 8, "WARPS_M * WARPS_N * SLICE_K is 4 or 8");
static_assert(G80_BM % W8A8_WARPS_M == 0 && G80_WM % 16 == 0, "BLOCK_M / WARPS_M: multiple of 16");
static_assert(G80_BN % W8A8_WARPS_N == 0 && G80_WN % 16 == 0, "BLOCK_N / WARPS_N: multiple of 16");
static_assert(W8A8_GROUP >= 1 && W8A8_GROUP <= 64, "GROUP is 1..64");
static_assert(W8A8_PREFETCH == 0 || W8A8_PREFETCH == 1, "PREFETCH is 0 or 1");
static_assert(W8A8_EPILOGUE == 0 || W8A8_EPILOGUE == 1, "EPILOGUE is 0 or 1");
static_assert(W8A8_PERSIST == 0 || W8A8_PERSIST == 1, "PERSIST is 0 or 1");
static_assert(!W8A8_PERSIST || (W8A8_SLICE_K == 1 && !G80_BLOCK),
              "PERSIST: one K slice, per-tensor or per-row scales");
static_assert(G80_STEPS == 1 || G80_STEPS == 2 || G80_STEPS == 4 || G80_STEPS == 8,
              "k32 steps a tile: 1, 2, 4 or 8");
static_assert(G80_INT8 == (W8A8_B_TYPE == W8A8_T_INT8), "INT8 pairs only with INT8");
static_assert(W8A8_A_TYPE == W8A8_T_E4M3 || W8A8_A_TYPE == W8A8_T_E5M2 || G80_INT8, "A_TYPE");
static_assert(W8A8_B_TYPE == W8A8_T_E4M3 || W8A8_B_TYPE == W8A8_T_E5M2 || G80_INT8, "B_TYPE");
static_assert(G80_BLOCK == (W8A8_B_SCALE == W8A8_S_BLOCK), "block scales on both sides or none");
static_assert(!G80_BLOCK || !G80_INT8, "block scales need FP8");
static_assert(!G80_BLOCK || (G80_BK == 128 && 128 % G80_WN == 0),
              "block scales: BLOCK_K 128 (one scale block a tile), a warp in one 128-column block");
static_assert(W8A8_AZP == W8A8_Z_NONE || G80_INT8, "a zero point needs INT8");
static_assert(W8A8_OUT_TYPE == W8A8_T_BF16 || W8A8_OUT_TYPE == W8A8_T_FP16 ||
              W8A8_OUT_TYPE == W8A8_T_FP32, "OUT_TYPE");
static_assert(G80_THREADS % G80_CHUNKS == 0 && G80_ROWS_PER_PASS % 8 == 0,
              "a cp.async pass covers whole swizzle periods");

typedef w8a8_mma_k32<W8A8_A_TYPE, W8A8_B_TYPE> g80_mma;
typedef g80_mma::acc_t g80_acc_t;

/* ---- shared-memory layout ---------------------------------------------------------------- */

/* The ring of stages, reused for the slices' partial sums and the staged output tile */
extern __shared__ __align__(128) unsigned char g80_smem[];

/* The XOR applied to a row's chunk index; depends only on row % 8. */
W8A8_DEVICE int g80_swizzle(int row) { return G80_BK >= 128 ? (row & 7) : ((row >> 1) & 3); }

/* ---- loads: one K tile of A and B into a stage ------------------------------------------- */

/* Copies rows [0, ROWS) of one operand (row r at global `row0 + r`, K bytes [k0, k0 + BK))
 * into a stage. Thread tid moves chunk tid % CHUNKS of rows tid / CHUNKS + j · ROWS_PER_PASS;
 * ROWS_PER_PASS is a multiple of 8, so the thread's swizzle is the same in every pass. */
/* Where thread tid's chunk (tid % CHUNKS) of its first row (tid / CHUNKS) lies in an
 * operand's part of a stage, swizzled */
W8A8_DEVICE w8a8_u32 g80_chunk_offset(int tid)
{
    const int chunk = tid % G80_CHUNKS, row = tid / G80_CHUNKS;
    return (w8a8_u32)(row * G80_BK + ((chunk ^ g80_swizzle(row)) << 4));
}

template <int ROWS>
W8A8_DEVICE void g80_load_rows(w8a8_u32 stage, const w8a8_u8 *base, long long ld,
                               long long rows_left, long long k_left, int tid, int p0, int p1)
{
    const int chunk = tid % G80_CHUNKS, row = tid / G80_CHUNKS;
    const bool k_ok = 16 * chunk < k_left;
    const w8a8_u32 dst = stage + g80_chunk_offset(tid);
    const w8a8_u8 *src = base + row * ld + 16 * chunk;
#pragma unroll
    for (int j = 0; j < G80_PASSES(ROWS); ++j) {
        const int r = row + j * G80_ROWS_PER_PASS;
        if ((ROWS % G80_ROWS_PER_PASS == 0 || r < ROWS) && j >= p0 && j < p1) {
            const bool ok = k_ok && r < rows_left;
            w8a8_cp_async16(dst + j * G80_ROWS_PER_PASS * G80_BK,
                            ok ? (const void *)(src + (long long)j * G80_ROWS_PER_PASS * ld)
                               : (const void *)base,
                            ok);
        }
    }
}

/* A K tile's index: an int (the unpredicated copies' loop kept 20 registers fewer than with a
 * 64-bit index: 234 against 254 for 128×256 INT8 tiles with prefetch 1), but 64-bit with block
 * scales, where an int took a 16×64 tile of 4 slices on sm_89 from 56 registers to 96 and 8
 * bytes of spills (ptxas, CUDA 13). */
#if G80_BLOCK
typedef long long g80_kt;
#else
typedef int g80_kt;
#endif

/* The fast path of the copies, for a CTA whose tile lies wholly inside M and N when K is a
 * multiple of BLOCK_K: no predicate, no select, a pointer per operand that steps ROWS_PER_PASS
 * rows a pass and BLOCK_K bytes a K tile. A thread's chunk of its first row of one operand: */
struct g80_copier {
    const w8a8_u8 *src; /* the chunk at K tile 0 */
    long long step;     /* ROWS_PER_PASS rows, in bytes */
    w8a8_u32 dst;       /* the chunk's swizzled offset in the operand's part of a stage */
};

W8A8_DEVICE g80_copier g80_copier_at(const w8a8_u8 *base, long long ld, int tid)
{
    g80_copier c = {};
#if G80_BLOCK
    /* block scales keep the predicated main loop only (see the kernel): no copier */
    (void)base;
    (void)ld;
    (void)tid;
#else
    const int chunk = tid % G80_CHUNKS, row = tid / G80_CHUNKS;
    c.src = base + row * ld + 16 * chunk;
    c.step = G80_ROWS_PER_PASS * ld;
    c.dst = g80_chunk_offset(tid);
    /* opaque to the compiler from here: kept in two registers rather than recomputed from
     * row · ld for every pass of every K tile (ptxas, CUDA 13, did the latter) */
    asm volatile("" : "+l"(c.src));
#endif
    return c;
}

/* K tile kt of an operand of ROWS rows (the tile's first at `base`, ROWS_LEFT of them inside
 * the operand) into a stage: FAST, the copier's unpredicated copies; else g80_load_rows. */
template <bool FAST, int ROWS>
W8A8_DEVICE void g80_load(w8a8_u32 stage, const g80_copier &c, const w8a8_u8 *base, long long ld,
                          long long rows_left, g80_kt kt, long long k, int tid, int p0 = 0,
                          int p1 = G80_PASSES(ROWS))
{
    /* passes [p0, p1) only: constants once the callers' loops are unrolled */
    if (FAST) {
        const int row = tid / G80_CHUNKS;
        const w8a8_u8 *src = c.src + (long long)kt * G80_BK;
#pragma unroll
        for (int j = 0; j < G80_PASSES(ROWS); ++j) {
            if ((ROWS % G80_ROWS_PER_PASS == 0 || row + j * G80_ROWS_PER_PASS < ROWS) &&
                j >= p0 && j < p1)
                w8a8_cp_async16_all(stage + c.dst + j * G80_ROWS_PER_PASS * G80_BK, src);
            src += c.step;
        }
    } else {
        g80_load_rows<ROWS>(stage, base + (long long)kt * G80_BK, ld, rows_left,
                            k - (long long)kt * G80_BK, tid, p0, p1);
    }
}

/* ---- the main loop's fragments ----------------------------------------------------------- */

struct g80_frags {
    w8a8_u32 a[G80_MT][4];     /* a0..a3 of each m16 tile */
    w8a8_u32 b[G80_NT / 2][4]; /* b0, b1 of n8 tiles 2j and 2j + 1 */
};

/* Fragments of k32 step `step` of a stage. a_row / b_row: this lane's ldmatrix row offsets
 * (bytes) for m tile 0 / n pair 0; a_hi / b_hi: the lane's extra chunk (0 or 1); a_swz /
 * b_swz: the lane's row swizzle. */
W8A8_DEVICE void g80_load_frags(g80_frags &f, w8a8_u32 a_stage, w8a8_u32 b_stage, int step,
                                w8a8_u32 a_row, w8a8_u32 b_row, int a_hi, int b_hi, int a_swz,
                                int b_swz)
{
    const w8a8_u32 a_addr = a_stage + a_row + (((2 * step + a_hi) ^ a_swz) << 4);
    const w8a8_u32 b_addr = b_stage + b_row + (((2 * step + b_hi) ^ b_swz) << 4);
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
        w8a8_ldmatrix_x4(f.a[mi], a_addr + mi * 16 * G80_BK);
#pragma unroll
    for (int nj = 0; nj < G80_NT / 2; ++nj)
        w8a8_ldmatrix_x4(f.b[nj], b_addr + nj * 16 * G80_BK);
}

/* FP8 compiled for Hopper (plain sm_90), which has no FP8 mma.sync: ptxas expands each
 * m16n8k32 into two f16 m16n8k16 HMMAs, the first from zero, and 4 FADDs that add their sum
 * into the accumulators (the unpacks it shares across the fragment's uses). G80_F16 unpacks the
 * fragments once here and runs the two m16n8k16 mmas into the accumulators themselves: word w
 * of a k32 fragment (k 4t…4t+3 of its rows) becomes f16x2 lo (k 4t, 4t + 1) and hi (4t + 2,
 * 4t + 3), fed as k16's (2t, 2t + 1) and (8 + 2t, 8 + 2t + 1) on both sides — the same K
 * permutation for A and B, so the same sum; e4m3/e5m2 → f16 is exact and the accumulators are
 * fp32. The first k16 mma takes words 0, 1 of A and word 0 of B, the second words 2, 3 and 1.
 * Ampere (sm_80/86), which has no FP8 at all, runs FP8 the same way, its unpacks done with
 * integer operations (common/sm80.cuh: they pair a word's bytes 1, 3 and 0, 2 instead, alike on
 * both sides, and leave e4m3 256 times too small, made up once before the epilogue). sm_89
 * keeps its native FP8 mma (but W8A8_SOFT_FP8, a test of the Ampere path on newer GPUs, takes
 * this path everywhere). */
#if !G80_INT8 && (W8A8_FP8_UNPACK_BITS || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900))
#define G80_F16 1
#else
#define G80_F16 0
#endif

#if G80_F16
/* A first when all of A's unpacked fragments and one of B's take fewer registers than all of
 * B's and one of A's */
#define G80_A_FIRST (G80_MT * 8 + 4 < G80_NT * 4 + 8)

/* WORDS fragment words → [word][lo, hi] f16x2, w8a8_fp8_unpack_factor<TYPE>() times too small
 * (256 for e4m3 unpacked with integer operations): the kernel scales its sums once */
template <int TYPE, int WORDS>
W8A8_DEVICE void g80_unpack(const w8a8_u32 *words, w8a8_u32 (&h)[WORDS][2])
{
#pragma unroll
    for (int w = 0; w < WORDS; ++w)
        w8a8_fp8x4_to_f16x2<TYPE>(words[w], h[w][0], h[w][1]);
}
#endif

W8A8_DEVICE void g80_mma_frags(g80_acc_t (&acc)[G80_MT][G80_NT][4], const g80_frags &f)
{
#if G80_F16
    /* Every fragment is unpacked once. One operand's are all unpacked first, the other's one
     * tile at a time in the loop over its tiles: whichever keeps fewer registers live (A: 8
     * a tile, B: 4; a 64×32 warp tile of block scales spilled with B's first, ptxas, CUDA 13). */
    w8a8_u32 a16[G80_A_FIRST ? G80_MT : 1][4][2]; /* [m tile][word][lo, hi] */
    w8a8_u32 b16[G80_A_FIRST ? 1 : G80_NT][2][2]; /* [n tile][word][lo, hi] */
#pragma unroll
    for (int mi = 0; mi < (G80_A_FIRST ? G80_MT : 0); ++mi)
        g80_unpack<W8A8_A_TYPE, 4>(f.a[mi], a16[mi]);
#pragma unroll
    for (int ni = 0; ni < (G80_A_FIRST ? 0 : G80_NT); ++ni)
        g80_unpack<W8A8_B_TYPE, 2>(&f.b[ni >> 1][2 * (ni & 1)], b16[ni]);
#pragma unroll
    for (int o = 0; o < (G80_A_FIRST ? G80_NT : G80_MT); ++o) {
        if (G80_A_FIRST)
            g80_unpack<W8A8_B_TYPE, 2>(&f.b[o >> 1][2 * (o & 1)], b16[0]);
        else
            g80_unpack<W8A8_A_TYPE, 4>(f.a[o], a16[0]);
#pragma unroll
        for (int i = 0; i < (G80_A_FIRST ? G80_MT : G80_NT); ++i) {
            const int mi = G80_A_FIRST ? i : o, ni = G80_A_FIRST ? o : i;
            const w8a8_u32 (&a)[4][2] = a16[G80_A_FIRST ? mi : 0];
            const w8a8_u32 (&b)[2][2] = b16[G80_A_FIRST ? 0 : ni];
            w8a8_mma_k16_f16(acc[mi][ni], a[0][0], a[1][0], a[0][1], a[1][1], b[0][0], b[0][1]);
            w8a8_mma_k16_f16(acc[mi][ni], a[2][0], a[3][0], a[2][1], a[3][1], b[1][0], b[1][1]);
        }
    }
#else
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < G80_NT; ++ni)
            g80_mma::run(acc[mi][ni], f.a[mi][0], f.a[mi][1], f.a[mi][2], f.a[mi][3],
                         f.b[ni >> 1][2 * (ni & 1)], f.b[ni >> 1][2 * (ni & 1) + 1]);
#endif
}

/* This slice's k32 steps of one stage into acc, the next step's fragments loading while the
 * current step's mmas run. */
W8A8_DEVICE void g80_stage_mma(g80_acc_t (&acc)[G80_MT][G80_NT][4], w8a8_u32 a_stage,
                               w8a8_u32 b_stage, int slice, w8a8_u32 a_row, w8a8_u32 b_row,
                               int a_hi, int b_hi, int a_swz, int b_swz)
{
    g80_frags f[2];
    g80_load_frags(f[0], a_stage, b_stage, slice, a_row, b_row, a_hi, b_hi, a_swz, b_swz);
#pragma unroll
    for (int j = 0; j < G80_STEPS; ++j) {
        if (j + 1 < G80_STEPS)
            g80_load_frags(f[(j + 1) & 1], a_stage, b_stage, slice + (j + 1) * W8A8_SLICE_K,
                           a_row, b_row, a_hi, b_hi, a_swz, b_swz);
        g80_mma_frags(acc, f[j & 1]);
    }
}

/* acc *= factor (nothing when it is 1) */
W8A8_DEVICE void g80_scale_acc(g80_acc_t (&acc)[G80_MT][G80_NT][4], float factor)
{
    if (factor == 1.0f)
        return;
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < G80_NT; ++ni)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                acc[mi][ni][i] *= factor;
}

W8A8_DEVICE void g80_zero(g80_acc_t (&acc)[G80_MT][G80_NT][4])
{
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < G80_NT; ++ni)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                acc[mi][ni][i] = 0;
}

#if G80_BLOCK
/* K block kt's scales: this lane's A rows (row0 + 16·mi + 8·h) and the warp's B block (128 %
 * WN == 0: one per warp). Loaded before the tile's mmas, which hide their latency. */
struct g80_scales {
    float a[G80_MT][2];
    float b;
};

W8A8_DEVICE void g80_scales_load(g80_scales &s, const w8a8_gemm_args &args, long long row0,
                                 long long b_block, long long blocks_n, long long kt)
{
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long row = row0 + 16 * mi + 8 * h;
            s.a[mi][h] = row < args.m ? w8a8_block_scale(args.a_scale, args.a_scale_k_major,
                                                         args.a_scale_ld, row, kt)
                                      : 0.0f;
        }
    s.b = b_block < blocks_n
              ? w8a8_block_scale(args.b_scale, args.b_scale_k_major, args.b_scale_ld, b_block, kt)
              : 0.0f;
}

/* acc += tmp · sa · sb in fp32: the K block's sums promoted out of the tensor core's FP8
 * accumulator */
W8A8_DEVICE void g80_promote(g80_acc_t (&acc)[G80_MT][G80_NT][4],
                             const g80_acc_t (&tmp)[G80_MT][G80_NT][4], const g80_scales &s)
{
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < G80_NT; ++ni)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                acc[mi][ni][i] = __fmaf_rn(tmp[mi][ni][i], s.a[mi][i >> 1] * s.b, acc[mi][ni][i]);
}
#endif

/* ---- epilogue ---------------------------------------------------------------------------- */

/* The epilogue's terms of output columns col and col + 1 (0 past N): sb and the bias. For warp
 * tiles of 128 accumulators a lane (64×64, 32×128, 128×32: the large tiles of M >= 2048, one
 * CTA an SM), without a zero point and when the terms are at most 32 values a lane
 * (G80_HOIST), the epilogue loads every column's before the first store: loaded between the
 * stores (as the code did before session 32), ptxas (CUDA 13, sm_90) issued each column
 * pair's loads after the previous pair's stores (a store to out may alias them), and a lane
 * waited for a global load's round trip once per 8 columns of its warp tile. Otherwise each
 * pair's terms load before its stores, as before: hoisted, they spilled 16-28 bytes of a
 * 64×64 warp tile with a zero point, a bias and fp32 out (sm_80, sm_90) and 76 bytes of a
 * 32×128 one of 4 K slices with a bias (sm_89), and took small tiles of several CTAs an SM
 * from 72 registers to 128 (sm_89). Measured on an H200 (session 32, D4, INT8 per-row, the
 * same configs against the previous template): staged epilogues (EPILOGUE 1) 1.008-1.025×
 * faster at 4096³, 2048×6144×4096 and 2048×4096×14336, direct stores 0.996-1.006×. */
#define G80_HOIST                                                                                 \
    (W8A8_AZP == W8A8_Z_NONE && G80_MT * G80_NT * 4 == 128 &&                                     \
     G80_NT * (W8A8_BIAS_TYPE != W8A8_T_NONE ? 4 : 2) <= 32)
template <bool INSIDE = false>
W8A8_DEVICE void g80_col_terms(const w8a8_gemm_args &args, long long col, float (&sb)[2],
                               float (&bias)[2])
{
#pragma unroll
    for (int j = 0; j < 2; ++j) {
        const bool in = INSIDE || col + j < args.n;
        sb[j] = in ? w8a8_b_scale_at(args, col + j) : 0.0f;
        bias[j] = in ? w8a8_load_bias(args.bias, col + j) : 0.0f;
    }
}

/* Scales, corrects and stores the warp tile: accumulator i of (mi, ni) is row
 * row0 + 16·mi + 8·(i >> 1), column col0 + 8·ni + (i & 1), with row0 / col0 this lane's;
 * the columns' terms all before the first store with G80_HOIST (above). */
W8A8_DEVICE void g80_store(const w8a8_gemm_args &args, const g80_acc_t (&acc)[G80_MT][G80_NT][4],
                           long long row0, long long col0)
{
    float sa[G80_MT][2];
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long row = row0 + 16 * mi + 8 * h;
            sa[mi][h] = row < args.m ? w8a8_a_scale_at(args, row) : 0.0f;
        }
    float sb[G80_NT][2], bias[G80_NT][2];
#pragma unroll
    for (int ni = 0; ni < G80_NT; ++ni)
        if (G80_HOIST)
            g80_col_terms(args, col0 + 8 * ni, sb[ni], bias[ni]);
#pragma unroll
    for (int ni = 0; ni < G80_NT; ++ni) {
        const long long col = col0 + 8 * ni;
        if (col >= args.n)
            continue;
        const bool pair = col + 1 < args.n;
        if (!G80_HOIST)
            g80_col_terms(args, col, sb[ni], bias[ni]);
#pragma unroll
        for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const long long row = row0 + 16 * mi + 8 * h;
                if (row >= args.m)
                    continue;
                const float v0 = w8a8_azp_corrected(args, acc[mi][ni][2 * h], row, col) *
                                     sa[mi][h] * sb[ni][0] + bias[ni][0];
                const float v1 = pair ? w8a8_azp_corrected(args, acc[mi][ni][2 * h + 1], row,
                                                           col + 1) * sa[mi][h] * sb[ni][1] +
                                            bias[ni][1]
                                      : 0.0f;
                w8a8_store2((char *)args.out + row * args.ldc * W8A8_OUT_BYTES, col, v0, v1, pair);
            }
    }
}

#if W8A8_EPILOGUE
#define G80_OUT_ROW (G80_BN * W8A8_OUT_BYTES + 16) /* staged row: 16 bytes of padding */
#define G80_OUT_CHUNKS (G80_BN * W8A8_OUT_BYTES / 16)

/* The warp tile's outputs, scaled and corrected as g80_store does, into the staged tile
 * (local rows r0 + 16·mi + 8·h, columns c0 + 8·ni, +1); every pair is written, also past M
 * and N (those never leave shared memory). Kept apart from g80_store on purpose: one
 * function for both (a template on the destination) took ptxas (CUDA 13, sm_90) from 227
 * registers to 255 and 76–104 bytes of spills for a 128×128 INT8 tile with fp32 out, a zero
 * point and a bias. */
template <bool INSIDE>
W8A8_DEVICE void g80_stage(const w8a8_gemm_args &args, const g80_acc_t (&acc)[G80_MT][G80_NT][4],
                           unsigned char *tile, int r0, int c0, long long m0, long long n0)
{
    float sa[G80_MT][2];
#pragma unroll
    for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const long long row = m0 + r0 + 16 * mi + 8 * h;
            sa[mi][h] = INSIDE || row < args.m ? w8a8_a_scale_at(args, row) : 0.0f;
        }
    float sb[G80_NT][2], bias[G80_NT][2]; /* as in g80_store */
#pragma unroll
    for (int ni = 0; ni < G80_NT; ++ni)
        if (G80_HOIST)
            g80_col_terms<INSIDE>(args, n0 + c0 + 8 * ni, sb[ni], bias[ni]);
#pragma unroll
    for (int ni = 0; ni < G80_NT; ++ni) {
        const int c = c0 + 8 * ni;
        const long long col = n0 + c;
        if (!G80_HOIST)
            g80_col_terms<INSIDE>(args, col, sb[ni], bias[ni]);
#pragma unroll
        for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = r0 + 16 * mi + 8 * h;
                const long long row = m0 + r;
                const bool live = INSIDE || (row < args.m && col < args.n);
                const float v0 = live ? w8a8_azp_corrected(args, acc[mi][ni][2 * h], row, col) *
                                            sa[mi][h] * sb[ni][0] + bias[ni][0]
                                      : 0.0f;
                const float v1 = live && (INSIDE || col + 1 < args.n)
                                     ? w8a8_azp_corrected(args, acc[mi][ni][2 * h + 1], row,
                                                          col + 1) * sa[mi][h] * sb[ni][1] +
                                           bias[ni][1]
                                     : 0.0f;
                w8a8_store2(tile + r * G80_OUT_ROW, c, v0, v1, true);
            }
    }
}

/* The staged tile to global memory by every thread of the CTA: 16-byte chunks of rows inside
 * M, each stored whole where it lies inside N and `aligned` (out and the row pitch are 16-byte
 * multiples), element by element otherwise. */
W8A8_DEVICE void g80_store_staged(const w8a8_gemm_args &args, const unsigned char *tile,
                                  long long m0, long long n0, int tid, bool inside)
{
    const int per = 16 / W8A8_OUT_BYTES; /* elements a chunk */
    const long long pitch = args.ldc * W8A8_OUT_BYTES;
    const bool aligned = (((unsigned long long)args.out | (unsigned long long)pitch) & 15) == 0;
    if constexpr (G80_THREADS % G80_OUT_CHUNKS == 0 &&
                  G80_BM % (G80_THREADS / G80_OUT_CHUNKS) == 0) {
        /* a tile inside M and N: every chunk whole, a thread's chunk column the same in
         * every pass and its rows THREADS / CHUNKS apart, one pointer stepped a pass (the
         * general loop below costs 38 instructions a chunk: 64-bit bounds and addresses) */
        if (inside && aligned) {
            constexpr int rows = G80_THREADS / G80_OUT_CHUNKS;
            const int r = tid / G80_OUT_CHUNKS, c = tid % G80_OUT_CHUNKS;
            const unsigned char *src = tile + r * G80_OUT_ROW + 16 * c;
            unsigned char *dst =
                (unsigned char *)args.out + (m0 + r) * pitch + n0 * W8A8_OUT_BYTES + 16 * c;
            const long long step = rows * pitch;
#pragma unroll 4
            for (int p = 0; p < G80_BM / rows; ++p) {
                *(uint4 *)dst = *(const uint4 *)(src + p * rows * G80_OUT_ROW);
                dst += step;
            }
            return;
        }
    }
    for (int i = tid; i < G80_BM * G80_OUT_CHUNKS; i += G80_THREADS) {
        const int r = i / G80_OUT_CHUNKS, c = i % G80_OUT_CHUNKS;
        const long long row = m0 + r, col = n0 + (long long)c * per;
        if (row >= args.m || col >= args.n)
            continue;
        const unsigned char *src = tile + r * G80_OUT_ROW + 16 * c;
        unsigned char *dst = (unsigned char *)args.out + row * pitch + col * W8A8_OUT_BYTES;
        if (aligned && col + per <= args.n) {
            *(uint4 *)dst = *(const uint4 *)src;
        } else {
            const long long left = args.n - col < per ? args.n - col : per;
            for (long long e = 0; e < left * W8A8_OUT_BYTES; ++e)
                dst[e] = src[e];
        }
    }
}
#endif

/* The slices' partial sums, added into slice 0's registers in slice order. The ring is free:
 * every cp.async has landed and every warp has left the main loop. */
W8A8_DEVICE void g80_reduce_slices(g80_acc_t (&acc)[G80_MT][G80_NT][4], unsigned char *smem,
                                   int slice, int slice_warp, int lane)
{
    const int per_warp = G80_MT * G80_NT * 4 * 32;
    g80_acc_t *partials = (g80_acc_t *)smem;
    w8a8_cp_async_wait<0>();
    __syncthreads();
    if (slice > 0) {
        g80_acc_t *mine = partials + ((slice - 1) * G80_SLICE_WARPS + slice_warp) * per_warp;
#pragma unroll
        for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
            for (int ni = 0; ni < G80_NT; ++ni)
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    mine[((mi * G80_NT + ni) * 4 + i) * 32 + lane] = acc[mi][ni][i];
    }
    __syncthreads();
    if (slice == 0)
        for (int s = 1; s < W8A8_SLICE_K; ++s) {
            const g80_acc_t *theirs = partials + ((s - 1) * G80_SLICE_WARPS + slice_warp) * per_warp;
#pragma unroll
            for (int mi = 0; mi < G80_MT; ++mi)
#pragma unroll
                for (int ni = 0; ni < G80_NT; ++ni)
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        acc[mi][ni][i] += theirs[((mi * G80_NT + ni) * 4 + i) * 32 + lane];
        }
}

/* ---- the main loop ----------------------------------------------------------------------- */

/* What the main loop needs of its CTA. */
struct g80_cta {
    long long m0, n0;                /* the tile's first row and column */
    const w8a8_u8 *a_base, *b_base;  /* their A and B rows */
    g80_copier a_copy, b_copy;
    w8a8_u32 ring, a_row, b_row;     /* the ring; this lane's ldmatrix row offsets */
    int a_hi, b_hi, a_swz, b_swz;    /* its extra chunk and swizzle (g80_load_frags) */
    int tid, lane, slice, warp_m, warp_n, k_tiles;
};

/* PERSIST 1: a CTA loops over tiles (blockIdx.x, + gridDim.x, …; the grid is as many CTAs as
 * fit the device at once). Once its main loop is done, the CTA issues the copies of the first
 * G80_EARLY K tiles of its next tile into the stages the staged epilogue leaves alone (those
 * past G80_STAGED_BYTES; all STAGES − 1 with EPILOGUE 0), then runs the epilogue while they
 * land, then the rest of the prologue: the pipeline's fill overlaps the epilogue. Every tile's
 * K tile kt lies in stage (G80_PHASE + kt) mod STAGES, so the early ones are the ring's last
 * stages. Without PERSIST the phase is 0, as before. */
#if W8A8_EPILOGUE
#define G80_STAGED_BYTES (G80_BM * (G80_BN * W8A8_OUT_BYTES + 16))
#else
#define G80_STAGED_BYTES 0
#endif
#define G80_FREE_STAGES                                                                           \
    (W8A8_STAGES - (G80_STAGED_BYTES + G80_STAGE_BYTES - 1) / G80_STAGE_BYTES)
#define G80_EARLY                                                                                 \
    (G80_FREE_STAGES < 0                  ? 0                                                     \
     : G80_FREE_STAGES > W8A8_STAGES - 1 ? W8A8_STAGES - 1                                       \
                                          : G80_FREE_STAGES)
#if W8A8_PERSIST
#define G80_PHASE ((W8A8_STAGES - G80_EARLY) % W8A8_STAGES)
#else
#define G80_PHASE 0
#endif

/* Copies of K tiles [FIRST, LAST) of the CTA's tile (those before STAGES − 1) into their
 * stages, one cp.async group each (empty past the last K tile: the count stays uniform). */
template <bool FAST, int FIRST, int LAST>
W8A8_DEVICE void g80_prologue(const w8a8_gemm_args &args, const g80_cta &x)
{
#pragma unroll
    for (int s = FIRST; s < LAST; ++s) {
        if (s < x.k_tiles) {
            const w8a8_u32 stage = x.ring + ((G80_PHASE + s) % W8A8_STAGES) * G80_STAGE_BYTES;
            g80_load<FAST, G80_BM>(stage, x.a_copy, x.a_base, args.lda, args.m - x.m0, s, args.k,
                                   x.tid);
            g80_load<FAST, G80_BN>(stage + G80_A_STAGE_BYTES, x.b_copy, x.b_base, args.ldb,
                                   args.n - x.n0, s, args.k, x.tid);
        }
        w8a8_cp_async_commit();
    }
}

/* PREFETCH 1: the copy passes of a K tile that its step j issues, [lo, hi) counted over A's
 * passes then B's: A's before step 0 and B's before step G80_B_STEP, or COPY_PER a step over
 * the first COPY_STEPS steps (constants once the loop over j is unrolled) */
W8A8_DEVICE void g80_copy_passes(int j, int &lo, int &hi)
{
    const int pa = G80_PASSES(G80_BM), all = pa + G80_PASSES(G80_BN);
    if (G80_COPY_STEPS) {
        lo = j < G80_COPY_STEPS ? j * G80_COPY_PER : all;
        hi = j < G80_COPY_STEPS ? lo + G80_COPY_PER : all;
    } else {
        lo = j == 0 ? 0 : j == G80_B_STEP ? pa : all;
        hi = j == G80_B_STEP ? all : j == 0 ? pa : all;
    }
}

/* The main loop over every K tile into acc (zeroed by the caller), PROLOGUE: issuing the
 * prologue first (else its STAGES − 1 groups are already committed). FAST: the CTA's tile
 * lies inside M and N and K is a multiple of BLOCK_K, so every copy takes the
 * unpredicated path; the kernel picks the instance once, and neither carries the other's
 * address arithmetic (one loop with both paths had ptxas predicate both of them in
 * PREFETCH 1 and issue every instruction of either). */
template <bool FAST, bool PROLOGUE>
W8A8_DEVICE void g80_main_loop(g80_acc_t (&acc)[G80_MT][G80_NT][4], const w8a8_gemm_args &args,
                               const g80_cta x)
{
    if (PROLOGUE)
        g80_prologue<FAST, 0, W8A8_STAGES - 1>(args, x);
    const long long m0 = x.m0, n0 = x.n0;
    const w8a8_u8 *a_base = x.a_base, *b_base = x.b_base;
    const w8a8_u32 ring = x.ring, a_row = x.a_row, b_row = x.b_row;
    const int a_hi = x.a_hi, b_hi = x.b_hi, a_swz = x.a_swz, b_swz = x.b_swz;
    const int tid = x.tid, lane = x.lane, slice = x.slice, k_tiles = x.k_tiles;
    const int warp_m = x.warp_m, warp_n = x.warp_n;
    (void)lane; /* lane, warp_m, warp_n: block scales only */
    (void)warp_m;
    (void)warp_n;

#if G80_BLOCK
    const long long blocks_n = (args.n + 127) >> 7;
    const long long b_block = (n0 + warp_n * G80_WN) >> 7; /* 128 % WN == 0: one per warp */
    const long long a_row0 = m0 + warp_m * G80_WM + (lane >> 2);
#endif

#if G80_BLOCK
#define G80_TARGET tmp
#else
#define G80_TARGET acc
#endif
#if W8A8_PREFETCH
    /* The stage of tile 0 is in; its first fragments load before the loop. Stages of tile
     * kt (read) and of tile kt + STAGES − 1 (written, where tile kt − 1 was: every warp
     * loaded that tile's last fragments before the previous iteration's barrier), counted
     * without a 64-bit modulo. */
    w8a8_cp_async_wait<W8A8_STAGES - 2>();
    __syncthreads();
    g80_frags f[2];
    const w8a8_u32 first = ring + G80_PHASE * G80_STAGE_BYTES;
    g80_load_frags(f[0], first, first + G80_A_STAGE_BYTES, slice, a_row, b_row, a_hi, b_hi,
                   a_swz, b_swz);
    int read_stage = G80_PHASE, write_stage = (G80_PHASE + W8A8_STAGES - 1) % W8A8_STAGES;
    for (g80_kt kt = 0; kt < k_tiles; ++kt) {
        const w8a8_u32 a_stage = ring + (w8a8_u32)read_stage * G80_STAGE_BYTES;
        const w8a8_u32 b_stage = a_stage + G80_A_STAGE_BYTES;
        read_stage = read_stage + 1 == W8A8_STAGES ? 0 : read_stage + 1;
        const w8a8_u32 next_a = ring + (w8a8_u32)read_stage * G80_STAGE_BYTES;
        const w8a8_u32 write = ring + (w8a8_u32)write_stage * G80_STAGE_BYTES;
        write_stage = write_stage + 1 == W8A8_STAGES ? 0 : write_stage + 1;
        const g80_kt next = kt + W8A8_STAGES - 1;
        const bool more = kt + 1 < k_tiles;
#if G80_BLOCK
        g80_scales scales;
        g80_scales_load(scales, args, a_row0, b_block, blocks_n, kt);
        g80_acc_t tmp[G80_MT][G80_NT][4];
        g80_zero(tmp);
#endif
        /* Per step j: its copies of tile kt + STAGES − 1 (g80_copy_passes; G80_COPY_CLOSE's
         * close the group), the fragments of step j + 1 (past the last
         * step: the next tile's first), this step's mmas, and after step STEPS − 2 the
         * barrier for tile kt + 1. One step a tile: its mmas, the barrier, then the next
         * tile's fragments. */
#pragma unroll
        for (int j = 0; j < G80_STEPS; ++j) {
            int lo, hi; /* this step's copy passes, A's then B's */
            g80_copy_passes(j, lo, hi);
            if (next < k_tiles) {
                g80_load<FAST, G80_BM>(write, x.a_copy, a_base, args.lda, args.m - m0, next,
                                       args.k, tid, lo, hi);
                g80_load<FAST, G80_BN>(write + G80_A_STAGE_BYTES, x.b_copy, b_base, args.ldb,
                                       args.n - n0, next, args.k, tid, lo - G80_PASSES(G80_BM),
                                       hi - G80_PASSES(G80_BM));
            }
            if (j == G80_COPY_CLOSE)
                w8a8_cp_async_commit(); /* empty groups keep the count uniform */
            if (G80_STEPS == 1) {
                g80_mma_frags(G80_TARGET, f[0]);
                if (more) {
                    w8a8_cp_async_wait<W8A8_STAGES - 2>();
                    __syncthreads();
                    g80_load_frags(f[0], next_a, next_a + G80_A_STAGE_BYTES, slice, a_row, b_row,
                                   a_hi, b_hi, a_swz, b_swz);
                }
                continue;
            }
            if (j + 1 < G80_STEPS)
                g80_load_frags(f[(j + 1) & 1], a_stage, b_stage, slice + (j + 1) * W8A8_SLICE_K,
                               a_row, b_row, a_hi, b_hi, a_swz, b_swz);
            else if (more) /* the previous step's barrier let tile kt + 1 in */
                g80_load_frags(f[(j + 1) & 1], next_a, next_a + G80_A_STAGE_BYTES, slice, a_row,
                               b_row, a_hi, b_hi, a_swz, b_swz);
            g80_mma_frags(G80_TARGET, f[j & 1]);
            if (j == G80_STEPS - 2 && more) { /* tile kt + 1 has landed for every thread */
                w8a8_cp_async_wait<W8A8_STAGES - 2>();
                __syncthreads();
            }
        }
#if G80_BLOCK
        g80_promote(acc, tmp, scales);
#endif
    }
#else
    /* stages of tile kt (read) and of tile kt + STAGES − 1 (written), counted without a
     * 64-bit modulo */
    int read_stage = G80_PHASE, write_stage = (G80_PHASE + W8A8_STAGES - 1) % W8A8_STAGES;
    for (g80_kt kt = 0; kt < k_tiles; ++kt) {
        w8a8_cp_async_wait<W8A8_STAGES - 2>();
        __syncthreads();
        /* every warp is past tile kt − 1: its stage takes tile kt + STAGES − 1 */
        const g80_kt next = kt + W8A8_STAGES - 1;
        if (next < k_tiles) {
            const w8a8_u32 stage = ring + (w8a8_u32)write_stage * G80_STAGE_BYTES;
            g80_load<FAST, G80_BM>(stage, x.a_copy, a_base, args.lda, args.m - m0, next,
                                   args.k, tid);
            g80_load<FAST, G80_BN>(stage + G80_A_STAGE_BYTES, x.b_copy, b_base, args.ldb,
                                   args.n - n0, next, args.k, tid);
        }
        w8a8_cp_async_commit();

        const w8a8_u32 a_stage = ring + (w8a8_u32)read_stage * G80_STAGE_BYTES;
        read_stage = read_stage + 1 == W8A8_STAGES ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == W8A8_STAGES ? 0 : write_stage + 1;
        const w8a8_u32 b_stage = a_stage + G80_A_STAGE_BYTES;
#if G80_BLOCK
        g80_scales scales;
        g80_scales_load(scales, args, a_row0, b_block, blocks_n, kt);
        g80_acc_t tmp[G80_MT][G80_NT][4];
        g80_zero(tmp);
#endif
        g80_stage_mma(G80_TARGET, a_stage, b_stage, slice, a_row, b_row, a_hi, b_hi, a_swz, b_swz);
#if G80_BLOCK
        g80_promote(acc, tmp, scales);
#endif
    }
#endif
#undef G80_TARGET
}

/* ---- the kernel -------------------------------------------------------------------------- */

/* The first row and column of tile id (the raster: groups of GROUP tile-rows, M fastest inside
 * a group) */
W8A8_DEVICE void g80_origin(long long id, long long tiles_m, long long tiles_n, long long &m0,
                            long long &n0)
{
    const long long per_group = (long long)W8A8_GROUP * tiles_n;
    const long long first_m = id / per_group * W8A8_GROUP;
    const long long group_rows = tiles_m - first_m < W8A8_GROUP ? tiles_m - first_m : W8A8_GROUP;
    m0 = (first_m + id % per_group % group_rows) * G80_BM;
    n0 = id % per_group / group_rows * G80_BN;
}

/* x moved to the tile at (m0, n0): its operands' rows and this thread's copiers */
W8A8_DEVICE g80_cta g80_moved(const w8a8_gemm_args &args, const g80_cta &x, long long m0,
                              long long n0)
{
    g80_cta y = x;
    y.m0 = m0;
    y.n0 = n0;
    y.a_base = (const w8a8_u8 *)args.a + m0 * args.lda;
    y.b_base = (const w8a8_u8 *)args.b + n0 * args.ldb;
    y.a_copy = g80_copier_at(y.a_base, args.lda, x.tid);
    y.b_copy = g80_copier_at(y.b_base, args.ldb, x.tid);
    return y;
}

/* The tile lies inside M and N (and, for the unpredicated copies, K is a multiple of BLOCK_K) */
W8A8_DEVICE bool g80_inside(const w8a8_gemm_args &args, const g80_cta &x)
{
    return x.m0 + G80_BM <= args.m && x.n0 + G80_BN <= args.n;
}
W8A8_DEVICE bool g80_fast(const w8a8_gemm_args &args, const g80_cta &x)
{
    /* block scales keep the one instance (g80_main_loop_for) */
    return !G80_BLOCK && g80_inside(args, x) && args.k % G80_BK == 0;
}

/* The prologue's K tiles [FIRST, LAST), in the instance the tile takes */
template <int FIRST, int LAST>
W8A8_DEVICE void g80_prologue_for(const w8a8_gemm_args &args, const g80_cta &x)
{
    if (g80_fast(args, x))
        g80_prologue<true, FIRST, LAST>(args, x);
    else
        g80_prologue<false, FIRST, LAST>(args, x);
}

/* The main loop in the instance the tile takes */
template <bool PROLOGUE>
W8A8_DEVICE void g80_main_loop_for(g80_acc_t (&acc)[G80_MT][G80_NT][4], const w8a8_gemm_args &args,
                                   const g80_cta &x)
{
#if G80_BLOCK
    /* block scales keep the one instance: with two, ptxas (CUDA 13) spilled 24 bytes of a
     * 256×32 block-scaled tile on sm_89; named outright (through g80_fast's constant it
     * spilled 20) */
    g80_main_loop<false, PROLOGUE>(acc, args, x);
#else
    if (g80_fast(args, x))
        g80_main_loop<true, PROLOGUE>(acc, args, x);
    else
        g80_main_loop<false, PROLOGUE>(acc, args, x);
#endif
}

/* The tile's outputs from the accumulators, once every warp has left the main loop and the
 * ring's stages below G80_STAGED_BYTES are free: staged in shared memory and stored in row
 * chunks (EPILOGUE 1; a tile inside M and N without bounds: g80_stage, g80_store_staged), or
 * stored from registers by slice 0's warps. */
W8A8_DEVICE void g80_epilogue(const g80_acc_t (&acc)[G80_MT][G80_NT][4],
                              const w8a8_gemm_args &args, const g80_cta &x)
{
#if W8A8_EPILOGUE
    const bool inside = g80_inside(args, x);
    if (x.slice == 0) {
        const int r0 = x.warp_m * G80_WM + (x.lane >> 2), c0 = x.warp_n * G80_WN + 2 * (x.lane & 3);
        if (inside)
            g80_stage<true>(args, acc, g80_smem, r0, c0, x.m0, x.n0);
        else
            g80_stage<false>(args, acc, g80_smem, r0, c0, x.m0, x.n0);
    }
    __syncthreads();
    g80_store_staged(args, g80_smem, x.m0, x.n0, x.tid, inside);
#else
    if (x.slice == 0)
        g80_store(args, acc, x.m0 + x.warp_m * G80_WM + (x.lane >> 2),
                  x.n0 + x.warp_n * G80_WN + 2 * (x.lane & 3));
#endif
}

/* The integer unpacks leave e4m3 codes 256 times too small (g80_unpack): once before the
 * epilogue, a power of 2, exact */
W8A8_DEVICE void g80_unpack_fix(g80_acc_t (&acc)[G80_MT][G80_NT][4])
{
#if G80_F16
    g80_scale_acc(acc, w8a8_fp8_unpack_factor<W8A8_A_TYPE>() *
                           w8a8_fp8_unpack_factor<W8A8_B_TYPE>());
#else
    (void)acc;
#endif
}

/* The epilogue's per-row / per-column scales of the warp tile into L1 while the main loop
 * runs (lane l touches rows and columns 2l, 2l + 1: every line of them). On 4-warp CTAs
 * only: two of them share an SM at 254 registers, where it measured 1.003-1.020x (an H200,
 * INT8 128x128 tiles, bench/results-2026-11-28-s38/d3/l1-table.txt); on 8-warp 256x128 tiles
 * it took ptxas (CUDA 13) from 238 registers to 254 and ran 0.96-0.98x. */
#define G80_PREFETCH_SCALES                                                                       \
    (W8A8_EPILOGUE && G80_WARPS == 4 && (W8A8_A_SCALE == W8A8_S_ROW || W8A8_B_SCALE == W8A8_S_ROW))
W8A8_DEVICE void g80_prefetch_scales(const w8a8_gemm_args &args, long long m0, long long n0,
                                     int warp_m, int warp_n, int lane)
{
#if G80_PREFETCH_SCALES
    const long long row = m0 + warp_m * G80_WM + 2 * lane, col = n0 + warp_n * G80_WN + 2 * lane;
    if (W8A8_A_SCALE == W8A8_S_ROW && 2 * lane < G80_WM && row < args.m)
        asm volatile("prefetch.global.L1 [%0];" ::"l"(args.a_scale + row));
    if (W8A8_B_SCALE == W8A8_S_ROW && 2 * lane < G80_WN && col < args.n)
        asm volatile("prefetch.global.L1 [%0];" ::"l"(args.b_scale + col));
#else
    (void)args;
    (void)m0;
    (void)n0;
    (void)warp_m;
    (void)warp_n;
    (void)lane;
#endif
}

#if W8A8_PERSIST
/* PERSIST 1: the CTA's tiles id, id + gridDim.x, … from the first (cta, whose prologue is not
 * issued yet); the next tile's first G80_EARLY K tiles load during this one's epilogue. */
W8A8_DEVICE void g80_persistent(const w8a8_gemm_args &args, g80_cta cta, long long id,
                                long long tiles_m, long long tiles_n)
{
    const long long tiles = tiles_m * tiles_n;
    g80_prologue_for<0, W8A8_STAGES - 1>(args, cta);
    for (;;) {
        g80_acc_t acc[G80_MT][G80_NT][4];
        g80_zero(acc);
        g80_prefetch_scales(args, cta.m0, cta.n0, cta.warp_m, cta.warp_n, cta.lane);
        g80_main_loop_for<false>(acc, args, cta);
        const long long next = id + gridDim.x;
        const bool more = next < tiles;
        if (!more) /* every load of this CTA is issued (common/pdl.cuh: why not earlier) */
            w8a8_pdl_launch_dependents();
        g80_unpack_fix(acc);
        /* every warp is done with the ring: the next tile's first K tiles go into the stages
         * the epilogue leaves alone, and land while it runs */
        w8a8_cp_async_wait<0>();
        __syncthreads();
        const g80_cta now = cta;
        if (more) {
            long long m0, n0;
            g80_origin(next, tiles_m, tiles_n, m0, n0);
            cta = g80_moved(args, now, m0, n0);
            g80_prologue_for<0, G80_EARLY>(args, cta);
        }
        g80_epilogue(acc, args, now);
        if (!more)
            return;
        if (G80_EARLY < W8A8_STAGES - 1) {
            __syncthreads(); /* every thread has stored the staged tile */
            g80_prologue_for<G80_EARLY, W8A8_STAGES - 1>(args, cta);
        }
        id = next;
    }
}
#endif

/* Block scales, and FP8 with integer unpacks: at least one CTA an SM said outright (without it
 * ptxas, CUDA 13, held a 16×128 block-scaled tile of 8 warps on sm_89 to 64 registers and
 * spilled 8 bytes, and FP8 tiles of 4 warps on sm_80/86 to 80 registers, spilling 4–64) */
#if G80_BLOCK || (G80_F16 && W8A8_FP8_UNPACK_BITS)
#define G80_BOUNDS __launch_bounds__(G80_THREADS, 1)
#else
#define G80_BOUNDS __launch_bounds__(G80_THREADS)
#endif
extern "C" __global__ void G80_BOUNDS w8a8_sm80_gemm(const w8a8_gemm_args args)
{
    /* programmatic dependent launch: wait for the previous kernel's writes before the first
     * global access (common/pdl.cuh) */
    w8a8_pdl_wait();
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int slice = warp / G80_SLICE_WARPS, slice_warp = warp % G80_SLICE_WARPS;
    const int warp_m = slice_warp / W8A8_WARPS_N, warp_n = slice_warp % W8A8_WARPS_N;

    const long long tiles_m = (args.m + G80_BM - 1) / G80_BM;
    const long long tiles_n = (args.n + G80_BN - 1) / G80_BN;
    long long m0, n0;
    g80_origin(blockIdx.x, tiles_m, tiles_n, m0, n0);

    /* The first tile's rows and copiers as g80_moved computes them, but inline into one const
     * aggregate: built through a struct that is then assigned (as g80_moved does), ptxas (CUDA
     * 13, sm_90) gave the 8-warp one-tile kernels a main loop that ran 0.96-0.97x
     * (bench/results-2026-11-28-s38/d1/ab-table.txt). */
    const w8a8_u8 *a_base = (const w8a8_u8 *)args.a + m0 * args.lda;
    const w8a8_u8 *b_base = (const w8a8_u8 *)args.b + n0 * args.ldb;
    /* validation keeps K far below 2^31 K tiles */
    const int k_tiles = (int)((args.k + G80_BK - 1) / G80_BK);

    /* ldmatrix lanes: A rows (lane % 16) at chunk + lane / 16; B rows (lane % 8) + 8·(lane /
     * 16) at chunk + (lane / 8) % 2. Tile offsets are multiples of 16 rows: the swizzle
     * depends on the lane only. */
    const int a_lane_row = lane & 15, b_lane_row = (lane & 7) + ((lane >> 4) << 3);
    const w8a8_u32 a_row = (w8a8_u32)((warp_m * G80_WM + a_lane_row) * G80_BK);
    const w8a8_u32 b_row = (w8a8_u32)((warp_n * G80_WN + b_lane_row) * G80_BK);
    const int a_hi = lane >> 4, b_hi = (lane >> 3) & 1;
    const int a_swz = g80_swizzle(a_lane_row), b_swz = g80_swizzle(b_lane_row);

    g80_prefetch_scales(args, m0, n0, warp_m, warp_n, lane);
    const g80_cta cta = {m0, n0, a_base, b_base, g80_copier_at(a_base, args.lda, tid),
                         g80_copier_at(b_base, args.ldb, tid), w8a8_smem_u32(g80_smem), a_row,
                         b_row, a_hi, b_hi, a_swz, b_swz, tid, lane, slice, warp_m, warp_n,
                         k_tiles};
#if W8A8_PERSIST
    g80_persistent(args, cta, blockIdx.x, tiles_m, tiles_n);
#else
    g80_acc_t acc[G80_MT][G80_NT][4];
    g80_zero(acc);
    g80_main_loop_for<true>(acc, args, cta);
    /* every load is issued: the next kernel may launch once every CTA is here, its prologue
     * overlapping our reduction and stores (not earlier: common/pdl.cuh) */
    w8a8_pdl_launch_dependents();
    g80_unpack_fix(acc);
    if (W8A8_SLICE_K > 1)
        g80_reduce_slices(acc, g80_smem, slice, slice_warp, lane);
    if (W8A8_EPILOGUE) {
        /* the ring (or the partial sums) is free once every thread is here */
        w8a8_cp_async_wait<0>();
        __syncthreads();
    }
    g80_epilogue(acc, args, cta);
#endif
}
