#!/usr/bin/env bash
# D3 (H200): cuBLASLt's block-scaled main loop (D2's SASS) promotes with one temporary set and
# no overlap, its two consumer warpgroups taking turns issuing through a named barrier: our
# stagger=1 with overlap 0. A plain tune has not offered stagger above M = 128 since session 24
# (then 1.049x slower). Here: the shipped rows of D1's 17 keys (base.sql, the cache as of this
# call) against the same rows with stagger=1 and overlap 0 (st0.sql) or 1 (st1.sql), tail 1,
# graph replays in rounds base st0 st1 st1 st0 base.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k-d3
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
# (ran with variants.sh's lines inline, commit f7283e7; folded into it since)
bench/results-2026-11-29-s42/variants.sh $o st0:stagger=1,overlap=0,tail=1 \
  st1:stagger=1,overlap=1,tail=1
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
