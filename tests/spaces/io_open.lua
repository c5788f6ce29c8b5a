-- hostile: reads a file
local f = io.open("/etc/passwd")
return { template = "reference_gemm", arch = "sm_80" }
