-- hostile: loads a module
local io = require("io")
return { template = "reference_gemm", arch = "sm_80" }
