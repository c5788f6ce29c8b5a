#!/usr/bin/env bash
# D11 (H200): D10's plain seeded tunes (8 of 26 block keys shipped, 5 with tail 2: 4096x14336 at
# M = 64...256 1.07-1.19x) over the per-tensor and per-row Llama keys at M = 64, 128, 256 of
# the M <= 512 grid (D9 took the short-last-wave ones at 256 and 512), then the shipped rows
# (A) against the winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d11; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k11
done9=" 256,28672,4096 256,10240,8192 256,57344,8192 "
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 64 128 256; do
    case "$done9" in *" $m,$nk "*) continue ;; esac
    keys="$keys $m,$nk"
  done
done
echo "-$keys" > $o/groups.txt
for g in tensor row; do
  BUDGET=${D11_BUDGET:-200} CHUNK=11 bench/sweep_rows.sh $o/groups.txt $g fast $o/$g /tmp/d11-$g.db
  echo "$g $SECONDS" >> $o/gpu.txt
  gzip -c /tmp/d11-$g.db > $o/$g/tune.db.gz
  gzip $o/$g/tune-$g.jsonl
  tar czf $OUT/d11.tgz -C $OUT d11
done
tar czf $OUT/d11.tgz -C $OUT d11 && rm -rf $o
