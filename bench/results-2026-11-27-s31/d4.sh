#!/usr/bin/env bash
# D4 (H200): plain seeded tunes (rank() with the wave factor, tail offered) of more block keys:
# DeepSeek-V3 4096x7168 at M = 512...4096 (0.972x torch.block at 2048 and 4096 in session 30),
# 24576x1536 at 512...2048, 7168x2048 at 2048 and 4096, and the Llama block keys below
# torch.block in session 30 (512x4096x4096, 256x6144x4096, 256x8192x8192); the shipped rows
# (A) against the winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k4
echo "- 512,4096,7168 1024,4096,7168 2048,4096,7168 4096,4096,7168" > $o/g-block.txt
echo "- 512,24576,1536 1024,24576,1536 2048,24576,1536 2048,7168,2048 4096,7168,2048" >> $o/g-block.txt
echo "- 512,4096,4096 256,6144,4096 256,8192,8192" >> $o/g-block.txt
BUDGET=100 bench/sweep_rows.sh $o/g-block.txt block fast $o/block /tmp/d4-block.db
echo "block $SECONDS" >> $o/gpu.txt
gzip -c /tmp/d4-block.db > $o/block/tune.db.gz
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
