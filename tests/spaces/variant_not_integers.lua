-- a variant whose values are not integers
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2 } },
    variants = { trigger = { "fast" } },
}
