-- A space written on the library every space gets (scripts/lib/gemm.lua, the global `gemm`):
-- applies() where gemm.operands() takes the problem, valid() keeps the tiles that cut K into
-- whole pieces (gemm.ceil_div), rank() puts the widest first, and compile_problems() joins
-- two lists (gemm.append). Each evaluation runs in a fresh sandbox: the library must be
-- there every time.
local gemm = gemm
local INT8 = { m = 1, n = 16, k = 64, a_type = "int8", b_type = "int8", out_type = "bf16",
               a_scale = "tensor", b_scale = "tensor" }
local BLOCK = { m = 16, n = 256, k = 512, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
                a_scale = "block", b_scale = "block", a_group_rows = 1, a_group_k = 128,
                b_group_rows = 128, b_group_k = 128 }
return {
    template = "reference_gemm",
    arch = "sm_80",
    params = { tile = { 16, 32, 48, 64 } },
    applies = function(problem, device)
        return gemm.operands(problem) ~= nil and gemm.cc(device) >= 80
    end,
    valid = function(c, problem, device)
        return gemm.ceil_div(problem.k, c.tile) * c.tile == problem.k
    end,
    rank = function(c, problem, device)
        return gemm.is_block(problem) and c.tile or -c.tile
    end,
    compile_problems = function(device)
        return gemm.append({ INT8 }, { BLOCK })
    end,
}
