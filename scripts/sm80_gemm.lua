-- The space of the portable tensor-core GEMM (templates/sm80_gemm.cuh): cp.async into a
-- swizzled shared-memory ring of `stages` K tiles, ldmatrix, mma.sync.m16n8k32, one CTA per
-- block_m × block_n output tile. Arch "sm_80": compiled for the device's own arch; INT8 and
-- FP8 (e4m3/e5m2 mixes) from compute capability 8.0 up to 9.0 (Hopper runs it compiled as plain
-- sm_90, which is how it is tested on the lent GPUs). FP8 runs as f16 mma.sync.m16n8k16 on
-- fragments unpacked in registers where mma.sync has no FP8 (sm_80/86, and sm_90), natively
-- on sm_89. Every scale granularity: per-tensor and per-row on either side, and block scales
-- of exactly A 1×128 × B 128×128 (promoted per 128-wide K tile); INT8 zero points, bias,
-- every out dtype.
--
-- Its default() answers every problem: on Ampere and Ada it is the GEMM family past the
-- decode family's M ≤ 64; on Hopper sm90_gemm's default comes first and this family runs
-- where the tuner measured it faster.
--
-- Parameters:
--   block_m, block_n   the CTA's output tile
--   block_k            K bytes per stage: 64, 128 or 256 (block scales: 128, one scale
--                      block); 256 halves the K tiles' turns (barrier, stage counters): on the
--                      8-warp 128×256 / 256×128 tiles (2 stages, 192 KB) 1.012× the best 128
--                      config, INT8 at M >= 2048 on an H200 (bench/results-2026-12-02-s49/);
--                      offered on 8 warps with prefetch 1 and epilogue 1 only
--   stages             depth of the cp.async ring (stages · (block_m + block_n) · block_k B)
--   warps_m, warps_n   the warp grid over the tile; warp tile multiples of 16 × 16
--   slice_k            in-CTA split-K: that many warp slices share each K tile's k32 steps
--                      and add their sums in shared memory in a fixed order (small M)
--   group              tile-rows per raster group (consecutive CTAs share B through L2)
--   prefetch           the main loop: 0 waits for each K tile's stage before its first
--                      fragments; 1 loads them ahead, under the previous tile's last mmas,
--                      with the barrier after the second-to-last step (more registers live).
--                      Offered for CTAs of 64×64 warp tiles: 8 warps (one CTA per SM either
--                      way), where it measured 10–20 % faster on an H100 (INT8, 4096 ×
--                      4096/28672 × 4096, bench/results-2026-11-25-s14/), and 4 warps (two
--                      CTAs per SM either way: 254 registers; 1.07× on an H200, INT8 128×128,
--                      bench/results-2026-11-28-s37/d5/); on smaller warp tiles it costs the
--                      second CTA per SM (a 64×32 tile: 126 → 196 registers) and lost. Its
--                      loop on per-stage mbarriers instead of the CTA barrier a K tile (session
--                      40's sync=1) ran 0.90-1.005x the same configs on an H200, 0.94x on the
--                      two-CTA 128x128 tiles (bench/results-2026-11-28-s40/d2/, sync.patch)
--   epilogue           0: each lane stores its outputs from registers (4/8-byte stores, half
--                      of each 32-byte sector); 1: the tile is staged in shared memory and
--                      leaves in 16-byte row chunks. On an H100 a 4096 × 4096 output costs
--                      48 µs whatever K is with 0, 26 µs with 1 (bench/sm80_probe.sh: prologue,
--                      epilogue, launch), and the tuner chose 1 for every INT8 key at M ≥ 2048
--   persist            1: as many CTAs as fit the device at once, each looping over tiles; the
--                      next tile's first K tiles load into the stages the epilogue leaves
--                      alone while it runs (the pipeline's fill overlaps the epilogue).
--                      Offered with one K slice, without block scales, not for FP8 as f16
--                      mmas (it spilled on sm_90), when there are more tiles than resident
--                      CTAs. On an H200 (INT8, M >= 2048) it ran 0.96-1.03x its one-tile
--                      twin, 8-warp tiles gaining most at K = 4096; the tuner took it at 12 of
--                      24 Llama keys (bench/results-2026-11-28-s38/d2/)

local WARP = 32
local MAX_ACC_REGS = 128        -- accumulators per thread the host allows (block: both sets)
-- addresses, indices, loop state: ptxas (CUDA 13, sm_90, INT8, prefetch 0) used 126 registers
-- for a 64×32 warp tile (64 accumulators + 48 fragment registers), 220–232 for 64×64, 64–96 for
-- 32×32; prefetch 1 keeps about 32 more live (234–254 for 64×64)
local REG_OVERHEAD = 14
local REG_PREFETCH = 32
local ACC_BYTES = 4
local REGS_PER_THREAD_MAX = 255

local gemm = gemm -- scripts/lib/gemm.lua
local SCALE_GROUP, FP8 = gemm.SCALE_GROUP, gemm.FP8
local ceil_div, is_block, cc_of, out_bytes = gemm.ceil_div, gemm.is_block, gemm.cc, gemm.out_bytes

-- FP8 where mma.sync has no FP8 (Ampere, and Hopper compiled as plain sm_90): f16 mmas on
-- fragments unpacked in registers (the template's G80_F16)
local function f16_path(problem, device)
    local cc = cc_of(device)
    return FP8[problem.a_type] and (cc >= 90 or cc < 89)
end

local function warps(c)
    return c.warps_m * c.warps_n * c.slice_k
end

local function warp_tile(c)
    return c.block_m // c.warps_m, c.block_n // c.warps_n
end

local function acc_regs(c, problem)
    local wm, wn = warp_tile(c)
    local acc = wm * wn // WARP
    return is_block(problem) and 2 * acc or acc
end

-- accumulators, two sets of A/B fragments (the next k32 step loads under this one's mmas)
local function registers(c, problem)
    local wm, wn = warp_tile(c)
    local frags = 2 * (wm // 16 * 4 + wn // 16 * 4)
    local scales = is_block(problem) and (wm // 16 * 2 + 1) or 0
    return acc_regs(c, problem) + frags + scales + REG_OVERHEAD
        + (c.prefetch == 1 and REG_PREFETCH or 0)
end

-- the ring, reused for the slices' partial sums and the staged output tile (epilogue 1: rows
-- padded by 16 bytes)
local function smem_bytes(c, problem)
    local ring = c.stages * (c.block_m + c.block_n) * c.block_k
    local partials = (c.slice_k - 1) * c.block_m * c.block_n * ACC_BYTES
    local staged = c.epilogue == 1 and c.block_m * (c.block_n * out_bytes(problem) + 16) or 0
    return math.max(ring, partials, staged)
end

-- CTAs of c an SM holds at once (threads, registers as modelled, shared memory)
local MAX_THREADS = { [80] = 2048, [90] = 2048 }
local function resident(c, problem, device)
    local threads = WARP * warps(c)
    local max_threads = MAX_THREADS[cc_of(device)] or 1536
    local regs = math.min(REGS_PER_THREAD_MAX, registers(c, problem))
    local by_regs = (device.regs_per_sm or 65536) // (threads * regs)
    local by_smem = device.max_smem // smem_bytes(c, problem)
    return math.max(1, math.min(max_threads // threads, by_regs, by_smem, 16))
end

local function valid(c, problem, device)
    local w = warps(c)
    if w ~= 4 and w ~= 8 then
        return false, "warps_m · warps_n · slice_k is 4 or 8"
    end
    if c.block_m % c.warps_m ~= 0 or c.block_n % c.warps_n ~= 0 then
        return false, "warp grid must divide the tile"
    end
    local wm, wn = warp_tile(c)
    if wm % 16 ~= 0 or wn % 16 ~= 0 then
        return false, "warp tile: multiples of 16 × 16"
    end
    if (c.block_k // 32) % c.slice_k ~= 0 then
        return false, "slice_k divides block_k / 32"
    end
    if is_block(problem) and (c.block_k ~= SCALE_GROUP or SCALE_GROUP % wn ~= 0) then
        return false, "block scales: block_k 128, warp tile width dividing 128"
    end
    if acc_regs(c, problem) > MAX_ACC_REGS then
        return false, "accumulator registers"
    end
    -- FP8 as f16 mmas on fragments unpacked in registers: with block scales' second
    -- accumulator set a warp tile 64 rows tall spilled on sm_90 (ptxas, CUDA 13: 64×32 4–8
    -- bytes, 128×16 108 bytes; 32×64 took 216–234 registers, no spill)
    if is_block(problem) and f16_path(problem, device) and wm > 32 then
        return false, "block scales as f16 mmas: warp tiles at most 32 rows (taller spill)"
    end
    if smem_bytes(c, problem) > device.max_smem then
        return false, "shared memory"
    end
    -- a tile much taller than the problem only pads (the M bucket is what gets tuned)
    if c.block_m > 16 and c.block_m // 2 >= problem.m then
        return false, "block_m past M"
    end
    if c.slice_k > 1 and problem.m > 256 then
        return false, "slice_k is for small M"
    end
    if c.prefetch == 1 and (c.slice_k ~= 1 or wm ~= 64 or wn ~= 64) then
        return false, "prefetch 1: 64×64 warp tiles"
    end
    -- block_k 256 where it was measured: 8 warps of 64×64 warp tiles with prefetch 1 and the
    -- staged epilogue (2 stages, 192 KB: Hopper's shared memory). Smaller tiles, with more CTAs
    -- an SM and so fewer registers a thread, spilled 4-12 bytes (ptxas, CUDA 13, sm_89: 74 of
    -- 3,356 configs); the 8-warp ones with epilogue 0 4-24 bytes (INT8) and 76-80 (FP8 as f16
    -- mmas) on sm_90.
    if c.block_k == 256 and (c.prefetch ~= 1 or warps(c) ~= 8 or c.epilogue ~= 1) then
        return false, "block_k 256: prefetch 1 on 8 warps, staged epilogue"
    end
    if c.persist == 1 then
        if c.slice_k ~= 1 or is_block(problem) then
            return false, "persist 1: one K slice, per-tensor or per-row scales"
        end
        -- FP8 as f16 mmas: the 64×64 warp tiles spilled 104-156 bytes on sm_90 (ptxas, CUDA
        -- 13); measured with INT8 only
        if f16_path(problem, device) then
            return false, "persist 1: not with FP8 as f16 mmas"
        end
        -- with one wave or less every CTA has one tile: the same kernel as persist 0
        local tiles = ceil_div(problem.m, c.block_m) * ceil_div(problem.n, c.block_n)
        if tiles <= device.sm_count * resident(c, problem, device) then
            return false, "persist 1: more tiles than CTAs resident at once"
        end
    end
    return true
end

-- Cost model in SM cycles (lower is better). Per K tile a CTA costs the largest of its
-- mma.sync issue (m16n8k32 at MMA_CYCLES per SM; FP8 as f16 mmas, two m16n8k16 a k32, at
-- FP8_F16_MMA times that: an H200's mma.sync peaks are 1,246 TOPS INT8 and 486 TFLOP/s f16,
-- bench/results-2026-11-27-s34/d3/; an A100's data sheet has 624 and 312, a ratio of 2), its
-- ldmatrix reads (each warp reads its rows of A and B: 128 B/clk), and its cp.async traffic
-- (~64 B/clk per SM from L2); CTAs resident on one SM share those, so a wave of `resident`
-- CTAs per SM costs resident × that, stretched when too few warps or stages hide latency.
-- Tiles come in waves over the SMs; the whole run is bounded below by DRAM traffic; each tile
-- ends with an epilogue and, with slices, a shared-memory reduction.
local MMA_CYCLES = 2.0          -- one m16n8k32 per SM (4 sub-partitions, 8192 ops/clk at INT8)
local SMEM_BYTES_PER_CLK = 128
local L2_BYTES_PER_CLK = 32     -- per SM with every SM loading: ~5 TB/s of L2 over 108–132 SMs
local DRAM_BYTES_PER_CLK = 1500 -- whole GPU: ~2–3 TB/s at ~1.5–1.8 GHz
local TILE_LATENCY = 1200       -- first load to first mma, and the epilogue's round trips
-- a K tile's turn (the barrier, the stage counters, the copies' issue), in cycles, when one CTA
-- holds the SM: block_k 256 on 8-warp 128×256 / 256×128 tiles (2 stages, 192 KB; half the
-- turns) ran 1.012× (geomean; faster at 22 of 24 keys) the best block_k 128 config of the same
-- tiles, INT8 at M >= 2048 on an H200 (bench/results-2026-12-02-s49/d1/)
local K_TILE_TURN = 100
-- per K tile, when a single CTA holds an SM: with prefetch 0, and with prefetch 1 (its barrier
-- comes before the tile's last mmas, whose fragments are in registers)
local ONE_CTA_PENALTY = { [0] = 1.06, [1] = 0.97 }
-- FP8 as f16 mmas on fragments unpacked in registers: one CTA of 8 warps ran 1.05× (prefetch
-- 0) and 1.29× (prefetch 1, 252 registers) the time of two 4-warp 128×128 CTAs an SM (an H200,
-- e4m3 at 2048–4096 × 4096–6144 × 4096–14336, bench/results-2026-11-27-s34/d1/; Ampere
-- unmeasured, given the same)
local ONE_CTA_PENALTY_F16 = { [0] = 1.06, [1] = 1.30 }
local TWO_CTA_PREFETCH = 0.97
local FP8_F16_MMA = 2.5

local function cost_model(c, problem, device)
    local tiles = ceil_div(problem.m, c.block_m) * ceil_div(problem.n, c.block_n)
    local k_tiles = ceil_div(problem.k, c.block_k)
    local f16 = f16_path(problem, device)
    local mma_cycles = f16 and FP8_F16_MMA * MMA_CYCLES or MMA_CYCLES
    local mma = (c.block_m // 16) * (c.block_n // 8) * (c.block_k // 32) * mma_cycles
    local ldsm = (c.warps_n * c.block_m + c.warps_m * c.block_n) * c.block_k / SMEM_BYTES_PER_CLK
    local load = (c.block_m + c.block_n) * c.block_k / L2_BYTES_PER_CLK
    local per_k = math.max(mma, ldsm, load)
    -- a small warp tile reuses each fragment for few mmas: more ldmatrix and address
    -- instructions per mma, less ILP (CUTLASS's fastest Ampere tiles use 64×64 warp tiles);
    -- 15 % per halving below 64×64
    local wm, wn = warp_tile(c)
    per_k = per_k * (1 + 0.15 * math.max(0, math.log(64 * 64 / (wm * wn), 2)))
    if is_block(problem) then
        per_k = per_k + wm * wn // WARP * 2 -- the promotion's FMAs, per warp in parallel
    end
    local per_sm = resident(c, problem, device)
    -- block_k 256: one turn saved per 256 bytes of K, where one CTA holds the SM (no other
    -- CTA's mmas cover its barrier; the model's 128-byte figures have their turns in them)
    if per_sm == 1 and c.block_k == 256 then
        per_k = per_k - K_TILE_TURN
    end
    -- latency hiding: warps in flight per SM and K bytes in flight per CTA (three 64-byte K
    -- tiles are enough: 128 × 128 tiles with block_k 128 and 3 stages ran as fast as with
    -- block_k 64 and 4 stages on an H100, bench/results-2026-11-25-s14/sm80/d3-ab-table.txt)
    local warps_in_flight = per_sm * warps(c)
    local hide = math.min(1.0, warps_in_flight / 8)
        * math.min(1.0, (c.stages - 1) * c.block_k / (3 * 64))
    per_k = per_k / math.max(hide, 0.25)
    -- one CTA per SM: its barriers and its epilogue leave the SM without other work (an H100,
    -- INT8 at M >= 2048: 8-warp 128×256 tiles 5–12 % behind two 4-warp 128×128 CTAs an SM,
    -- bench/results-2026-11-25-s14/). Since the unpredicated copies of whole tiles (an H200,
    -- bench/results-2026-11-27-s26/d6/: 4096×{4096, 28672}×4096 INT8) 8-warp 64×64-warp-tile
    -- configs with prefetch 1 run 0.958 / 0.979 of the best two-CTA config's time, with
    -- prefetch 0 about 1.06.
    if per_sm == 1 then
        per_k = per_k * (f16 and ONE_CTA_PENALTY_F16 or ONE_CTA_PENALTY)[c.prefetch]
    elseif c.prefetch == 1 and not f16 then
        -- two 4-warp CTAs an SM with prefetch 1 (64×64 warp tiles, 254 registers): ranked as
        -- the 8-warp CTA with prefetch 1. Measured on an H200 (INT8, staged epilogue,
        -- bench/results-2026-11-28-s37/d5/): 128×128 tiles ran 1.07× their prefetch-0 twin,
        -- 1.005-1.018× the best 8-warp config at K = 4096 and 0.975-0.996× at K ≥ 8192
        per_k = per_k * TWO_CTA_PREFETCH
    end
    local out = out_bytes(problem)
    -- lanes' 4/8-byte stores fill half of each 32-byte sector; staged: whole 16-byte chunks,
    -- after a round trip through shared memory (on an H100 the staged epilogue took a 4096 ×
    -- 4096 bf16 output's fixed cost from 47.5 to 25.8 µs, bench/results-2026-11-25-s14/)
    local epilogue = c.epilogue == 1
        and c.block_m * c.block_n * out * (1 / 64 + 2 / SMEM_BYTES_PER_CLK)
        or c.block_m * c.block_n * out / 16
    local reduce = (c.slice_k - 1) * c.block_m * c.block_n * ACC_BYTES * 2 / SMEM_BYTES_PER_CLK
    local tile_time = k_tiles * per_k + epilogue + reduce
    local waves = ceil_div(tiles, device.sm_count * per_sm)
    local compute = waves * (per_sm * tile_time) + TILE_LATENCY
    -- a partial last wave runs its CTAs with the SM to themselves
    if tiles < device.sm_count * per_sm then
        compute = math.min(ceil_div(tiles, device.sm_count), per_sm) * tile_time + TILE_LATENCY
    end
    local dram = (problem.m * problem.k + problem.n * problem.k + problem.m * problem.n * out)
        / DRAM_BYTES_PER_CLK
    local cost = math.max(compute, dram)
    -- variants the model cannot tell apart: 2 % per step from the usual choice, so the
    -- first candidates differ in tile shape first
    -- (and square warp tiles first: fewer ldmatrix bytes per mma)
    -- (block_k 256 measured on one-CTA tiles only: behind 128 elsewhere)
    local steps = (c.group == 8 and 0 or 1)
        + ((c.block_k == 64 or (c.block_k == 256 and per_sm > 1)) and 1 or 0)
        -- (valid() offers prefetch 1 only on 64×64 warp tiles: the usual choice there, but for
        -- FP8 as f16 mmas on 4-warp tiles, not measured)
        + ((c.prefetch == 0 and wm == 64 and wn == 64 and (warps(c) == 8 or not f16)) and 1 or 0)
        + ((c.prefetch == 1 and warps(c) == 4 and f16) and 1 or 0)
        -- persist 1 measured 0.96-1.03x its twin (an H200, INT8 at 2048-4096 x 4096-28672 x
        -- 4096-14336, 6 winner tiles, bench/results-2026-11-28-s38/d2/ab-table.txt): ranked
        -- just behind it, so the first candidates differ in tile shape
        + c.persist * 0.5
        + math.abs(math.log(wm / wn, 2)) * 0.5
        -- the usual ring: 4 stages of 64 or 128 bytes of K (fewer when K is short), 2 of 256
        + math.abs(c.stages - (c.block_k == 256 and 2 or math.min(4, math.max(2, k_tiles)))) * 0.5
    return cost * (1 + 0.02 * steps)
end

local function rank(c, problem, device)
    return cost_model(c, problem, device)
end

-- default(): the best-modelled of a few shapes, each at the deepest ring (≤ 4) that fits, that
-- valid() allows (those it allows compile without spills: tests/check_sm80_gemm_compile.c).
local DEFAULT_SHAPES = {
    -- block_m, block_n, warps_m, warps_n, slice_k
    { 16, 64, 1, 2, 2 }, { 16, 128, 1, 4, 2 }, { 32, 64, 1, 2, 2 }, { 32, 128, 1, 4, 1 },
    { 64, 64, 2, 2, 1 }, { 64, 128, 2, 2, 1 }, { 128, 64, 2, 2, 1 }, { 128, 128, 2, 2, 1 },
    { 128, 128, 2, 4, 1 }, { 128, 256, 2, 4, 1 }, { 256, 128, 4, 2, 1 },
}

local function default(problem, device)
    local best, best_cost
    for _, s in ipairs(DEFAULT_SHAPES) do
        local c = { block_m = s[1], block_n = s[2], block_k = 128, stages = 4, warps_m = s[3],
                    warps_n = s[4], slice_k = s[5], group = 8, prefetch = 0, epilogue = 0,
                    persist = 0 }
        while c.stages > 2 and smem_bytes(c, problem) > device.max_smem do
            c.stages = c.stages - 1
        end
        if valid(c, problem, device) then
            local cost = cost_model(c, problem, device)
            if not best_cost or cost < best_cost then
                best, best_cost = c, cost
            end
        end
    end
    return best
end

-- What `w8a8 compile --arch … --all` builds (8 best-ranked configs each), INT8 and FP8 on every
-- arch: small, mid and large M; every out dtype, bias kind, scale kind and zero point, block
-- scales in both layouts.
local function compile_problems(_device)
    return {
        { m = 4096, n = 4096, k = 4096, a_type = "int8", b_type = "int8", out_type = "bf16",
          a_scale = "tensor", b_scale = "tensor" },
        { m = 16, n = 6144, k = 4096, a_type = "int8", b_type = "int8", out_type = "fp32",
          bias_type = "fp32", a_scale = "row", b_scale = "row", azp = "token" },
        { m = 512, n = 28672, k = 4096, a_type = "int8", b_type = "int8", out_type = "fp16",
          bias_type = "fp16", a_scale = "tensor", b_scale = "row", azp = "tensor" },
        { m = 8192, n = 8192, k = 8192, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          a_scale = "tensor", b_scale = "tensor" },
        { m = 64, n = 8192, k = 8192, a_type = "e4m3", b_type = "e4m3", out_type = "fp16",
          bias_type = "fp16", a_scale = "row", b_scale = "row" },
        { m = 1024, n = 10240, k = 8192, a_type = "e5m2", b_type = "e4m3", out_type = "bf16",
          bias_type = "fp32", a_scale = "row", b_scale = "tensor" },
        { m = 2048, n = 7168, k = 2048, a_type = "e4m3", b_type = "e5m2", out_type = "fp32",
          a_scale = "block", b_scale = "block", a_group_rows = 1, a_group_k = 128,
          b_group_rows = 128, b_group_k = 128, a_k_major = true },
        { m = 32, n = 2112, k = 7168, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          bias_type = "bf16", a_scale = "block", b_scale = "block", a_group_rows = 1,
          a_group_k = 128, b_group_rows = 128, b_group_k = 128 },
    }
end

return {
    name = "sm80_gemm",
    template = "sm80_gemm",
    arch = "sm_80",

    applies = function(problem, device)
        local cc, operands = cc_of(device), gemm.operands(problem)
        if not operands or cc < 80 or cc > 90 then
            return false
        end
        -- Hopper has wgmma (sm90_gemm) and the decode family: this family competes there
        -- only when named (`w8a8 tune --space sm80_gemm`, compile plans), so that a first
        -- tune on an H100/H200 spends its compile time on the families that can win
        return cc < 90 or device.named == true
    end,

    params = {
        block_m = { 16, 32, 64, 128, 256 },
        block_n = { 16, 32, 64, 96, 128, 192, 256 },
        block_k = { 64, 128, 256 },
        stages = { 2, 3, 4, 5, 6 },
        warps_m = { 1, 2, 4 },
        warps_n = { 1, 2, 4, 8 },
        slice_k = { 1, 2, 4 },
        group = { 1, 8 },
        prefetch = { 0, 1 },
        epilogue = { 0, 1 },
        persist = { 0, 1 },
    },
    order = { "block_m", "block_n", "block_k", "stages", "warps_m", "warps_n", "slice_k",
        "group", "prefetch", "epilogue", "persist" },

    valid = valid,
    rank = rank,
    default = default,
    compile_problems = compile_problems,
}
