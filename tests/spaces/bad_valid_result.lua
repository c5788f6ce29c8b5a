-- valid() forgets to return
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1 } },
    valid = function(config)
        local ok = config.tile == 1
    end,
}
