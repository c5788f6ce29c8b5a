/* Weight utilities on the GPU (vLLM's process_weights_after_loading steps): requantizing a
 * fused weight's shards to one scale, expanding per-shard scales to per-channel scales, and
 * e4m3fn → e4m3fnuz. Kernels: templates/quant.cuh with W8A8_QUANT_KERNEL=1; host twins in
 * quant_cpu.c. Everything is asynchronous on the caller's stream. */
#include <stdio.h>
#include <string.h>

#include "jit.h"
#include "quant.h"

#define WEIGHT_BLOCK 256
#define WEIGHT_BLOCKS_PER_SM 8
#define WEIGHT_BYTES_PER_THREAD 16

static w8a8_status weight_kernel(w8a8_context *ctx, w8a8_dtype type, const char *entry,
                                 const jit_kernel **kernel)
{
    char defines[64];
    snprintf(defines, sizeof defines, "quant_kernel=1,weight_type=%d", (int)type);
    return jit_kernel_get(ctx, "quant", defines, NULL, entry, kernel);
}

/* Grid-stride kernels: enough blocks to cover `items` threads, capped at a few per SM. */
static w8a8_status weight_launch(w8a8_context *ctx, const jit_kernel *kernel, int64_t items,
                                 CUstream stream, void **params)
{
    int64_t blocks = (items + WEIGHT_BLOCK - 1) / WEIGHT_BLOCK;
    int64_t cap = (int64_t)(ctx->sm_count > 0 ? ctx->sm_count : 1) * WEIGHT_BLOCKS_PER_SM;
    jit_launch l;
    memset(&l, 0, sizeof l);
    l.grid[0] = (unsigned)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
    l.block[0] = items > 1 ? WEIGHT_BLOCK : 1;
    l.stream = stream;
    return jit_kernel_launch(ctx, kernel, &l, params);
}

w8a8_status w8a8_weight_requantize_fused(w8a8_context *ctx, w8a8_dtype type, int64_t k,
                                         const int64_t *shard_rows, int32_t n_shards,
                                         const void *w_in, void *w_out, const float *shard_scales,
                                         float *out_scale, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    int64_t total = 0;
    w8a8_status st = quant_check_requant(ctx, type, k, shard_rows, n_shards, w_in, w_out,
                                         shard_scales, out_scale, &total);
    const jit_kernel *requant = NULL, *max_scale = NULL;
    if (st == W8A8_OK)
        st = context_require_device(ctx);
    if (st == W8A8_OK)
        st = weight_kernel(ctx, type, "w8a8_weight_requant", &requant);
    if (st == W8A8_OK)
        st = weight_kernel(ctx, type, "w8a8_weight_max_scale", &max_scale);
    int64_t offset = 0;
    for (int32_t i = 0; i < n_shards && st == W8A8_OK; i++) {
        const char *in = (const char *)w_in + offset;
        char *out = (char *)w_out + offset;
        long long bytes = shard_rows[i] * k;
        int shard = i, n = n_shards;
        void *params[] = {&in, &out, &bytes, (void *)&shard_scales, &shard, &n};
        st = weight_launch(ctx, requant, bytes / WEIGHT_BYTES_PER_THREAD, (CUstream)stream, params);
        offset += bytes;
    }
    if (st == W8A8_OK) {
        int n = n_shards;
        void *params[] = {(void *)&shard_scales, &n, &out_scale};
        st = weight_launch(ctx, max_scale, 1, (CUstream)stream, params);
    }
    return st;
}

w8a8_status w8a8_weight_expand_scales(w8a8_context *ctx, const int64_t *shard_rows,
                                      int32_t n_shards, const float *shard_scales,
                                      float *channel_scales, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    int64_t total = 0;
    w8a8_status st = quant_check_shards(ctx, shard_rows, n_shards, &total);
    if (st == W8A8_OK && (!shard_scales || !channel_scales))
        st = errorf(ctx, W8A8_INVALID, "%s is NULL", !shard_scales ? "shard_scales" : "channel_scales");
    const jit_kernel *fill = NULL;
    if (st == W8A8_OK)
        st = context_require_device(ctx);
    if (st == W8A8_OK)
        st = weight_kernel(ctx, W8A8_E4M3, "w8a8_weight_fill", &fill);
    int64_t at = 0;
    for (int32_t i = 0; i < n_shards && st == W8A8_OK; i++) {
        float *out = channel_scales + at;
        const float *value = shard_scales + i;
        long long count = shard_rows[i];
        void *params[] = {&out, &count, &value};
        st = weight_launch(ctx, fill, count, (CUstream)stream, params);
        at += count;
    }
    return st;
}

w8a8_status w8a8_weight_e4m3fn_to_fnuz(w8a8_context *ctx, void *weight, int64_t bytes,
                                       float *scales, int64_t n_scales, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (bytes < 0 || n_scales < 0)
        return errorf(ctx, W8A8_INVALID, "%s is negative", bytes < 0 ? "bytes" : "n_scales");
    if ((bytes > 0 && !weight) || (n_scales > 0 && !scales))
        return errorf(ctx, W8A8_INVALID, "%s is NULL", bytes > 0 && !weight ? "weight" : "scales");
    if ((uintptr_t)weight % QUANT_ALIGN != 0)
        return errorf(ctx, W8A8_INVALID, "weight is not 16-byte aligned");
    if (bytes == 0 && n_scales == 0)
        return W8A8_OK;
    const jit_kernel *fnuz = NULL;
    w8a8_status st = context_require_device(ctx);
    if (st == W8A8_OK)
        st = weight_kernel(ctx, W8A8_E4M3, "w8a8_weight_fnuz", &fnuz);
    if (st != W8A8_OK)
        return st;
    long long nbytes = bytes, nscales = n_scales;
    void *params[] = {&weight, &nbytes, &scales, &nscales};
    int64_t words = bytes / WEIGHT_BYTES_PER_THREAD;
    return weight_launch(ctx, fnuz, words > n_scales ? words : n_scales, (CUstream)stream, params);
}
