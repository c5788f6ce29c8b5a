#!/usr/bin/env bash
# C10 (session 24, H200): the final build (C6 ran on a binary whose embedded space still kept
# overlap from promoted per-tensor/per-row sums in a plain tune): (1) every GPU suite; (2) a
# plain tune (budget 40 s) of 5 promoted keys into a fresh database: does it pick overlap on
# its own? Its winners (B) against the shipped rows (A), A B B A.
set -u
o=$(mktemp -d)/c10; mkdir -p $o
pk() { tar czf $OUT/c10.tgz -C $(dirname $o) c10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS" >> $o/summary.txt; pk
args() { for s in $1; do printf ' --shape %s' $s; done; }
PT="4096,4096,4096 512,6144,4096 1024,4096,14336 8192,57344,8192"
export W8A8_KERNEL_DIR=/tmp/kc10
( unset W8A8_CACHE_PATH
  W8A8_CACHE_DB=/tmp/c10.db timeout 50 $b tune --scale tensor --accum promoted --budget 40 $(args "$PT") --json > $o/tune.jsonl 2> $o/tune.log
  echo "tune $? $SECONDS" >> $o/summary.txt
  $b cache --db /tmp/c10.db export $o/c10.sql --winners 2>>$o/err.log ); pk
q=0; for v in A B B A; do q=$((q+1))
  if [ $v = A ]; then env W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/c10-empty.db W8A8_TUNE=off \
      timeout 100 $b bench --json --no-cublaslt --graph $(args "$PT") --scale tensor --accum promoted
  else env -u W8A8_CACHE_PATH W8A8_CACHE_DB=/tmp/c10.db W8A8_TUNE=off \
      timeout 100 $b bench --json --no-cublaslt --graph $(args "$PT") --scale tensor --accum promoted
  fi | sed "s/^{/{\"build\": \"$v\", \"round\": 1, \"seq\": $q, /" >> $o/ab.jsonl 2>>$o/err.log
done
echo "ab $SECONDS" >> $o/summary.txt; pk
