/* A stand-in for libcuda.so.1, loaded through W8A8_CUDA_DRIVER by check_hot_path and
 * check_watchdog: one Hopper device (cc 9.0) whose launches do nothing but count. It lets a
 * CPU-only machine drive the dispatcher's whole hot path (validation, key, table probe, family
 * run, tensor maps, launch) and observe what reaches the driver per call. Every entry point the
 * library resolves is answered: the ones whose outputs the library reads fill them (device
 * memory is addresses with nothing behind them, copies to the host read zeros unless told
 * otherwise, every event pair 10 µs apart); the rest succeed doing nothing.
 *
 * Tensor maps: the fake encodes a map as (base address, a hash of every other argument), so a
 * launch can check that the maps it received describe the operands of that very call.
 *
 * Environment, for check_watchdog (read at each launch or copy):
 *   FAKE_CUDA_DTOH_BYTE=N     synchronous device-to-host copies read bytes N instead of zeros
 *                             (so the tuner's reference rows are finite and non-zero, while the
 *                             asynchronous copy of the verification words still reads zeros:
 *                             every candidate passes, and a whole tune runs on the fake).
 *   FAKE_CUDA_HANG_ENTRY=E    a launch of entry E ("*": any entry) never finishes, after
 *   FAKE_CUDA_HANG_AFTER=K    K launches of it that did (default 0). From then on the device
 *                             is busy for good, as a real GPU with a deadlocked kernel:
 *                             cuEventQuery and cuStreamQuery answer CUDA_ERROR_NOT_READY, and
 *                             every call a real driver would make wait for the device
 *                             (synchronizations, frees, module unloads, the context's release)
 *                             blocks forever, so a test sees any wait the library forgot. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_cuda.h"

#define FAKE_SM_COUNT 132
#define FAKE_SMEM_OPTIN (227 * 1024)
#define FAKE_L2_BYTES (50 * 1024 * 1024)
#define FAKE_MEMORY_BYTES (80ull << 30)
#define FAKE_FUNCTIONS 64

__attribute__((visibility("default"))) fake_cuda_counts fake_cuda;

static _Thread_local CUcontext t_current;
static _Thread_local fake_cuda_launch t_last_launch;
static int g_primary; /* the address is the primary context's handle */

/* A loaded function: its entry name, so a launch knows how to read its parameters. */
typedef struct fake_function {
    char name[64];
} fake_function;
static fake_function g_functions[FAKE_FUNCTIONS];
static int g_function_count;

__attribute__((visibility("default"))) fake_cuda_launch fake_cuda_last_launch(void)
{
    return t_last_launch;
}

static CUresult fake_success(void) { return CUDA_SUCCESS; }

/* ---- a kernel that never finishes ------------------------------------------------------- */

static int g_hung;            /* a launch hung: the device never becomes idle again */
static uint64_t g_hang_seen;  /* launches of the hanging entry so far */

static void fake_hang_check(const char *entry)
{
    const char *hang = getenv("FAKE_CUDA_HANG_ENTRY");
    if (!hang || (strcmp(hang, "*") != 0 && strcmp(hang, entry) != 0))
        return;
    const char *after = getenv("FAKE_CUDA_HANG_AFTER");
    uint64_t seen = __atomic_fetch_add(&g_hang_seen, 1, __ATOMIC_RELAXED);
    if (seen >= (after ? strtoull(after, NULL, 10) : 0))
        __atomic_store_n(&g_hung, 1, __ATOMIC_RELAXED);
}

static bool fake_is_hung(void) { return __atomic_load_n(&g_hung, __ATOMIC_RELAXED) != 0; }

static CUresult fake_query(void *handle)
{
    (void)handle;
    __atomic_fetch_add(&fake_cuda.queries, 1, __ATOMIC_RELAXED);
    return fake_is_hung() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

/* What every call that waits for the device does: nothing, or forever once a launch hung. */
static CUresult fake_wait_device(void)
{
    while (fake_is_hung())
        sleep(1);
    return CUDA_SUCCESS;
}

static CUresult fake_wait_handle(void *handle)
{
    (void)handle;
    return fake_wait_device();
}

static CUresult fake_free(CUdeviceptr ptr)
{
    (void)ptr;
    return fake_wait_device();
}

static CUresult fake_primary_release(CUdevice device)
{
    (void)device;
    return fake_wait_device();
}

static CUresult fake_init(unsigned flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

static CUresult fake_driver_version(int *version)
{
    *version = 12080;
    return CUDA_SUCCESS;
}

static CUresult fake_device_count(int *count)
{
    *count = 1;
    return CUDA_SUCCESS;
}

static CUresult fake_device_get(CUdevice *device, int ordinal)
{
    *device = ordinal;
    return CUDA_SUCCESS;
}

static CUresult fake_device_name(char *name, int size, CUdevice device)
{
    (void)device;
    snprintf(name, (size_t)size, "w8a8jit fake Hopper");
    return CUDA_SUCCESS;
}

static CUresult fake_device_attribute(int *value, CUdevice_attribute attribute, CUdevice device)
{
    (void)device;
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = FAKE_SM_COUNT; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = FAKE_SMEM_OPTIN; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = FAKE_L2_BYTES; break;
    default: *value = 0; break;
    }
    return CUDA_SUCCESS;
}

static CUresult fake_total_mem(size_t *bytes, CUdevice device)
{
    (void)device;
    *bytes = FAKE_MEMORY_BYTES;
    return CUDA_SUCCESS;
}

static CUresult fake_uuid(CUuuid *uuid, CUdevice device)
{
    memset(uuid, 0, sizeof *uuid);
    uuid->bytes[0] = (char)(device + 1);
    return CUDA_SUCCESS;
}

static CUresult fake_primary_retain(CUcontext *context, CUdevice device)
{
    (void)device;
    *context = (CUcontext)&g_primary;
    return CUDA_SUCCESS;
}

static CUresult fake_ctx_get(CUcontext *context)
{
    __atomic_fetch_add(&fake_cuda.ctx_get, 1, __ATOMIC_RELAXED);
    *context = t_current;
    return CUDA_SUCCESS;
}

static CUresult fake_ctx_set(CUcontext context)
{
    __atomic_fetch_add(&fake_cuda.ctx_set, 1, __ATOMIC_RELAXED);
    t_current = context;
    return CUDA_SUCCESS;
}

static CUresult fake_module_load(CUmodule *module, const void *image)
{
    (void)image;
    *module = (CUmodule)&g_functions; /* only ever compared and unloaded */
    return CUDA_SUCCESS;
}

static CUresult fake_module_function(CUfunction *function, CUmodule module, const char *name)
{
    (void)module;
    int i = __atomic_fetch_add(&g_function_count, 1, __ATOMIC_RELAXED);
    if (i >= FAKE_FUNCTIONS)
        return CUDA_ERROR_OUT_OF_MEMORY;
    snprintf(g_functions[i].name, sizeof g_functions[i].name, "%s", name);
    *function = (CUfunction)&g_functions[i];
    return CUDA_SUCCESS;
}

static CUresult fake_func_get_attribute(int *value, CUfunction_attribute attribute, CUfunction f)
{
    (void)attribute;
    (void)f;
    *value = 0;
    return CUDA_SUCCESS;
}

static CUresult fake_func_set_attribute(CUfunction f, CUfunction_attribute attribute, int value)
{
    (void)f;
    (void)attribute;
    (void)value;
    __atomic_fetch_add(&fake_cuda.func_set_attribute, 1, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

static CUresult fake_max_clusters(int *clusters, CUfunction f, const CUlaunchConfig *config)
{
    (void)f;
    (void)config;
    *clusters = FAKE_SM_COUNT / 2;
    return CUDA_SUCCESS;
}

/* CTAs an SM holds: 2 of at most 128 threads, 1 of more (what sm80_gemm's 4-warp and 8-warp
 * heavy tiles get on an H200) */
static CUresult fake_max_blocks(int *blocks, CUfunction f, int threads, size_t smem)
{
    (void)f;
    (void)smem;
    *blocks = threads <= 128 ? 2 : 1;
    return CUDA_SUCCESS;
}

static CUresult fake_is_capturing(CUstream stream, CUstreamCaptureStatus *status)
{
    (void)stream;
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

static CUresult fake_error_text(CUresult rc, const char **text)
{
    *text = rc == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

static uint64_t fake_mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull; }

/* The fake map: word 0 the base address, word 1 a hash of every other argument. */
static CUresult fake_encode(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                            void *base, const cuuint64_t *dims, const cuuint64_t *strides,
                            const cuuint32_t *box, const cuuint32_t *element_strides,
                            CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                            CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
    __atomic_fetch_add(&fake_cuda.encodes, 1, __ATOMIC_RELAXED);
    if (rank < 1 || rank > 5 || !base || (uintptr_t)base % 16 != 0)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t h = 0xCBF29CE484222325ull;
    h = fake_mix(h, (uint64_t)type);
    h = fake_mix(h, rank);
    for (cuuint32_t i = 0; i < rank; i++) {
        h = fake_mix(h, dims[i]);
        h = fake_mix(h, box[i]);
        h = fake_mix(h, element_strides[i]);
        if (i + 1 < rank)
            h = fake_mix(h, strides[i]);
    }
    h = fake_mix(h, ((uint64_t)interleave << 24) | ((uint64_t)swizzle << 16) |
                        ((uint64_t)l2 << 8) | (uint64_t)oob);
    memset(map, 0, sizeof *map);
    uint64_t address = (uint64_t)(uintptr_t)base;
    memcpy(&map->opaque[0], &address, sizeof address);
    memcpy(&map->opaque[1], &h, sizeof h);
    return CUDA_SUCCESS;
}

static CUresult fake_launch_ex(const CUlaunchConfig *config, CUfunction f, void **params,
                               void **extra)
{
    (void)extra;
    __atomic_fetch_add(&fake_cuda.launches, 1, __ATOMIC_RELAXED);
    fake_cuda_launch *l = &t_last_launch;
    const fake_function *function = (const fake_function *)f;
    fake_hang_check(function->name);
    l->entry = function->name;
    l->grid[0] = config->gridDimX;
    l->grid[1] = config->gridDimY;
    l->grid[2] = config->gridDimZ;
    l->block = config->blockDimX;
    l->shared_bytes = config->sharedMemBytes;
    l->attributes = config->numAttrs;
    l->map_base[0] = l->map_base[1] = l->map_hash[0] = l->map_hash[1] = 0;
    l->trigger = -1;
    if (strcmp(function->name, "w8a8_sm90_gemm") == 0) { /* (map A, map B, map C, args, …) */
        for (int i = 0; i < 2; i++) {
            const CUtensorMap *map = params[i];
            memcpy(&l->map_base[i], &map->opaque[0], sizeof l->map_base[i]);
            memcpy(&l->map_hash[i], &map->opaque[1], sizeof l->map_hash[i]);
        }
        /* (…, tma_store, raster, group, whole, trigger) */
        l->trigger = *(const int *)params[8];
    }
    return CUDA_SUCCESS;
}

static CUresult fake_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned bz, unsigned smem, CUstream stream,
                            void **params, void **extra)
{
    CUlaunchConfig config = {.gridDimX = gx, .gridDimY = gy, .gridDimZ = gz, .blockDimX = bx,
                             .blockDimY = by, .blockDimZ = bz, .sharedMemBytes = smem,
                             .hStream = stream};
    return fake_launch_ex(&config, f, params, extra);
}

/* Device memory: addresses from a bump pointer, nothing behind them. */
static uint64_t g_next_address = (uint64_t)1 << 44;

static CUresult fake_mem_alloc(CUdeviceptr *ptr, size_t bytes)
{
    uint64_t size = ((uint64_t)bytes + 255) & ~(uint64_t)255;
    *ptr = (CUdeviceptr)__atomic_fetch_add(&g_next_address, size + 256, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

static CUresult fake_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = FAKE_MEMORY_BYTES;
    return CUDA_SUCCESS;
}

static CUresult fake_copy_to_host_async(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
    (void)src;
    (void)s;
    memset(dst, 0, bytes);
    return CUDA_SUCCESS;
}

static CUresult fake_copy_to_host(void *dst, CUdeviceptr src, size_t bytes)
{
    (void)src;
    const char *fill = getenv("FAKE_CUDA_DTOH_BYTE");
    memset(dst, fill ? (int)strtol(fill, NULL, 0) : 0, bytes);
    return fake_wait_device(); /* synchronous: it waits for the device first */
}

static int g_handles[16]; /* streams, events: distinct non-NULL handles, never dereferenced */

static CUresult fake_stream_create(CUstream *stream, unsigned flags)
{
    (void)flags;
    *stream = (CUstream)&g_handles[0];
    return CUDA_SUCCESS;
}

static CUresult fake_event_create(CUevent *event, unsigned flags)
{
    (void)flags;
    *event = (CUevent)&g_handles[1];
    return CUDA_SUCCESS;
}

static CUresult fake_event_elapsed(float *ms, CUevent start, CUevent end)
{
    (void)start;
    (void)end;
    *ms = 0.01f;
    return CUDA_SUCCESS;
}

typedef struct fake_entry {
    const char *name;
    void *fn;
} fake_entry;

static const fake_entry fake_entries[] = {
    {"cuInit", (void *)fake_init},
    {"cuDriverGetVersion", (void *)fake_driver_version},
    {"cuDeviceGetCount", (void *)fake_device_count},
    {"cuDeviceGet", (void *)fake_device_get},
    {"cuDeviceGetName", (void *)fake_device_name},
    {"cuDeviceGetAttribute", (void *)fake_device_attribute},
    {"cuDeviceTotalMem", (void *)fake_total_mem},
    {"cuDeviceGetUuid", (void *)fake_uuid},
    {"cuDevicePrimaryCtxRetain", (void *)fake_primary_retain},
    {"cuCtxGetCurrent", (void *)fake_ctx_get},
    {"cuCtxSetCurrent", (void *)fake_ctx_set},
    {"cuModuleLoadData", (void *)fake_module_load},
    {"cuModuleGetFunction", (void *)fake_module_function},
    {"cuFuncGetAttribute", (void *)fake_func_get_attribute},
    {"cuFuncSetAttribute", (void *)fake_func_set_attribute},
    {"cuOccupancyMaxActiveClusters", (void *)fake_max_clusters},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", (void *)fake_max_blocks},
    {"cuStreamIsCapturing", (void *)fake_is_capturing},
    {"cuGetErrorName", (void *)fake_error_text},
    {"cuGetErrorString", (void *)fake_error_text},
    {"cuTensorMapEncodeTiled", (void *)fake_encode},
    {"cuLaunchKernelEx", (void *)fake_launch_ex},
    {"cuLaunchKernel", (void *)fake_launch},
    {"cuMemAlloc", (void *)fake_mem_alloc},
    {"cuMemGetInfo", (void *)fake_mem_info},
    {"cuMemcpyDtoH", (void *)fake_copy_to_host},
    {"cuMemcpyDtoHAsync", (void *)fake_copy_to_host_async},
    {"cuStreamCreate", (void *)fake_stream_create},
    {"cuEventCreate", (void *)fake_event_create},
    {"cuEventElapsedTime", (void *)fake_event_elapsed},
    {"cuEventQuery", (void *)fake_query},
    {"cuStreamQuery", (void *)fake_query},
    {"cuEventSynchronize", (void *)fake_wait_handle},
    {"cuStreamSynchronize", (void *)fake_wait_handle},
    {"cuCtxSynchronize", (void *)fake_wait_device},
    {"cuMemFree", (void *)fake_free},
    {"cuModuleUnload", (void *)fake_wait_handle},
    {"cuDevicePrimaryCtxRelease", (void *)fake_primary_release},
};

/* What the library resolves every entry point through. Anything not in the table succeeds
 * without writing outputs (frees, unloads, synchronizations, releases). */
__attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char *symbol, void **fn, int version, cuuint64_t flags,
                    CUdriverProcAddressQueryResult *status)
{
    (void)version;
    (void)flags;
    *fn = (void *)fake_success;
    for (size_t i = 0; i < sizeof fake_entries / sizeof fake_entries[0]; i++)
        if (strcmp(symbol, fake_entries[i].name) == 0)
            *fn = fake_entries[i].fn;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
