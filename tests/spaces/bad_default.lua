-- default() names a value that is not in params
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2 } },
    default = function(problem, device)
        return { tile = 3 }
    end,
}
