/* The JIT: template + generated prologue → NVRTC → cubin, memoized in memory (module table)
 * and on disk (content-addressed cubin store, cubin_store.c); loading and launching. */
#ifndef W8A8_JIT_H
#define W8A8_JIT_H

#include "internal.h"

/* A compiled cubin, before it is loaded. */
typedef struct jit_cubin {
    void *data;
    size_t size;
    w8a8_kernel_info info;
    char *log; /* NVRTC + ptxas log, may be NULL */
    char key[65];
} jit_cubin;

/* A loaded kernel. Owned by the context's module table; valid until the context closes. */
typedef struct jit_kernel {
    CUmodule module;
    CUfunction function;
    w8a8_kernel_info info;
    atomic_int dynamic_smem_set; /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES applied */
} jit_kernel;

typedef struct jit_launch {
    unsigned grid[3];
    unsigned block[3];
    unsigned shared_bytes;  /* dynamic shared memory */
    unsigned cluster[3];    /* {0,0,0} or {1,1,1}: no cluster attribute */
    bool pdl;               /* programmatic dependent launch */
    CUstream stream;
} jit_launch;

w8a8_status jit_table_create(w8a8_context *ctx);
void jit_table_destroy(w8a8_context *ctx);

/* Turns "block_m=128, stages=4" into the prologue "#define W8A8_BLOCK_M 128\n…" (names
 * uppercased; items separated by ',' or whitespace). W8A8_INVALID on a malformed item.
 * *prologue is malloc'ed. */
w8a8_status jit_prologue(w8a8_context *ctx, const char *defines, char **prologue);

/* Whether NVRTC builds for arch here: sm_80, sm_86, sm_89, sm_90 or sm_90a (NULL: false). */
bool jit_arch_supported(const char *arch);

/* The cubin of (template, defines, arch): from the on-disk store when present, else compiled
 * with NVRTC (and stored). CPU only. Free with jit_cubin_free. */
w8a8_status jit_cubin_get(w8a8_context *ctx, const char *template_name, const char *defines,
                          const char *arch, jit_cubin *out);
void jit_cubin_free(jit_cubin *cubin);

/* The loaded kernel `entry` (an extern "C" __global__ name) of (template, defines, arch),
 * memoized; arch NULL means the device's own ("sm_90"). Needs a device. */
w8a8_status jit_kernel_get(w8a8_context *ctx, const char *template_name, const char *defines,
                           const char *arch, const char *entry, const jit_kernel **out);

/* Launches with cuLaunchKernelEx (cluster and PDL attributes when asked); raises the dynamic
 * shared-memory limit the first time a kernel needs more than 48 KiB. */
w8a8_status jit_kernel_launch(w8a8_context *ctx, const jit_kernel *kernel,
                              const jit_launch *launch, void **params);

/* A thread's stand-in for cuLaunchKernelEx (the benchmark's driver floor): called with exactly
 * what jit_kernel_launch would pass the driver, while the caller's parameters are alive. */
typedef CUresult (*jit_launch_hook_fn)(void *user, const CUlaunchConfig *config,
                                       CUfunction function, void **params);
/* Routes the calling thread's launches to hook (NULL: to the driver again). */
void jit_launch_hook_set(jit_launch_hook_fn hook, void *user);

/* cuTensorMapEncodeTiled (same arguments, ctx first) through a per-thread cache of the maps
 * encoded last (tensor_map.c): a repeated call with the same arguments copies the map instead
 * of asking the driver. Thread-safe; allocates nothing. */
CUresult jit_tensor_map_encode(const w8a8_context *ctx, CUtensorMap *map, CUtensorMapDataType type,
                               cuuint32_t rank, void *base, const cuuint64_t *dims,
                               const cuuint64_t *strides, const cuuint32_t *box,
                               const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
                               CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                               CUtensorMapFloatOOBfill oob_fill);

/* How many clusters of launch->cluster (block, shared memory as in launch) the device runs at
 * once: the grid of a persistent clustered kernel. */
w8a8_status jit_kernel_max_clusters(w8a8_context *ctx, const jit_kernel *kernel,
                                    const jit_launch *launch, int *clusters);

/* How many CTAs of the kernel (block and shared memory as in launch) one SM runs at once: the
 * grid of a persistent kernel is this times the SMs. */
w8a8_status jit_kernel_max_blocks_per_sm(w8a8_context *ctx, const jit_kernel *kernel,
                                         const jit_launch *launch, int *blocks);

/* Parses ptxas -v output in log into info (registers, smem, spills, stack) and marks the
 * kernel rejected on spills or the notes C7508, C7510, C7511, C7515. */
void jit_parse_ptxas(const char *log, w8a8_kernel_info *info);

/* ---- cubin store (cubin_store.c) ---- */

/* Looks up key in the store folder; on a hit data, size and info are filled (data malloc'ed). */
bool store_lookup(const char *dir, const char *key, void **data, size_t *size,
                  w8a8_kernel_info *info);
/* Writes cubin + info atomically. Returns 0 or an errno. */
int store_put(const char *dir, const char *key, const void *data, size_t size,
              const w8a8_kernel_info *info);
/* Takes the per-key lock (blocking); returns an fd to pass to store_unlock, or -1 (then
 * the caller compiles without the lock). */
int store_lock(const char *dir, const char *key);
void store_unlock(int fd);

#endif
