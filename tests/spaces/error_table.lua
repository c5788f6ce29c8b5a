-- error() with a non-string object, raised from rank()
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1 } },
    rank = function(config)
        error({ code = 1 })
    end,
}
