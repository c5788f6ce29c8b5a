#!/usr/bin/env bash
# D2 (H200): where the graph-replay gap to cuBLASLt comes from on per-tensor decode shapes whose
# kernels alone run as fast as cuBLASLt's (D1's ncu). Nsight Systems traces of our graph replays
# (w8a8 bench --graph) and of peers.py's (torch.tensor.fast), kernel by kernel (graph nodes
# traced one by one): each kernel's duration and the gap to the next, as CSV.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty2.db
{ command -v nsys; nsys --version; } >> $o/gpu.txt 2>&1
for s in 1,57344,8192 16,57344,8192 32,8192,28672 256,8192,8192; do
  timeout 120 nsys profile -t cuda --cuda-graph-trace=node -o /tmp/ours-$s -f true \
    carry/static/w8a8 bench --graph --json --shape $s --scale tensor,tensor --no-cublaslt \
    > $o/ours-$s.jsonl 2> $o/ours-$s.err
  echo "nsys ours $s exit $? $SECONDS" >> $o/gpu.txt
  timeout 120 nsys profile -t cuda --cuda-graph-trace=node -o /tmp/torch-$s -f true \
    python3 carry/peers.py --shape $s --providers torch.tensor.fast --budget 20 --out $o/peers-$s.jsonl \
    > $o/torch-$s.log 2>&1
  echo "nsys torch $s exit $? $SECONDS" >> $o/gpu.txt
  for w in ours torch; do
    nsys stats --report cuda_gpu_trace --format csv --output /tmp/$w-$s-trace /tmp/$w-$s.nsys-rep \
      > /dev/null 2>> $o/stats.err
    gzip -c /tmp/$w-$s-trace_cuda_gpu_trace.csv > $o/$w-$s-trace.csv.gz 2>> $o/stats.err
  done
done
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
