-- 10 368 configurations with a few lines of arithmetic each: the enumeration speed test.
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = {
        a = { 1, 2, 3, 4, 5, 6, 7, 8 },
        b = { 1, 2, 3, 4, 5, 6, 7, 8 },
        c = { 1, 2, 3, 4, 5, 6, 7, 8, 9 },
        d = { 16, 32, 64 },
        e = { 1, 2, 4 },
        f = { 0, 1 },
    },
    valid = function(x, problem, device)
        local bytes = x.a * x.b * x.d * 64 * x.e
        if bytes > device.max_smem then
            return false, "smem"
        end
        return (x.a + x.b + x.c) % 3 ~= 0
    end,
    rank = function(x, problem, device)
        return math.abs(x.a * x.b * 16 - problem.m) + x.c / 10 + x.f
    end,
}
