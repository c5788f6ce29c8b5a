#!/usr/bin/env bash
# D7 (H200): why PDL slows 256x4096x14336 per-tensor (D3: 26.8 us on, 25.1 off). The shipped
# rows (graph replays) with PDL on, PDL on without sm90_gemm's early trigger (notrig.patch:
# the producer's launch_dependents after its last load removed, so dependents launch as the
# CTAs exit; carry/ntw wraps carry/static with those templates), and PDL off; two rounds in the
# order base, notrig, off, off, notrig, base. Then, where nsys exists, a kernel trace of the
# shape with PDL on and off (kernel durations and gaps).
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
S="256,4096,14336 256,4096,4096 128,6144,4096 64,4096,14336 256,8192,8192 512,10240,8192 16,8192,28672 32,8192,8192"
sh=""; for s in $S; do sh="$sh --shape $s"; done
one() { # label bin pdl kdir round
  for sc in tensor,tensor row,row; do
    W8A8_KERNEL_DIR=/tmp/k-$1 W8A8_PDL=$3 $2 bench $sh --dtype e4m3 --scale $sc --graph --no-cublaslt --json \
      > $o/$1-$sc-r$4.jsonl 2>> $o/err.txt
  done
}
for r in 1 2; do
  if [ $r = 1 ]; then order="base notrig off"; else order="off notrig base"; fi
  for v in $order; do
    case $v in
      base) one base carry/static/w8a8 1 $r ;;
      notrig) one notrig carry/ntw/w8a8 1 $r ;;
      off) one off carry/static/w8a8 0 $r ;;
    esac
  done
  echo "round $r $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d7.tgz -C $OUT d7
N=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${N:-none}" >> $o/gpu.txt
if [ -n "$N" ]; then
  for p in 1 0; do
    W8A8_KERNEL_DIR=/tmp/k-base W8A8_PDL=$p timeout 60 $N profile -o $o/pdl$p --force-overwrite true \
      carry/static/w8a8 bench --shape 256,4096,14336 --dtype e4m3 --scale tensor,tensor --graph --no-cublaslt \
      > $o/nsys$p.log 2>&1
    timeout 60 $N stats --report cuda_gpu_trace --format csv -o $o/trace$p $o/pdl$p.nsys-rep >> $o/nsys$p.log 2>&1
    rm -f $o/pdl$p.nsys-rep $o/pdl$p.sqlite
    gzip -f $o/trace$p*.csv 2>/dev/null
  done
fi
echo "done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
