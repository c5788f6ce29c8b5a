#!/usr/bin/env bash
# D2 (H200): (1) which cuBLASLt kernels torch._scaled_mm runs on the Llama / DeepSeek-V3
# shapes where it still beats our shipped rows (cublas_kernels.py); (2) a deeper tune of six
# of those keys (the named sm90_gemm space, its 128 best-ranked configs a key plus the shipped
# winners, --settle 100) into a fresh database; (3) the shipped rows (base) against the tuned
# ones (new), graph replays, rounds base new new base, with peers.py on the same shapes between.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k-d2
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=carry/static/w8a8
# (cublas_kernels.py: an ad-hoc twin of bench/cublas_kernels.py, deleted since; git show 62572ee)
python3 bench/results-2026-11-29-s41/cublas_kernels.py 256,8192,8192 512,4096,14336 \
  512,7168,16384 128,7168,2048 512,4096,4096 4096,4096,7168 128,6144,4096 > $o/kernels.txt 2>&1
echo "kernels $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
tune() { # scale shapes...
  local s=$1; shift
  W8A8_CACHE_DB=$o/t.db timeout 150 $W tune --space scripts/sm90_gemm.lua --seed --dtype e4m3 \
    --scale $s,$s "$@" --max-candidates 128 --budget 120 --settle 100 --json \
    >> $o/tune-$s.jsonl 2>> $o/tune.err
  echo "tune $s exit $? $SECONDS" >> $o/gpu.txt
}
tune tensor --shape 256,8192,8192 --shape 512,4096,14336
tune row --shape 256,8192,8192
tune block --shape 256,8192,8192 --shape 512,4096,14336 --shape 512,7168,16384
tar czf $OUT/d2.tgz -C $OUT d2
one() { # label round
  local db=/tmp/empty-d2.db; [ $1 = new ] && db=$o/t.db
  W8A8_CACHE_DB=$db $W bench --shape 256,8192,8192 --shape 512,4096,14336 --scale tensor,tensor \
    --graph --no-cublaslt --json > $o/$1-t-r$2.jsonl 2>> $o/err.txt
  W8A8_CACHE_DB=$db $W bench --shape 256,8192,8192 --scale row,row \
    --graph --no-cublaslt --json > $o/$1-r-r$2.jsonl 2>> $o/err.txt
  W8A8_CACHE_DB=$db $W bench --shape 256,8192,8192 --shape 512,4096,14336 --shape 512,7168,16384 \
    --scale block,block --graph --no-cublaslt --json > $o/$1-b-r$2.jsonl 2>> $o/err.txt
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one new 1
python3 carry/peers.py --shape 256,8192,8192 --shape 512,4096,14336 --shape 512,7168,16384 \
  --providers torch.tensor.fast,torch.row.fast,torch.block --out $o/peers.jsonl >> $o/err.txt 2>&1
one new 2; one base 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base new t r b > $o/table.txt 2>&1
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
