#!/usr/bin/env bash
# D2 (H200): where the block-scaled loop's time goes, by removal (diag_variants.py: noload,
# nolds, fadd, noload_nolds; wrong results, timing only), and candidate p1 (the next K block's
# scales read while this block's wgmmas run; non-overlap loop), against base (HEAD's
# templates), each through W8A8_TEMPLATE_DIR, 3 rounds interleaved, CUDA-graph replays.
# Configs (tuned once with base into the databases, then only benched):
#   A: 128x176 overlap 0 at 2048x8192x8192; 128x128 overlap 3 at 512x8192x8192
#   B: 128x128 overlap 0 at 2048x8192x8192; 128x128 overlap 3 group 16 epilogue 2 at 4096x4096x7168
#   P: per-tensor promoted, A's configs (the no-scale reference)
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
B=$PWD/carry/static/w8a8
cfg() { echo "block_m=128,block_n=$1,stages=$2,consumers=2,pingpong=0,raster=0,group=$3,cluster=1,epilogue=$4,split=1,specialize=1,overlap=$5,stagger=0,wave=0,tail=1"; }
tune1() { # DB CONFIG SHAPE SCALE ACCUM
  python3 bench/narrow_space.py scripts/sm90_gemm.lua "$2" > /tmp/sp.lua
  W8A8_CACHE_PATH= W8A8_CACHE_DB=$1 W8A8_KERNEL_DIR=/tmp/k-tune $B tune --space /tmp/sp.lua \
    --shape $3 --scale $4 --accum $5 --json >> $o/tune.jsonl 2>> $o/err.log
  echo "tune $1 $3 $4 $5 exit $? $SECONDS" >> $o/gpu.txt
}
tune1 /tmp/A.db "$(cfg 176 4 8 1 0)" 2048,8192,8192 block,block fast
tune1 /tmp/A.db "$(cfg 128 5 16 1 3)" 512,8192,8192 block,block fast
tune1 /tmp/B.db "$(cfg 128 5 8 1 0)" 2048,8192,8192 block,block fast
tune1 /tmp/B.db "$(cfg 128 5 16 2 3)" 4096,4096,7168 block,block fast
tune1 /tmp/P.db "$(cfg 176 4 8 1 0)" 2048,8192,8192 tensor,tensor promoted
tune1 /tmp/P.db "$(cfg 128 5 16 1 3)" 512,8192,8192 tensor,tensor promoted
bench1() { # TAG DB TEMPLATES SCALE ACCUM SHAPES...
  local tag=$1 db=$2 tpl=$3 sc=$4 ac=$5; shift 5
  local sh=(); for s in "$@"; do sh+=(--shape $s); done
  W8A8_TUNE=off W8A8_CACHE_PATH= W8A8_CACHE_DB=$db W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$tpl/templates \
    W8A8_KERNEL_DIR=/tmp/k-$tpl timeout 60 $B bench --json --no-cublaslt --graph --scale $sc --accum $ac "${sh[@]}" \
    | sed "s/^{/{\"variant\": \"$tag\", \"round\": $r, /" >> $o/bench.jsonl 2>> $o/err.log
}
for r in 1 2 3; do
  for v in base noload nolds fadd noload_nolds p1; do
    bench1 $v /tmp/A.db $v block,block fast 2048,8192,8192 512,8192,8192
    bench1 $v /tmp/B.db $v block,block fast 2048,8192,8192 4096,4096,7168
  done
  bench1 prom /tmp/P.db base tensor,tensor promoted 2048,8192,8192 512,8192,8192
  echo "round $r $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
