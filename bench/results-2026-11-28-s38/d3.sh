#!/usr/bin/env bash
# D3 (H200): where the last percent goes.
# 1. SM clock, power and throttle reasons sampled every 100 ms (nvidia-smi) while the GPU runs,
#    in phases (phases.txt): the mma.sync peak microbenchmark; INT8 4096^3 through sm80_gemm
#    (one config, tuned into its own database, then long graph-replay benches); torch._int_mm on
#    the same shape for ~3 s.
# 2. FP8 per-tensor at the Llama M <= 256 shapes below 1.0 in session 37's D4: ours on the
#    shipped cache with programmatic dependent launch on and off (W8A8_PDL), two rounds
#    interleaved, beside peers.py (torch.tensor.fast) in the same call.
# 3. session 37's l1-scales patch (the epilogue's per-row / per-column scales prefetched into
#    L1 before the main loop; l1-scales.patch, against this commit's template) against HEAD's
#    templates, same binary (carry/l1w wraps carry/static), INT8 winner tiles.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
W=carry/static/w8a8
mark() { echo "$(date +%s.%N) $*" >> $o/phases.txt; }
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 100 > $o/clk.csv 2>&1 &
smi=$!
sleep 1; mark idle
for i in 1 2 3; do $W bench --op mma-peak --samples 200 --json >> $o/peak.jsonl 2>&1; done
mark mma-peak-done
python3 bench/narrow_space.py scripts/sm80_gemm.lua "block_m=128,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0" > $o/one.lua
db=/tmp/d3-sm80.db; rm -f $db
W8A8_CACHE_DB=$db $W tune --space $o/one.lua --dtype int8 --scale row --shape 4096,4096,4096 > $o/tune.log 2>&1
mark sm80-bench
for i in 1 2 3 4 5 6; do
  W8A8_CACHE_DB=$db W8A8_CACHE_PATH= W8A8_TUNE=off $W bench --shape 4096,4096,4096 --dtype int8 --scale row --graph --no-cublaslt --samples 200 --json >> $o/sm80.jsonl 2>&1
done
mark int-mm
python3 - >> $o/intmm.txt 2>&1 <<'PY'
import torch, time
a = torch.randint(-128, 127, (4096, 4096), dtype=torch.int8, device="cuda")
b = torch.randint(-128, 127, (4096, 4096), dtype=torch.int8, device="cuda").t()
for _ in range(20): torch._int_mm(a, b)
torch.cuda.synchronize(); t = time.time(); n = 0
while time.time() - t < 3:
    for _ in range(100): torch._int_mm(a, b)
    torch.cuda.synchronize(); n += 100
dt = (time.time() - t) / n
print("torch._int_mm 4096^3: %.1f us, %.1f TOPS" % (dt * 1e6, 2 * 4096**3 / dt / 1e12))
PY
mark int-mm-done
sleep 1
kill $smi
tar czf $OUT/d3.tgz -C $OUT d3
S="256,4096,14336 128,6144,4096 256,6144,4096 256,8192,8192 128,8192,28672 64,4096,14336 256,4096,4096 16,8192,28672 512,10240,8192"
shapes=""; for s in $S; do shapes="$shapes --shape $s"; done
for r in 1 2; do
  for p in 1 0; do
    W8A8_PDL=$p W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db $W bench $shapes \
      --dtype e4m3 --scale tensor,tensor --graph --no-cublaslt --json > $o/ours-pdl$p-r$r.jsonl 2>> $o/bench.err
  done
  python3 carry/peers.py $shapes --providers torch.tensor.fast --out $o/peers-r$r.jsonl > /dev/null 2>> $o/peers.err
done
mark done
SM80_AB_NCU=0 SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0" \
  SM80_AB_SHAPES="2048,4096,4096 4096,4096,4096 2048,6144,4096 4096,28672,4096 4096,8192,8192" \
  OUT=$o/l1 timeout 200 bench/sm80_ab.sh carry/static carry/l1w > $o/l1.log 2>&1
mark l1-done
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
