-- The swap-AB space of the Hopper GEMM (templates/sm90_gemm.cuh with SWAP=1): the same
-- persistent, warp-specialized sm_90a kernel, its operands exchanged for few tokens. The
-- weights (B, N×K) fill wgmma's M side, 64 rows a consumer warpgroup, and the tokens its
-- N = block_n (8…64), so a tile of 16 tokens does not pad to 64 rows and a K block's
-- wgmmas do a fraction of sm90_gemm's smallest tile's work. The epilogue writes the
-- transposed tile with direct stores. Applies on compute capability 9.0 to FP8 (e4m3/e5m2
-- mixes) and INT8 problems at M <= 64 with per-tensor or per-row scales on either side
-- (promoted accumulation included), FP8 with block scales of exactly A 1×128 and B 128×128
-- (promoted per K block: a stage carries the tile's token scales and its weight blocks'),
-- INT8 zero points, bias and every out dtype. The tuner times it against sm90_gemm and
-- sm80_decode; the
-- dispatcher takes it from the cache only (its rows are family sm90_gemm with swap=1), never
-- as a default.
--
-- Parameters (sm90_gemm's, read for the exchanged operands):
--   block_m    weight rows (output columns) of a tile: 64 or 128 per consumer warpgroup
--   block_n    tokens (output rows) of a tile, wgmma N: at most the narrowest value that
--              holds M (wider only pads)
--   block_k    K bytes a stage: 128, or 256 / 512 (fast accumulation only): 2 or 4 boxes of
--              128 K bytes side by side, loaded back to back, so each weight row is read in
--              runs of 256 / 512 bytes (bench/stream_probe.cu, session 45: 64-row tiles of 4
--              boxes a stage read 3-4 % faster than of one on an H200; in the kernel, at 8
--              per-tensor decode keys, 0.98-1.02x its 128-byte twins: session 46, D1)
--   stages     depth of the TMA ring (stages · (block_m + block_n) · block_k bytes)
--   consumers  consumer warpgroups (2: setmaxnreg 40/232)
--   pingpong   1 (2 consumers): each consumer takes every other tile whole
--   cluster    1, or 2 (block_n a multiple of 16, split 1): two CTAs of neighbouring weight
--              tiles in a cluster, each multicasting half of the shared token tile (cuBLASLt's
--              decode kernels on an H200 run in 2x1 clusters: session 44, D6); measured at 8
--              per-tensor keys of M = 16, 32 (session 46, D3): 0.97-0.99x their cluster-1
--              twins (geomean a key), level at 57344×8192, where it won two keys by < 0.5 %
--   split      1, 2 or 4: split-K in a cluster of `split` CTAs, partial sums added in rank
--              0's registers in a fixed order (bitwise the same run to run, no workspace)
--   specialize 0, or 1: N and K compiled in
--   swap       always 1 here (sm90_gemm's own space leaves it at 0)
--   overlap    0, or 1..3 (promoted accumulation: block scales, or --accum promoted): a third
--              accumulator set, K blocks in groups of 2^overlap, each promoted while the next
--              one's wgmmas run (sm90_gemm's; the last group padded with zero blocks, split-K
--              slices of whole groups)
--   evict      0, or 1: the weights' TMA loads carry an L2 evict-first policy (they are read
--              once); on an H200 1 ran the decode grid's rows 0.4-1.3 % faster (up to 3.4 %),
--              two block-scaled rows at N = 28672, K = 4096 5.5 % slower
--              (bench/results-2026-11-26-s20, X9)

local BK = 128                  -- K bytes of a box (a stage holds block_k / BK of them)
local BARRIER_BYTES = 16
local TURN_BYTES = 16
local SPLIT_BAR_BYTES = 32
local ALIGN_SLACK = 1024
local B_SCALE_AREA = 16         -- block scales: a stage's weight-block scales, after its tokens'
local CONSUMER_REGS = { 255, 232 }
local MAX_M = 64

local gemm = gemm -- scripts/lib/gemm.lua
local ceil_div, is_block, is_promoted = gemm.ceil_div, gemm.is_block, gemm.is_promoted

local function rows_per_consumer(c)
    return c.pingpong == 1 and c.block_m or c.block_m // c.consumers
end

-- as sm90_gemm's smem_bytes with epilogue 0; block scales: per stage the tile's block_n
-- token scales and 16 bytes of weight-block scales
local function smem_bytes(c, problem)
    local partials = 0
    if c.split > 1 then
        partials = c.consumers * rows_per_consumer(c) * c.block_n * 4 + SPLIT_BAR_BYTES
    end
    local scales = is_block(problem) and c.block_n * 4 + B_SCALE_AREA or 0
    return c.stages * (c.block_m + c.block_n) * c.block_k + partials
        + (BARRIER_BYTES + scales) * c.stages + TURN_BYTES + ALIGN_SLACK
end

local TOKEN_TILES = { 8, 16, 24, 32, 48, 64 }

-- the narrowest token tile that holds M tokens (at most 64)
local function token_tile(m)
    for _, n in ipairs(TOKEN_TILES) do
        if n >= m then
            return n
        end
    end
    return TOKEN_TILES[#TOKEN_TILES]
end

local function valid(c, problem, device)
    if c.pingpong == 1 and c.consumers ~= 2 then
        return false, "pingpong needs 2 consumers"
    end
    local wg_m = rows_per_consumer(c)
    if c.block_m % c.consumers ~= 0 or (wg_m ~= 64 and wg_m ~= 128) then
        return false, "rows per consumer must be 64 or 128"
    end
    if c.split > 1 and c.pingpong == 1 then
        return false, "split needs pingpong 0"
    end
    if c.cluster == 2 and (c.block_n % 16 ~= 0 or c.split > 1) then
        return false, "cluster 2: block_n a multiple of 16, split 1"
    end
    if c.block_k ~= BK and is_promoted(problem) then
        return false, "block_k > 128 needs fast accumulation"
    end
    if c.split > 1 and ceil_div(problem.k, c.block_k) < 2 * c.split then
        return false, "split: at least 2 K blocks a slice"
    end
    if c.overlap > 0 and not is_promoted(problem) then
        return false, "overlap: promoted accumulation (block scales, or --accum promoted)"
    end
    if c.overlap > 0 and ceil_div(ceil_div(problem.k, BK), 1 << c.overlap) < c.split then
        return false, "overlap: a group of K blocks for every split-K slice"
    end
    -- no wider than the narrowest listed token tile that holds M (more only pads)
    if c.block_n > token_tile(problem.m) then
        return false, "token tile past M"
    end
    if smem_bytes(c, problem) > device.max_smem then
        return false, "shared memory"
    end
    local regs = gemm.sm90_consumer_regs(wg_m, c.block_n, problem, 0, c.overlap)
    if regs > CONSUMER_REGS[c.consumers] then
        return false, "accumulator registers"
    end
    return true
end

-- Cost model (~ns on an H200-class part; its constants are sm80_decode's, not fitted to
-- this kernel). The weights stream from HBM once: each CTA pulls its tile rows' K blocks at
-- its share of the bandwidth, reached the closer the more bytes are in flight (the ring's
-- weight bytes b give b / (b + 8 KB) of it); the tokens come from L2. A K block's wgmmas
-- (block_m / 64 m64 instructions × 4 k32 steps at max(n/2, 16 + n/4) cycles, the
-- shared-memory reads bounding small N) overlap the loads. Each tile ends with the split's
-- cluster reduction and the transposed stores; the ring fills once.
local HBM_BYTES_PER_NS = 4000
local INFLIGHT_HALF = 8192
local SM_BYTES_PER_NS = 60
local CLOCK_GHZ = 1.75
local FILL_NS = 1500
local LAUNCH_NS = 2500

local function rank(c, problem, device)
    local tiles = ceil_div(ceil_div(problem.n, c.block_m), c.cluster) * c.cluster
        * ceil_div(problem.m, c.block_n)
    local ctas = tiles * c.split
    local slots = gemm.cluster_slots(device, c.split * c.cluster)
    local active = math.min(ctas, slots)
    local waves = ceil_div(ctas, slots)
    -- overlap: groups of 2^overlap K blocks, the last one filled with zero blocks
    local g = 1 << c.overlap
    local k_blocks = ceil_div(ceil_div(ceil_div(problem.k, c.block_k), g) * g, c.split)
    local inflight = c.stages * c.block_m * c.block_k
    local efficiency = inflight / (inflight + INFLIGHT_HALF)
    -- block_k moves nothing here: the probe's 3-4 % for 4 boxes a stage (session 45) did not
    -- show in the kernel (bench/results-2026-12-01-s46, D1: level to 2 % either way)
    local share = math.min(SM_BYTES_PER_NS, HBM_BYTES_PER_NS / active) * efficiency
    local load = c.block_m * c.block_k / share
    local n = c.block_n
    local mma = (c.block_m // 64) * (c.block_k // 32) * math.max(n / 2, 16 + n / 4) / CLOCK_GHZ
    if c.consumers == 1 then
        mma = mma * 1.3 -- no second warpgroup issuing while one waits
    end
    local per_block = math.max(load, mma)
    if is_promoted(problem) then
        -- the promotion waits for the tensor cores; with overlap, one in 2^overlap does
        per_block = per_block + (c.consumers == 2 and 0.3 or 1.0) * 120 / g
    end
    local epilogue = 400 + c.block_m * c.block_n / 64
    if c.split > 1 then
        epilogue = epilogue + 500 + (c.split - 1) * c.block_m * c.block_n * 4 / 32 / CLOCK_GHZ
    end
    local tile = k_blocks * per_block + epilogue
    if c.pingpong == 1 and waves > 1 then
        tile = tile - 0.8 * epilogue -- the other consumer's main loop hides it
    end
    -- variants the model cannot tell apart: 3 % per step from the usual choice. Fitted to the
    -- H200 tunes of 2026-11-26 (bench/results-2026-11-26-s16, E6: the 8 Llama (N, K) at
    -- M = 1…64, per-tensor): 64-row ping-pong tiles won most keys, 128-row ones few; the best
    -- swap config of each of the 56 keys ranks at median 12, at worst 62 (was 18 and 91
    -- before this term; a fit to the same data).
    local steps = (c.specialize == 1 and 0 or 0.2) + (c.pingpong == 1 and 0 or 0.5)
        + (c.block_m == 64 and 0 or 1) + (c.evict == 1 and 0 or 0.1) + (c.cluster - 1) * 0.5
    return (waves * tile + FILL_NS + LAUNCH_NS) * (1 + 0.03 * steps)
end

-- The tuner's baseline ("vs default"): the best-ranked of a few shapes with the deepest ring.
local function default(problem, device)
    local best, best_cost
    for _, s in ipairs({ { 64, 1 }, { 128, 2 }, { 256, 2 } }) do
        for _, split in ipairs({ 1, 2, 4 }) do
            local c = { block_m = s[1], block_n = token_tile(problem.m), block_k = BK,
                        consumers = s[2], pingpong = 0, cluster = 1, split = split, specialize = 0,
                        overlap = 0, swap = 1, evict = 0, stages = 2 }
            for _, stages in ipairs({ 16, 12, 10, 8, 6, 4 }) do
                c.stages = stages
                if smem_bytes(c, problem) <= device.max_smem then
                    break
                end
            end
            if valid(c, problem, device) then
                local cost = rank(c, problem, device)
                if not best_cost or cost < best_cost then
                    best, best_cost = c, cost
                end
            end
        end
    end
    return best
end

-- What `w8a8 compile --arch sm_90a --all` builds (8 best-ranked configs each): FP8 and INT8,
-- every out dtype, every scale kind on either side, block scales, bias, zero points, promoted
-- sums.
local function compile_problems(device)
    return {
        { m = 16, n = 4096, k = 14336, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          a_scale = "tensor", b_scale = "tensor" },
        { m = 3, n = 6144, k = 4096, a_type = "e5m2", b_type = "e4m3", out_type = "fp32",
          bias_type = "fp32", a_scale = "row", b_scale = "row", accum = "promoted" },
        { m = 32, n = 8192, k = 8192, a_type = "int8", b_type = "int8", out_type = "fp16",
          bias_type = "fp16", a_scale = "row", b_scale = "tensor", azp = "token" },
        { m = 16, n = 7168, k = 2048, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          bias_type = "bf16", a_scale = "block", b_scale = "block", a_group_rows = 1,
          a_group_k = 128, b_group_rows = 128, b_group_k = 128, a_k_major = true },
    }
end

return {
    name = "sm90_swap",
    template = "sm90_gemm",
    arch = "sm_90a",

    applies = function(problem, device)
        if device.cc_major ~= 9 or device.cc_minor ~= 0 or problem.m > MAX_M then
            return false
        end
        return gemm.operands(problem) ~= nil
    end,

    params = {
        block_m = { 64, 128, 256 },
        block_n = TOKEN_TILES,
        block_k = { 128, 256, 512 },
        stages = { 4, 6, 8, 10, 12, 16 },
        consumers = { 1, 2 },
        pingpong = { 0, 1 },
        cluster = { 1, 2 },
        split = { 1, 2, 4 },
        specialize = { 0, 1 },
        overlap = { 0, 1, 2, 3 },
        swap = { 1 },
        evict = { 0, 1 },
    },
    order = { "block_m", "block_n", "block_k", "stages", "consumers", "pingpong", "cluster",
        "split", "specialize", "overlap", "swap", "evict" },

    valid = valid,
    rank = rank,
    default = default,
    compile_problems = compile_problems,
}
