-- a variant that is also a parameter of the cross product
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2 } },
    variants = { tile = { 3 } },
}
