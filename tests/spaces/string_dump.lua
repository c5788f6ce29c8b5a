-- hostile: dumps bytecode
local code = string.dump(function() return 1 end)
return { template = "reference_gemm", arch = "sm_80" }
