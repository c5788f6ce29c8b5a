/* Programmatic dependent launch (sm_90 and newer).
 *
 * A kernel launched with the programmatic stream serialization attribute (jit_launch.pdl) may
 * start while the kernel before it in the stream is still running, as soon as every CTA of
 * that kernel has executed griddepcontrol.launch_dependents (or exited). So the next call's
 * launch, CTA rasterization and prologue (barrier setup, tensor-map prefetch) overlap this
 * call's tail instead of following it.
 *
 * The rule that keeps this correct: a kernel launched with the attribute calls w8a8_pdl_wait()
 * before its first global memory access, read or write. The wait returns once every
 * prerequisite grid has completed and its writes are visible, so our inputs are final and the
 * previous kernel no longer reads what we overwrite. w8a8_pdl_launch_dependents() may come at
 * any point as far as correctness goes (the dependent's own wait protects it), but not at the
 * start: the dependent would launch at once, trigger its own dependents at its start, and a
 * stream of calls would pile grids of waiting CTAs onto the SMs (measured on an H100: small
 * decode grids 30 % slower). The families trigger once a CTA has issued its last load, so at
 * most two grids overlap: the tail of one and the prologue of the next. A kernel launched without the attribute, or followed by one
 * launched without it, is ordered by the stream as usual and both calls do nothing; before
 * sm_90 they compile to nothing. */
#ifndef W8A8_COMMON_PDL_CUH
#define W8A8_COMMON_PDL_CUH

__device__ __forceinline__ void w8a8_pdl_launch_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void w8a8_pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

#endif
