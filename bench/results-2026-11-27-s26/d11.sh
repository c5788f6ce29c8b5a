# D11 (H200): the final build: every GPU suite; the Llama grid at M >= 1024 (per-tensor, per-row:
# D9/D10's rows) and at M <= 512 (four granularities) as graph replays beside peers.py in the
# same call.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_BIN=carry/static \
  W8A8_PACK=1 W8A8_PEERS=carry/peers.py
W8A8_SCALES="tensor,tensor row,row" W8A8_PROVIDERS=torch.tensor.fast,torch.row.fast \
  W8A8_PACK_NAME=grid-large OUT=$o scripts/gpu-session.sh bench-grid:llama3-large
W8A8_SCALES="tensor,tensor row,row int8 block,block" W8A8_PACK_NAME=grid-small OUT=$o \
  scripts/gpu-session.sh bench-grid:llama3-small
ls -la $o
