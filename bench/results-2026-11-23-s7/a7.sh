#!/usr/bin/env bash
# session 7, device call A (H100): issue 11's overlapped block promotion.
# (1) the block tcase of check_gpu_sm90 (overlap configs on odd shapes, odd K block counts);
# (2) a cold tune of the DeepSeek-V3 block keys at M >= 64; (3) compare.py --grid dsv3 beside
# torch.block with that database; (4) what overlap=1 and specialize=1 are worth from the tuner's
# measurements; (5) ncu of the 512x4096x7168 winner; (6) the corrected mma.sync peak.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
L=/tmp/A/logs; mkdir -p $L
pk() { tar czf "$OUT/callA.tgz" -C /tmp/A logs; }
B=$PWD/carry/static/w8a8
T0=$SECONDS
note() { echo "$1 exit $2 at $((SECONDS - T0)) s" >> $L/summary.txt; pk; }
nvidia-smi > $L/nvidia-smi.txt 2>&1
( cd /tmp/A && W8A8_KERNEL_DIR=/tmp/A/k-test CK_FORK=no CK_RUN_CASE=block timeout 150 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-block.log 2>&1 ); note test $?
export W8A8_KERNEL_DIR=/tmp/A/k W8A8_CACHE_DB=$L/dsv3.db W8A8_CACHE_PATH=$PWD/cache
timeout 250 $B tune --model deepseek-v3 --m 64,128,512,1024,2048,4096 --budget 200 \
    > $L/tune-dsv3.log 2>&1; note tune $?
timeout 120 python3 bench/compare.py --grid dsv3 --min-m 64 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3 > $L/compare-dsv3.txt 2>&1; note compare $?
python3 bench/param_wins.py $L/dsv3.db overlap 1 > $L/overlap-wins.txt 2>&1
python3 bench/param_wins.py $L/dsv3.db specialize 1 > $L/specialize-wins.txt 2>&1
$B cache explain 512,4096,7168 --scale block,block > $L/explain.txt 2>&1; pk
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] && timeout 90 $NCU --clock-control none -k regex:w8a8_sm90 -c 1 \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section SchedulerStats \
    $B bench --shape 512,4096,7168 --scale block,block --no-cublaslt --samples 1 \
    > $L/ncu-512x4096x7168.txt 2>&1; note ncu $?
timeout 60 $B bench --op mma-peak --json > $L/sm80-peak.jsonl 2>> $L/sm80.log; note peak $?
