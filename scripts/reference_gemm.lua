-- The space of the reference GEMM (templates/reference_gemm.cuh): the oracle for tests and
-- for the tuner's verification. It has no tunables (one thread per output, a fixed 32×8
-- block), so its only configuration is the empty one. The kernel is specialized by the
-- problem's traits alone (A/B/out/bias dtypes, scale kinds, zero point), which the host adds
-- as defines; arch "sm_80" means "any target from sm_80 on" (it is compiled for the
-- device's own arch at run time).
--
-- compile_problems(device) is what `w8a8 compile --all` builds: a covering set rather than
-- the full cross product (477 specializations), such that every operand dtype pair, every
-- A-scale × B-scale combination, every out dtype with every bias kind, and both zero-point
-- kinds are compiled at least once. Sizes do not reach the kernel's specialization.

local M, N, K = 128, 256, 512

local problems, seen = {}, {}

-- Adds one problem class (defaults: e4m3 operands, per-tensor scales, bf16 out, no bias,
-- no zero point); a class already listed is not listed twice.
local function add(fields)
    local p = {
        m = M, n = N, k = K,
        a_type = fields.a_type or "e4m3",
        out_type = fields.out_type or "bf16",
        bias_type = fields.bias_type or "none",
        a_scale = fields.a_scale or "tensor",
        b_scale = fields.b_scale or "tensor",
        azp = fields.azp or "none",
    }
    p.b_type = fields.b_type or p.a_type
    local key = table.concat({ p.a_type, p.b_type, p.out_type, p.bias_type, p.a_scale,
        p.b_scale, p.azp }, "/")
    if not seen[key] then
        seen[key] = true
        problems[#problems + 1] = p
    end
end

local FP8 = { "e4m3", "e5m2" }
local SCALES = { "tensor", "row", "block" }
local OUTS = { "bf16", "fp16", "fp32" }

-- every operand dtype pair: the FP8 mixes and int8 × int8
for _, a in ipairs(FP8) do
    for _, b in ipairs(FP8) do
        add({ a_type = a, b_type = b })
    end
end
add({ a_type = "int8" })

-- every A-scale × B-scale combination, for FP8 and for int8
for _, sa in ipairs(SCALES) do
    for _, sb in ipairs(SCALES) do
        add({ a_scale = sa, b_scale = sb })
        add({ a_type = "int8", a_scale = sa, b_scale = sb })
    end
end
-- (A's block-scale layout, row-major or K-major, is a run-time argument of this kernel, so
-- it needs no specialization of its own.)

-- every out dtype with every bias kind (none, the out dtype, fp32)
for _, out in ipairs(OUTS) do
    for _, bias in ipairs({ "none", out, "fp32" }) do
        add({ a_scale = "row", b_scale = "row", out_type = out, bias_type = bias })
    end
end

-- int8 zero points (per-tensor and per-token) with per-tensor and per-row scales
for _, azp in ipairs({ "tensor", "token" }) do
    add({ a_type = "int8", a_scale = "row", b_scale = "row", azp = azp })
    add({ a_type = "int8", a_scale = "tensor", b_scale = "row", azp = azp, bias_type = "fp32" })
end

return {
    name = "reference_gemm",
    template = "reference_gemm",
    arch = "sm_80",
    params = {},

    -- every problem the library accepts, on every device from sm_80 on
    applies = function(problem, device)
        return device.cc_major >= 8
    end,

    default = function(problem, device)
        return {}
    end,

    compile_problems = function(device)
        return problems
    end,
}
