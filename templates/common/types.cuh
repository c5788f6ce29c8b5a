/* Device helpers every template may include: fixed-width types and conversions between the
 * narrow formats and float. NVRTC sees no toolkit header (no cuda_fp8.h / cuda_bf16.h /
 * <cstdint>), so everything here is plain C++ plus PTX `cvt`.
 *
 *  decode (exact):  w8a8_e4m3_to_f32, w8a8_e5m2_to_f32, w8a8_int8_to_f32,
 *                   w8a8_e4m3x2_to_f32x2, w8a8_e5m2x2_to_f32x2 (two packed codes, low byte
 *                   first), w8a8_bf16_to_f32, w8a8_fp16_to_f32
 *  encode (RNE, IEEE overflow to ±inf, as src/numeric.c on the host):
 *                   w8a8_f32_to_bf16, w8a8_f32_to_fp16 (bit patterns)
 *
 * FP8 decoding uses `cvt.rn.f16x2.e4m3x2` / `.e5m2x2` from sm_89 on; sm_80/86 lack them and
 * decode with integer operations. Both paths are exact and agree on every code. Nothing here
 * depends on denormal flushing: every decoded FP8 value is a normal float (or zero).
 *
 * Reads W8A8_FP8_DECODE_BITS (optional, any value): take the integer path on every arch, so
 * the sm_80 path can be tested on newer GPUs (sm_80 cubins do not run on sm_90). */
#ifndef W8A8_TYPES_CUH
#define W8A8_TYPES_CUH

typedef signed char w8a8_s8;
typedef unsigned char w8a8_u8;
typedef unsigned short w8a8_u16;
typedef unsigned int w8a8_u32;
typedef int w8a8_s32;
typedef unsigned long long w8a8_u64;
typedef long long w8a8_s64;

static_assert(sizeof(w8a8_u16) == 2 && sizeof(w8a8_u32) == 4 && sizeof(w8a8_u64) == 8,
              "fixed-width typedefs have the wrong size");

/* 16 bytes, for one vectorized global load (K and row strides keep 16-byte alignment). */
struct alignas(16) w8a8_u32x4 {
    w8a8_u32 x, y, z, w;
};

#define W8A8_DEVICE static __device__ __forceinline__

W8A8_DEVICE float w8a8_bits_to_f32(w8a8_u32 bits) { return __int_as_float((int)bits); }

W8A8_DEVICE float w8a8_fp16_to_f32(w8a8_u16 bits)
{
    float value;
    asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
    return value;
}

/* bf16 is the upper half of a float. */
W8A8_DEVICE float w8a8_bf16_to_f32(w8a8_u16 bits) { return w8a8_bits_to_f32((w8a8_u32)bits << 16); }

W8A8_DEVICE w8a8_u16 w8a8_f32_to_fp16(float value)
{
    w8a8_u16 bits;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
    return bits;
}

/* cvt.rn.bf16.f32 exists from sm_80, the oldest arch we target. */
W8A8_DEVICE w8a8_u16 w8a8_f32_to_bf16(float value)
{
    w8a8_u16 bits;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(value));
    return bits;
}

W8A8_DEVICE float w8a8_int8_to_f32(w8a8_u8 code) { return (float)(w8a8_s8)code; }

/* e5m2 is the upper byte of an fp16 (same exponent width and bias), on every arch. */
W8A8_DEVICE float w8a8_e5m2_to_f32(w8a8_u8 code) { return w8a8_fp16_to_f32((w8a8_u16)code << 8); }

/* e4m3fn with integer operations: S.EEEE.MMM, bias 7, no infinity, S.1111.111 is NaN.
 * Normals rebias the exponent into a float; denormals are m · 2^-9 (a normal float). */
W8A8_DEVICE float w8a8_e4m3_to_f32_bits(w8a8_u8 code)
{
    w8a8_u32 sign = (w8a8_u32)(code & 0x80u) << 24;
    w8a8_u32 exponent = (code >> 3) & 0xFu;
    w8a8_u32 mantissa = code & 0x7u;
    if ((code & 0x7Fu) == 0x7Fu)
        return w8a8_bits_to_f32(sign | 0x7FC00000u);
    if (exponent == 0)
        return w8a8_bits_to_f32(sign | __float_as_uint((float)mantissa * 0.001953125f));
    return w8a8_bits_to_f32(sign | ((exponent + 120u) << 23) | (mantissa << 20));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890 && !defined(W8A8_FP8_DECODE_BITS)
/* Two packed FP8 codes → two floats through f16x2 (exact: e4m3/e5m2 ⊂ f16). */
#define W8A8_FP8X2_CVT(ptx_type)                                                     \
    w8a8_u32 halves;                                                                 \
    asm("cvt.rn.f16x2." ptx_type "x2 %0, %1;" : "=r"(halves) : "h"(pair));           \
    lo = w8a8_fp16_to_f32((w8a8_u16)(halves & 0xFFFFu));                             \
    hi = w8a8_fp16_to_f32((w8a8_u16)(halves >> 16));

W8A8_DEVICE void w8a8_e4m3x2_to_f32x2(w8a8_u16 pair, float &lo, float &hi) { W8A8_FP8X2_CVT("e4m3") }
W8A8_DEVICE void w8a8_e5m2x2_to_f32x2(w8a8_u16 pair, float &lo, float &hi) { W8A8_FP8X2_CVT("e5m2") }
#undef W8A8_FP8X2_CVT

W8A8_DEVICE float w8a8_e4m3_to_f32(w8a8_u8 code)
{
    float lo, hi;
    w8a8_e4m3x2_to_f32x2(code, lo, hi);
    return lo;
}
#else
W8A8_DEVICE void w8a8_e4m3x2_to_f32x2(w8a8_u16 pair, float &lo, float &hi)
{
    lo = w8a8_e4m3_to_f32_bits((w8a8_u8)(pair & 0xFFu));
    hi = w8a8_e4m3_to_f32_bits((w8a8_u8)(pair >> 8));
}

W8A8_DEVICE void w8a8_e5m2x2_to_f32x2(w8a8_u16 pair, float &lo, float &hi)
{
    lo = w8a8_e5m2_to_f32((w8a8_u8)(pair & 0xFFu));
    hi = w8a8_e5m2_to_f32((w8a8_u8)(pair >> 8));
}

W8A8_DEVICE float w8a8_e4m3_to_f32(w8a8_u8 code) { return w8a8_e4m3_to_f32_bits(code); }
#endif

#endif /* W8A8_TYPES_CUH */
