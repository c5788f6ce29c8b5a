# D8 (H200): B's copies in two halves in the 4-step prefetch-1 loop (new) against D7's build (old):
# bench/sm80_ab.sh; then Nsight Compute's stall samples of the new build's best 4096^3 config.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
OUT=$o SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=0/1" \
  bash bench/sm80_ab.sh carry/old carry/static
l=/tmp/l8 && mkdir -p $l
python3 bench/narrow_space.py scripts/sm80_gemm.lua block_m=128,block_n=256,block_k=128,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=1,epilogue=1 > /tmp/best.lua
W8A8_CACHE_DB=/tmp/b.db W8A8_KERNEL_DIR=/tmp/k8 carry/static/w8a8 tune --space /tmp/best.lua --dtype int8 --scale row --shape 4096,4096,4096 > $l/tune.txt 2>&1
W8A8_CACHE_DB=/tmp/b.db W8A8_KERNEL_DIR=/tmp/k8 timeout 150 ncu --clock-control none --kernel-name w8a8_sm80_gemm --launch-skip 3 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
  carry/static/w8a8 bench --shape 4096,4096,4096 --dtype int8 --scale row --no-cublaslt --samples 5 > $l/src.csv 2>&1
python3 bench/ncu_stalls.py $l/src.csv --top 30 --context 3 > $l/stalls.txt 2>&1
gzip $l/src.csv; tar czf $o/d8.tgz -C /tmp l8
ls -la $o
