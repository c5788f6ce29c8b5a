-- hostile: a pattern that backtracks for ages inside C, where no instruction is counted
local subject = string.rep("a", 40)
local found = string.find(subject, string.rep("a*", 40) .. "b")
return { template = "reference_gemm", arch = "sm_80" }
