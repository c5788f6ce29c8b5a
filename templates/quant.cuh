/* quant.cuh — activation quantization (w8a8_quantize, w8a8_linear) and the weight utilities
 * (w8a8_weight_*). Host side: src/quant.c; CPU reference, bit-identical: src/quant_cpu.c.
 *
 * Semantics (the header's quantization section is the contract; summarized here):
 *  - Statistics (amax, or min/max when asymmetric) are taken over the finite inputs only.
 *  - Symmetric: amax' = max(min(amax, ub), min_amax); scale = amax' / qmax (e4m3 448,
 *    int8 127); inv = 1 / scale; q = sat_rne(x · inv) (e4m3 saturates to ±448, NaN gives 0x7F;
 *    int8 saturates to [-128, 127], NaN gives 0).
 *  - Asymmetric int8: range = max(max − min, min_amax); scale = range / 255; inv = 1 / scale;
 *    azp = rne_sat_s32(−128 − min / scale); q = clamp(rne_sat_s32(x · inv) + azp, −128, 127).
 *  - Static: inv = 1 / scale (and the caller's azp).
 *  Every operation is a single IEEE fp32 operation rounded to nearest even (explicit PTX
 *  div.rn / mul.rn / sub.rn, so no contraction and no flushing of denormals).
 *
 * Parameters (prologue macros; every one has a default so the template compiles bare):
 *   W8A8_QUANT_KERNEL   0: activation quantization: entry w8a8_quant_rows, plus
 *                          w8a8_quant_stats and w8a8_quant_finalize in mode 1.
 *                       1: weight utilities: w8a8_weight_requant, w8a8_weight_max_scale,
 *                          w8a8_weight_fnuz, w8a8_weight_fill.
 *   W8A8_QUANT_MODE     0 static per-tensor, 1 dynamic per-tensor, 2 dynamic per-token,
 *                       3 dynamic per-group (1 × W8A8_GROUP along K).
 *   W8A8_IN_TYPE        4 bf16, 5 fp16, 6 fp32 (w8a8_dtype values).
 *   W8A8_OUT_TYPE       1 e4m3, 3 int8.
 *   W8A8_ASYM           1: int8 with a zero point (modes 0, 1, 2).
 *   W8A8_UB             1: clamp the amax to *scale_ub (modes 1, 2, 3; symmetric only).
 *   W8A8_TEAM           threads sharing one segment (a row, or a group in mode 3): power of
 *                       two, 1…1024; mode 3 needs TEAM · VECS = W8A8_GROUP / 8.
 *   W8A8_VECS           8-element chunks per thread kept in registers between the two passes
 *                       (1…16); chunks beyond TEAM · VECS are loaded again in the second pass.
 *                       Thread `lane` of a team handles chunks lane, lane + TEAM, …
 *   W8A8_THREADS        threads per block: a multiple of 32 and of TEAM, at most 1024.
 *   W8A8_GROUP          mode 3: elements per group, power of two, 16…256.
 *   W8A8_SCALE_K_MAJOR  mode 3: the scale of (row, g) at [g · ld + row], else [row · ld + g].
 *                       Segments are numbered in the order of the scales (K-major: rows
 *                       fastest), so neighbouring teams write neighbouring scales.
 *   W8A8_SOFT_FP8       1: encode e4m3 with integer operations even where cvt exists (tests
 *                       the sm_80/86 path on newer GPUs). Default 0; below sm_89 always soft.
 *   W8A8_WEIGHT_TYPE    kernel 1: 1 e4m3, 3 int8.
 *
 * Layout: a chunk is 8 consecutive elements of a row (16 bytes of bf16/fp16, 32 of fp32) and
 * produces 8 output bytes; K % 16 == 0 and 16-byte aligned rows are the host's checks.
 */
#include "common/types.cuh"
#include "common/pdl.cuh"

#ifndef W8A8_QUANT_KERNEL
#define W8A8_QUANT_KERNEL 0
#endif
#ifndef W8A8_QUANT_MODE
#define W8A8_QUANT_MODE 2
#endif
#ifndef W8A8_IN_TYPE
#define W8A8_IN_TYPE 4
#endif
#ifndef W8A8_OUT_TYPE
#define W8A8_OUT_TYPE 1
#endif
#ifndef W8A8_ASYM
#define W8A8_ASYM 0
#endif
#ifndef W8A8_UB
#define W8A8_UB 0
#endif
#ifndef W8A8_GROUP
#define W8A8_GROUP 128
#endif
#ifndef W8A8_VECS
#define W8A8_VECS (W8A8_QUANT_MODE == 3 && W8A8_GROUP < 32 ? W8A8_GROUP / 8 : 4)
#endif
#ifndef W8A8_TEAM
#if W8A8_QUANT_MODE == 3
#define W8A8_TEAM (W8A8_GROUP / 8 / W8A8_VECS)
#else
#define W8A8_TEAM 256
#endif
#endif
#ifndef W8A8_THREADS
#define W8A8_THREADS (W8A8_TEAM > 256 ? W8A8_TEAM : 256)
#endif
#ifndef W8A8_SCALE_K_MAJOR
#define W8A8_SCALE_K_MAJOR 0
#endif
#ifndef W8A8_SOFT_FP8
#define W8A8_SOFT_FP8 0
#endif
#ifndef W8A8_WEIGHT_TYPE
#define W8A8_WEIGHT_TYPE 1
#endif

#define Q_MODE_STATIC 0
#define Q_MODE_TENSOR 1
#define Q_MODE_TOKEN 2
#define Q_MODE_GROUP 3
#define Q_T_E4M3 1
#define Q_T_INT8 3

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
#define Q_USE_SOFT_FP8 1
#else
#define Q_USE_SOFT_FP8 W8A8_SOFT_FP8
#endif

#define Q_FLT_MAX 3.402823466e+38f
#define Q_E4M3_MAX 448.0f
#define Q_INT8_MAX 127.0f
#define Q_INT8_RANGE 255.0f

/* ---- exactly rounded fp32 arithmetic (no contraction, no denormal flushing) ---------------- */

W8A8_DEVICE float q_div(float a, float b)
{
    float r;
    asm("div.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

W8A8_DEVICE float q_mul(float a, float b)
{
    float r;
    asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

W8A8_DEVICE float q_sub(float a, float b)
{
    float r;
    asm("sub.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

W8A8_DEVICE float q_inf(void) { return __int_as_float(0x7F800000); }

/* Round to nearest even, saturating to int32; NaN gives 0 (PTX float→int semantics). */
W8A8_DEVICE int q_rne_s32(float v)
{
    int r;
    asm("cvt.rni.sat.s32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r;
}

/* ---- encoders ------------------------------------------------------------------------------ */

/* e4m3 with integer operations, identical to cvt.rn.satfinite: NaN → 0x7F, |x| ≥ 448 (inf
 * included) → ±448, below 2^-6 the denormal grid m · 2^-9, else the mantissa rounded from 23
 * to 3 bits (ties to even; a carry moves into the exponent, which is what rounding up to the
 * next binade means). */
W8A8_DEVICE w8a8_u32 q_e4m3_soft(float x)
{
    w8a8_u32 u = __float_as_uint(x);
    w8a8_u32 sign = (u >> 24) & 0x80u;
    w8a8_u32 a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0x7Fu;
    if (a >= 0x43E00000u) /* 448.0f */
        return sign | 0x7Eu;
    if (a < 0x3C800000u) { /* 2^-6, the smallest e4m3 normal */
        w8a8_u32 q;
        asm("cvt.rni.u32.f32 %0, %1;" : "=r"(q) : "f"(q_mul(__uint_as_float(a), 512.0f)));
        return sign | q;
    }
    w8a8_u32 r = a + 0x7FFFFu + ((a >> 20) & 1u);
    return sign | ((r >> 20) - (120u << 3)); /* float bias 127 → e4m3 bias 7 */
}

/* Two e4m3 codes, `lo` in the low byte. */
W8A8_DEVICE w8a8_u32 q_e4m3x2(float lo, float hi)
{
#if Q_USE_SOFT_FP8
    return q_e4m3_soft(lo) | (q_e4m3_soft(hi) << 8);
#else
    w8a8_u32 r;
    asm("{\n\t.reg .b16 t;\n\tcvt.rn.satfinite.e4m3x2.f32 t, %1, %2;\n\tcvt.u32.u16 %0, t;\n\t}"
        : "=r"(r)
        : "f"(hi), "f"(lo));
    return r;
#endif
}

W8A8_DEVICE w8a8_u32 q_int8(float v)
{
    w8a8_u32 r;
    asm("cvt.rni.sat.s8.f32 %0, %1;" : "=r"(r) : "f"(v));
    return r & 0xFFu;
}

/* clamp(round(v) + azp) in 64 bits, so no int32 overflow can wrap. */
W8A8_DEVICE w8a8_u32 q_int8_azp(float v, int azp)
{
    long long s = (long long)q_rne_s32(v) + azp;
    s = s < -128 ? -128 : (s > 127 ? 127 : s);
    return (w8a8_u32)s & 0xFFu;
}

/* ---- ordered keys: float order as unsigned order, for atomicMax/atomicMin ------------------- */

W8A8_DEVICE w8a8_u32 q_key(float f)
{
    w8a8_u32 b = __float_as_uint(f);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

W8A8_DEVICE float q_unkey(w8a8_u32 k)
{
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k);
}

#if W8A8_QUANT_KERNEL == 0
/* ===================================== activations ======================================== */

#if W8A8_IN_TYPE == 6
#define Q_WORDS 8 /* 32-bit words per chunk */
#elif W8A8_IN_TYPE == 4 || W8A8_IN_TYPE == 5
#define Q_WORDS 4
#else
#error "W8A8_IN_TYPE must be 4 (bf16), 5 (fp16) or 6 (fp32)"
#endif
#define Q_SEGS (W8A8_THREADS / W8A8_TEAM) /* segments per block */

static_assert(W8A8_OUT_TYPE == Q_T_E4M3 || W8A8_OUT_TYPE == Q_T_INT8, "W8A8_OUT_TYPE: 1 or 3");
static_assert(W8A8_QUANT_MODE >= 0 && W8A8_QUANT_MODE <= 3, "W8A8_QUANT_MODE: 0 to 3");
static_assert(!W8A8_ASYM || (W8A8_OUT_TYPE == Q_T_INT8 && W8A8_QUANT_MODE != Q_MODE_GROUP),
              "W8A8_ASYM needs int8 and a per-tensor or per-token mode");
static_assert(!W8A8_UB || (W8A8_QUANT_MODE != Q_MODE_STATIC && !W8A8_ASYM),
              "W8A8_UB needs a dynamic symmetric mode");
static_assert(W8A8_TEAM >= 1 && W8A8_TEAM <= 1024 && (W8A8_TEAM & (W8A8_TEAM - 1)) == 0,
              "W8A8_TEAM: a power of two up to 1024");
static_assert(W8A8_THREADS % 32 == 0 && W8A8_THREADS % W8A8_TEAM == 0 && W8A8_THREADS <= 1024,
              "W8A8_THREADS: a multiple of 32 and of W8A8_TEAM, at most 1024");
static_assert(W8A8_VECS >= 1 && W8A8_VECS <= 16, "W8A8_VECS: 1 to 16");
static_assert(W8A8_QUANT_MODE != Q_MODE_GROUP ||
                  (W8A8_GROUP >= 16 && W8A8_GROUP <= 256 && (W8A8_GROUP & (W8A8_GROUP - 1)) == 0 &&
                   W8A8_TEAM * W8A8_VECS == W8A8_GROUP / 8),
              "mode 3: W8A8_GROUP a power of two in 16..256, W8A8_TEAM * W8A8_VECS = GROUP / 8");

struct q_chunk {
    w8a8_u32 w[Q_WORDS];
};

/* Sym: a = amax. Asym: a = max, b = min (a < b until a finite value was seen). */
struct q_stats {
    float a, b;
};

/* What quantizing a segment needs. */
struct q_params {
    float scale, inv;
    int azp;
};

W8A8_DEVICE void q_load(q_chunk &c, const char *row, long long chunk)
{
    const char *p = row + chunk * (Q_WORDS * 4);
#pragma unroll
    for (int i = 0; i < Q_WORDS; i += 4)
        asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(c.w[i]), "=r"(c.w[i + 1]), "=r"(c.w[i + 2]), "=r"(c.w[i + 3])
            : "l"(p + 4 * i));
}

W8A8_DEVICE void q_zero(q_chunk &c)
{
#pragma unroll
    for (int i = 0; i < Q_WORDS; i++)
        c.w[i] = 0;
}

/* Element e (0…7) of a chunk as a float (exact). */
W8A8_DEVICE float q_elem(const q_chunk &c, int e)
{
#if W8A8_IN_TYPE == 6
    return __uint_as_float(c.w[e]);
#elif W8A8_IN_TYPE == 4
    w8a8_u32 w = c.w[e >> 1];
    return __uint_as_float((e & 1) ? (w & 0xFFFF0000u) : (w << 16));
#else
    w8a8_u32 w = c.w[e >> 1];
    return w8a8_fp16_to_f32((w8a8_u16)((e & 1) ? (w >> 16) : (w & 0xFFFFu)));
#endif
}

W8A8_DEVICE void q_stats_init(q_stats &s)
{
#if W8A8_ASYM
    s.a = -q_inf();
    s.b = q_inf();
#else
    s.a = 0.0f;
    s.b = 0.0f;
#endif
}

W8A8_DEVICE void q_stats_merge(q_stats &s, float a, float b)
{
#if W8A8_ASYM
    s.a = fmaxf(s.a, a);
    s.b = fminf(s.b, b);
#else
    s.a = fmaxf(s.a, a);
#endif
}

/* Finite values only: NaN and ±inf never move a scale. */
W8A8_DEVICE void q_stats_add(q_stats &s, const q_chunk &c)
{
#pragma unroll
    for (int e = 0; e < 8; e++) {
        float x = q_elem(c, e);
        if (fabsf(x) <= Q_FLT_MAX)
#if W8A8_ASYM
            q_stats_merge(s, x, x);
#else
            q_stats_merge(s, fabsf(x), 0.0f);
#endif
    }
}

/* Scale, reciprocal and zero point from statistics (dynamic modes). */
W8A8_DEVICE q_params q_params_from_stats(q_stats s, const float *scale_ub, float min_amax)
{
    q_params p;
#if W8A8_ASYM
    float mx = s.a, mn = s.b;
    if (!(mx >= mn)) { /* no finite element */
        mx = 0.0f;
        mn = 0.0f;
    }
    float range = fmaxf(q_sub(mx, mn), min_amax);
    p.scale = q_div(range, Q_INT8_RANGE);
    p.inv = q_div(1.0f, p.scale);
    p.azp = q_rne_s32(q_sub(-128.0f, q_div(mn, p.scale)));
#else
    float amax = s.a;
#if W8A8_UB
    amax = fminf(amax, *scale_ub);
#endif
    amax = fmaxf(amax, min_amax);
    p.scale = q_div(amax, W8A8_OUT_TYPE == Q_T_E4M3 ? Q_E4M3_MAX : Q_INT8_MAX);
    p.inv = q_div(1.0f, p.scale);
    p.azp = 0;
#endif
    return p;
}

/* Mode 1 keeps the running statistics in the caller's scale (and azp) slots until finalize:
 * symmetric: the amax's bits (amax ≥ 0 orders as unsigned); asymmetric: ordered keys of the
 * max (scale slot, initialized to 0) and of the min (azp slot, initialized to 0xFFFFFFFF). */
W8A8_DEVICE q_stats q_stats_from_slots(const float *scale_slot, const int *azp_slot)
{
    q_stats s;
#if W8A8_ASYM
    s.a = q_unkey(*(const w8a8_u32 *)scale_slot);
    s.b = q_unkey(*(const w8a8_u32 *)azp_slot);
#else
    s.a = *scale_slot;
    s.b = 0.0f;
#endif
    return s;
}

/* The 8 output bytes of one chunk, as two words (little-endian: element 0 in the low byte). */
W8A8_DEVICE void q_encode(const q_chunk &c, const q_params &p, w8a8_u32 &lo, w8a8_u32 &hi)
{
    w8a8_u32 word[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float v[4];
#pragma unroll
        for (int e = 0; e < 4; e++)
            v[e] = q_mul(q_elem(c, 4 * h + e), p.inv);
#if W8A8_OUT_TYPE == Q_T_E4M3
        word[h] = q_e4m3x2(v[0], v[1]) | (q_e4m3x2(v[2], v[3]) << 16);
#elif W8A8_ASYM
        word[h] = q_int8_azp(v[0], p.azp) | (q_int8_azp(v[1], p.azp) << 8) |
                  (q_int8_azp(v[2], p.azp) << 16) | (q_int8_azp(v[3], p.azp) << 24);
#else
        word[h] = q_int8(v[0]) | (q_int8(v[1]) << 8) | (q_int8(v[2]) << 16) | (q_int8(v[3]) << 24);
#endif
    }
    lo = word[0];
    hi = word[1];
}

W8A8_DEVICE void q_store(unsigned char *row, long long chunk, w8a8_u32 lo, w8a8_u32 hi)
{
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(row + 8 * chunk), "r"(lo), "r"(hi)
                 : "memory");
}

#if W8A8_QUANT_MODE == Q_MODE_TOKEN || W8A8_QUANT_MODE == Q_MODE_GROUP
/* Combines the statistics of the TEAM threads of each segment; every thread of the team gets
 * the result. Every thread of the block must call it (shuffles and a barrier inside). */
W8A8_DEVICE q_stats q_team_reduce(q_stats s)
{
    const int width = W8A8_TEAM < 32 ? W8A8_TEAM : 32;
#pragma unroll
    for (int offset = width / 2; offset > 0; offset >>= 1)
        q_stats_merge(s, __shfl_xor_sync(0xFFFFFFFFu, s.a, offset),
                      __shfl_xor_sync(0xFFFFFFFFu, s.b, offset));
#if W8A8_TEAM > 32
    __shared__ float warp_a[W8A8_THREADS / 32], warp_b[W8A8_THREADS / 32];
    const int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
        warp_a[warp] = s.a;
        warp_b[warp] = s.b;
    }
    __syncthreads();
    const int first = (threadIdx.x / W8A8_TEAM) * (W8A8_TEAM / 32);
    q_stats_init(s);
#pragma unroll
    for (int w = 0; w < W8A8_TEAM / 32; w++)
        q_stats_merge(s, warp_a[first + w], warp_b[first + w]);
#endif
    return s;
}
#endif

/*
 * One segment per TEAM threads: a row (modes 0, 1, 2) or one group of a row (mode 3).
 * Rows m ≤ row < m_out are padding: read as zeros. Pass 1 loads the segment (keeping up to
 * VECS chunks per thread in registers) and reduces its statistics; pass 2 quantizes.
 *   in, out       row strides ld_in (elements), ld_out (bytes)
 *   scale, azp    mode 0: read (1 value); mode 1: the statistics slots (read); modes 2, 3:
 *                 written (mode 2: [row]; mode 3: see W8A8_SCALE_K_MAJOR, leading dim
 *                 scale_ld). azp only when W8A8_ASYM.
 */
extern "C" __global__ void __launch_bounds__(W8A8_THREADS)
    w8a8_quant_rows(const char *__restrict__ in, unsigned char *__restrict__ out, float *scale,
                    int *azp, const float *scale_ub, long long m, long long m_out, long long k,
                    long long ld_in, long long ld_out, long long scale_ld, float min_amax)
{
    const int lane = threadIdx.x % W8A8_TEAM;
    const long long seg = (long long)blockIdx.x * Q_SEGS + threadIdx.x / W8A8_TEAM;
    const long long chunks = k / 8;
#if W8A8_QUANT_MODE == Q_MODE_GROUP
    const long long groups = (k + W8A8_GROUP - 1) / W8A8_GROUP;
#if W8A8_SCALE_K_MAJOR
    const long long group = seg / m_out;
    const long long row = group < groups ? seg - group * m_out : m_out; /* past the end: idle */
#else
    const long long row = seg / groups;
    const long long group = seg - row * groups;
#endif
    const long long c_begin = group * (W8A8_GROUP / 8);
    const long long c_end = chunks < c_begin + W8A8_GROUP / 8 ? chunks : c_begin + W8A8_GROUP / 8;
#else
    const long long row = seg;
    const long long c_begin = 0, c_end = chunks;
#endif
    const bool live = row < m_out; /* inside the output */
    const bool real = row < m;     /* inside the input */
    const char *in_row = in + (real ? row : 0) * ld_in * (Q_WORDS / 2);
    unsigned char *out_row = out + row * ld_out;
    const long long cached_end = c_begin + (long long)W8A8_VECS * W8A8_TEAM;

    q_chunk cache[W8A8_VECS];
#pragma unroll
    for (int v = 0; v < W8A8_VECS; v++) {
        long long c = c_begin + lane + (long long)v * W8A8_TEAM;
        if (real && c < c_end)
            q_load(cache[v], in_row, c);
        else
            q_zero(cache[v]);
    }
    /* The loads are issued: a GEMM launched next with programmatic dependent launch (as
     * w8a8_linear does) may start its prologue now; it waits for this grid to complete before
     * it reads what we write (common/pdl.cuh). This kernel is launched without the attribute,
     * so it waits for nothing itself. */
    w8a8_pdl_launch_dependents();

    q_params p;
#if W8A8_QUANT_MODE == Q_MODE_STATIC
    p.scale = *scale;
    p.inv = q_div(1.0f, p.scale);
    p.azp = W8A8_ASYM ? *azp : 0;
#elif W8A8_QUANT_MODE == Q_MODE_TENSOR
    p = q_params_from_stats(q_stats_from_slots(scale, azp), scale_ub, min_amax);
#else
    q_stats s;
    q_stats_init(s);
#pragma unroll
    for (int v = 0; v < W8A8_VECS; v++) {
        long long c = c_begin + lane + (long long)v * W8A8_TEAM;
        if (real && c < c_end)
            q_stats_add(s, cache[v]);
    }
    for (long long c = cached_end + lane; real && c < c_end; c += W8A8_TEAM) {
        q_chunk t;
        q_load(t, in_row, c);
        q_stats_add(s, t);
    }
    s = q_team_reduce(s);
    p = q_params_from_stats(s, scale_ub, min_amax);
    if (live && lane == 0) {
#if W8A8_QUANT_MODE == Q_MODE_TOKEN
        const long long at = row;
#elif W8A8_SCALE_K_MAJOR
        const long long at = group * scale_ld + row;
#else
        const long long at = row * scale_ld + group;
#endif
        scale[at] = p.scale;
        if (W8A8_ASYM)
            azp[at] = p.azp;
    }
#endif
    if (!live)
        return;

#pragma unroll
    for (int v = 0; v < W8A8_VECS; v++) {
        long long c = c_begin + lane + (long long)v * W8A8_TEAM;
        if (c < c_end) {
            w8a8_u32 lo, hi;
            q_encode(cache[v], p, lo, hi);
            q_store(out_row, c, lo, hi);
        }
    }
    for (long long c = cached_end + lane; c < c_end; c += W8A8_TEAM) {
        q_chunk t;
        if (real)
            q_load(t, in_row, c);
        else
            q_zero(t);
        w8a8_u32 lo, hi;
        q_encode(t, p, lo, hi);
        q_store(out_row, c, lo, hi);
    }
}

#if W8A8_QUANT_MODE == Q_MODE_TENSOR
/* Pass 1 of dynamic per-tensor quantization: statistics of rows [0, m) folded into the slots
 * with atomics (the host initialized them on the same stream). Grid-stride over rows. */
extern "C" __global__ void __launch_bounds__(W8A8_THREADS)
    w8a8_quant_stats(const char *__restrict__ in, float *scale_slot, int *azp_slot, long long m,
                     long long k, long long ld_in)
{
    q_stats s;
    q_stats_init(s);
    const long long chunks = k / 8;
    for (long long row = blockIdx.x; row < m; row += gridDim.x) {
        const char *in_row = in + row * ld_in * (Q_WORDS / 2);
        for (long long c = threadIdx.x; c < chunks; c += W8A8_THREADS) {
            q_chunk t;
            q_load(t, in_row, c);
            q_stats_add(s, t);
        }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        q_stats_merge(s, __shfl_xor_sync(0xFFFFFFFFu, s.a, offset),
                      __shfl_xor_sync(0xFFFFFFFFu, s.b, offset));
    __shared__ float warp_a[W8A8_THREADS / 32], warp_b[W8A8_THREADS / 32];
    if (threadIdx.x % 32 == 0) {
        warp_a[threadIdx.x / 32] = s.a;
        warp_b[threadIdx.x / 32] = s.b;
    }
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    for (int w = 1; w < W8A8_THREADS / 32; w++)
        q_stats_merge(s, warp_a[w], warp_b[w]);
#if W8A8_ASYM
    if (s.a >= s.b) {
        atomicMax((unsigned int *)scale_slot, q_key(s.a));
        atomicMin((unsigned int *)azp_slot, q_key(s.b));
    }
#else
    atomicMax((unsigned int *)scale_slot, __float_as_uint(s.a));
#endif
}

/* Pass 3: replaces the statistics in the slots by the scale (and zero point). One thread. */
extern "C" __global__ void w8a8_quant_finalize(float *scale_slot, int *azp_slot,
                                               const float *scale_ub, float min_amax)
{
    q_params p = q_params_from_stats(q_stats_from_slots(scale_slot, azp_slot), scale_ub, min_amax);
    *scale_slot = p.scale;
    if (W8A8_ASYM)
        *azp_slot = p.azp;
}
#endif

#else
/* ================================== weight utilities ====================================== */

static_assert(W8A8_WEIGHT_TYPE == Q_T_E4M3 || W8A8_WEIGHT_TYPE == Q_T_INT8, "W8A8_WEIGHT_TYPE: 1 or 3");

W8A8_DEVICE float q_max_scale(const float *scales, int n)
{
    float s = scales[0];
    for (int i = 1; i < n; i++)
        s = fmaxf(s, scales[i]);
    return s;
}

W8A8_DEVICE w8a8_u32 q_requant_byte(w8a8_u32 code, float s, float inv)
{
#if W8A8_WEIGHT_TYPE == Q_T_E4M3
    float v = q_mul(q_mul(w8a8_e4m3_to_f32((w8a8_u8)code), s), inv);
    return q_e4m3x2(v, 0.0f) & 0xFFu;
#else
    float v = q_mul(q_mul((float)(w8a8_s8)code, s), inv);
    return q_int8(v);
#endif
}

/* One shard of a fused weight (`bytes` bytes, 16-byte aligned): codes dequantized with the
 * shard's scale and quantized again with the largest scale of all shards; a shard whose
 * scale is the largest is copied unchanged. In place when in == out. */
extern "C" __global__ void __launch_bounds__(256)
    w8a8_weight_requant(const unsigned char *in, unsigned char *out, long long bytes,
                        const float *shard_scales, int shard, int n_shards)
{
    const float s_max = q_max_scale(shard_scales, n_shards);
    const float s = shard_scales[shard];
    const float inv = q_div(1.0f, s_max);
    const bool copy = s == s_max;
    const long long words = bytes / 16;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        w8a8_u32x4 v = ((const w8a8_u32x4 *)in)[i];
        if (!copy) {
            w8a8_u32 *w = &v.x;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                w8a8_u32 r = 0;
#pragma unroll
                for (int b = 0; b < 4; b++)
                    r |= q_requant_byte((w[j] >> (8 * b)) & 0xFFu, s, inv) << (8 * b);
                w[j] = r;
            }
        }
        ((w8a8_u32x4 *)out)[i] = v;
    }
}

/* out_scale = max(shard_scales[0…n)). One thread; runs after every shard's requant so that
 * out_scale may alias a shard scale. */
extern "C" __global__ void w8a8_weight_max_scale(const float *shard_scales, int n_shards,
                                                 float *out_scale)
{
    *out_scale = q_max_scale(shard_scales, n_shards);
}

/* e4m3fn → e4m3fnuz in place: the code 0x80 (−0, NaN in fnuz) becomes 0x00; every other code
 * keeps its bits, which in fnuz mean half the value, so the scales double. */
extern "C" __global__ void __launch_bounds__(256)
    w8a8_weight_fnuz(unsigned char *weight, long long bytes, float *scales, long long n_scales)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = first; i < bytes / 16; i += stride) {
        w8a8_u32x4 v = ((w8a8_u32x4 *)weight)[i];
        w8a8_u32 *w = &v.x;
#pragma unroll
        for (int j = 0; j < 4; j++) {
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (((w[j] >> (8 * b)) & 0xFFu) == 0x80u)
                    w[j] &= ~(0xFFu << (8 * b));
        }
        ((w8a8_u32x4 *)weight)[i] = v;
    }
    if (first == 0)
        for (long long i = bytes / 16 * 16; i < bytes; i++)
            if (weight[i] == 0x80u)
                weight[i] = 0;
    for (long long i = first; i < n_scales; i += stride)
        scales[i] = q_mul(scales[i], 2.0f);
}

/* out[0…count) = *value (per-shard scale → per-channel scales, one launch per shard). */
extern "C" __global__ void __launch_bounds__(256)
    w8a8_weight_fill(float *out, long long count, const float *value)
{
    const float v = *value;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        out[i] = v;
}
#endif
