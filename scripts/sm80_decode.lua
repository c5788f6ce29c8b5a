-- The space of the decode GEMM (templates/sm80_decode.cuh): the memory-bound small-M kernel
-- on mma.sync.m16n8k32 with the weights on the instruction's M side (swap-AB), K split across
-- the warps of a CTA and summed in a fixed order (deterministic, no workspace), operands
-- loaded straight into registers. Arch "sm_80": compiled for the device's own arch; INT8 and
-- FP8 (e4m3/e5m2 mixes) from compute capability 8.0 (FP8 on sm_80/86, which lack an FP8
-- mma.sync, as f16 mmas on codes unpacked with integer operations). Every scale granularity:
-- per-tensor and per-row on either side, and block scales of exactly A 1×128 × B 128×128
-- (promoted per 128-wide K chunk); INT8 zero points, bias, every out dtype.
--
-- The space applies to M ≤ 512 (the tuner times it against sm90_gemm there; past that it
-- reads the weights once per token tile and cannot win); its default() answers only up to
-- M = 64, where the model below is sure it beats a 64-row wgmma tile.
--
-- Parameters:
--   warps        warps per CTA; they split K (chunks of 128 bytes, warp w takes w, w+warps…)
--   row_tiles    16-row weight tiles per CTA
--   token_tiles  8-token tiles per CTA (tokens past M are zeros, never stored)
--   unroll       K chunks whose loads a warp issues before its mmas (bytes in flight)
--   span         K segments a 16-row mma tile spreads each weight row over (16 / span weight
--                rows × span segments; its 8 columns 8 / span tokens × the same segments), so
--                a warp's load reads 64·span contiguous bytes of a row; > 1 without block
--                scales, and where at most two CTAs of 8·token_tiles / span tokens hold the
--                bucket (the second reads the weights again, from L2)

local CHUNK = 128               -- K bytes per warp step
local PARTIAL_BYTES = 512       -- 4 accumulators × 32 lanes × 4 bytes per tile pair
local MAX_LOAD_WORDS = 128      -- load registers per thread of one batch (the host's limit)
local REG_OVERHEAD = 40         -- addresses, indices, the L2 policy
local MAX_THREADS_PER_SM = 2048
local MAX_CTAS_PER_SM = 32
local WARP_THREADS = 32

local gemm = gemm -- scripts/lib/gemm.lua
local ceil_div, is_block = gemm.ceil_div, gemm.is_block

local function span(c)
    return c.span or 1
end

local function load_words(c)
    return c.unroll * (16 * c.row_tiles + 8 * c.token_tiles)
end

-- FP8 on sm_80/86 runs as f16 mmas on codes unpacked in registers (every config there)
local function unpacks(problem, device)
    return gemm.FP8[problem.a_type] and gemm.cc(device) < 89
end

local function registers(c, problem, device)
    local acc = 4 * c.row_tiles * c.token_tiles
    if is_block(problem) then
        acc = acc + 4 + 2 * c.token_tiles * c.unroll + c.row_tiles * c.unroll
    end
    -- the unpacked tokens and one row tile's unpacked weights, beside the loads they replace
    local f16 = unpacks(problem, device) and 8 * c.token_tiles + 16 or 0
    return REG_OVERHEAD + load_words(c) + acc + f16
end

local function smem_bytes(c)
    return (c.warps > 1 or span(c) > 1) and c.warps * c.row_tiles * c.token_tiles * PARTIAL_BYTES
        or 0
end

local function valid(c, problem, device)
    if load_words(c) > MAX_LOAD_WORDS then
        return false, "unroll × (16·row_tiles + 8·token_tiles) load registers exceed 128"
    end
    if smem_bytes(c) > device.max_smem then
        return false, "the warps' partial sums exceed shared memory"
    end
    -- past what a thread of the CTA may hold ptxas spills (CUDA 13: 16 warps of 2×4 or 4×4
    -- tiles, 288–1748 bytes)
    if registers(c, problem, device) >
        math.min(255, (device.regs_per_sm or 65536) // (WARP_THREADS * c.warps)) then
        return false, "registers past the CTA's share"
    end
    -- more token tiles than the bucket has tokens only pads
    local tile_tokens = 8 // span(c)
    if c.token_tiles > 1 and tile_tokens * (c.token_tiles // 2) >= problem.m then
        return false, "token tiles past M"
    end
    if span(c) > 1 then
        if is_block(problem) then
            return false, "span > 1 without block scales"
        end
        -- the bucket's tokens in at most two CTAs: each more reads the weights again
        if 2 * tile_tokens * c.token_tiles < problem.m then
            return false, "span leaves more than two CTAs along M"
        end
        if ceil_div(problem.n, 16 * c.row_tiles // span(c)) > 65535 then
            return false, "more row tiles than a grid has rows"
        end
    end
    return true
end

-- Cost model (arbitrary units ~ ns on an H200-class part). The kernel streams N·K weight
-- bytes from HBM once (token tiles of the same weight rows run side by side and share them
-- through L2) and every CTA reads its tokens from L2/L1. Bandwidth needs bytes in flight: a
-- warp has 16·row_tiles·128·unroll of them, and an SM needs ~40 KB outstanding to stream at
-- its share of HBM; fewer CTAs than SMs cap the SMs that stream at all. K is split over the
-- warps in 128-byte chunks, so K / 128 below the warp count idles warps. mma.sync work
-- (padded to 8 tokens a tile) matters only when the token tiles are many. Each CTA ends with
-- a shared-memory reduction and the epilogue.
local HBM_BYTES_PER_NS = 4000      -- ~4 TB/s sustained
local L2_BYTES_PER_NS = 10000
local INFLIGHT_PER_SM = 40960
local SM_BYTES_PER_NS = 60         -- what one SM can pull on its own
local MMA_NS = 0.25                -- one m16n8k32 per SM sub-partition, pipelined
local LAUNCH_NS = 2500

local function rank(c, problem, device)
    local rows, tokens = 16 * c.row_tiles // span(c), 8 * c.token_tiles // span(c)
    local tiles_n, tiles_m = ceil_div(problem.n, rows), ceil_div(problem.m, tokens)
    local ctas = tiles_n * tiles_m
    local threads = 32 * c.warps
    local per_sm = math.min(MAX_THREADS_PER_SM // threads, MAX_CTAS_PER_SM,
        device.regs_per_sm // (threads * math.max(registers(c, problem, device), 32)))
    local smem = smem_bytes(c)
    if smem > 0 then
        per_sm = math.min(per_sm, device.max_smem // smem)
    end
    per_sm = math.max(per_sm, 1)
    local active = math.min(ctas, device.sm_count * per_sm)
    local busy_sms = math.min(device.sm_count, ctas)
    local chunks = ceil_div(problem.k, CHUNK * span(c))
    -- warps that have chunks: the rest only wait at the reduction
    local k_use = chunks / (c.warps * ceil_div(chunks, c.warps))
    local inflight = active * c.warps * k_use * rows * CHUNK * span(c) * c.unroll
    local efficiency = math.min(1.0, inflight / (device.sm_count * INFLIGHT_PER_SM))
    local bandwidth = math.min(HBM_BYTES_PER_NS * efficiency, busy_sms * SM_BYTES_PER_NS)
    local weight_bytes = problem.n * problem.k
    local token_bytes = ctas * math.min(tokens, problem.m) * problem.k
    local memory = math.max(weight_bytes / bandwidth,
        (weight_bytes * tiles_m + token_bytes) / L2_BYTES_PER_NS)
    local mma = ctas * c.row_tiles * c.token_tiles * 4 * chunks * MMA_NS / (device.sm_count * 4)
    local waves = ceil_div(ctas, device.sm_count * per_sm)
    local reduce = waves * (c.warps * c.row_tiles * c.token_tiles * 4 + 300)
    -- Variants the model cannot tell apart cost 2 % per step from the usual choice, so the
    -- first candidates of a problem differ in tile shape first.
    local steps = math.abs(c.unroll - 2) / 2
    -- Spans read whole runs of a row a load (the session-45 probe: 512 contiguous bytes of a
    -- row a warp load streamed ~2 % over sm80_decode's 8-row pattern; session 50's D1: spans
    -- won 44 of 45 keys at M 1-4); the model cannot tell, so spans whose CTA holds the
    -- bucket's tokens rank 2 % ahead, the others level.
    local runs = (span(c) > 1 and 8 * c.token_tiles // span(c) >= problem.m) and 0.98 or 1.0
    return (math.max(memory, mma) + reduce + LAUNCH_NS) * (1 + 0.02 * steps) * runs
end

local function default(problem, device)
    if problem.m > 64 then
        return nil -- sm90_gemm's (or the next family's) default
    end
    local best, best_cost
    for _, warps in ipairs({ 4, 8, 16 }) do
        for _, row_tiles in ipairs({ 1, 2 }) do
            for _, token_tiles in ipairs({ 1, 2, 4 }) do
                local c = { warps = warps, row_tiles = row_tiles, token_tiles = token_tiles,
                            unroll = 2, span = 1 }
                if valid(c, problem, device) then
                    local cost = rank(c, problem, device)
                    if not best_cost or cost < best_cost then
                        best, best_cost = c, cost
                    end
                end
            end
        end
    end
    return best
end

-- What `w8a8 compile --arch … --all` builds (8 best-ranked configs each), INT8 and FP8 on every
-- arch: every out dtype, bias kind, scale kind and zero point.
local function compile_problems(_device)
    return {
        { m = 4, n = 4096, k = 4096, a_type = "int8", b_type = "int8", out_type = "bf16",
          a_scale = "tensor", b_scale = "tensor" },
        { m = 16, n = 6144, k = 4096, a_type = "int8", b_type = "int8", out_type = "fp32",
          bias_type = "fp32", a_scale = "row", b_scale = "row", azp = "token" },
        { m = 32, n = 28672, k = 4096, a_type = "int8", b_type = "int8", out_type = "fp16",
          bias_type = "fp16", a_scale = "tensor", b_scale = "row", azp = "tensor" },
        { m = 1, n = 4096, k = 14336, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          a_scale = "tensor", b_scale = "tensor" },
        { m = 8, n = 8192, k = 8192, a_type = "e4m3", b_type = "e4m3", out_type = "fp16",
          bias_type = "fp16", a_scale = "row", b_scale = "row" },
        { m = 24, n = 10240, k = 8192, a_type = "e5m2", b_type = "e4m3", out_type = "bf16",
          bias_type = "fp32", a_scale = "row", b_scale = "tensor" },
        { m = 2, n = 7168, k = 2048, a_type = "e4m3", b_type = "e5m2", out_type = "fp32",
          a_scale = "block", b_scale = "block", a_group_rows = 1, a_group_k = 128,
          b_group_rows = 128, b_group_k = 128, a_k_major = true },
        { m = 64, n = 2112, k = 7168, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          bias_type = "bf16", a_scale = "block", b_scale = "block", a_group_rows = 1,
          a_group_k = 128, b_group_rows = 128, b_group_k = 128 },
    }
end

return {
    name = "sm80_decode",
    template = "sm80_decode",
    arch = "sm_80",

    applies = function(problem, device)
        local operands = gemm.operands(problem)
        return operands ~= nil and gemm.cc(device) >= 80
            and problem.m <= 512
    end,

    params = {
        warps = { 1, 2, 4, 8, 16 },
        row_tiles = { 1, 2, 4 },
        token_tiles = { 1, 2, 4 },
        unroll = { 1, 2, 4 },
        span = { 1, 2, 4, 8 },
    },
    order = { "warps", "row_tiles", "token_tiles", "unroll", "span" },

    valid = valid,
    rank = rank,
    default = default,
    compile_problems = compile_problems,
}
