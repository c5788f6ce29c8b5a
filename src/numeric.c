/* Host conversions between float/double and FP8, bf16, fp16 and int8 (numeric.h has the
 * rules). Every narrow float format is handled by one generic encoder and decoder driven by a
 * small format description, so the formats cannot disagree on rounding or denormals. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "numeric.h"

/* A binary floating-point format: sign bit, exp_bits exponent bits with `bias`, man_bits
 * stored mantissa bits. `max` is the largest finite value. */
typedef struct num_format {
    int exp_bits, man_bits, bias;
    double max;
    bool saturate;      /* overflow and ±inf give ±max (FP8) instead of ±inf (IEEE) */
    bool has_inf;       /* the all-ones exponent with a zero mantissa is ±inf (IEEE, e5m2) */
    bool fnuz;          /* e4m3fnuz: no -0, the pattern 1000…0 is the only NaN */
    uint32_t nan_bits;  /* the positive NaN pattern the encoder writes */
} num_format;

static const num_format fmt_e4m3 = {4, 3, 7, 448.0, true, false, false, 0x7F};
static const num_format fmt_e5m2 = {5, 2, 15, 57344.0, true, true, false, 0x7F};
static const num_format fmt_e4m3fnuz = {4, 3, 8, 240.0, true, false, true, 0x80};
static const num_format fmt_bf16 = {8, 7, 127, 0x1.FEp127, false, true, false, 0x7FC0};
static const num_format fmt_fp16 = {5, 10, 15, 65504.0, false, true, false, 0x7E00};

/* Round-to-nearest-even of a non-negative double below 2^53 (independent of the FPU's
 * current rounding mode, which a caller may have changed). */
static double round_half_even(double q)
{
    double f = floor(q);
    double d = q - f; /* exact: q < 2^53 */
    if (d > 0.5)
        return f + 1.0;
    if (d < 0.5)
        return f;
    return fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

/* Bit pattern of a value already representable in fmt (0 ≤ a ≤ max). */
static uint32_t pack_exact(const num_format *fmt, double a)
{
    int min_exp = 1 - fmt->bias; /* exponent of the smallest normal */
    if (a < ldexp(1.0, min_exp))
        return (uint32_t)ldexp(a, fmt->man_bits - min_exp); /* denormal: exponent field 0 */
    int e;
    frexp(a, &e); /* a = f · 2^e with f in [0.5, 1) */
    e -= 1;       /* a = 1.m · 2^e */
    uint32_t mantissa = (uint32_t)(ldexp(a, fmt->man_bits - e) - ldexp(1.0, fmt->man_bits));
    return ((uint32_t)(e + fmt->bias) << fmt->man_bits) | mantissa;
}

static uint32_t encode(const num_format *fmt, double value)
{
    uint32_t sign = signbit(value) ? 1u << (fmt->exp_bits + fmt->man_bits) : 0u;
    uint32_t inf_bits = ((1u << fmt->exp_bits) - 1u) << fmt->man_bits;
    if (isnan(value))
        return fmt->fnuz ? fmt->nan_bits : (sign | fmt->nan_bits);
    double a = fabs(value);
    double rounded;
    if (isinf(a)) {
        rounded = a;
    } else {
        /* The quantum (value of one mantissa ulp) in a's binade, or the denormal quantum. */
        int min_exp = 1 - fmt->bias, e = min_exp;
        if (a >= ldexp(1.0, min_exp)) {
            frexp(a, &e);
            e -= 1;
        }
        int quantum_exp = e - fmt->man_bits;
        rounded = ldexp(round_half_even(ldexp(a, -quantum_exp)), quantum_exp);
    }
    if (rounded > fmt->max) {
        if (fmt->saturate)
            rounded = fmt->max;
        else
            return sign | inf_bits;
    }
    if (rounded == 0.0 && fmt->fnuz)
        return 0; /* fnuz has no negative zero (its pattern is NaN) */
    return sign | pack_exact(fmt, rounded);
}

static double decode(const num_format *fmt, uint32_t bits)
{
    uint32_t man_mask = (1u << fmt->man_bits) - 1u;
    uint32_t exp_max = (1u << fmt->exp_bits) - 1u;
    uint32_t sign_bit = 1u << (fmt->exp_bits + fmt->man_bits);
    uint32_t exp_field = (bits >> fmt->man_bits) & exp_max;
    uint32_t mantissa = bits & man_mask;
    bool negative = (bits & sign_bit) != 0;
    if (fmt->fnuz) {
        if (bits == sign_bit)
            return NAN;
    } else if (fmt->has_inf) {
        if (exp_field == exp_max)
            return mantissa ? NAN : (negative ? -INFINITY : INFINITY);
    } else if (exp_field == exp_max && mantissa == man_mask) {
        return NAN; /* e4m3fn: only S.1111.111 is NaN */
    }
    double magnitude;
    if (exp_field == 0)
        magnitude = ldexp((double)mantissa, 1 - fmt->bias - fmt->man_bits);
    else
        magnitude = ldexp((double)(mantissa | (man_mask + 1u)),
                          (int)exp_field - fmt->bias - fmt->man_bits);
    return negative ? -magnitude : magnitude;
}

uint8_t num_f32_to_e4m3(float value) { return (uint8_t)encode(&fmt_e4m3, value); }
float num_e4m3_to_f32(uint8_t bits) { return (float)decode(&fmt_e4m3, bits); }
uint8_t num_f32_to_e5m2(float value) { return (uint8_t)encode(&fmt_e5m2, value); }
float num_e5m2_to_f32(uint8_t bits) { return (float)decode(&fmt_e5m2, bits); }
uint8_t num_f32_to_e4m3fnuz(float value) { return (uint8_t)encode(&fmt_e4m3fnuz, value); }
float num_e4m3fnuz_to_f32(uint8_t bits) { return (float)decode(&fmt_e4m3fnuz, bits); }
uint16_t num_f32_to_bf16(float value) { return (uint16_t)encode(&fmt_bf16, value); }
uint16_t num_f64_to_bf16(double value) { return (uint16_t)encode(&fmt_bf16, value); }
uint16_t num_f32_to_fp16(float value) { return (uint16_t)encode(&fmt_fp16, value); }
uint16_t num_f64_to_fp16(double value) { return (uint16_t)encode(&fmt_fp16, value); }
float num_fp16_to_f32(uint16_t bits) { return (float)decode(&fmt_fp16, bits); }

float num_bf16_to_f32(uint16_t bits)
{
    /* bf16 is the top half of a float: exact, NaN payloads included. */
    uint32_t word = (uint32_t)bits << 16;
    float value;
    memcpy(&value, &word, sizeof value);
    return value;
}

/* int8 from a double: saturate, then RNE (the clamp first keeps the rounding in range). */
static int8_t int8_from_f64(double value)
{
    if (isnan(value))
        return 0;
    if (value >= NUM_INT8_MAX)
        return NUM_INT8_MAX;
    if (value <= NUM_INT8_MIN)
        return NUM_INT8_MIN;
    double r = round_half_even(fabs(value));
    return (int8_t)(value < 0 ? -r : r);
}

int8_t num_f32_to_int8(float value) { return int8_from_f64(value); }

/* Rounds a double to float with RNE; the C conversion already does, in the default mode. */
static float f64_to_f32(double value) { return (float)value; }

int num_load_f32(w8a8_dtype dtype, const void *data, int64_t index, float *value)
{
    const uint8_t *bytes = data;
    switch (dtype) {
    case W8A8_E4M3: *value = num_e4m3_to_f32(bytes[index]); return 0;
    case W8A8_E5M2: *value = num_e5m2_to_f32(bytes[index]); return 0;
    case W8A8_E4M3FNUZ: *value = num_e4m3fnuz_to_f32(bytes[index]); return 0;
    case W8A8_INT8: *value = (float)((const int8_t *)data)[index]; return 0;
    case W8A8_BF16: *value = num_bf16_to_f32(((const uint16_t *)data)[index]); return 0;
    case W8A8_FP16: *value = num_fp16_to_f32(((const uint16_t *)data)[index]); return 0;
    case W8A8_FP32: *value = ((const float *)data)[index]; return 0;
    default: return -1;
    }
}

int num_store_f32(w8a8_dtype dtype, void *data, int64_t index, float value)
{
    return num_store_f64(dtype, data, index, (double)value); /* float → double is exact */
}

int num_store_f64(w8a8_dtype dtype, void *data, int64_t index, double value)
{
    uint8_t *bytes = data;
    switch (dtype) {
    case W8A8_E4M3: bytes[index] = (uint8_t)encode(&fmt_e4m3, value); return 0;
    case W8A8_E5M2: bytes[index] = (uint8_t)encode(&fmt_e5m2, value); return 0;
    case W8A8_E4M3FNUZ: bytes[index] = (uint8_t)encode(&fmt_e4m3fnuz, value); return 0;
    case W8A8_BF16: ((uint16_t *)data)[index] = num_f64_to_bf16(value); return 0;
    case W8A8_FP16: ((uint16_t *)data)[index] = num_f64_to_fp16(value); return 0;
    case W8A8_FP32: ((float *)data)[index] = f64_to_f32(value); return 0;
    case W8A8_INT8: ((int8_t *)data)[index] = int8_from_f64(value); return 0;
    default: return -1;
    }
}
