#!/usr/bin/env bash
# D2 (H200): block_n off the space's list. The space offers block_n 8..256 in steps of 16 past
# 32 (and 24); wgmma takes any multiple of 8 for FP8. DeepSeek-V3's N are 7168 = 56 · 128
# (56-, 112-, 224-column tiles divide it), 2112 = 88 · 24. For each block-scaled key at
# M = 64 and 128 (the DeepGEMM comparison's), its shipped config with block_n every multiple
# of 8 from 16 to 192, stages {shipped, 4, 6, 8}, block_m {64, 128} and pingpong {0, 1} (a
# space narrowed to them,
# bench/narrow_space.py), tuned (every candidate verified), then the shipped rows (A) against
# the tunes' winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d2; mkdir -p $o/spaces
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k2
python3 - "$o" <<'PY'
import subprocess, sys
o = sys.argv[1]
shipped = {
    "64,2112,7168": "block_m=64,block_n=80,stages=7,consumers=1,pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=4,specialize=1,overlap=0,stagger=0",
    "128,2112,7168": "block_m=128,block_n=32,stages=8,consumers=2,pingpong=0,raster=0,group=1,cluster=1,epilogue=1,split=2,specialize=1,overlap=0,stagger=0",
    "128,24576,1536": "block_m=128,block_n=96,stages=7,consumers=2,pingpong=0,raster=0,group=4,cluster=1,epilogue=1,split=1,specialize=1,overlap=1,stagger=1",
    "128,32768,512": "block_m=128,block_n=128,stages=4,consumers=2,pingpong=0,raster=1,group=8,cluster=1,epilogue=1,split=1,specialize=0,overlap=0,stagger=1",
    "128,7168,16384": "block_m=128,block_n=112,stages=5,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=2,split=2,specialize=1,overlap=0,stagger=0",
    "128,4096,7168": "block_m=128,block_n=64,stages=7,consumers=2,pingpong=0,raster=1,group=1,cluster=1,epilogue=1,split=2,specialize=1,overlap=0,stagger=0",
    "64,7168,2048": "block_m=64,block_n=64,stages=8,consumers=2,pingpong=1,raster=0,group=16,cluster=1,epilogue=1,split=1,specialize=1,overlap=3,stagger=0",
    "128,7168,2048": "block_m=64,block_n=112,stages=8,consumers=2,pingpong=1,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=1,overlap=3,stagger=0",
}
groups = open(o + "/groups.txt", "w")
for i, (shape, config) in enumerate(shipped.items()):
    c = dict(kv.split("=") for kv in config.split(","))
    c.setdefault("wave", "0")
    c["tail"] = "1"
    c["block_n"] = "/".join(str(n) for n in range(16, 193, 8))
    c["stages"] = "/".join(sorted({c["stages"], "4", "6", "8"}, key=int))
    c["block_m"], c["pingpong"] = "64/128", "0/1"  # 128 cooperative, 64 or 128 ping-pong
    spec = ",".join("%s=%s" % kv for kv in c.items())
    path = "%s/spaces/k%d.lua" % (o, i)
    with open(path, "w") as f:
        f.write(subprocess.check_output(["python3", "bench/narrow_space.py",
                                         "scripts/sm90_gemm.lua", spec], text=True))
    groups.write("%s %s\n" % (path, shape))
PY
BUDGET=${D2_BUDGET:-45} CHUNK=8 bench/sweep_rows.sh $o/groups.txt block fast $o/block /tmp/d2-block.db
echo "block $SECONDS" >> $o/gpu.txt
gzip -c /tmp/d2-block.db > $o/block/tune.db.gz
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
