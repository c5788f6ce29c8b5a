#!/usr/bin/env bash
# D1 (H200): Nsight Compute (full set, SASS source page) of our dispatched sm90_gemm kernel and
# of cuBLASLt's on the one-wave shapes where we trail (128 tiles of 128x128 on 132 SMs):
# per-tensor 256x8192x8192 and 512x4096x14336 (torch.tensor.fast), our cluster-2 variant at
# 256x8192x8192, and block 512x7168x16384 (torch.block). --clock-control none: the clocks the
# kernels really run at.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k1
B=carry/static/w8a8
prof() { # NAME KERNEL_REGEX SKIP CMD...
  local name=$1 re=$2 skip=$3; shift 3
  timeout 150 ncu --clock-control none --set full --import-source no -k "regex:$re" \
    --launch-skip $skip --launch-count 1 -f -o /tmp/$name "$@" > $o/$name.log 2>&1
  echo "$name exit $? $SECONDS" >> $o/gpu.txt
  ncu -i /tmp/$name.ncu-rep --page details > $o/$name-details.txt 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $o/$name-src.csv.gz
}
peer() { python3 carry/peers.py --shape $1 --providers $2; }
prof ours-t-256 w8a8_sm90 2 $B bench --shape 256,8192,8192 --scale tensor,tensor --samples 3 --no-cublaslt
prof peer-t-256 "nvjet|gemm|xmma" 3 peer 256,8192,8192 torch.tensor.fast
prof ours-t-512 w8a8_sm90 2 $B bench --shape 512,4096,14336 --scale tensor,tensor --samples 3 --no-cublaslt
prof peer-t-512 "nvjet|gemm|xmma" 3 peer 512,4096,14336 torch.tensor.fast
prof ours-b-512 w8a8_sm90 2 $B bench --shape 512,7168,16384 --scale block,block --samples 3 --no-cublaslt
prof peer-b-512 "nvjet|gemm|xmma|cutlass" 3 peer 512,7168,16384 torch.block
# our cluster-2 variant (B multicast to the pair of tile-rows) at 256x8192x8192
c2="block_m=128,block_n=128,stages=6,consumers=2,pingpong=0,raster=0,group=8,cluster=2,epilogue=1,split=1,specialize=1,overlap=0,stagger=0,wave=0,tail=1"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$c2" > /tmp/c2.lua
W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/c2.db $B tune --space /tmp/c2.lua --shape 256,8192,8192 --json > $o/c2-tune.jsonl 2> $o/c2-tune.err
echo "c2 tune exit $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/c2.db prof ours-c2-256 w8a8_sm90 2 $B bench --shape 256,8192,8192 --scale tensor,tensor --samples 3 --no-cublaslt
rm -f $o/*.ncu-rep
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
