#!/usr/bin/env bash
# Z5 (session 22, H200): where the block scales come from. Z4: bulk copies issued by the TMA
# producer thread (carry/static as built, scale_bulk) were 8 % slower than the scale loader
# warps (carry/old). Two more ways, as template variants of the same build
# (W8A8_TEMPLATE_DIR=carry/tpl/V; the host passes scale_bulk=1 for these layouts):
#   direct  the consumers load every scale from global memory (__ldg) before each K block's
#           wgmmas; no loader warps, no scale copies at all
#   bulka   the producer bulk-copies the A scales (one copy a stage), the consumers load the
#           B scales from global memory
# Block scales, shipped caches, Llama M = 128/256/512 and DeepSeek-V3 M = 128 ... 4096 (54
# shapes), each build a whole list in one process, order old bulk direct bulka, then reversed;
# a --verify pass of each variant on 3 shapes; torch.block once.
set -u
o=$(mktemp -d)/z5; mkdir -p $o
pk() { tar czf $OUT/z5.tgz -C $(dirname $o) z5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/z5-empty.db
run() { # variant round
  bin=carry/static/w8a8; td=""
  [ $1 = old ] && bin=carry/old/w8a8
  case $1 in direct|bulka) td="W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1";; esac
  env $td W8A8_KERNEL_DIR=/tmp/kz5-$1 timeout 150 $bin bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
for v in old bulk direct bulka; do run $v 1; done; pk
for v in bulka direct bulk old; do run $v 2; done; pk
for v in direct bulka; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kz5-$v timeout 100 carry/static/w8a8 bench --verify --json --no-cublaslt \
    --shape 1001,2112,7168 --shape 512,4096,14336 --shape 129,7168,2048 --scale block > $o/verify-$v.jsonl 2>&1
  echo "verify $v $? $SECONDS" >> $o/summary.txt
done
timeout 150 python3 carry/peers.py $(args "$S $D") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt
pk
