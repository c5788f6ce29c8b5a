/* Arguments of every GEMM template's entry point, shared by the host (C, src/) and the
 * templates (C++ under NVRTC). One definition, so the two sides cannot drift: 8-byte
 * pointers and int64 first, then int32, no implicit padding. */
#ifndef W8A8_GEMM_ARGS_H
#define W8A8_GEMM_ARGS_H

#ifdef __CUDACC_RTC__
typedef long long w8a8_i64;
typedef int w8a8_i32;
#else
#include <stdint.h>
typedef int64_t w8a8_i64;
typedef int32_t w8a8_i32;
#endif

typedef struct w8a8_gemm_args {
    const void *a;              /* M×K, row stride lda elements */
    const void *b;              /* N×K, row stride ldb */
    void *out;                  /* M×N, row stride ldc */
    const float *a_scale;       /* per the A scale kind (W8A8_A_SCALE) */
    const float *b_scale;
    const void *bias;           /* N values of W8A8_BIAS_TYPE, or NULL */
    const w8a8_i32 *azp;        /* 1 or M zero points (W8A8_AZP) */
    const w8a8_i32 *b_col_sums; /* N values: Σ_k B[n, k] */
    w8a8_i64 m, n, k;
    w8a8_i64 lda, ldb, ldc;
    w8a8_i64 a_scale_ld, b_scale_ld; /* block scales: leading dimension in floats */
    w8a8_i32 a_group_rows, a_group_k, b_group_rows, b_group_k;
    w8a8_i32 a_scale_k_major, b_scale_k_major;
    w8a8_i32 split_k;           /* templates that split K read this; 1 otherwise */
    w8a8_i32 reserved;
} w8a8_gemm_args;

/* Values of the problem-trait macros every GEMM template receives in its prologue:
 *   W8A8_A_TYPE, W8A8_B_TYPE, W8A8_OUT_TYPE, W8A8_BIAS_TYPE  (w8a8_dtype values below)
 *   W8A8_A_SCALE, W8A8_B_SCALE                               (scale kinds below)
 *   W8A8_AZP                                                  (zero-point kinds below)  */
#define W8A8_T_NONE 0
#define W8A8_T_E4M3 1
#define W8A8_T_E5M2 2
#define W8A8_T_INT8 3
#define W8A8_T_BF16 4
#define W8A8_T_FP16 5
#define W8A8_T_FP32 6
#define W8A8_S_TENSOR 0
#define W8A8_S_ROW 1
#define W8A8_S_BLOCK 2
#define W8A8_Z_NONE 0
#define W8A8_Z_TENSOR 1
#define W8A8_Z_TOKEN 2

#endif
