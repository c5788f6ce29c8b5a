#!/usr/bin/env bash
# D2 (H200), issue 14: do the two sm80_gemm CTAs that share an SM lose their epilogues and
# fills to lockstep? D1 measured the 2048x4096 128x128 winner at 874 TFLOP/s at K = 4096 and
# 916-940 at K >= 8192, and persist=1 0.97x. dephase.py writes template trees whose kernel
# sleeps some first-wave CTAs at its start (slot: blockIdx in [nsmid, 2 nsmid); odd: odd
# blockIdx), 1, 2 or 4 us; each runs through W8A8_TEMPLATE_DIR (the cubin key holds the
# template source) on session 40's 24 INT8 winners pinned as rows (D1's sm80_rows.py), and on
# the same rows with persist=1 (base and s2 only). Rounds: base s2 o2 s1 s4, then reversed.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=/tmp/no-shipped-cache
mkdir -p $W8A8_CACHE_PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
S=bench/results-2026-11-29-s43
src=bench/results-2026-11-28-s40/d1/b/sm80-bench-int8.jsonl
python3 $S/sm80_rows.py $src $o/base.sql > $o/rows.txt 2>&1
python3 $S/sm80_rows.py $src $o/p1.sql persist=1 >> $o/rows.txt 2>&1
for v in base p1; do W8A8_CACHE_DB=/tmp/d2-$v.db $W cache import $o/$v.sql >> $o/err.txt 2>&1; done
python3 $S/dephase.py /tmp/dp s1:slot:1000 s2:slot:2000 s4:slot:4000 o2:odd:2000 >> $o/rows.txt 2>&1
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 2048 4096 8192; do shapes="$shapes --shape $m,$nk"; done
done
one() { # variant rows round
  if [ $1 = base ]; then unset W8A8_TEMPLATE_DIR; else export W8A8_TEMPLATE_DIR=/tmp/dp/$1; fi
  local label=$1; [ $2 = p1 ] && label=p$1
  W8A8_CACHE_DB=/tmp/d2-$2.db W8A8_KERNEL_DIR=/tmp/k-$1 timeout 100 $W bench --json --no-cublaslt \
    --dtype int8 --scale row $shapes > $o/$label-int8-r$3.jsonl 2>> $o/err.txt
  echo "$label round $3 $SECONDS" >> $o/gpu.txt
}
for v in base s2 o2 s1 s4; do one $v base 1; done
one base p1 1; one s2 p1 1; one s2 p1 2; one base p1 2
for v in s4 s1 o2 s2 base; do one $v base 2; done
for v in s1 s2 s4 o2; do
  python3 bench/results-2026-11-28-s40/ab_rounds.py $o base $v int8 > $o/table-$v.txt 2>&1
done
python3 bench/results-2026-11-28-s40/ab_rounds.py $o pbase ps2 int8 > $o/table-ps2.txt 2>&1
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base pbase int8 > $o/table-p1.txt 2>&1
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
