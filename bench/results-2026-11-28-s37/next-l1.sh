#!/usr/bin/env bash
# PREPARED FOR THE NEXT SESSION, NOT RUN (session 37 had no device time left).
# l1-scales.patch (each lane prefetches its warp tile's per-row / per-column scale lines into
# L1 before sm80_gemm's main loop) against HEAD's templates, the D3 way: the same binary, HEAD's
# templates through a wrapper. Setup on the host, from the repository root:
#   mkdir -p carry/tpl/base carry/oldw && git archive HEAD templates | tar x -C carry/tpl/base
#   printf '%s\n' '#!/usr/bin/env bash' 'd=$(cd "$(dirname "$0")/.." && pwd)' \
#     'W8A8_TEMPLATE_DIR=$d/tpl/base/templates exec "$d/static/w8a8" "$@"' > carry/oldw/w8a8
#   chmod +x carry/oldw/w8a8 && patch -p1 < bench/results-2026-11-28-s37/l1-scales.patch
#   then the static-deps build into carry/static (its binary embeds the patched templates).
# If it pays, keep the patch and run issue 14's figures (d4.sh's sm80 step) and the sm80 suite.
o=$OUT/l1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
SM80_AB_NCU=0 SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1" \
  SM80_AB_SHAPES="2048,4096,4096 4096,4096,4096 2048,6144,4096 8192,28672,4096 4096,8192,8192" \
  OUT=$o timeout 300 bench/sm80_ab.sh carry/oldw carry/static > $o/ab.log 2>&1
echo "ab exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/l1.tgz -C $OUT l1 && rm -rf $o
