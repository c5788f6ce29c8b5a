-- prune() drops tile 2 and every odd stage up front; valid() rejects them too
local function prune(name, value, problem, device)
    if name == "tile" then
        return value ~= 2
    end
    return value % 2 == 0
end
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2, 3 }, stage = { 1, 2, 3, 4 } },
    order = { "tile", "stage" },
    prune = prune,
    valid = function(config, problem, device)
        return prune("tile", config.tile, problem, device)
            and prune("stage", config.stage, problem, device)
    end,
    rank = function(config)
        return config.tile * 10 + config.stage
    end,
}
