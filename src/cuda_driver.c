/* The driver API, loaded with dlopen("libcuda.so.1") and cuGetProcAddress, so the library and
 * the command load and their CPU parts work on machines without a GPU driver. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "internal.h"

/* Entry points are requested as of this driver-API version, so versioned names resolve to
 * the variants whose types cuda.h declares. */
#define W8A8_CU_API_VERSION 12000

typedef CUresult (*cu_get_proc_fn)(const char *, void **, int, cuuint64_t,
                                   CUdriverProcAddressQueryResult *);

static cu_api g_api;
static const cu_api *g_api_ptr;
static char g_why[256] = "";
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load_once(void)
{
    const char *override = getenv("W8A8_CUDA_DRIVER"); /* tests point this at a missing file */
    const char *lib = override && *override ? override : "libcuda.so.1";
    void *handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(g_why, sizeof g_why, "no CUDA driver: cannot load %s", lib);
        return;
    }
    cu_get_proc_fn get_proc = (cu_get_proc_fn)dlsym(handle, "cuGetProcAddress_v2");
    if (!get_proc) {
        snprintf(g_why, sizeof g_why, "CUDA driver in %s is too old (no cuGetProcAddress_v2)", lib);
        return;
    }
#define W8A8_CU_RESOLVE(name)                                                                  \
    {                                                                                          \
        void *fn = NULL;                                                                       \
        CUdriverProcAddressQueryResult found;                                                  \
        if (get_proc(#name, &fn, W8A8_CU_API_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) !=  \
                CUDA_SUCCESS ||                                                                \
            !fn) {                                                                             \
            snprintf(g_why, sizeof g_why, "CUDA driver lacks %s", #name);                      \
            return;                                                                            \
        }                                                                                      \
        *(void **)&g_api.name = fn;                                                            \
    }
    W8A8_CU_FUNCTIONS(W8A8_CU_RESOLVE)
#undef W8A8_CU_RESOLVE
    CUresult rc = g_api.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        const char *name = NULL;
        g_api.cuGetErrorName(rc, &name);
        snprintf(g_why, sizeof g_why, "cuInit failed: %s", name ? name : "unknown error");
        return;
    }
    g_api_ptr = &g_api;
}

const cu_api *cu_load(const char **why)
{
    pthread_once(&g_once, load_once);
    if (why)
        *why = g_api_ptr ? "" : g_why;
    return g_api_ptr;
}
