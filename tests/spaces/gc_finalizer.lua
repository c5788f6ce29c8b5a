-- hostile: a finalizer runs with hooks off, outside the instruction budget
local t = setmetatable({}, { __gc = function() while true do end end })
return { template = "reference_gemm", arch = "sm_80" }
