-- hostile: one huge allocation
local big = string.rep("x", 1 << 30)
return { template = "reference_gemm", arch = "sm_80" }
