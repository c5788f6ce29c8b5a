// A tiny template for the JIT tests: reads W8A8_VALUE from the prologue.
#ifndef W8A8_VALUE
#error "W8A8_VALUE must be defined"
#endif
extern "C" __global__ void jit_probe(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (float)W8A8_VALUE * (float)i;
}
