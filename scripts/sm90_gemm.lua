-- The space of the Hopper GEMM (templates/sm90_gemm.cuh): a persistent, warp-specialized
-- sm_90a kernel (one TMA producer warpgroup, 1–2 wgmma consumer warpgroups, an mbarrier ring
-- of `stages` 128-byte K blocks). Applies on compute capability 9.0 only (sm_90a cubins run
-- nowhere else) to FP8 (e4m3/e5m2 mixes) and INT8 problems with per-tensor or per-row scales,
-- any out dtype and bias, and the INT8 zero points; and to FP8 with block scales of exactly
-- A 1×128 and B 128×128 groups (either layout), with promoted accumulation: a second set of
-- accumulators per consumer, which valid() counts. FP8 per-tensor / per-row keys with accum
-- "promoted" run the same promoted main loop without scales. Other block shapes go to other
-- families.
--
-- Parameters:
--   block_m    rows of a tile; block_m / consumers (rows per consumer warpgroup) is 64 or 128
--   block_n    columns of a tile = wgmma N (FP8: multiple of 8; INT8: 8, 16, 24, 32, 48…256
--              step 16); the values between powers of two fight wave quantization
--   stages     depth of the TMA ring (shared memory: stages · (block_m + block_n) · 128 B)
--   consumers  consumer warpgroups (2: setmaxnreg 40/232 split; 1: no split)
--   pingpong   0: the consumers split each tile's rows; 1 (2 consumers): each consumer
--              takes every other tile whole, its epilogue overlapping the other's main loop
--   raster     0: tiles in groups of `group` tile-rows, M fastest; 1: the same along N
--   group      tile-rows (raster 0) or tile-columns (raster 1) per raster group
--   cluster    1, or 2: CTA pairs take two tiles stacked along M and multicast halves of
--              their shared B tile (block_n a multiple of 16); fewer L2 reads of B
--   epilogue   0: the consumers store straight to global memory; 1: they stage the tile in
--              shared memory (consumers · rows · block_n · out bytes more) and a TMA store
--              writes it while the next tile's main loop runs; 2: the same through two
--              output boxes per consumer (a box: the widest of 128/64/32/16 bytes dividing a
--              tile row; one box when a row is two), each stored as soon as it is written, so
--              the staging takes consumers · rows · 2 (or 1) · box bytes and the ring can be
--              deeper (tile rows of two boxes or more, of at least 32 bytes)
--   specialize 0, or 1: N and K compiled in (a cubin per shape): constant loop trip counts,
--              no column predicates when block_n divides N. Offered in every tune (see
--              prune() for what it measured).
--   split      1, 2 or 4: split-K inside a cluster of `split` CTAs (cluster 1, pingpong 0),
--              rank r taking K blocks [r·kb/split, (r+1)·kb/split); the ranks' partial sums
--              meet in rank 0's registers through distributed shared memory in a fixed
--              order (consumers · rows · block_n · 4 bytes of shared memory more). For tiles
--              fewer than the SMs (small M): every SM streams, tiles stay large. Offered to a
--              plain tune at M <= 128, at every M when the space is named (see prune()); with
--              overlap each rank takes whole groups of K blocks.
--   overlap    0, or 1..5 (promoted accumulation): a third accumulator set; K blocks
--              go in groups of 2^overlap, each promoted while the next one's wgmmas run
--              (wait_group 1), so all but the group's last promotion hide under the tensor
--              cores; a K block count not a multiple of the group runs zero blocks to fill it.
--              A plain tune offers 1..3 with promoted accumulation; 4 and 5 (groups of 16
--              and 32, unrolled) only a named space (prune())
--   stagger    0, or 1 (promoted, two cooperative consumers): the consumers take turns
--              issuing each K block's wgmmas (with overlap: see the template), so one
--              promotes while the tensor cores run the other's
--   wave       0, or 1 (promoted, overlap 0, 128 rows a consumer): one temporary set of a
--              64-row sub-tile instead of two; each K block's wgmmas and promotion go sub-tile
--              by sub-tile, so 128-row consumers fit wider tiles (e.g. 256×112, one-consumer
--              128×128) that read less of L2 per FLOP. A plain tune offers it with block scales
--   tail       1 or 2 (cluster 1, split 1, pingpong 0, stagger 0): the grid is clusters of
--              `tail` CTAs; the tiles of the full waves go whole, each tile of the partial
--              last wave goes to one cluster, its ranks taking K slices that meet as split's
--              do, through the ring (the split tile is a CTA's last: no shared memory more,
--              but the partial sums, consumers · rows · block_n · 4 bytes, must fit the
--              ring). The host splits only a rest of at most one tile a cluster
--              (src/sm90_gemm.c, sm90_tail_whole; fits() here), e.g. 1024x7168 in 128x128
--              tiles on 132 SMs: 448 = 3 · 132 + 52, the 52 in halves take one half-tile
--              turn. The template and the host take tail 4 too; the space leaves it out:
--              clusters of 4 leave 12 SMs idle (gemm.cluster_slots), and every value of a
--              parameter multiplies the walk.
-- trigger (src/sm90_gemm.c) is a variant, not a param: a launch argument of the template (0,
-- the producer lets the next kernel launch once it has issued its last load; 1, as our CTAs
-- exit). In params it would double the cross product and pass the loader's cap (2^25); as a
-- variant the tuner times each finalist of a key again with trigger=1 (tuner/space.h). Graph
-- replays measured trigger=1 1-6 % faster on 29 of 64 H200 keys of M 256/512
-- (bench/results-2026-11-28-s39/d8/), 2-6 % slower at M = 64-128 (session 38's D7). Which
-- wins follows the GPU's power state: tuned with --settle 100 (idle before each timing, as
-- `w8a8 bench` and peers.py time) trigger=1 won 7 of 10 keys by 1-7 %; tuned back to back,
-- at the power cap, it won 1 of 10 and lost up to 5 % (bench/results-2026-11-28-s39/d10/).
-- Loads before the PDL wait were measured and not kept (session 40, graph replays of the
-- shipped H200 rows, bench/results-2026-11-28-s40/): the weights into the ring before it, the
-- activations after, 0.96-0.99x; the weights prefetched into L2 before it, 0.88-0.97x; only
-- every operand before it (wrong when the kernel before wrote A) ran faster: 1.02-1.03x
-- geomean at M <= 512, up to 1.17x.
-- The template's swap=1 (swap-AB: the weights on wgmma's M side) is offered by its own space,
-- scripts/sm90_swap.lua, at M <= 64; configs of this space leave it at 0.

local BK = 128                  -- K bytes per stage (one 128-byte swizzle row)
local BARRIER_BYTES = 16        -- a full and an empty mbarrier per stage
local TURN_BYTES = 16           -- the two ping-pong turn mbarriers
local SPLIT_BAR_BYTES = 32      -- split > 1: a ready and a free mbarrier per consumer
local B_SCALE_AREA = 16         -- block scales: a stage's B scales, after its block_m A scales
local ALIGN_SLACK = 1024        -- the kernel aligns its dynamic shared memory to 1024
local CONSUMER_REGS = { 255, 232 } -- per consumer count: no setmaxnreg / setmaxnreg.inc 232

local gemm = gemm -- scripts/lib/gemm.lua
local ceil_div, is_block, is_promoted = gemm.ceil_div, gemm.is_block, gemm.is_promoted
local out_bytes = gemm.out_bytes

local function is_int8(problem)
    return problem.a_type == "int8"
end

local function int8_n_ok(n)
    return n == 8 or n == 16 or n == 24 or n == 32 or (n >= 48 and n % 16 == 0)
end

local function rows_per_consumer(c)
    return c.pingpong == 1 and c.block_m or c.block_m // c.consumers
end

-- What valid() rejects for every config holding the value, decided once per value (valid()
-- asks it too). Split-K: only with at least two K blocks a slice, and in a plain tune only at
-- M <= SPLIT_MAX_M (a caller who names the space, w8a8 tune --space sm90_gemm, gets it at
-- every M). Measured on an H100 (bench/results-2026-11-23-s6/, per-row FP8, every config of
-- the space timed on 8 keys): split 2 won at M = 16 and 32 (82.5 vs 85.0 us at
-- 16x8192x28672, 24.7 vs 30.1 us at 32x4096x14336) and lost at M = 64 on those shapes. On an
-- H200 (bench/results-2026-11-26-s19/, call K1, every config of the named space on 8
-- block-scaled keys at M = 128) split 2 won 3: 128x2112x7168 13.0 -> 11.2 us (17 tile columns
-- of 128 leave SMs idle), 128x7168x16384 and 128x4096x7168 3 %; so up to M = 128. Shape
-- specialization (N and K compiled in) is offered everywhere: its best config won all 8 keys,
-- 1-13 % faster than the best generic one (median twin 1-4.5 %).
local SPLIT_MAX_M = 128
-- what a wave=1 K block costs beyond the model's promotion estimate (cost_model). 1.2 until
-- session 44 (256x112 tiles, sessions 23 and 31); then the shipped rows of 26 block-scaled
-- keys (DeepSeek-V3 at M = 512..4096, two Llama keys) against the same rows with 256x128 or
-- 256x144 wave tiles, 20-call graph replays in two rounds on an H200
-- (bench/results-2026-11-29-s44/, D1, wave_fit.py): the model's ratio with no factor missed
-- the measured one by -2.7 % (256x128, rms 6 %) and -5.8 % (256x144, rms 11 %) on average;
-- 1.05 fits both
local WAVE_FACTOR = 1.05
local STAGGER_MAX_M = 128
local function prune(name, value, problem, device)
    -- Promoted accumulation only. Measured on an H100 (bench/results-2026-11-23-s7/, the
    -- DeepSeek-V3 keys at M = 64..4096, a cold 240 s tune offering both everywhere): stagger 1
    -- won 6 of 46, all at M <= 128 with split-K (up to 1.34x), and lost elsewhere (0.91x
    -- geomean). Overlap 1 won none of 53 keys there, when the consumers still read their
    -- block scales from global memory; since the scales travel with the ring it won 10 of 12
    -- block-scaled keys at M = 512..4096 on an H200 (bench/results-2026-11-23-s9/, call C:
    -- best overlap-1 config 1.033x the best without, geomean, 0.98..1.09). A plain tune offers
    -- stagger at M <= STAGGER_MAX_M and every overlap (below); a named space (w8a8 tune
    -- --space sm90_gemm) offers both at every M.
    -- Overlap 2 and 3 (groups of 4, 8 K blocks) were named-only from session 20 (X1: the best
    -- overlap-2/3 config 0.95..1.05x the best overlap-0/1 one over 18 block-scaled keys). Since
    -- A's block scales travel by bulk copy they pay: on an H200 (bench/results-2026-11-26-s24/,
    -- C4: 189 shipped block-scaled rows at M >= 64, each config tuned over overlap 0..3 and
    -- timed against the shipped row as graph replays in the order A B B A) the winner changed
    -- the overlap on 111 keys, 87 of them to 2 or 3, at 1.020x geomean (unchanged configs
    -- 0.998x), 46 keys >= 1.02x in both rounds. With promoted per-tensor / per-row sums (C5:
    -- the 80 shipped H200 rows, Llama M >= 512, all overlap 0) the winner took overlap 1..3 on
    -- 17 keys, 1.079x (per-tensor) and 1.064x (per-row) geomean there, up to 1.25x at
    -- 512x6144x4096. A plain tune offers every overlap with promoted accumulation.
    -- Overlap 4 and 5 (session 42): fewer drains of the tensor pipe (one a group) for a
    -- longer unrolled loop; measured no faster than 3 on most keys (see rank()), so named
    -- spaces only.
    if name == "overlap" and value >= 1 then
        return is_promoted(problem) and (value <= 3 or device.named == true)
    end
    if name == "wave" and value == 1 then
        return is_block(problem) or (device.named == true and is_promoted(problem))
    end
    if name == "stagger" and value == 1 then
        return is_promoted(problem) and (device.named == true or problem.m <= STAGGER_MAX_M)
    end
    if name == "split" and value > 1 then
        return ceil_div(problem.k, BK) >= 2 * value
            and (device.named == true or problem.m <= SPLIT_MAX_M)
    end
    return true
end

-- The output box of epilogue 1 and 2: the widest of 128/64/32/16 bytes dividing a tile row.
local function out_box_bytes(c, problem)
    local row = c.block_n * out_bytes(problem)
    for _, box in ipairs({ 128, 64, 32 }) do
        if row % box == 0 then
            return box
        end
    end
    return 16
end

-- The ring and what goes with each stage (the block scales' areas, the barriers), the turn
-- barriers and the alignment slack: what every config of these block_m, block_n and stages
-- takes
local function ring_bytes(c, problem)
    local scales = 0
    if is_block(problem) then
        scales = c.block_m * 4 + B_SCALE_AREA -- per stage, copied beside the tiles
    end
    return c.stages * (c.block_m + c.block_n) * BK + (BARRIER_BYTES + scales) * c.stages
        + TURN_BYTES + ALIGN_SLACK
end

-- the epilogue's staging
local function staging_bytes(c, problem)
    if c.epilogue == 1 then
        return c.consumers * rows_per_consumer(c) * c.block_n * out_bytes(problem)
    elseif c.epilogue == 2 then
        -- two boxes, or one when a tile row is two boxes (the template's SM90_C_SLOTS)
        local box = out_box_bytes(c, problem)
        local slots = c.block_n * out_bytes(problem) > 2 * box and 2 or 1
        return c.consumers * rows_per_consumer(c) * slots * box
    end
    return 0
end

-- split's partial sums and barriers, tail's barriers (its partial sums go into the ring)
local function partials_bytes(c)
    if c.split > 1 then
        return c.consumers * rows_per_consumer(c) * c.block_n * 4 + SPLIT_BAR_BYTES
    elseif c.tail > 1 then
        return SPLIT_BAR_BYTES
    end
    return 0
end

-- the ring, the epilogue staging, the barriers, the block scales' areas, the alignment slack
-- (SM90_SMEM_BYTES)
local function smem_bytes(c, problem)
    return ring_bytes(c, problem) + staging_bytes(c, problem) + partials_bytes(c)
end

-- Registers a consumer needs with `wave` and `overlap` (scripts/lib/gemm.lua)
local function consumer_regs(c, problem, wave, overlap)
    return gemm.sm90_consumer_regs(rows_per_consumer(c), c.block_n, problem, wave, overlap)
end

-- The checks go in the walk's order of the params (`order` below): a config rejected by a
-- check that read only the first params takes every config sharing their values along
-- (tuner/space.c, walk_configs), so a check that a later param can only make harder is made
-- as early as the params it needs are known (the ring's bytes, the fewest registers) and
-- again in full where the last of them is read.
local function valid(c, problem, device)
    if c.block_n % 8 ~= 0 or c.block_n < 8 or c.block_n > 256 then
        return false, "block_n is wgmma N: 8..256 step 8"
    end
    if is_int8(problem) and not int8_n_ok(c.block_n) then
        return false, "INT8 wgmma N: 8, 16, 24, 32, 48..256 step 16"
    end
    if c.block_m > 256 then
        return false, "TMA box rows <= 256"
    end
    local ring = ring_bytes(c, problem)
    if ring > device.max_smem then
        return false, "shared memory"
    end
    if c.pingpong == 1 and c.consumers ~= 2 then
        return false, "pingpong needs 2 consumers"
    end
    local wg_m = rows_per_consumer(c)
    if c.block_m % c.consumers ~= 0 or (wg_m ~= 64 and wg_m ~= 128) then
        return false, "rows per consumer must be 64 or 128"
    end
    local fewest = consumer_regs(c, problem, 0, 0)
    if is_promoted(problem) then
        fewest = math.min(fewest, consumer_regs(c, problem, 0, 1))
        if wg_m == 128 then
            fewest = math.min(fewest, consumer_regs(c, problem, 1, 0))
        end
    end
    if fewest > CONSUMER_REGS[c.consumers] then
        return false, "accumulator registers"
    end
    -- setmaxnreg: producer 40 + consumers at their cap must fit the register file
    if c.consumers == 2 and 128 * 40 + 256 * CONSUMER_REGS[2] > (device.regs_per_sm or 65536) then
        return false, "register file"
    end
    if c.cluster ~= 1 and c.cluster ~= 2 then
        return false, "cluster is 1 or 2"
    end
    if c.cluster == 2 and c.block_n % 16 ~= 0 then
        return false, "cluster 2: each CTA multicasts half of B, whole 8-row atoms"
    end
    if c.epilogue ~= 0 and c.epilogue ~= 1 and c.epilogue ~= 2 then
        return false, "epilogue is 0, 1 or 2"
    end
    if c.epilogue == 2 and (out_box_bytes(c, problem) < 32
            or c.block_n * out_bytes(problem) < 2 * out_box_bytes(c, problem)) then
        return false, "epilogue 2: two output boxes or more, of at least 32 bytes (else 1)"
    end
    if c.stages < 2 then
        return false, "stages"
    end
    local staged = ring + staging_bytes(c, problem)
    if staged > device.max_smem then
        return false, "shared memory"
    end
    if not prune("split", c.split, problem, device) then
        return false, "split: 2 K blocks a slice, and M <= 128 unless the space is named"
    end
    if c.split > 1 and (c.cluster ~= 1 or c.pingpong ~= 0) then
        return false, "split needs cluster 1 and pingpong 0"
    end
    if not prune("overlap", c.overlap, problem, device) then
        return false, "overlap: promoted accumulation (block scales, or --accum promoted); "
            .. "4 and 5 in a named space only"
    end
    -- a straddling block-scaled tile compiles its K loop once per column offset: with groups
    -- of 16 or 32 unrolled, 104 s of NVRTC a kernel (128x112, overlap 5)
    if c.overlap > 3 and is_block(problem) and 128 % c.block_n ~= 0 and c.pingpong == 0 then
        return false, "overlap 4, 5 with block scales: block_n dividing 128, or pingpong"
    end
    if not prune("stagger", c.stagger, problem, device) then
        return false, "stagger: promoted accumulation, at M <= 128 unless the space is named"
    end
    if c.stagger == 1 and (c.consumers ~= 2 or c.pingpong ~= 0) then
        return false, "stagger needs two cooperative consumers"
    end
    if c.wave == 1 and not (is_promoted(problem) and c.overlap == 0 and wg_m == 128) then
        return false, "wave needs promoted accumulation, overlap 0 and 128 rows a consumer"
    end
    if not prune("wave", c.wave, problem, device) then
        return false, "wave: block scales (promoted per-tensor / per-row when the space is named)"
    end
    if consumer_regs(c, problem, c.wave, c.overlap) > CONSUMER_REGS[c.consumers] then
        return false, "accumulator registers"
    end
    if c.tail > 1 and (c.cluster ~= 1 or c.split ~= 1 or c.pingpong ~= 0 or c.stagger ~= 0) then
        return false, "tail needs cluster 1, split 1, pingpong 0 and stagger 0"
    end
    if staged + partials_bytes(c) > device.max_smem then
        return false, "shared memory"
    end
    if c.tail > 1 and c.consumers * wg_m * c.block_n * 4 > c.stages * (c.block_m + c.block_n) * BK then
        return false, "tail: the partial sums must fit the ring"
    end
    return true
end

-- tail > 1: the tiles of the full waves when the host splits the rest (one turn of 1/tail of
-- a tile: at most a tile a cluster), or nil (src/sm90_gemm.c, sm90_tail_whole)
local function tail_whole(c, tiles, ctas, k_groups)
    if c.tail < 2 or ctas < c.tail or k_groups < c.tail then
        return nil
    end
    local rest = tiles % ctas
    if rest == 0 or rest * c.tail > ctas then
        return nil
    end
    return tiles - rest
end

local function tail_ctas(c, device)
    return gemm.cluster_slots(device, c.tail)
end

local function k_groups(c, problem)
    return ceil_div(ceil_div(problem.k, BK), 1 << c.overlap)
end

-- What depends on the shape beyond prune(): valid() reads M, N and K only through prune(), so
-- an enumeration asks valid() once per problem class and prune() outcome and fits() per key.
local function fits(c, problem, device)
    local tiles = ceil_div(problem.m, c.block_m) * ceil_div(problem.n, c.block_n)
    -- splitting pays only when the tiles leave SMs idle
    if c.split > 1 and tiles * c.split > 2 * device.sm_count then
        return false, "split: tiles already fill the GPU"
    end
    -- the tail: only where the host splits the last wave (else it is the tail-1 kernel in
    -- clusters of two)
    if c.tail > 1 and not tail_whole(c, tiles, tail_ctas(c, device), k_groups(c, problem)) then
        return false, "tail: no partial wave that slices shorten"
    end
    return true
end

-- A cost model in SM cycles (lower is better): persistent waves × per-tile time, where a
-- K block costs the larger of its wgmma time (math at 8192 FP8 FLOP/clk/SM, or shared-memory
-- reads of A and B per m64 instruction at 128 B/clk) and its operand load time (~64 B/clk per
-- SM from L2/HBM), plus an epilogue (mostly hidden with ping-pong), with penalties for
-- shallow rings and a lone consumer. The factors `f` differ between the two uses:
--  * DEFAULT_FACTORS pick default()'s tile among DEFAULT_SHAPES; calibrated on a handful of
--    H200 timings. Measured there for cluster and epilogue (128-row tiles, 512..8192 x
--    4096..57344 x 4096..8192, per-tensor FP8): cluster 2 within +-1 % of cluster 1 once the
--    consumers release stages without a GPU-wide fence; epilogue 1 5-8 % faster at
--    512x4096x4096 and 4096^3, 1-3 % slower on the largest shapes (its staging costs stages).
--  * RANK_FACTORS order the tuner's candidates; fitted to ~94,000 H100 measurements of the
--    Llama-3.1-8B per-tensor keys (bench/results-2026-11-23-tuner, scripts/validate_rank.py):
--    the fastest configs use the deepest ring that fits (10-12 stages at small M), ping-pong
--    even with one tile per CTA, 64-row consumers as readily as 128-row ones, and two
--    consumers; the top 32 held a config within 2 % of the fastest on 74 of 100 keys, against
--    48 with the default factors. Variants the model cannot tell apart cost 10 % per step away
--    from the usual choice there, so the top 32 cover many tile shapes and ring depths.
--    Refitted on 2026-11-25 to ~200,000 H100 measurements with epilogue 2 in the space
--    (bench/results-2026-11-25-s12, bench/rank_offline.py; 84 keys at M >= 16, each with
--    ~700-3,900 configs measured): operands load at 52 B/clk (was 64: larger tiles, fewer
--    bytes per FLOP, won more often than the model said), and direct stores (epilogue 0) cost
--    8 % (measured against the same config with epilogue 1: 7-14 % slower at M > 128, ~1 %
--    below, ping-pong included). A config within 2 % of the fastest measured: in the top 8 on
--    48 -> 50 keys, top 16 50 -> 57, top 32 55 -> 65, top 64 62 -> 74.
local DEFAULT_FACTORS = { cooperative = 1.10, one_consumer = 1.05, rows64 = 1.15,
    pingpong_one_tile = 1.10, step = 0.02, deep_ring = false, load_bytes_per_clk = 64,
    direct_store = 1.0 }
local RANK_FACTORS = { cooperative = 1.10, one_consumer = 1.15, rows64 = 1.0,
    pingpong_one_tile = 1.0, step = 0.10, deep_ring = true, load_bytes_per_clk = 52,
    direct_store = 1.08 }
local STAGES = { 2, 3, 4, 5, 6, 7, 8, 10, 12 }

-- Steps between c's ring depth and the usual one: the deepest ring of STAGES that fits
-- (deep_ring; 0.2 a step along STAGES), or min(8, K blocks) (0.5 a stage).
local function ring_steps(c, problem, device, f, k_blocks)
    if not f.deep_ring then
        return math.abs(c.stages - math.min(8, math.max(3, k_blocks))) * 0.5
    end
    -- smem_bytes is linear in stages: what one more stage costs, and what the rest takes
    local per_stage = (c.block_m + c.block_n) * BK + BARRIER_BYTES
    local fixed = smem_bytes(c, problem) - c.stages * per_stage
    local here, deepest = 1, 1
    for i, stages in ipairs(STAGES) do
        if stages == c.stages then
            here = i
        end
        if fixed + stages * per_stage <= device.max_smem then
            deepest = i
        end
    end
    return math.abs(here - deepest) * 0.2
end

local function cost_model(c, problem, device, f)
    local tiles_m, tiles_n = ceil_div(problem.m, c.block_m), ceil_div(problem.n, c.block_n)
    local split = c.split
    -- cluster 2 works in units of two tile-rows; an odd count wastes half a unit; split
    -- gives each tile `split` CTAs
    local tiles = ceil_div(tiles_m, c.cluster) * c.cluster * tiles_n * split
    -- clusters of 4 CTAs (split 4) do not fill the SMs (gemm.cluster_slots): 33 tile columns
    -- of 128x64 split 4 took two waves at 128x2112x7168 (bench/results-2026-11-26-s19, K1:
    -- 20.5 us, where 27 of 128x80 took one, 13.3 us)
    local waves = ceil_div(tiles, gemm.cluster_slots(device, c.cluster * split))
    -- tail: the full waves whole, then turns of 1/tail of a tile
    local whole
    if c.tail > 1 then
        local ctas = tail_ctas(c, device)
        whole = tail_whole(c, tiles, ctas, k_groups(c, problem))
        waves = whole and whole // ctas + 1 / c.tail or ceil_div(tiles, ctas)
    end
    -- overlap: groups of 2^overlap K blocks, the last one filled with zero blocks; split
    -- gives each rank whole groups
    local g = 1 << c.overlap
    local k_blocks = ceil_div(ceil_div(ceil_div(problem.k, BK), g), split) * g
    local n = c.block_n
    local per_inst = math.max(n / 2, 16 + n / 4)          -- m64nNk32: math vs smem reads
    local mma = (c.block_m // 64) * (BK // 32) * per_inst
    -- operand bytes a CTA pulls from L2 per K block; cluster 2 halves B's L2 reads, but
    -- measured no faster (see above), so the model leaves it out
    local load = (c.block_m + c.block_n) * BK / f.load_bytes_per_clk
    local epilogue = c.block_m * c.block_n * out_bytes(problem) / 32 + 600
    if split > 1 then
        -- rank 0 reads split - 1 partial tiles over distributed shared memory (~32 B/clk)
        -- after a cluster-scope handshake
        epilogue = epilogue + (split - 1) * c.block_m * c.block_n * 4 / 32 + 800
    end
    if c.epilogue >= 1 then
        epilogue = epilogue * 0.6                         -- the TMA store runs under the next tile
    end
    -- tail: rank 0 of each split tile adds its peers' partial tiles, as split's does (once)
    local tail_reduce = 0
    if whole then
        tail_reduce = (c.tail - 1) * c.block_m * c.block_n * 4 / 32 + 800
    end
    -- two warpgroups sharing each tile: measured 5-10 % under ping-pong
    local main_loop_factor = c.consumers == 2 and f.cooperative or 1.0
    if c.pingpong == 1 then
        -- one warpgroup's epilogue hides under the other's main loop
        epilogue = epilogue * 0.1
        main_loop_factor = 1.0
    end
    local per_block = math.max(mma, load)
    if rows_per_consumer(c) == 64 then
        -- a warpgroup of m64 wgmmas waits on latency more (H200, 4096^3, 8192^3)
        per_block = per_block * f.rows64
    end
    if is_promoted(problem) then
        -- promotion: wait for the K block's wgmmas, then one FMA per accumulator; a second
        -- consumer warpgroup issues its wgmmas meanwhile and hides most of it
        local wg_m = c.pingpong == 1 and c.block_m or c.block_m // c.consumers
        local promote = 200 + (wg_m // 64) * n
        if c.wave == 1 then
            promote = (wg_m // 64) * (200 + n) -- each sub-tile waits for its own wgmmas
        end
        -- overlap: one promotion of each group of 2^overlap waits for the tensor cores
        -- stagger 1: the two consumers' wgmmas alternate, one promotes while the other's run;
        -- above STAGGER_MAX_M (a named tune) the turns cost more than they hide: on an H200
        -- (bench/results-2026-11-26-s24/, C2: 56 config pairs of 128x128 block tiles at
        -- M = 256..4096) stagger 1 ran 1.049x slower geomean, faster in 8
        -- Groups longer than 8 (overlap 4, 5) ranked as 8 and 1 % behind: on an H200 the
        -- shipped overlap-1..3 rows of 15 block-scaled keys at M = 128..2048 ran 0.988 /
        -- 0.984x (overlap 4) and 0.977 / 0.992x (5) as graph replays in rounds A B B A, 4 keys
        -- >= 1.02x in both (bench/results-2026-11-29-s42/, D1): the group's drain is not
        -- what the promotion costs
        local staggered = c.stagger == 1 and problem.m <= STAGGER_MAX_M
        local exposed = (c.consumers == 2 and 0.3 or 1.0) / (1 << math.min(c.overlap, 3))
            * (staggered and 0.5 or 1.0)
        per_block = per_block + promote * exposed
        if c.overlap > 3 then
            per_block = per_block * 1.01
        end
        if c.stagger == 1 and not staggered then
            per_block = per_block * 1.05
        end
        if c.wave == 1 then
            -- measured on an H200: 256x112 wave tiles keep the tensor pipe 54 % busy where
            -- 128x128 ones keep it 66 % (bench/results-2026-11-26-s23, A6), and the model
            -- ranked them 14-29 % too fast against 128x128 tiles on three DeepSeek-V3 keys
            -- (4096x4096x7168 there; 512 and 1024x7168x16384 in
            -- bench/results-2026-11-27-s31, D1, D2)
            per_block = per_block * WAVE_FACTOR
        end
    end
    if c.stages < 3 then
        per_block = per_block * 1.25
    end
    local fill = 2 * load                                 -- ring fill before the first wgmma
    local tile_time = k_blocks * per_block * main_loop_factor + epilogue
    if c.consumers == 1 then
        tile_time = tile_time * f.one_consumer            -- no second warpgroup to hide waits
    end
    local cost = waves * tile_time + fill + tail_reduce
    if c.pingpong == 1 and tiles <= device.sm_count then
        cost = cost * f.pingpong_one_tile -- one tile per CTA: nothing to overlap
    end
    local steps = (c.raster == 0 and 0 or 1) + (c.group == 8 and 0 or 1)
        + ring_steps(c, problem, device, f, k_blocks) + (c.cluster == 1 and 0 or 1)
        + (split == 1 and 0 or 1)
    -- specialized: the same kernel with constant trip counts, tried right before its twin
    local specialized = c.specialize == 1 and 0.995 or 1.0
    local stores = c.epilogue == 0 and f.direct_store or 1.0 -- registers to global, in the loop
    return cost * (1 + f.step * steps) * specialized * stores
end

local function rank(c, problem, device)
    return cost_model(c, problem, device, RANK_FACTORS)
end

-- Candidate tile shapes for the default {block_m, block_n, consumers, pingpong}: measured on
-- an H200 (4096×{6144, 28672, 8192}×{4096, 8192}, FP8), ping-pong 128×{128…176} ran at
-- 0.95–1.0× cuBLASLt and beat the cooperative tiles by 5–15 %; ping-pong 128×192 spills
-- with INT8 + row scales + zero point, so the default stops at 176.
local DEFAULT_SHAPES = {
    { 64, 32, 1, 0 }, { 64, 64, 1, 0 }, { 64, 128, 1, 0 },
    { 128, 64, 2, 0 }, { 128, 128, 2, 1 }, { 128, 160, 2, 1 }, { 128, 176, 2, 1 },
    { 128, 224, 2, 0 }, { 128, 256, 2, 0 }, { 256, 128, 2, 0 },
}

-- Promoted accumulation (block scales, accum "promoted") doubles the accumulators:
-- cooperative tiles up to 128×176 and one-consumer 64-row tiles (not measured yet).
local BLOCK_DEFAULT_SHAPES = {
    { 64, 32, 1, 0 }, { 64, 64, 1, 0 }, { 64, 128, 1, 0 },
    { 128, 64, 2, 0 }, { 128, 128, 2, 0 }, { 128, 160, 2, 0 }, { 128, 176, 2, 0 },
}

local function default(problem, device)
    local best, best_cost
    for _, s in ipairs(is_promoted(problem) and BLOCK_DEFAULT_SHAPES or DEFAULT_SHAPES) do
        local c = { block_m = s[1], block_n = s[2], consumers = s[3], pingpong = s[4],
                    raster = 0, group = 8, cluster = 1, stages = 2, epilogue = 0, split = 1,
                    specialize = 0, overlap = 0, stagger = 0, wave = 0, tail = 1 }
        -- the deepest ring that fits, at most 8
        for stages = 8, 2, -1 do
            c.stages = stages
            if smem_bytes(c, problem) <= device.max_smem then
                break
            end
        end
        if valid(c, problem, device) and fits(c, problem, device) then
            local cost = cost_model(c, problem, device, DEFAULT_FACTORS)
            if not best_cost or cost < best_cost then
                best, best_cost = c, cost
            end
        end
    end
    return best
end

-- What CI's `w8a8 compile --arch sm_90a --all` builds (8 best-ranked configs each): decode,
-- mid and prefill sizes across every operand family, out dtype, scale kind, bias kind and
-- zero point, so every specialization path of the template is compiled.
local function compile_problems(device)
    return {
        { m = 4096, n = 28672, k = 4096, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          a_scale = "tensor", b_scale = "tensor" },
        { m = 16, n = 4096, k = 4096, a_type = "e4m3", b_type = "e4m3", out_type = "fp16",
          bias_type = "fp16", a_scale = "row", b_scale = "row" },
        { m = 128, n = 8192, k = 8192, a_type = "e5m2", b_type = "e4m3", out_type = "bf16",
          bias_type = "fp32", a_scale = "tensor", b_scale = "row" },
        { m = 1024, n = 4096, k = 14336, a_type = "e4m3", b_type = "e4m3", out_type = "fp16",
          bias_type = "fp16", a_scale = "tensor", b_scale = "tensor", accum = "promoted" },
        { m = 48, n = 8192, k = 8192, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          a_scale = "row", b_scale = "row", accum = "promoted" },
        { m = 512, n = 6144, k = 4096, a_type = "int8", b_type = "int8", out_type = "fp32",
          bias_type = "fp32", a_scale = "row", b_scale = "row", azp = "token" },
        { m = 2048, n = 10240, k = 8192, a_type = "int8", b_type = "int8", out_type = "bf16",
          bias_type = "bf16", a_scale = "row", b_scale = "tensor", azp = "tensor" },
        { m = 4096, n = 7168, k = 16384, a_type = "e4m3", b_type = "e4m3", out_type = "bf16",
          a_scale = "block", b_scale = "block", a_group_rows = 1, a_group_k = 128,
          b_group_rows = 128, b_group_k = 128, a_k_major = true },
        { m = 64, n = 2112, k = 7168, a_type = "e4m3", b_type = "e4m3", out_type = "fp32",
          bias_type = "fp32", a_scale = "block", b_scale = "block", a_group_rows = 1,
          a_group_k = 128, b_group_rows = 128, b_group_k = 128 },
    }
end

return {
    name = "sm90_gemm",
    template = "sm90_gemm",
    arch = "sm_90a",

    applies = function(problem, device)
        if device.cc_major ~= 9 or device.cc_minor ~= 0 then
            return false
        end
        -- (block scales: promoted accumulation, FP8 with A 1×128 and B 128×128 groups only)
        return gemm.operands(problem) ~= nil
    end,

    params = {
        block_m = { 64, 128, 256 },
        block_n = { 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256 },
        stages = STAGES,
        consumers = { 1, 2 },
        pingpong = { 0, 1 },
        raster = { 0, 1 },
        group = { 1, 4, 8, 16 },
        cluster = { 1, 2 },
        epilogue = { 0, 1, 2 },
        split = { 1, 2, 4 },
        specialize = { 0, 1 },
        overlap = { 0, 1, 2, 3, 4, 5 },
        stagger = { 0, 1 },
        wave = { 0, 1 },
        tail = { 1, 2 },
    },
    order = { "block_m", "block_n", "stages", "consumers", "pingpong", "raster", "group",
        "cluster", "epilogue", "split", "specialize", "overlap", "stagger", "wave", "tail" },
    variants = { trigger = { 1 } },

    valid = valid,
    fits = fits,
    prune = prune,
    rank = rank,
    default = default,
    compile_problems = compile_problems,
}
