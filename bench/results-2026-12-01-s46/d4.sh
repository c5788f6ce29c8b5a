#!/usr/bin/env bash
# D4 (H200), the closing call: bench/closing_call.sh's two steps with the time split for a
# 600 s command (the grids beside peers.py on the shipped caches, 20-call graph replays on
# both sides; then every GPU suite, the swap suite and check_gpu_sm90's wide tcase with the
# block_k and cluster configs), packed into $OUT/d4.tgz after each step.
o=$OUT/d4; mkdir -p "$o"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv \
  > "$o/gpu.txt" 2>&1
timeout 215 bench/grids_beside_peers.sh "$o" > "$o/grids.log" 2>&1
echo "grids exit $? $SECONDS" >> "$o/gpu.txt"
tar czf "$OUT/d4.tgz" -C "$OUT" d4
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=350 timeout 360 \
  scripts/gpu-session.sh tests > "$o/tests.log" 2>&1
echo "tests exit $? $SECONDS" >> "$o/gpu.txt"
tar czf "$OUT/d4.tgz" -C "$OUT" d4
