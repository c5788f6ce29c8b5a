#!/usr/bin/env bash
# D1 (H200): sm80_decode's loads in whole sectors (a thread's two 16-byte pieces 64 bytes
# apart, DEC_PIECE_STEP) against HEAD's (32 contiguous bytes a thread, every sector fetched
# twice), the same binary with W8A8_TEMPLATE_DIR at each side's templates (carry/old_templates
# from HEAD, templates/ of this tree), over the shipped rows: the decode grid in every
# granularity, A B B A (bench/bin_ab.sh), peers.py's decode grid between.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,clocks.mem,power.limit --format=csv > $o/gpu.txt 2>&1
printf '#!/bin/sh\nW8A8_TEMPLATE_DIR=%s/carry/old_templates exec %s/carry/static/w8a8 "$@"\n' $PWD $PWD > /tmp/old.sh
printf '#!/bin/sh\nW8A8_TEMPLATE_DIR=%s/templates exec %s/carry/static/w8a8 "$@"\n' $PWD $PWD > /tmp/new.sh
chmod +x /tmp/old.sh /tmp/new.sh
S=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do S="$S $m,$nk"; done; done
for g in tensor,tensor int8; do
  CHUNK=30 timeout 250 bench/bin_ab.sh /tmp/old.sh /tmp/new.sh $o/ab-${g%%,*}.jsonl $g $S 2>> $o/err.txt
  echo "ab $g $? $SECONDS" >> $o/gpu.txt
done
timeout 150 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.int8,torch.block,torch.bf16 \
  --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
for g in row,row block,block; do
  CHUNK=30 timeout 250 bench/bin_ab.sh /tmp/old.sh /tmp/new.sh $o/ab-${g%%,*}.jsonl $g $S 2>> $o/err.txt
  echo "ab $g $? $SECONDS" >> $o/gpu.txt
done
for g in tensor int8 row block; do
  p=torch.$g.fast; [ $g = int8 ] && p=torch.int8; [ $g = block ] && p=torch.block
  echo "== $g" >> $o/summary.txt
  python3 bench/bin_ab.py $o/ab-$g.jsonl $o/peers.jsonl $p >> $o/summary.txt 2>&1
done
tar czf $OUT/d1.tgz -C $OUT d1
