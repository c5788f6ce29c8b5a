#!/usr/bin/env bash
# sm80_gemm, two builds side by side on a lent GPU: the same INT8 configs (scripts/sm80_gemm.lua
# narrowed by bench/narrow_space.py to the large tiles that M >= 2048 wants) timed by `w8a8
# tune --space` of each build at 4096×4096×4096 and 4096×28672×4096 (SM80_AB_SHAPES: other
# M,N,K shapes, space-separated), two rounds interleaved,
# then Nsight Compute on the NEW build's best config at 4096³ (when ncu reads counters there;
# SM80_AB_NCU=0: not).
#   bench/sm80_ab.sh OLD_BIN_DIR NEW_BIN_DIR     (folders holding w8a8; e.g. carry/old carry/static)
# SM80_AB_ARGS replaces the problem's options (default: --dtype int8 --scale row).
# Each build gets the space of its own time: OLD_BIN_DIR/sm80_gemm.lua when there (a build from
# before a parameter existed rejects configs that name it), else scripts/sm80_gemm.lua.
# Logs packed into $OUT/sm80-ab.tgz: {old,new}.jsonl (every measurement), table.txt (per config
# and shape: µs of each build, new/old speed; the new build's prefetch 1 and persist 1 against
# the same config with 0), ncu.txt.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
unset W8A8_CACHE_PATH
old=$1/w8a8 new=$2/w8a8
state=$PWD/build/sm80-ab
logs=$state/logs
out=${OUT:-$state/out}
rm -rf "$state" && mkdir -p "$logs" "$out"
pack() { tar czf "$out/sm80-ab.tgz" -C "$logs" .; }
old_lua=scripts/sm80_gemm.lua
[ -f "$1/sm80_gemm.lua" ] && old_lua=$1/sm80_gemm.lua
# the large tiles that M >= 2048 wants (a name an older space lacks is dropped);
# SM80_AB_CONFIGS replaces the list (bench/narrow_space.py's NAME=V/V,... form)
narrowed="block_m=128/256,block_n=128/256,block_k=64/128,stages=3/4,warps_m=2/4,warps_n=2/4"
narrowed="$narrowed,slice_k=1,group=8,prefetch=0/1,epilogue=0/1"
narrowed=${SM80_AB_CONFIGS:-$narrowed}
python3 bench/narrow_space.py "$old_lua" "$narrowed" > "$state/fixed-old.lua" &&
  python3 bench/narrow_space.py scripts/sm80_gemm.lua "$narrowed" > "$state/fixed-new.lua" ||
  exit 2
shapes=""
for s in ${SM80_AB_SHAPES:-4096,4096,4096 4096,28672,4096}; do shapes="$shapes --shape $s"; done
for round in 1 2; do
  for b in old new; do
    bin=$old; [ $b = new ] && bin=$new
    W8A8_CACHE_DB=$state/$b-$round.db W8A8_KERNEL_DIR=$state/k-$b timeout 200 "$bin" tune \
      --space "$state/fixed-$b.lua" ${SM80_AB_ARGS:---dtype int8 --scale row} $shapes --json \
      > "$logs/$b-$round.jsonl" 2> "$logs/$b-$round.err"
    echo "$b round $round exit $? at $SECONDS s" >> "$logs/summary.txt"
    pack
  done
done
python3 - "$logs" <<'PY' > "$logs/table.txt"
import json, sys, collections
logs = sys.argv[1]
t = collections.defaultdict(dict)
for b in ("old", "new"):
    for r in (1, 2):
        for line in open("%s/%s-%d.jsonl" % (logs, b, r)):
            x = json.loads(line)
            if x.get("type") == "measurement" and x.get("us", -1) > 0:
                # builds before `prefetch` / `epilogue` / `persist` name no such field: its 0
                # is theirs
                config = ",".join(i for i in x["config"].split(",")
                                  if i not in ("prefetch=0", "epilogue=0", "persist=0"))
                key = (x["m"], x["n"], x["k"], config)
                t[key][b] = min(t[key].get(b, 1e30), x["us"])
rows = sorted((k, v) for k, v in t.items() if "old" in v and "new" in v)
# the new build's prefetch 1 and persist 1 against its own 0 of the same config
for name in ("prefetch", "persist"):
    for (m, n, k, c), v in sorted(t.items()):
        twin = c.replace(",%s=1" % name, "")
        if twin != c and "new" in v and "new" in t.get((m, n, k, twin), {}):
            base = t[(m, n, k, twin)]["new"]
            print("%5d %6d %6d  %s 0 %9.1f us  %s 1 %9.1f us  speed %.3f  %s"
                  % (m, n, k, name, base, name, v["new"], base / v["new"], twin))
best = {}
for (m, n, k, c), v in rows:
    print("%5d %6d %6d  old %9.1f us  new %9.1f us  new/old speed %.3f  %s"
          % (m, n, k, v["old"], v["new"], v["old"] / v["new"], c))
for (m, n, k, c), v in t.items():
    for b in v:
        if (m, n, k, b) not in best or v[b] < best[(m, n, k, b)][0]:
            best[(m, n, k, b)] = (v[b], c)
for (m, n, k, b), (us, c) in sorted(best.items()):
    print("best %s %dx%dx%d: %.1f us = %.1f TOPS  %s"
          % (b, m, n, k, us, 2 * m * n * k / us / 1e6, c))
PY
cat "$logs/table.txt" | tail -8
if [ "${SM80_AB_NCU:-1}" = 1 ] && command -v ncu > /dev/null; then
  W8A8_CACHE_DB=$state/new-1.db W8A8_KERNEL_DIR=$state/k-new timeout 240 ncu --clock-control none \
    --kernel-name w8a8_sm80_gemm --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section Occupancy --section LaunchStats \
    "$new" bench --shape 4096,4096,4096 --dtype int8 --scale row --no-cublaslt --samples 5 \
    > "$logs/ncu.txt" 2>&1
  echo "ncu exit $? at $SECONDS s" >> "$logs/summary.txt"
fi
pack
