// Does not compile: the JIT tests check the error and the log.
extern "C" __global__ void jit_broken(float *out) { out[0] = undefined_name; }
