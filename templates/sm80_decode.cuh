/* sm80_decode: the memory-bound (decode, small M) scaled FP8/INT8 GEMM, on mma.sync.
 *
 *   out[m, n] = sa[m] · sb[n] · Σ_k A[m, k] · B[n, k]  (− azp[m] · b_col_sums[n]) (+ bias[n])
 *
 * Swap-AB: the weights B fill mma.sync.m16n8k32's M = 16 side and the tokens its N = 8 side,
 * so a token count of 1…8 wastes tensor-core work, not bandwidth. A CTA owns ROWS = 16 ·
 * ROW_TILES weight rows and TOKENS = 8 · TOKEN_TILES tokens (grid x: token tiles, fastest, so
 * the CTAs that share weight rows run together and the weights are read from HBM once;
 * grid y: weight-row tiles). Its WARPS warps split K: warp w takes the 128-byte K chunks w,
 * w + WARPS, …, UNROLL chunks in flight per batch, every thread loading 32 contiguous bytes of
 * each of its rows straight into registers (no shared memory in the main loop). The partial
 * sums of the warps are added in shared memory in a fixed order (warp 0, 1, …): the split is
 * deterministic, bitwise identical run to run, and needs no global workspace, so a launch is
 * safe under CUDA graph capture.
 *
 * The K permutation: a dot product does not care in which order K is summed, so long as both
 * operands use the same order. Thread (g = lane / 4, t = lane % 4) loads bytes
 * [32t, 32t + 32) of a chunk for weight rows g and g + 8 and token g, as 8 words; the k32 step
 * s feeds words 2s and 2s + 1 to the A fragment (a0/a2: row g, a1/a3: row g + 8) and to the B
 * fragment (b0/b1: token g). PTX's fragment layouts put A's (row, 4t…4t+3) and (row,
 * 16+4t…16+4t+3) and B's (4t…4t+3, col) and (16+4t…, col) in those registers, so both sides
 * see chunk byte 32t + 8s + i at the same k slot, and the 4 steps cover the 128 bytes once.
 *
 * Spans (SPAN = S > 1, no block scales): a 16-row mma tile need not hold 16
 * weight rows. With S segments a row, its 16 "rows" are 16 / S weight rows × S K segments and
 * its 8 columns 8 / S tokens × the same S segments: row slot p is weight row p / S, segment
 * p % S, and column slot j token j / S, segment j % S. Lane (g, t) then loads bytes
 * 64 · S · piece + 64 · (g % S) + 16 t of a 128 · S-byte chunk for its row slots g and g + 8
 * and its column slot g, so one load instruction of the warp reads 64 · S contiguous bytes of
 * each weight row (S = 8: a whole 512-byte run of one row, where S = 1 reads 16 bytes at
 * 32-byte strides of 8 rows). The products of matching segments (p % S == j % S) are the
 * partial dot products; the others are never read. The end sums, for each (weight row,
 * token), its S segments' accumulators across the warps, in a fixed order (warp, then
 * segment). Same tensor-core work as S = 1 with 8 / S tokens; fewer weight rows a tile.
 *
 * A chunk (S = 1) is one 128-wide K block, so block scales (A 1×128, B 128×128; promoted
 * accumulation) cost one fp32 FMA per accumulator per chunk: the chunk's 4 mmas go into a
 * zeroed temporary, then acc += tmp · sa[m, kb] · sb[n / 128, kb]. K tails: K is a multiple
 * of 16, each 16-byte piece past K loads as zeros. Rows past N and tokens past M load zeros
 * and are never stored.
 *
 * Kernel parameters: args (w8a8_gemm_args, common/gemm_args.h). Launch: block 32·WARPS,
 * grid (ceil(M / TOKENS), ceil(N / ROWS)) with TOKENS = 8 · TOKEN_TILES / SPAN and ROWS =
 * 16 · ROW_TILES / SPAN, dynamic shared memory WARPS · ROW_TILES · TOKEN_TILES · 512 bytes
 * (the warps' partial sums; none with one warp and SPAN 1).
 *
 * Config macros (W8A8_<NAME>) and their legal values:
 *   WARPS        1, 2, 4, 8, 16 (warps of a CTA; they split K)
 *   ROW_TILES    1, 2, 4        (16-row weight tiles per CTA)
 *   TOKEN_TILES  1, 2, 4        (8-token tiles per CTA)
 *   UNROLL       1, 2, 4        (K chunks whose loads a warp issues before its mmas)
 *   SPAN         1, 2, 4, 8     (K segments a 16-row tile spreads one weight row over; > 1
 *                               not with block scales)
 * Problem traits: A_TYPE, B_TYPE (E4M3/E5M2 mixes or INT8 with INT8, from sm_80 on; FP8 on
 * sm_80/86 as f16 mmas, DEC_F16), OUT_TYPE (BF16, FP16, FP32), BIAS_TYPE (NONE, OUT_TYPE
 * or FP32), A_SCALE and B_SCALE (TENSOR or ROW each, or BLOCK on both), AZP (INT8 only: NONE,
 * TENSOR, TOKEN). Test hook: SOFT_FP8 1 unpacks FP8 with integer operations on any arch, as
 * sm_80/86 do (default 0). */
#include "common/gemm_args.h"
#include "common/types.cuh"

/* The host (src/sm80_decode.c) always defines every trait and every config value. */
#if !defined(W8A8_A_TYPE) || !defined(W8A8_B_TYPE) || !defined(W8A8_OUT_TYPE) ||            \
    !defined(W8A8_BIAS_TYPE) || !defined(W8A8_A_SCALE) || !defined(W8A8_B_SCALE) ||         \
    !defined(W8A8_AZP)
#error "sm80_decode needs W8A8_A_TYPE, B_TYPE, OUT_TYPE, BIAS_TYPE, A_SCALE, B_SCALE, AZP"
#endif
#if !defined(W8A8_WARPS) || !defined(W8A8_ROW_TILES) || !defined(W8A8_TOKEN_TILES) ||        \
    !defined(W8A8_UNROLL) || !defined(W8A8_SPAN)
#error "sm80_decode needs W8A8_WARPS, ROW_TILES, TOKEN_TILES, UNROLL, SPAN"
#endif

#include "common/epilogue.cuh"
#include "common/sm80.cuh"
#include "common/pdl.cuh"

#define DEC_INT8 (W8A8_A_TYPE == W8A8_T_INT8)
#define DEC_BLOCK (W8A8_A_SCALE == W8A8_S_BLOCK)
#define DEC_CHUNK (128 * W8A8_SPAN) /* K bytes per warp step (SPAN 1: one block-scale K block) */
#define DEC_TILE_ROWS (16 / W8A8_SPAN) /* weight rows of a 16-row mma tile */
#define DEC_ROWS (DEC_TILE_ROWS * W8A8_ROW_TILES)
#define DEC_TILE_TOKENS (8 / W8A8_SPAN) /* tokens of an 8-column mma tile */
#define DEC_TOKENS (DEC_TILE_TOKENS * W8A8_TOKEN_TILES)
#define DEC_THREADS (32 * W8A8_WARPS)
#define DEC_PARTIALS (W8A8_ROW_TILES * W8A8_TOKEN_TILES * 4 * 32) /* accumulators of a warp */

static_assert(W8A8_WARPS == 1 || W8A8_WARPS == 2 || W8A8_WARPS == 4 || W8A8_WARPS == 8 ||
              W8A8_WARPS == 16, "WARPS is 1, 2, 4, 8 or 16");
static_assert(W8A8_ROW_TILES == 1 || W8A8_ROW_TILES == 2 || W8A8_ROW_TILES == 4, "ROW_TILES");
static_assert(W8A8_TOKEN_TILES == 1 || W8A8_TOKEN_TILES == 2 || W8A8_TOKEN_TILES == 4,
              "TOKEN_TILES");
static_assert(W8A8_UNROLL == 1 || W8A8_UNROLL == 2 || W8A8_UNROLL == 4, "UNROLL");
static_assert(W8A8_SPAN == 1 || W8A8_SPAN == 2 || W8A8_SPAN == 4 || W8A8_SPAN == 8, "SPAN");
static_assert(W8A8_SPAN == 1 || W8A8_A_SCALE != W8A8_S_BLOCK, "SPAN > 1 without block scales");
static_assert(DEC_INT8 == (W8A8_B_TYPE == W8A8_T_INT8), "INT8 pairs only with INT8");
static_assert(W8A8_A_TYPE == W8A8_T_E4M3 || W8A8_A_TYPE == W8A8_T_E5M2 || DEC_INT8, "A_TYPE");
static_assert(W8A8_B_TYPE == W8A8_T_E4M3 || W8A8_B_TYPE == W8A8_T_E5M2 || DEC_INT8, "B_TYPE");
static_assert(DEC_BLOCK == (W8A8_B_SCALE == W8A8_S_BLOCK), "block scales on both sides or none");
static_assert(!DEC_BLOCK || !DEC_INT8, "block scales need FP8");
static_assert(W8A8_AZP == W8A8_Z_NONE || DEC_INT8, "a zero point needs INT8");
static_assert(W8A8_OUT_TYPE == W8A8_T_BF16 || W8A8_OUT_TYPE == W8A8_T_FP16 ||
              W8A8_OUT_TYPE == W8A8_T_FP32, "OUT_TYPE");

/* ---- the mma.sync instruction: weights (B_TYPE) as PTX's A, tokens (A_TYPE) as its B ---- */
typedef w8a8_mma_k32<W8A8_B_TYPE, W8A8_A_TYPE> dec_mma_op;
typedef dec_mma_op::acc_t dec_acc_t;

/* c += A(16×32 weights) · B(32×8 tokens) */
W8A8_DEVICE void dec_mma(dec_acc_t (&c)[4], w8a8_u32 a0, w8a8_u32 a1, w8a8_u32 a2, w8a8_u32 a3,
                         w8a8_u32 b0, w8a8_u32 b1)
{
    dec_mma_op::run(c, a0, a1, a2, a3, b0, b1);
}

/* ---- loads ------------------------------------------------------------------------------ */

/* Weights are read once: past L1, with the L2 policy the caller made (evict-first when one
 * token tile reads them, normal when the next token tiles read them again from L2). */
W8A8_DEVICE w8a8_u32x4 dec_load_weights(const w8a8_u8 *p, w8a8_u64 policy)
{
    w8a8_u32x4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
    return v;
}

/* Activations are read by every weight-row tile: keep them in L1. */
W8A8_DEVICE w8a8_u32x4 dec_load_tokens(const w8a8_u8 *p)
{
    w8a8_u32x4 v;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

W8A8_DEVICE w8a8_u64 dec_weight_policy(bool once)
{
    w8a8_u64 policy;
    if (once)
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    else
        asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

W8A8_DEVICE w8a8_u32 dec_word(const w8a8_u32x4 (&v)[2], int i)
{
    const w8a8_u32x4 &q = v[i >> 2];
    return (i & 3) == 0 ? q.x : (i & 3) == 1 ? q.y : (i & 3) == 2 ? q.z : q.w;
}

/* One chunk's operands for one thread: 32 bytes of each weight row (g, g + 8 of every row
 * tile) and of each token (g of every token tile), and the chunk's block scales. */
struct dec_chunk {
    w8a8_u32x4 w[W8A8_ROW_TILES][2][2];
    w8a8_u32x4 x[W8A8_TOKEN_TILES][2];
#if DEC_BLOCK
    float sa[W8A8_TOKEN_TILES][2]; /* tokens 2t, 2t + 1 of each token tile */
    float sb[W8A8_ROW_TILES];
#endif
};

/* The K offset in its chunk of lane (g, t)'s 16-byte piece (0 or 1), on both sides. */
W8A8_DEVICE int dec_piece_k(int g, int t, int piece)
{
    return W8A8_SPAN == 1 ? 32 * t + 16 * piece
                          : 64 * W8A8_SPAN * piece + 64 * (g % W8A8_SPAN) + 16 * t;
}

/* Issues the loads of chunk c (< chunks). */
W8A8_DEVICE void dec_chunk_load(dec_chunk &d, const w8a8_gemm_args &args, long long c,
                                long long m0, long long n0, int g, int t, w8a8_u64 policy)
{
    const long long k = c * DEC_CHUNK;
    const w8a8_u32x4 zero = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int r = 0; r < W8A8_ROW_TILES; ++r)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            /* row slot 8h + g: weight row (8h + g) / SPAN of the tile */
            const long long n = n0 + DEC_TILE_ROWS * r + (8 * h + g) / W8A8_SPAN;
            const w8a8_u8 *row = (const w8a8_u8 *)args.b + n * args.ldb + k;
#pragma unroll
            for (int piece = 0; piece < 2; ++piece) {
                const int kp = dec_piece_k(g, t, piece);
                d.w[r][h][piece] = n < args.n && k + kp < args.k
                                       ? dec_load_weights(row + kp, policy)
                                       : zero;
            }
        }
#pragma unroll
    for (int q = 0; q < W8A8_TOKEN_TILES; ++q) {
        /* column slot g: token g / SPAN of the tile */
        const long long m = m0 + (8 * q + g) / W8A8_SPAN;
        const w8a8_u8 *row = (const w8a8_u8 *)args.a + m * args.lda + k;
#pragma unroll
        for (int piece = 0; piece < 2; ++piece) {
            const int kp = dec_piece_k(g, t, piece);
            d.x[q][piece] = m < args.m && k + kp < args.k ? dec_load_tokens(row + kp) : zero;
        }
    }
#if DEC_BLOCK
#pragma unroll
    for (int q = 0; q < W8A8_TOKEN_TILES; ++q)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const long long m = m0 + 8 * q + 2 * t + j;
            d.sa[q][j] = m < args.m ? w8a8_block_scale(args.a_scale, args.a_scale_k_major,
                                                       args.a_scale_ld, m, c)
                                    : 0.0f;
        }
    const long long blocks_n = (args.n + 127) >> 7;
#pragma unroll
    for (int r = 0; r < W8A8_ROW_TILES; ++r) {
        /* 16-row tiles start at multiples of 16: one 128-row scale block each */
        const long long nb = (n0 + 16 * r) >> 7;
        d.sb[r] = nb < blocks_n ? w8a8_block_scale(args.b_scale, args.b_scale_k_major,
                                                   args.b_scale_ld, nb, c)
                                : 0.0f;
    }
#endif
}

/* FP8 on Hopper with one row tile and several token tiles: mma.sync has no FP8 unit there
 * (ptxas expands every m16n8k32 into f16 mmas, unpacking both operands each time), so the
 * chunk's codes are unpacked to f16 once here, each weight word once for all the token tiles,
 * and fed to m16n8k16 f16 mmas: k32 step s becomes two k16 steps over words 2s and 2s + 1,
 * bytes 0, 1 of a word at k 2t, 2t + 1 and bytes 2, 3 at k 8 + 2t, 8 + 2t + 1 on both sides
 * (the integer unpacks below sm_89 pair bytes 1, 3 and 0, 2; either way the same K permutation
 * for weights and tokens, so the same sum; e4m3/e5m2 → f16 is exact
 * and the accumulators are fp32). Measured on an H200 with the shipped configs (session 15,
 * call D10): 5–7 % faster with one row tile and two token tiles; 3–8 % slower with two row
 * tiles (registers) and 1–6 % slower with one token tile (nothing shared; ptxas's own
 * expansion is cheaper), so those keep the FP8 mma. Ada (sm_89) has the native FP8 mma.
 * Ampere (sm_80/86) has no FP8 at all: every config unpacks there, with integer operations
 * (common/sm80.cuh), as it does everywhere with W8A8_SOFT_FP8=1 (a test of that path). */
#if !DEC_INT8 && (W8A8_FP8_UNPACK_BITS || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 &&    \
                                           W8A8_ROW_TILES == 1 && W8A8_TOKEN_TILES > 1))
#define DEC_F16 1
#else
#define DEC_F16 0
#endif

#if DEC_F16
/* The 8 words of a row-tile half or a token tile as 16 f16x2: [word][0: bytes 0, 1; 1: 2, 3]
 * (e4m3 through integer operations 256 times too small: dec_store scales the sums once) */
template <int TYPE>
W8A8_DEVICE void dec_unpack(const w8a8_u32x4 (&v)[2], w8a8_u32 (&h)[8][2])
{
#pragma unroll
    for (int i = 0; i < 8; ++i)
        w8a8_fp8x4_to_f16x2<TYPE>(dec_word(v, i), h[i][0], h[i][1]);
}
#endif

/* The chunk's 4 k32 steps for every (row tile, token tile) pair, into acc (block scales:
 * through a zeroed temporary, then promoted with the chunk's scales). */
W8A8_DEVICE void dec_chunk_mma(dec_acc_t (&acc)[W8A8_ROW_TILES][W8A8_TOKEN_TILES][4],
                               const dec_chunk &d)
{
#if DEC_F16
    w8a8_u32 x16[W8A8_TOKEN_TILES][8][2];
#pragma unroll
    for (int q = 0; q < W8A8_TOKEN_TILES; ++q)
        dec_unpack<W8A8_A_TYPE>(d.x[q], x16[q]);
#endif
#pragma unroll
    for (int r = 0; r < W8A8_ROW_TILES; ++r) {
#if DEC_F16
        w8a8_u32 row_g[8][2], row_g8[8][2]; /* weight rows g and g + 8 */
        dec_unpack<W8A8_B_TYPE>(d.w[r][0], row_g);
        dec_unpack<W8A8_B_TYPE>(d.w[r][1], row_g8);
#endif
#pragma unroll
        for (int q = 0; q < W8A8_TOKEN_TILES; ++q) {
#if DEC_BLOCK
            dec_acc_t tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            dec_acc_t (&into)[4] = tmp;
#else
            dec_acc_t (&into)[4] = acc[r][q];
#endif
#if DEC_F16
#pragma unroll
            for (int w = 0; w < 8; ++w)
                w8a8_mma_k16_f16(into, row_g[w][0], row_g8[w][0], row_g[w][1], row_g8[w][1],
                                 x16[q][w][0], x16[q][w][1]);
#else
#pragma unroll
            for (int s = 0; s < 4; ++s)
                dec_mma(into, dec_word(d.w[r][0], 2 * s), dec_word(d.w[r][1], 2 * s),
                        dec_word(d.w[r][0], 2 * s + 1), dec_word(d.w[r][1], 2 * s + 1),
                        dec_word(d.x[q], 2 * s), dec_word(d.x[q], 2 * s + 1));
#endif
#if DEC_BLOCK
            /* registers 0, 1: tokens 2t, 2t + 1 of weight row g; 2, 3: the same of row g + 8 */
#pragma unroll
            for (int i = 0; i < 4; ++i)
                acc[r][q][i] = __fmaf_rn(tmp[i], d.sa[q][i & 1] * d.sb[r], acc[r][q][i]);
#endif
        }
    }
}

/* Scales, corrects and stores the output of token m, weight row n. */
W8A8_DEVICE void dec_store_at(const w8a8_gemm_args &args, dec_acc_t sum, long long m, long long n)
{
    if (m >= args.m || n >= args.n)
        return;
#if DEC_F16
    sum *= w8a8_fp8_unpack_factor<W8A8_A_TYPE>() * w8a8_fp8_unpack_factor<W8A8_B_TYPE>();
#endif
    const float value = w8a8_azp_corrected(args, sum, m, n);
    float v = value * w8a8_a_scale_at(args, m) * w8a8_b_scale_at(args, n);
#if W8A8_BIAS_TYPE != W8A8_T_NONE
    v += w8a8_load_bias(args.bias, n);
#endif
    w8a8_store1((char *)args.out + m * args.ldc * W8A8_OUT_BYTES, n, v);
}

/* SPAN 1: accumulator register i of lane (g, t) in row tile r and token tile q is token
 * m0 + 8q + 2t + (i & 1), weight row n0 + 16r + g + 8(i >> 1). */
W8A8_DEVICE void dec_store(const w8a8_gemm_args &args, dec_acc_t sum, long long m0, long long n0,
                           int r, int q, int i, int lane)
{
    dec_store_at(args, sum, m0 + 8 * q + 2 * (lane & 3) + (i & 1),
                 n0 + 16 * r + (lane >> 2) + 8 * (i >> 1));
}

/* FP8 with integer unpacks: at least one CTA an SM said outright (without it ptxas, CUDA 13,
 * held such tiles on sm_80/86 to 56–128 registers and spilled 8–12 bytes) */
#if DEC_F16 && W8A8_FP8_UNPACK_BITS
#define DEC_BOUNDS __launch_bounds__(DEC_THREADS, 1)
#else
#define DEC_BOUNDS __launch_bounds__(DEC_THREADS)
#endif
extern "C" __global__ void DEC_BOUNDS w8a8_sm80_decode(const w8a8_gemm_args args)
{
    extern __shared__ __align__(16) unsigned char dec_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const long long m0 = (long long)blockIdx.x * DEC_TOKENS;
    const long long n0 = (long long)blockIdx.y * DEC_ROWS;
    const long long chunks = (args.k + DEC_CHUNK - 1) / DEC_CHUNK;
    const w8a8_u64 policy = dec_weight_policy(gridDim.x == 1);
    /* Programmatic dependent launch (common/pdl.cuh): before any global memory access. */
    w8a8_pdl_wait();

    dec_acc_t acc[W8A8_ROW_TILES][W8A8_TOKEN_TILES][4];
#pragma unroll
    for (int r = 0; r < W8A8_ROW_TILES; ++r)
#pragma unroll
        for (int q = 0; q < W8A8_TOKEN_TILES; ++q)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                acc[r][q][i] = 0;

    for (long long c0 = warp; c0 < chunks; c0 += (long long)W8A8_WARPS * W8A8_UNROLL) {
        dec_chunk d[W8A8_UNROLL];
#pragma unroll
        for (int u = 0; u < W8A8_UNROLL; ++u) {
            const long long c = c0 + (long long)u * W8A8_WARPS;
            if (c < chunks)
                dec_chunk_load(d[u], args, c, m0, n0, g, t, policy);
        }
#pragma unroll
        for (int u = 0; u < W8A8_UNROLL; ++u)
            if (c0 + (long long)u * W8A8_WARPS < chunks)
                dec_chunk_mma(acc, d[u]);
    }

    /* This warp's loads are done: the next kernel may launch once every CTA has a warp here
     * (the first call of a CTA counts), its prologue overlapping our sums and stores. */
    w8a8_pdl_launch_dependents();

    /* The warps' partial sums, added in warp order (deterministic). */
    dec_acc_t *partials = (dec_acc_t *)dec_smem;
    if (W8A8_SPAN > 1 || W8A8_WARPS > 1) {
        /* every warp's accumulators into shared memory */
#pragma unroll
        for (int r = 0; r < W8A8_ROW_TILES; ++r)
#pragma unroll
            for (int q = 0; q < W8A8_TOKEN_TILES; ++q)
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    partials[warp * DEC_PARTIALS + ((r * W8A8_TOKEN_TILES + q) * 4 + i) * 32 +
                             lane] = acc[r][q][i];
        __syncthreads();
    }
    if (W8A8_SPAN > 1) {
        /* per (weight row, token) of the CTA its segments' products (in its tiles r, q: row
         * slot p = S·row + s, column slot j = S·token + s, at lane 4(p & 7) + j / 2, register
         * 2(p >> 3) + (j & 1)) summed over the warps, then the segments */
        for (int e = threadIdx.x; e < DEC_ROWS * DEC_TOKENS; e += DEC_THREADS) {
            const int row = e / DEC_TOKENS, token = e % DEC_TOKENS;
            const int r = row / DEC_TILE_ROWS, tile_row = row % DEC_TILE_ROWS;
            const int q = token / DEC_TILE_TOKENS, tile_token = token % DEC_TILE_TOKENS;
            const int base = (r * W8A8_TOKEN_TILES + q) * 4;
            dec_acc_t sum = 0;
            for (int w = 0; w < W8A8_WARPS; ++w)
#pragma unroll
                for (int s = 0; s < W8A8_SPAN; ++s) {
                    const int p = W8A8_SPAN * tile_row + s, j = W8A8_SPAN * tile_token + s;
                    sum += partials[w * DEC_PARTIALS + (base + 2 * (p >> 3) + (j & 1)) * 32 +
                                    4 * (p & 7) + (j >> 1)];
                }
            dec_store_at(args, sum, m0 + token, n0 + row);
        }
    } else if (W8A8_WARPS > 1) {
        for (int e = threadIdx.x; e < DEC_PARTIALS; e += DEC_THREADS) {
            dec_acc_t sum = partials[e];
#pragma unroll
            for (int w = 1; w < W8A8_WARPS; ++w)
                sum += partials[w * DEC_PARTIALS + e];
            const int tile = e >> 7;
            dec_store(args, sum, m0, n0, tile / W8A8_TOKEN_TILES, tile % W8A8_TOKEN_TILES,
                      (e >> 5) & 3, e & 31);
        }
    } else {
#pragma unroll
        for (int r = 0; r < W8A8_ROW_TILES; ++r)
#pragma unroll
            for (int q = 0; q < W8A8_TOKEN_TILES; ++q)
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    dec_store(args, acc[r][q][i], m0, n0, r, q, i, lane);
    }
}
