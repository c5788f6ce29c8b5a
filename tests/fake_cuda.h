/* What tests/fake_cuda.c (the stand-in driver) lets a test observe. The test reaches these
 * with dlsym on the same path the library dlopen'ed (W8A8_CUDA_DRIVER). */
#ifndef W8A8_FAKE_CUDA_H
#define W8A8_FAKE_CUDA_H

#include <stdint.h>
#include <stdio.h>

/* Calls into the fake since the process started (all threads). */
typedef struct fake_cuda_counts {
    uint64_t launches;           /* cuLaunchKernelEx + cuLaunchKernel */
    uint64_t encodes;            /* cuTensorMapEncodeTiled */
    uint64_t func_set_attribute; /* cuFuncSetAttribute */
    uint64_t ctx_get, ctx_set;   /* cuCtxGetCurrent, cuCtxSetCurrent */
    uint64_t queries;            /* cuEventQuery + cuStreamQuery */
} fake_cuda_counts;

/* The calling thread's last launch. For w8a8_sm90_gemm, what its tensor maps A and B
 * (parameters 0 and 1) say: the base address and the hash of the other encode arguments; and
 * its launch argument trigger (parameter 8; -1 for other kernels). */
typedef struct fake_cuda_launch {
    const char *entry; /* the function's entry name (the fake's storage) */
    unsigned grid[3], block, shared_bytes, attributes;
    uint64_t map_base[2], map_hash[2];
    int trigger;
} fake_cuda_launch;

#define FAKE_CUDA_COUNTS_SYMBOL "fake_cuda"
#define FAKE_CUDA_LAST_LAUNCH_SYMBOL "fake_cuda_last_launch"
typedef fake_cuda_launch (*fake_cuda_last_launch_fn)(void);

#endif
