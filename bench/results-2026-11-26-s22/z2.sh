#!/usr/bin/env bash
# Z2 (session 22, H200): what keeps sm90_gemm's block-scaled overlap from hiding the promotion?
# Z1's microbenchmark (bench/wgmma_ffma.cu) hid it completely in cycles with two temporary sets.
# One tile config (128x128, 5 stages, two consumers, epilogue 1, specialize 1) with overlap 0/1
# x stagger 0/1 (rows in carry/z2/cOS.sql, one database each: the shipped 512x4096x7168 block
# row with n, k, m_bucket, config and median 1.0 replaced), at 4096x4096x7168 and
# 512x4096x14336, block scales, four template builds (W8A8_TEMPLATE_DIR, copies of templates/
# with one change each, marked "experiment (session 22)"): the embedded one; nocopy
# (sm90_scale_fetch returns at once: the scale loaders arrive without copying); noloaders
# (no loader warps, the full barrier initialised to 1 arrival); noread (sm90_block_scales_read
# returns 1.0 for every scale, no shared-memory reads). Results are wrong in the variants
# (timing only). Per-tensor with the same tile as the ceiling. Two rounds, the second in
# reverse order. Then ncu (its tensor-pipe counter was n/a here).
set -u
o=$(mktemp -d)/z2; mkdir -p $o
pk() { tar czf $OUT/z2.tgz -C $(dirname $o) z2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_CACHE_PATH=/nonexistent W8A8_TUNE=off
for c in c00 c01 c10 c11 tensor; do rm -f /tmp/z2-$c.db; W8A8_CACHE_DB=/tmp/z2-$c.db $b cache import carry/z2/$c.sql >> $o/err.log 2>&1; done
S="--shape 4096,4096,7168 --shape 512,4096,14336"
V="emb nocopy noloaders noread"
one() { # variant config round
  td=""; [ $1 != emb ] && td="W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1"
  sc=block; [ $2 = tensor ] && sc=tensor
  env $td W8A8_KERNEL_DIR=/tmp/kz2-$1 W8A8_CACHE_DB=/tmp/z2-$2.db timeout 60 $b bench --json --no-cublaslt --graph $S --scale $sc \
    | sed "s/^{/{\"variant\": \"$1\", \"round\": $3, /" >> $o/bench.jsonl 2>>$o/err.log
}
for r in 1 2; do
  order=$V; [ $r = 2 ] && order=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
  one emb tensor $r
  for v in $order; do for c in c00 c01 c10 c11; do one $v $c $r; done; done
  echo "round $r $SECONDS" >> $o/summary.txt; pk
done
if command -v ncu > /dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
  N=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for vc in emb:tensor emb:c00 emb:c10 nocopy:c10 noloaders:c10 noread:c10; do v=${vc%%:*} c=${vc##*:}
    td=""; [ $v != emb ] && td="W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v"
    sc=block; [ $c = tensor ] && sc=tensor
    env $td W8A8_KERNEL_DIR=/tmp/kz2-$v W8A8_CACHE_DB=/tmp/z2-$c.db timeout 60 $N -k regex:w8a8_sm90 --launch-skip 3 --launch-count 1 \
      --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,gpu__time_duration.sum,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__issue_active.avg.pct_of_peak_sustained_active \
      $b bench --no-cublaslt --shape 4096,4096,7168 --scale $sc --samples 5 > $o/ncu-$v-$c.txt 2>&1
    echo "ncu $v $c $? $SECONDS" >> $o/summary.txt
  done
else echo "no ncu" >> $o/summary.txt; fi
pk
