-- valid() gives its config table a metatable (the walk's config is a proxy whose metatable
-- it keeps)
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2 } },
    valid = function(config)
        setmetatable(config, {})
        return true
    end,
}
