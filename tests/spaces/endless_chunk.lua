-- hostile: an endless loop while the chunk runs
local n = 0
while true do n = n + 1 end
return { template = "reference_gemm", arch = "sm_80" }
