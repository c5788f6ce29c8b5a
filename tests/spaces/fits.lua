-- valid() reads the shape only through prune(), fits() reads it: an enumeration may reuse
-- valid()'s answers across keys of one class, device and prune() outcome
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 1, 2, 3, 4 }, stage = { 1, 2, 3, 4 } },
    order = { "tile", "stage" },
    prune = function(name, value, problem)
        return not (name == "stage" and value == 4 and problem.k < 128)
    end,
    valid = function(c)
        return c.tile + c.stage <= 6, "tile + stage > 6"
    end,
    fits = function(c, problem)
        return c.tile * problem.m <= 256, "tile too large for M"
    end,
    rank = function(c, problem)
        return c.tile * 10 + c.stage + problem.n / 1000
    end,
    default = function(problem)
        return { tile = 4, stage = 1 }
    end,
}
