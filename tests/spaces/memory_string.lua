-- hostile: doubles a string until memory runs out
local s = "0123456789abcdef"
for i = 1, 64 do
    s = s .. s
end
return { template = "reference_gemm", arch = "sm_80" }
