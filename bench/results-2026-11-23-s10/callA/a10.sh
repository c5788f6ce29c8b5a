#!/usr/bin/env bash
# session 10, device call A (H100): why few-wave per-tensor shapes lose to cuBLASLt.
# ncu (clocks not locked) of ours (shipped cache) and of torch._scaled_mm fast on
# 512/1024/2048x4096x4096 and 512x6144x4096: duration, launch config, kernel name, SOL.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/A; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callA.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,power.limit --format=csv > $L/device.txt 2>&1
B=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$R/empty.db W8A8_CACHE_PATH=$PWD/cache
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for s in 512,4096,4096 1024,4096,4096 2048,4096,4096 512,6144,4096; do
  $B cache explain $s --scale tensor,tensor >> $L/explain.txt 2>&1
  timeout 60 $NCU --clock-control none -k regex:w8a8_sm90 -c 1 --set full --import-source no \
      -o $R/ours-$s $B bench --shape $s --scale tensor --no-cublaslt --samples 1 \
      > $L/ncu-ours-$s.txt 2>&1; note "ours $s" $?
  timeout 90 $NCU --clock-control none -k regex:'gemm|xmma|cutlass|sm90' -c 1 --set full \
      --import-source no -o $R/torch-$s python3 carry/torch_one.py ${s//,/ } \
      > $L/ncu-torch-$s.txt 2>&1; note "torch $s" $?
  for w in ours torch; do
    $NCU -i $R/$w-$s.ncu-rep --print-details all > $L/details-$w-$s.txt 2>&1
  done
done
$NCU -i $R/ours-512,4096,4096.ncu-rep --page source --print-source sass --csv > $L/sass-ours-512.csv 2>&1
$NCU -i $R/torch-512,4096,4096.ncu-rep --page source --print-source sass --csv > $L/sass-torch-512.csv 2>&1
note done 0
