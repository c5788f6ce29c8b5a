-- hostile: runs another file
dofile("/etc/passwd")
return { template = "reference_gemm", arch = "sm_80" }
