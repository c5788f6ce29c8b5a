#!/usr/bin/env bash
# D4 (H200): programmatic dependent launch on and off (W8A8_PDL) for the shipped H200 rows at
# M <= 512: the Llama grid (w8a8 bench --grid small: M 1..512) per-tensor and per-row, the
# decode grid per-tensor and per-row, and block scales at M = 256, two rounds in the order
# on, off, off, on, as graph replays (as peers.py times torch), beside peers.py in the same
# call. D3 had PDL off 1.065x faster at 256x4096x14336 per-tensor and 1.5x slower at
# 128x6144x4096: rows where it pays in both rounds get pdl=0 (sm90_gemm's launch-time
# parameter).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
W=carry/static/w8a8
B="256,4096,4096 256,6144,4096 256,8192,8192 256,10240,8192 256,28672,4096 256,4096,14336 256,8192,28672 256,57344,8192"
blk=""; for s in $B; do blk="$blk --shape $s"; done
run() { # pdl round
  for s in tensor,tensor row,row; do
    W8A8_PDL=$1 $W bench --grid small --dtype e4m3 --scale $s --graph --no-cublaslt --json > $o/small-$s-pdl$1-r$2.jsonl 2>> $o/err.txt
    W8A8_PDL=$1 $W bench --grid decode --dtype e4m3 --scale $s --graph --no-cublaslt --json > $o/decode-$s-pdl$1-r$2.jsonl 2>> $o/err.txt
  done
  W8A8_PDL=$1 $W bench $blk --dtype e4m3 --scale block,block --graph --no-cublaslt --json > $o/block-pdl$1-r$2.jsonl 2>> $o/err.txt
  echo "pdl $1 round $2 done $SECONDS" >> $o/gpu.txt
}
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
run 1 1; run 0 1
timeout 120 python3 carry/peers.py --grid small --providers torch.tensor.fast,torch.row.fast,torch.bf16 --out $o/peers-small.jsonl > /dev/null 2>> $o/err.txt
timeout 60 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.bf16 --out $o/peers-decode.jsonl > /dev/null 2>> $o/err.txt
timeout 60 python3 carry/peers.py $blk --providers torch.block --out $o/peers-block.jsonl > /dev/null 2>> $o/err.txt
echo "peers done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
run 0 2; run 1 2
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
