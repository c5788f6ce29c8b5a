-- compile_problems() returns a problem with an unknown dtype
return {
    template = "reference_gemm",
    arch = "sm_80",
    compile_problems = function(device)
        return {
            { m = 1, n = 16, k = 16 },
            { m = 1, n = 16, k = 16, a_type = "fp64" },
        }
    end,
}
