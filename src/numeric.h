/* Host conversions between float and the narrow formats the library handles: FP8 (e4m3fn,
 * e5m2, e4m3fnuz), bf16, fp16 and int8. Bit-exact with the GPU conversions (PTX cvt.rn.satfinite
 * for fp8, cvt.rn for bf16/fp16) so the CPU reference and quantization agree with kernels.
 *
 * Rules shared by every encoder:
 *  - Rounding is round-to-nearest, ties to even, done once from the exact float value
 *    (no double rounding through an intermediate format).
 *  - Results are bit patterns (uint8_t / uint16_t), so callers store them without aliasing.
 *  - Denormals of the target format are produced and decoded exactly.
 *
 * NaN and infinity, per target:
 *  - e4m3 (e4m3fn, OCP): no infinity. Finite values beyond ±448 saturate to ±448 (0x7E/0xFE);
 *    ±inf saturates to ±448 too (the "satfinite" convention of PTX cvt and vLLM's quantizer);
 *    NaN encodes as 0x7F (sign kept: 0xFF for a negative NaN). Decoding 0x7F/0xFF gives NaN.
 *  - e5m2: has infinity, but the encoder saturates: finite values beyond ±57344 and ±inf
 *    give ±57344 (0x7B/0xFB); NaN gives 0x7F (0xFF negative). Decoding 0x7C/0xFC gives ±inf,
 *    0x7D–0x7F/0xFD–0xFF NaN.
 *  - e4m3fnuz: max ±240, no infinity, no negative zero; 0x80 is the only NaN. Saturating as
 *    above; NaN encodes as 0x80; -0.0 and values rounding to zero encode as 0x00.
 *  - bf16 and fp16: IEEE behaviour. Overflow after rounding gives ±inf (no saturation), inf
 *    stays inf, NaN stays a quiet NaN with its sign (payload not preserved).
 *  - int8: round to nearest even, then saturate to [-128, 127]; ±inf saturates; NaN gives 0.
 *    (Symmetric quantizers that want [-127, 127] clamp their input before calling.)
 * Decoders are exact (every narrow value is a float).
 * All functions are pure and thread-safe. Prefix: num_.
 */
#ifndef W8A8_NUMERIC_H
#define W8A8_NUMERIC_H

#include <stdint.h>

#include "w8a8jit.h"

#define NUM_E4M3_MAX 448.0f
#define NUM_E5M2_MAX 57344.0f
#define NUM_E4M3FNUZ_MAX 240.0f
#define NUM_INT8_MAX 127
#define NUM_INT8_MIN (-128)

uint8_t num_f32_to_e4m3(float value);
float num_e4m3_to_f32(uint8_t bits);

uint8_t num_f32_to_e5m2(float value);
float num_e5m2_to_f32(uint8_t bits);

uint8_t num_f32_to_e4m3fnuz(float value);
float num_e4m3fnuz_to_f32(uint8_t bits);

uint16_t num_f32_to_bf16(float value);
float num_bf16_to_f32(uint16_t bits);

uint16_t num_f32_to_fp16(float value);
float num_fp16_to_f32(uint16_t bits);

int8_t num_f32_to_int8(float value);

/* From double, rounded once (the CPU reference accumulates in fp64; going through float first
 * would round twice). Same NaN/inf/saturation rules as the float versions. */
uint16_t num_f64_to_bf16(double value);
uint16_t num_f64_to_fp16(double value);

/* Generic forms over w8a8_dtype, for code that handles every element type through one path.
 * num_load_f32 reads element `index` of a buffer of `dtype` (E4M3, E5M2, E4M3FNUZ, INT8, BF16,
 * FP16, FP32) as a float; num_store_f32 writes `value` rounded per the rules above. Both
 * return 0 on success, -1 for a dtype they do not handle (nothing is read or written). */
int num_load_f32(w8a8_dtype dtype, const void *data, int64_t index, float *value);
int num_store_f32(w8a8_dtype dtype, void *data, int64_t index, float value);
/* num_store_f32 from a double, rounded once (FP32 rounds double → float with RNE, overflow
 * to ±inf). */
int num_store_f64(w8a8_dtype dtype, void *data, int64_t index, double value);

#endif
