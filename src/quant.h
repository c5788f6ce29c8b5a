/* Quantization internals shared by quant.c (GPU launches), quant_weight.c (GPU weight
 * utilities), quant_cpu.c (validation and the CPU reference) and the tests. The scale
 * arithmetic here is the C twin of templates/quant.cuh: one IEEE fp32 operation at a time,
 * rounded to nearest even, in the same order, so CPU and GPU agree bit for bit. */
#ifndef W8A8_QUANT_H
#define W8A8_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

#define QUANT_CHUNK 8          /* elements per thread step in the template (16-byte loads) */
#define QUANT_ALIGN 16         /* bytes: base pointers and row strides */
#define QUANT_DEFAULT_GROUP 128
#define QUANT_MAX_SHARDS 64
#define QUANT_E4M3_MAX 448.0f
#define QUANT_INT8_MAX 127.0f
#define QUANT_INT8_RANGE 255.0f
#define QUANT_E4M3_NAN 0x7Fu

/* Values of the template's W8A8_QUANT_MODE (= w8a8_quant_mode). */
#define QUANT_MODE_STATIC 0
#define QUANT_MODE_TENSOR 1
#define QUANT_MODE_TOKEN 2
#define QUANT_MODE_GROUP 3

/* A validated problem with every default resolved. */
typedef struct quant_plan {
    w8a8_quant_problem p; /* group_k, scale_ld, min_amax, ld_in, ld_out resolved */
    int64_t m_out;        /* rows of the output */
    int64_t groups;       /* scale granules per row: G in group mode, else 1 */
    int64_t scale_count;  /* floats the scale tensor spans (0 for static: read only) */
    int64_t azp_count;    /* int32 zero points written (0 unless dynamic asymmetric) */
    float qmax;           /* 448 or 127 */
} quant_plan;

/* Validates problem and fills plan. W8A8_OK or W8A8_INVALID naming the field. */
w8a8_status quant_plan_make(w8a8_context *ctx, const w8a8_quant_problem *problem,
                            quant_plan *plan);

/* Checks the tensors against the plan: required pointers present, unused ones allowed,
 * 16-byte alignment of in/out (both for device and host pointers, so the CPU reference
 * rejects what the GPU would). */
w8a8_status quant_check_tensors(w8a8_context *ctx, const quant_plan *plan,
                                const w8a8_quant_tensors *tensors);

/* Scale, reciprocal and zero point of one granule. */
typedef struct quant_params {
    float scale, inv;
    int32_t azp;
} quant_params;

/* Symmetric: a = max(min(amax, *ub), min_amax) (the min only when ub is non-NULL),
 * scale = a / qmax, inv = 1 / scale. */
quant_params quant_params_symmetric(float amax, const float *ub, float min_amax, float qmax);
/* Asymmetric: max < min (no finite input) counts as 0, 0. range = max(max − min, min_amax),
 * scale = range / 255, inv = 1 / scale, azp = rne_sat_s32(−128 − min / scale). */
quant_params quant_params_asymmetric(float max, float min, float min_amax);
/* Static: the caller's scale and zero point; inv = 1 / scale. */
quant_params quant_params_static(float scale, int32_t azp);

/* Round to nearest even, saturating to int32, NaN → 0 (PTX cvt.rni.sat.s32.f32). */
int32_t quant_rne_s32(float v);
/* The code of x: e4m3 (NaN → 0x7F), int8, or int8 with params->azp when asymmetric. */
uint8_t quant_encode(float x, const quant_params *params, w8a8_dtype out_type, bool asymmetric);

/* Weight utilities: shard list checks (1…QUANT_MAX_SHARDS positive row counts, *total_rows
 * OUT) and the full argument check of requantize_fused, shared by the GPU and CPU versions. */
w8a8_status quant_check_shards(w8a8_context *ctx, const int64_t *shard_rows, int32_t n_shards,
                               int64_t *total_rows);
w8a8_status quant_check_requant(w8a8_context *ctx, w8a8_dtype type, int64_t k,
                                const int64_t *shard_rows, int32_t n_shards, const void *w_in,
                                const void *w_out, const float *shard_scales,
                                const float *out_scale, int64_t *total_rows);

/* Byte offsets of the scales and zero points inside w8a8_linear's workspace (the codes start
 * at 0). W8A8_OK or W8A8_INVALID. */
w8a8_status quant_linear_offsets(w8a8_context *ctx, const w8a8_linear_problem *problem,
                                 size_t *scale_offset, size_t *azp_offset);

/* For tests: every quantize launch encodes e4m3 with the integer path (W8A8_SOFT_FP8=1), which
 * sm_80/86 use, so the path can be checked on newer GPUs. Not thread-safe with launches. */
void quant_force_soft_fp8(bool on);
bool quant_soft_fp8_forced(void);

/* The define sets that cover every code path of templates/quant.cuh (each mode, input and
 * output type, asymmetric, ub, team shapes, group sizes, both scale layouts, the weight
 * utilities): entry i, or NULL past the end. For compile checks (`w8a8 compile`, tests). */
const char *quant_compile_defines(size_t index);

#endif
