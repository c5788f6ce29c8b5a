-- A well-behaved space whose counts and order tests/check_space.c recomputes in C.
local BK = 128 -- bytes of K per stage and operand row

local function smem(c)
    return c.stages * (c.block_m + c.block_n) * BK
end

return {
    name = "tiles",
    template = "reference_gemm",
    arch = "sm_80",
    params = {
        block_m = { 64, 128, 256 },
        block_n = { 64, 96, 128, 192, 256 },
        stages = { 2, 3, 4, 5, 6 },
        split_k = { 1, 2, 4 },
    },
    order = { "block_m", "block_n", "stages", "split_k" },
    applies = function(problem, device)
        return problem.a_type ~= "int8"
    end,
    valid = function(c, problem, device)
        if smem(c) > device.max_smem then
            return false, "shared memory"
        end
        if problem.k % (BK * c.split_k) ~= 0 then
            return false, "split-K must divide K"
        end
        if c.block_m * c.block_n > 128 * 256 then
            return false, "accumulator registers"
        end
        return true
    end,
    rank = function(c, problem, device)
        local tiles = ((problem.m + c.block_m - 1) // c.block_m)
            * ((problem.n + c.block_n - 1) // c.block_n) * c.split_k
        return (tiles + device.sm_count - 1) // device.sm_count -- waves: many ties
    end,
    default = function(problem, device)
        return { block_m = 128, block_n = 128, stages = 4, split_k = 1 }
    end,
    compile_problems = function(device)
        return {
            { m = 1000, n = 3000, k = 4096 },
            { m = 4096, n = 4096, k = 4096, a_type = "int8", out_type = "fp16" },
            { m = 128, n = 1024, k = 384, a_type = "e5m2", b_type = "e4m3", a_scale = "block",
              b_scale = "block", out_type = "fp32", bias_type = "fp32", a_k_major = true },
        }
    end,
}
