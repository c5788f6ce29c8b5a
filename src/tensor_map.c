/* TMA tensor maps for launches: cuTensorMapEncodeTiled behind a per-thread cache.
 *
 * The sm90_gemm family passes the maps of A, B (and, with the TMA-store epilogue, the output)
 * by value on every launch, and encoding one is a driver call that validates and packs all its
 * arguments. The result is a pure function of those arguments (the base address is a number
 * in it: nothing is read at that address, nothing registered), so a map encoded once can be
 * reused for any later call with the same arguments, whatever was freed or allocated there in
 * between. Each thread keeps the maps it encoded last in a small set-associative table keyed
 * by every argument: a hit is a probe of a few keys and a 128-byte copy; nothing is shared
 * between threads, nothing is allocated, and a failed encode is never kept (the next call asks
 * the driver again and gets the same error). Rank-2 maps only (all the families use); others
 * go to the driver every time. */
#include <string.h>

#include "jit.h"

#define MAP_SETS 16 /* a power of two */
#define MAP_WAYS 4
#define MAP_RANK 2

/* Every argument of cuTensorMapEncodeTiled for a rank-2 map, without padding (memcmp). */
typedef struct map_key {
    uint64_t base;
    uint64_t dims[MAP_RANK];
    uint64_t stride; /* bytes between rows: rank − 1 strides */
    uint32_t box[MAP_RANK];
    uint32_t element_strides[MAP_RANK];
    uint32_t type, interleave, swizzle, l2_promotion, oob_fill, rank;
} map_key;
_Static_assert(sizeof(map_key) % sizeof(uint64_t) == 0 && sizeof(map_key) == 9 * 8,
               "map_key must have no padding");

typedef struct map_slot {
    map_key key;                        /* rank 0: empty */
    unsigned char map[sizeof(CUtensorMap)];
} map_slot;

typedef struct map_cache {
    map_slot slots[MAP_SETS][MAP_WAYS];
    unsigned char victim[MAP_SETS]; /* the way the next miss of the set replaces */
} map_cache;

/* About 13 KiB per thread, zero at thread start (every slot empty). */
static _Thread_local map_cache t_maps;

static size_t map_set(const map_key *key)
{
    const unsigned char *bytes = (const unsigned char *)key;
    uint64_t h = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < sizeof *key; i += sizeof h) {
        uint64_t word;
        memcpy(&word, bytes + i, sizeof word);
        h = (h ^ word) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    return (size_t)(h & (MAP_SETS - 1));
}

CUresult jit_tensor_map_encode(const w8a8_context *ctx, CUtensorMap *map, CUtensorMapDataType type,
                               cuuint32_t rank, void *base, const cuuint64_t *dims,
                               const cuuint64_t *strides, const cuuint32_t *box,
                               const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
                               CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                               CUtensorMapFloatOOBfill oob_fill)
{
    if (rank != MAP_RANK)
        return ctx->cu->cuTensorMapEncodeTiled(map, type, rank, base, dims, strides, box,
                                               element_strides, interleave, swizzle,
                                               l2_promotion, oob_fill);
    map_key key = {
        .base = (uint64_t)(uintptr_t)base,
        .dims = {dims[0], dims[1]},
        .stride = strides[0],
        .box = {box[0], box[1]},
        .element_strides = {element_strides[0], element_strides[1]},
        .type = (uint32_t)type,
        .interleave = (uint32_t)interleave,
        .swizzle = (uint32_t)swizzle,
        .l2_promotion = (uint32_t)l2_promotion,
        .oob_fill = (uint32_t)oob_fill,
        .rank = rank,
    };
    size_t set = map_set(&key);
    map_slot *ways = t_maps.slots[set];
    for (int w = 0; w < MAP_WAYS; w++)
        if (memcmp(&ways[w].key, &key, sizeof key) == 0) {
            memcpy(map, ways[w].map, sizeof *map);
            return CUDA_SUCCESS;
        }
    CUresult rc = ctx->cu->cuTensorMapEncodeTiled(map, type, rank, base, dims, strides, box,
                                                  element_strides, interleave, swizzle,
                                                  l2_promotion, oob_fill);
    if (rc == CUDA_SUCCESS) {
        map_slot *slot = &ways[t_maps.victim[set]];
        t_maps.victim[set] = (unsigned char)((t_maps.victim[set] + 1) % MAP_WAYS);
        slot->key = key;
        memcpy(slot->map, map, sizeof *map);
    }
    return rc;
}
