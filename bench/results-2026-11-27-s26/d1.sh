# D1 (H200): the standings not measured lately, shipped caches as committed, ours as CUDA-graph
# replays beside peers.py in the same call: the DeepSeek-V3 grid at every M of peers.py's (1 ... 4096,
# block scales; issue 11's acceptance 1 counts M >= 512), and the Llama grid at M >= 1024 in the
# four granularities (issue 10's acceptance 3; session 16's E8 is the "before").
o=$OUT
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_BIN=carry/static \
  W8A8_PACK=1 W8A8_PEERS=carry/peers.py
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W8A8_PROVIDERS=torch.block W8A8_PACK_NAME=grid-dsv3 OUT=$o scripts/gpu-session.sh bench-grid:dsv3
W8A8_SCALES="tensor,tensor row,row int8 block,block" W8A8_PACK_NAME=grid-large OUT=$o \
  scripts/gpu-session.sh bench-grid:llama3-large
ls -la $o
