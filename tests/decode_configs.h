/* The configs tests/check_gpu_decode.c runs sm80_decode with: the first DECODE_SPAN1_COUNT
 * span 1 (block scales take only those), then span > 1. check_space's decode_suite_configs
 * runs them through the family's host check without a GPU, so a config the family refuses
 * fails there rather than on the device. */
#ifndef W8A8_TESTS_DECODE_CONFIGS_H
#define W8A8_TESTS_DECODE_CONFIGS_H

static const char *const decode_configs[] = {
    "warps=8,row_tiles=1,token_tiles=1,unroll=2",
    "warps=4,row_tiles=2,token_tiles=2,unroll=1",
    "warps=16,row_tiles=1,token_tiles=4,unroll=1",
    "warps=1,row_tiles=4,token_tiles=1,unroll=1",
    "warps=2,row_tiles=1,token_tiles=1,unroll=4",
    "warps=16,row_tiles=2,token_tiles=1,unroll=2",
    "warps=8,row_tiles=2,token_tiles=4,unroll=1",
    /* span > 1 (not with block scales: those take the first DECODE_SPAN1_COUNT) */
    "warps=4,row_tiles=1,token_tiles=1,unroll=1,span=8",
    "warps=8,row_tiles=2,token_tiles=1,unroll=2,span=8",
    "warps=1,row_tiles=4,token_tiles=1,unroll=1,span=4",
    "warps=16,row_tiles=1,token_tiles=1,unroll=1,span=2",
    "warps=2,row_tiles=1,token_tiles=1,unroll=4,span=8",
    "warps=8,row_tiles=1,token_tiles=4,unroll=1,span=2",
    "warps=4,row_tiles=2,token_tiles=2,unroll=2,span=4",
};
#define DECODE_CONFIG_COUNT ((int)(sizeof decode_configs / sizeof decode_configs[0]))
#define DECODE_SPAN1_COUNT 7

#endif
