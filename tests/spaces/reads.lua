-- valid() reads the config in an order of its own: the walk skips the configs that share what
-- a rejected one read (tuner/space.c, walk_configs); pairs() reads every field, and a field
-- set to nil reads nil
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { a = { 1, 2, 3 }, b = { 1, 2, 3, 4 }, c = { 1, 2 }, d = { 1, 2, 3 } },
    order = { "a", "b", "c", "d" },
    valid = function(config)
        if config.a == 2 then
            return false -- a alone: every b, c, d of it
        end
        if config.d == 3 and config.c == 1 then
            return false -- a, d, c: the same c and d under every b
        end
        if config.b > config.a + 1 then
            return false
        end
        local sum = 0
        for _, v in pairs(config) do
            sum = sum + v
        end
        if sum % 5 == 0 then
            return false
        end
        config.b = nil
        if config.b ~= nil then
            error("a field set to nil reads nil")
        end
        return true
    end,
}
