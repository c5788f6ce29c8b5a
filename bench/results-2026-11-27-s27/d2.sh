#!/usr/bin/env bash
# D2 (H200): (1) sm80_gemm persist 1 after D1, with the one-CTA-a-tile kernel's code restored
# (its SASS identical to HEAD's): the 8-warp 64x64-warp-tile configs, prefetch 1, persist 0/1,
# against HEAD (carry/old), at 4096^3, 4096x28672x4096 and 2048x4096x4096. (2) The weights'
# L2 prefetch before the PDL wait (sm90_gemm: TMA prefetch of the first STAGES weight boxes;
# sm80_decode: prefetch.global.L2 of each warp's first chunks): HEAD (A) against the new build
# (B) on the decode grid through the shipped cache, graph replays, A B B A
# (bench/bin_ab.sh), per-tensor, per-row and block; peers.py on the same shapes.
set -u
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=64/128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0/1" \
  SM80_AB_SHAPES="4096,4096,4096 4096,28672,4096 2048,4096,4096" OUT=$o \
  bash bench/sm80_ab.sh carry/old carry/static > $o/sm80-ab.out 2>&1
echo "sm80 ab $SECONDS" >> $o/gpu.txt
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do shapes="$shapes $m,$nk"; done
done
mkdir -p $o/prefetch
for s in tensor,tensor row,row block,block; do
  CHUNK=30 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/prefetch/ab-decode-${s%%,*}.jsonl $s $shapes \
    2>> $o/prefetch/err.log
  echo "ab decode $s $SECONDS" >> $o/gpu.txt
done
args=""; for s in $shapes; do args="$args --shape $s"; done
timeout 200 python3 carry/peers.py $args --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 \
  --out $o/prefetch/peers-decode.jsonl > $o/prefetch/peers.log 2>&1
echo "peers $SECONDS" >> $o/gpu.txt
tar czf $o/prefetch.tgz -C $o prefetch && rm -rf $o/prefetch
