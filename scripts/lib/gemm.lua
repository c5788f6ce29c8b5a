-- What the GEMM tuning spaces (scripts/*.lua) share: run in each space's sandbox before its
-- chunk, this chunk's table is the global `gemm` there (a space takes it into a local:
-- `local gemm = gemm`). Spaces written for `w8a8 tune --space FILE` get it too.

local M = {}

M.SCALE_GROUP = 128 -- block scales: A 1×128, B 128×128
M.FP8 = { e4m3 = true, e5m2 = true }
M.OUTS = { bf16 = true, fp16 = true, fp32 = true }

function M.ceil_div(a, b)
    return (a + b - 1) // b
end

-- compute capability as one number: 80, 86, 89, 90
function M.cc(device)
    return device.cc_major * 10 + device.cc_minor
end

function M.is_block(problem)
    return problem.a_scale == "block" or problem.b_scale == "block"
end

-- promoted accumulation: a temporary accumulator set per K block, added into the main one
-- (block scales; FP8 per-tensor / per-row with accum "promoted")
function M.is_promoted(problem)
    return M.is_block(problem) or problem.accum == "promoted"
end

-- Registers a Hopper GEMM consumer warpgroup (sm90_gemm's template, either space) needs for
-- wg_m rows × block_n columns: its accumulator sets (promoted accumulation: a temporary set
-- beside the main one, or two with overlap >= 1, or one 64-row sub-tile's with wave 1) and
-- what it keeps beside them. Measured (NVRTC, CUDA 13.0): with overlap, 3 × 64 accumulators
-- of a 64-row consumer compile clean, 3 × 72, one consumer with 3 × 72 and a 128-row consumer
-- with 3 × 64 spill; with wave (block scales, two consumers) 256x128 compiles clean with
-- epilogue 1 or 2 (0 spills; 20 bytes with 0), 256x144 clean with specialize 0 and 16 bytes
-- of spills with 1, one-consumer 128x160 spilled (the tuner's compile rejects configs that
-- spill).
M.SM90_REG_OVERHEAD = 40      -- beside the accumulators
M.SM90_BLOCK_SCALE_REGS = 16  -- promoted accumulation: the scales of a K block
M.SM90_OVERLAP_OVERHEAD = 32  -- overlap >= 1: beside the three sets (+8 per 64 rows)
M.SM90_WAVE_OVERHEAD = 16     -- wave 1: beside the main set and one sub-tile's

function M.sm90_consumer_regs(wg_m, block_n, problem, wave, overlap)
    local acc = (wg_m // 64) * block_n // 2
    if wave == 1 then
        return acc + block_n // 2 + M.SM90_WAVE_OVERHEAD
    elseif M.is_promoted(problem) and overlap >= 1 then
        return 3 * acc + M.SM90_OVERLAP_OVERHEAD + 8 * (wg_m // 64)
    elseif M.is_promoted(problem) then
        return 2 * acc + M.SM90_REG_OVERHEAD + M.SM90_BLOCK_SCALE_REGS
    end
    return acc + M.SM90_REG_OVERHEAD
end

function M.out_bytes(problem)
    return problem.out_type == "fp32" and 4 or 2
end

-- The operands of a problem the tensor-core families take: "fp8" (e4m3 / e5m2 on both sides)
-- or "int8" (on both), with a bf16, fp16 or fp32 out; block scales only as FP8 with A 1×128
-- and B 128×128 groups on both sides; a zero point only with INT8. nil for anything else.
function M.operands(problem)
    local fp8 = M.FP8[problem.a_type] and M.FP8[problem.b_type]
    local int8 = problem.a_type == "int8" and problem.b_type == "int8"
    if not (fp8 or int8) or not M.OUTS[problem.out_type] then
        return nil
    end
    if M.is_block(problem) then
        if not fp8 or problem.a_scale ~= "block" or problem.b_scale ~= "block"
            or problem.a_group_rows ~= 1 or problem.a_group_k ~= M.SCALE_GROUP
            or problem.b_group_rows ~= M.SCALE_GROUP or problem.b_group_k ~= M.SCALE_GROUP then
            return nil
        end
    end
    if problem.azp and problem.azp ~= "none" and not int8 then
        return nil
    end
    return fp8 and "fp8" or "int8"
end

-- CTAs a grid of clusters of `ctas` CTAs (split-K, or 2-CTA clusters) runs at once. A cluster
-- stays inside one GPC: clusters of 2 fill the SMs, clusters of 4 leave SMs of each GPC over
-- (the driver runs 30 of them on a 132-SM H200 and H100, 12 SMs idle:
-- bench/results-2026-11-26-s19, K5, K12; taken as the same 12 on other sm_90 parts)
local CLUSTER4_LEFT_OVER = 12
function M.cluster_slots(device, ctas)
    if ctas >= 4 then
        return math.max(ctas, (device.sm_count - CLUSTER4_LEFT_OVER) // ctas * ctas)
    end
    return device.sm_count - device.sm_count % ctas
end

-- list with every entry of more appended (a space that builds a list in parts)
function M.append(list, more)
    for _, entry in ipairs(more) do
        list[#list + 1] = entry
    end
    return list
end

return M
