-- valid() and rank() that change the config table they get: the next call must still see its
-- own config whole (the enumeration shares one table and rewrites every field)
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2, 3 }, stage = { 1, 2, 3, 4 } },
    order = { "tile", "stage" },
    valid = function(config)
        local ok = config.tile + config.stage <= 5
        config.tile, config.stage = nil, 100
        return ok
    end,
    rank = function(config)
        local r = -(config.tile * 10 + config.stage)
        config.stage = nil
        return r
    end,
}
