#!/usr/bin/env bash
# D1 (H200, session 53): the L2 prefetch of the first ring's weights before the PDL wait
# (sm90_gemm, sm80_decode). One build, two template sets: A runs the templates before the
# change (carry/oldt/templates through W8A8_TEMPLATE_DIR), B the embedded ones; the shipped
# caches, graph replays A B B A (bench/bin_ab.sh). Decode grid (M 1, 4, 16, 32) for
# per-tensor, per-row, INT8 and block; Llama M 64...512 and 2048 per-tensor; dsv3 M 128, 2048
# block. Then check_gpu_swap, check_gpu_decode and check_gpu_sm90 on the new templates.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d1-kernels
printf '#!/bin/sh\nW8A8_TEMPLATE_DIR=%s exec %s "$@"\n' "$PWD/carry/oldt/templates" \
  "$PWD/carry/static/w8a8" > /tmp/w8a8old && chmod +x /tmp/w8a8old
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
dec=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 4 16 32; do dec="$dec $m,$nk"; done; done
lla=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 64 128 256 512 2048; do lla="$lla $m,$nk"; done; done
dsv=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 128 2048; do dsv="$dsv $m,$nk"; done; done
run() { # name granularity peer shapes...
  local name=$1 gran=$2 peer=$3; shift 3
  CHUNK=20 bench/bin_ab.sh /tmp/w8a8old carry/static/w8a8 $o/ab-$name.jsonl $gran "$@" 2>> $o/err.txt
  echo "ab $name $? $SECONDS" >> $o/gpu.txt
  python3 bench/bin_ab.py $o/ab-$name.jsonl > $o/table-$name.txt 2>&1
  [ "$peer" != - ] && python3 bench/bin_ab.py $o/ab-$name.jsonl $o/peers-decode.jsonl $peer \
    > $o/peer-$name.txt 2>&1
}
timeout 120 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.int8,torch.block,torch.bf16 --out $o/peers-decode.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
run dec-tensor tensor,tensor torch.tensor.fast $dec
run dec-int8 int8 torch.int8 $dec
run dec-row row,row torch.row.fast $dec
run dec-block block,block torch.block $dec
run llama-tensor tensor,tensor - $lla
run dsv3-block block,block - $dsv
tar czf $OUT/d1.tgz -C $OUT d1
for t in check_gpu_swap check_gpu_decode check_gpu_sm90; do
  timeout 150 carry/static/tests/$t > $o/$t.log 2>&1
  echo "$t $? $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d1.tgz -C $OUT d1
