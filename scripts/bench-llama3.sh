#!/usr/bin/env bash
# The Llama-3.1 grid side by side with ../shared/bench/peers.py (copied to carry/peers.py),
# on a GPU host, over build/static. Writes JSON lines to $OUT (or ./gpu-out):
#   ours-{tensor,row,int8}.jsonl, peers.jsonl for M >= 512; ours-small.jsonl, peers-small.jsonl
# for M < 512 (per-tensor only). scripts/ratios.py turns them into the table of ratios.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
w8a8=build/static/w8a8
peers=carry/peers.py
big="" small=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do big="$big --shape $m,$nk"; done
  for m in 1 16 64 128 256; do small="$small --shape $m,$nk"; done
done
t0=$SECONDS
$w8a8 bench --json --no-cublaslt $big > "$out/ours-tensor.jsonl"; echo "ours tensor $((SECONDS - t0)) s"
python3 $peers --providers torch.tensor,torch.row,torch.int8 $big --out "$out/peers.jsonl"; echo "peers $((SECONDS - t0)) s"
$w8a8 bench --json --no-cublaslt --scale row,row $big > "$out/ours-row.jsonl"; echo "ours row $((SECONDS - t0)) s"
$w8a8 bench --json --no-cublaslt --dtype int8 $big > "$out/ours-int8.jsonl"; echo "ours int8 $((SECONDS - t0)) s"
$w8a8 bench --json --no-cublaslt $small > "$out/ours-small.jsonl"; echo "ours small $((SECONDS - t0)) s"
python3 $peers --providers torch.tensor $small --out "$out/peers-small.jsonl"; echo "peers small $((SECONDS - t0)) s"
