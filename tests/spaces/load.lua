-- hostile: compiles code at run time
local f = load("return 1")
return { template = "reference_gemm", arch = "sm_80" }
