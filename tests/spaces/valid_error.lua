-- a runtime error inside valid() on a known line
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { block_m = { 64, 128 }, block_n = { 64 } },
    valid = function(config, problem, device)
        if config.block_m == 128 then
            return config.no_such_field.x > 1
        end
        return true
    end,
}
