# D2 (H200): issue 14's acceptance 2 on the whole Llama grid (8 (N, K) at M = 2048, 4096, 8192 and
# M = 1, 8, 16), with torch._int_mm (CUTLASS's sm80 INT8 kernels) on the same shapes and the
# mma.sync peak in the same call; and, for issue 11's 1.3x target, torch's unscaled-FP8 paths
# (torch.tensor.fast, torch.row.fast) on the DeepSeek-V3 grid at M >= 512 beside torch.block.
o=$OUT
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 \
  W8A8_PEERS=carry/peers.py
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W8A8_BUDGET=300 W8A8_PACK_NAME=sm80 OUT=$o scripts/gpu-session.sh sm80-peak+sm80-tune:int8
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 512 1024 2048 4096; do shapes="$shapes --shape $m,$nk"; done
done
python3 carry/peers.py --providers torch.block,torch.tensor.fast,torch.row.fast $shapes \
  --out $o/peers-dsv3-fp8.jsonl > $o/peers-dsv3-fp8.log 2>&1
ls -la $o
