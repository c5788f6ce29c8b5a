/* Host conversions (src/numeric.c): exhaustive decode/encode round trips of every FP8 and
 * 16-bit code, round-to-nearest-even at every midpoint, saturation, NaN and infinity, int8
 * rounding, and single rounding from double. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "numeric.h"
#include "testutil.h"

typedef uint8_t (*encode8_fn)(float);
typedef float (*decode8_fn)(uint8_t);

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

START_TEST(e4m3_known_values)
{
    ck_assert_float_eq(num_e4m3_to_f32(0x00), 0.0f);
    ck_assert(signbit(num_e4m3_to_f32(0x80)) && num_e4m3_to_f32(0x80) == 0.0f);
    ck_assert_float_eq(num_e4m3_to_f32(0x01), ldexpf(1.0f, -9));  /* smallest denormal */
    ck_assert_float_eq(num_e4m3_to_f32(0x07), 7 * ldexpf(1.0f, -9));
    ck_assert_float_eq(num_e4m3_to_f32(0x08), ldexpf(1.0f, -6)); /* smallest normal */
    ck_assert_float_eq(num_e4m3_to_f32(0x38), 1.0f);
    ck_assert_float_eq(num_e4m3_to_f32(0x7E), 448.0f);
    ck_assert_float_eq(num_e4m3_to_f32(0xFE), -448.0f);
    ck_assert(isnan(num_e4m3_to_f32(0x7F)) && isnan(num_e4m3_to_f32(0xFF)));
    ck_assert_float_eq(num_e4m3_to_f32(0x78), 256.0f); /* S.1111.000 is finite in e4m3fn */
}
END_TEST

START_TEST(e5m2_known_values)
{
    ck_assert_float_eq(num_e5m2_to_f32(0x3C), 1.0f);
    ck_assert_float_eq(num_e5m2_to_f32(0x01), ldexpf(1.0f, -16));
    ck_assert_float_eq(num_e5m2_to_f32(0x7B), 57344.0f);
    ck_assert(isinf(num_e5m2_to_f32(0x7C)) && num_e5m2_to_f32(0x7C) > 0);
    ck_assert(isinf(num_e5m2_to_f32(0xFC)) && num_e5m2_to_f32(0xFC) < 0);
    for (int c = 0x7D; c <= 0x7F; c++)
        ck_assert(isnan(num_e5m2_to_f32((uint8_t)c)) && isnan(num_e5m2_to_f32((uint8_t)(c | 0x80))));
}
END_TEST

START_TEST(e4m3fnuz_known_values)
{
    ck_assert(isnan(num_e4m3fnuz_to_f32(0x80)));
    ck_assert_float_eq(num_e4m3fnuz_to_f32(0x7F), 240.0f);
    ck_assert_float_eq(num_e4m3fnuz_to_f32(0x40), 1.0f);
    ck_assert_float_eq(num_e4m3fnuz_to_f32(0x01), ldexpf(1.0f, -10));
    ck_assert_int_eq(num_f32_to_e4m3fnuz(-0.0f), 0x00); /* no negative zero */
    ck_assert_int_eq(num_f32_to_e4m3fnuz(-1e-9f), 0x00);
    ck_assert_int_eq(num_f32_to_e4m3fnuz(NAN), 0x80);
    ck_assert_int_eq(num_f32_to_e4m3fnuz(1e9f), 0x7F);
    ck_assert_int_eq(num_f32_to_e4m3fnuz(-INFINITY), 0xFF);
}
END_TEST

/* Every non-NaN code decodes and encodes back to itself (infinities saturate instead). */
static void round_trip_8(encode8_fn enc, decode8_fn dec, int nan_count_expected, const char *name)
{
    int nans = 0;
    for (int c = 0; c < 256; c++) {
        float v = dec((uint8_t)c);
        if (isnan(v)) {
            nans++;
            ck_assert_msg(isnan(dec(enc(v))), "%s: NaN code 0x%02X does not re-encode as NaN", name, c);
            continue;
        }
        if (isinf(v))
            continue; /* checked by the saturation tests */
        ck_assert_msg(enc(v) == c, "%s: code 0x%02X → %g → 0x%02X", name, c, (double)v, enc(v));
    }
    ck_assert_int_eq(nans, nan_count_expected);
}

START_TEST(fp8_round_trips)
{
    round_trip_8(num_f32_to_e4m3, num_e4m3_to_f32, 2, "e4m3");
    round_trip_8(num_f32_to_e5m2, num_e5m2_to_f32, 6, "e5m2");
    round_trip_8(num_f32_to_e4m3fnuz, num_e4m3fnuz_to_f32, 1, "e4m3fnuz");
}
END_TEST

/* Between consecutive positive finite codes c and c+1: the midpoint goes to the even code,
 * a hair either side to the nearer one. Covers denormals, binade steps and the top code. */
static void midpoints_8(encode8_fn enc, decode8_fn dec, const char *name)
{
    for (int c = 0; c < 0x7F; c++) {
        float lo = dec((uint8_t)c), hi = dec((uint8_t)(c + 1));
        if (!isfinite(lo) || !isfinite(hi))
            break;
        float mid = (lo + hi) / 2; /* exact: few mantissa bits */
        int even = (c % 2 == 0) ? c : c + 1;
        ck_assert_msg(enc(mid) == even, "%s: midpoint %g of 0x%02X → 0x%02X", name, (double)mid, c, enc(mid));
        ck_assert_msg(enc(nextafterf(mid, 0.0f)) == c, "%s: below midpoint of 0x%02X", name, c);
        ck_assert_msg(enc(nextafterf(mid, INFINITY)) == c + 1, "%s: above midpoint of 0x%02X", name, c);
        ck_assert_msg(enc(-mid) == (even | 0x80) || (even == 0 && enc(-mid) == 0x80),
                      "%s: negative midpoint of 0x%02X", name, c);
    }
}

START_TEST(fp8_ties_to_even)
{
    midpoints_8(num_f32_to_e4m3, num_e4m3_to_f32, "e4m3");
    midpoints_8(num_f32_to_e5m2, num_e5m2_to_f32, "e5m2");
}
END_TEST

START_TEST(fp8_saturation_and_specials)
{
    ck_assert_int_eq(num_f32_to_e4m3(464.0f), 0x7E);  /* midpoint above max: ties to max */
    ck_assert_int_eq(num_f32_to_e4m3(500.0f), 0x7E);
    ck_assert_int_eq(num_f32_to_e4m3(FLT_MAX), 0x7E);
    ck_assert_int_eq(num_f32_to_e4m3(INFINITY), 0x7E);
    ck_assert_int_eq(num_f32_to_e4m3(-INFINITY), 0xFE);
    ck_assert_int_eq(num_f32_to_e4m3(NAN), 0x7F);
    ck_assert_int_eq(num_f32_to_e4m3(-NAN), 0xFF);
    ck_assert_int_eq(num_f32_to_e4m3(ldexpf(1.0f, -10)), 0x00);  /* half the min denormal: even */
    ck_assert_int_eq(num_f32_to_e4m3(ldexpf(1.01f, -10)), 0x01);
    ck_assert_int_eq(num_f32_to_e4m3(-1e-30f), 0x80);             /* sign kept on underflow */
    ck_assert_int_eq(num_f32_to_e5m2(61440.0f), 0x7B);
    ck_assert_int_eq(num_f32_to_e5m2(1e30f), 0x7B);
    ck_assert_int_eq(num_f32_to_e5m2(INFINITY), 0x7B);
    ck_assert_int_eq(num_f32_to_e5m2(-INFINITY), 0xFB);
    ck_assert_int_eq(num_f32_to_e5m2(NAN), 0x7F);
    ck_assert_int_eq(num_f32_to_e5m2(ldexpf(1.0f, -17)), 0x00);
    ck_assert_int_eq(num_f32_to_e5m2(ldexpf(3.0f, -17)), 0x02); /* 1.5 denormal ulps: even */
}
END_TEST

/* Independent bf16 rounding by the classic bit trick (valid for non-NaN inputs). */
static uint16_t bf16_by_bits(float f)
{
    uint32_t u = f32_bits(f);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

START_TEST(bf16_exhaustive_and_random)
{
    for (uint32_t c = 0; c < 0x10000; c++) {
        float v = num_bf16_to_f32((uint16_t)c);
        ck_assert_uint_eq(f32_bits(v), c << 16);
        if (isnan(v))
            ck_assert(isnan(num_bf16_to_f32(num_f32_to_bf16(v))));
        else
            ck_assert_uint_eq(num_f32_to_bf16(v), c);
    }
    test_rng rng;
    test_rng_seed(&rng, 7);
    for (int i = 0; i < 1000000; i++) {
        float f = bits_f32((uint32_t)test_rng_next(&rng));
        if (isnan(f))
            continue;
        ck_assert_msg(num_f32_to_bf16(f) == bf16_by_bits(f), "bf16(%a)", (double)f);
    }
    ck_assert_uint_eq(num_f32_to_bf16(1.0f + 0x1p-8f), 0x3F80);     /* tie → even */
    ck_assert_uint_eq(num_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82); /* tie → even (up) */
    ck_assert_uint_eq(num_f32_to_bf16(FLT_MAX), 0x7F80);            /* overflow → inf */
    ck_assert_uint_eq(num_f32_to_bf16(-INFINITY), 0xFF80);
}
END_TEST

START_TEST(fp16_exhaustive_and_edges)
{
    for (uint32_t c = 0; c < 0x10000; c++) {
        float v = num_fp16_to_f32((uint16_t)c);
        if (isnan(v)) {
            ck_assert((c & 0x7C00) == 0x7C00 && (c & 0x3FF));
            ck_assert(isnan(num_fp16_to_f32(num_f32_to_fp16(v))));
            continue;
        }
        ck_assert_msg(num_f32_to_fp16(v) == c, "fp16 0x%04X → %g → 0x%04X", c, (double)v,
                      num_f32_to_fp16(v));
        if (c < 0x7BFF) { /* midpoint to the next positive code goes to the even one */
            float mid = (v + num_fp16_to_f32((uint16_t)(c + 1))) / 2;
            ck_assert_uint_eq(num_f32_to_fp16(mid), (c % 2 == 0) ? c : c + 1);
        }
    }
    ck_assert_uint_eq(num_f32_to_fp16(65504.0f), 0x7BFF);
    ck_assert_uint_eq(num_f32_to_fp16(65519.0f), 0x7BFF);
    ck_assert_uint_eq(num_f32_to_fp16(65520.0f), 0x7C00); /* tie above max → inf */
    ck_assert_uint_eq(num_f32_to_fp16(-1e10f), 0xFC00);
    ck_assert_uint_eq(num_f32_to_fp16(0x1p-24f), 0x0001);
    ck_assert_uint_eq(num_f32_to_fp16(0x1p-25f), 0x0000);
    ck_assert_uint_eq(num_f32_to_fp16(0x1.01p-25f), 0x0001);
    ck_assert_uint_eq(num_f32_to_fp16(1.0f / 3.0f), 0x3555);
}
END_TEST

START_TEST(int8_rounding_and_saturation)
{
    static const struct { float in; int out; } cases[] = {
        {0.5f, 0}, {1.5f, 2}, {2.5f, 2}, {3.5f, 4}, {-0.5f, 0}, {-2.5f, -2}, {-3.5f, -4},
        {0.49f, 0}, {0.51f, 1}, {126.5f, 126}, {127.4f, 127}, {127.5f, 127}, {200.0f, 127},
        {-127.5f, -128}, {-128.5f, -128}, {-1e9f, -128}, {1e9f, 127}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(num_f32_to_int8(cases[i].in) == cases[i].out, "int8(%g) = %d, want %d",
                      (double)cases[i].in, num_f32_to_int8(cases[i].in), cases[i].out);
    ck_assert_int_eq(num_f32_to_int8(NAN), 0);
    ck_assert_int_eq(num_f32_to_int8(INFINITY), 127);
    ck_assert_int_eq(num_f32_to_int8(-INFINITY), -128);
}
END_TEST

START_TEST(double_inputs_round_once)
{
    /* 1 + 2^-8 + 2^-30 is above the bf16 midpoint; through float it would become the midpoint
     * itself and round down to even. */
    double x = 1.0 + 0x1p-8 + 0x1p-30;
    ck_assert_uint_eq(num_f64_to_bf16(x), 0x3F81);
    ck_assert_uint_eq(num_f32_to_bf16((float)x), 0x3F80);
    double y = 1.0 + 0x1p-11 + 0x1p-40;
    ck_assert_uint_eq(num_f64_to_fp16(y), 0x3C01);
    uint16_t out16[1];
    float out32[1];
    int8_t out8[1];
    ck_assert_int_eq(num_store_f64(W8A8_BF16, out16, 0, x), 0);
    ck_assert_uint_eq(out16[0], 0x3F81);
    ck_assert_int_eq(num_store_f64(W8A8_FP32, out32, 0, 1.0 + 0x1p-24 + 0x1p-40), 0);
    ck_assert_float_eq(out32[0], 1.0f + 0x1p-23f);
    ck_assert_int_eq(num_store_f64(W8A8_INT8, out8, 0, 2.5000000001), 0);
    ck_assert_int_eq(out8[0], 3);
}
END_TEST

START_TEST(generic_load_store)
{
    uint8_t bytes[4] = {0x38, 0x3C, 0xFF, 0};
    float v;
    ck_assert_int_eq(num_load_f32(W8A8_E4M3, bytes, 0, &v), 0);
    ck_assert_float_eq(v, 1.0f);
    ck_assert_int_eq(num_load_f32(W8A8_E5M2, bytes, 1, &v), 0);
    ck_assert_float_eq(v, 1.0f);
    ck_assert_int_eq(num_load_f32(W8A8_INT8, bytes, 2, &v), 0);
    ck_assert_float_eq(v, -1.0f);
    ck_assert_int_eq(num_load_f32(W8A8_DTYPE_NONE, bytes, 0, &v), -1);
    ck_assert_int_eq(num_store_f32(W8A8_DTYPE_NONE, bytes, 0, 1.0f), -1);
    ck_assert_int_eq(num_store_f32(W8A8_E4M3, bytes, 3, -1.0f), 0);
    ck_assert_uint_eq(bytes[3], 0xB8);
    ck_assert_uint_eq(bytes[2], 0xFF); /* neighbours untouched */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numeric");
    TCase *tc = tcase_create("numeric");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, e4m3_known_values);
    tcase_add_test(tc, e5m2_known_values);
    tcase_add_test(tc, e4m3fnuz_known_values);
    tcase_add_test(tc, fp8_round_trips);
    tcase_add_test(tc, fp8_ties_to_even);
    tcase_add_test(tc, fp8_saturation_and_specials);
    tcase_add_test(tc, bf16_exhaustive_and_random);
    tcase_add_test(tc, fp16_exhaustive_and_edges);
    tcase_add_test(tc, int8_rounding_and_saturation);
    tcase_add_test(tc, double_inputs_round_once);
    tcase_add_test(tc, generic_load_store);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
