-- a syntax error on line 3
return {
    template = "reference_gemm" arch = "sm_80",
}
