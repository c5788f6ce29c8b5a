#!/usr/bin/env bash
# D4 (H200, session 53): the Python memo's host time, paired. The same wheel unpacked twice
# (carry/pynew; carry/pyold with the ops.py of e003b0c, before the memo), run on PYTHONPATH
# in the order A B B A A B B A: python/bench/overhead.py --skip-decode --json (host µs a call
# of w8a8jit.scaled_mm, torch._scaled_mm and the C call, M = 16 and 1, 4096x4096).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d4-kernels W8A8_CACHE_DB=/tmp/d4-tuning.db
nproc > $o/host.txt; (lscpu | head -20) >> $o/host.txt 2>&1; uptime >> $o/host.txt
seq=0
for v in A B B A A B B A; do
  seq=$((seq + 1)); dir=carry/pyold; [ $v = B ] && dir=carry/pynew
  PYTHONPATH=$PWD/$dir timeout 100 python3 python/bench/overhead.py --skip-decode --json 2>> $o/err.txt \
    | sed "s/^{/{\"build\": \"$v\", \"seq\": $seq, /" >> $o/overhead.jsonl
  echo "$v $seq $? $SECONDS" >> $o/runs.txt
done
uptime >> $o/host.txt
tar czf $OUT/d4.tgz -C $OUT d4
