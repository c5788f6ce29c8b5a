#!/usr/bin/env bash
# Tunes a model's keys on many GPU hosts as a Slurm job array: task I of N tunes keys I, I+N, …
# (`w8a8 tune --shard I/N`) on every GPU Slurm gave it (`--devices`), into its own database;
# a job that depends on the array merges the shards into one (`w8a8 cache merge`). Every host
# compiles its own kernels (the cubin store is per host unless W8A8_KERNEL_DIR is shared).
#
#   export W8A8=/opt/w8a8jit/bin/w8a8 MODEL=llama3-8b TUNE_DIR=/shared/w8a8-tune BUDGET=600
#   jid=$(sbatch --parsable --array=0-7 --gpus-per-node=8 scripts/slurm-tune.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#     "$W8A8 cache merge $TUNE_DIR/merged.db $TUNE_DIR/shard-*.db"
#   $W8A8 cache --db $TUNE_DIR/merged.db export tuned.sql --winners   # to ship
#
# Environment: W8A8 (the command, default w8a8 on PATH), MODEL (default llama3-8b), TUNE_DIR
# (where the shard databases go; shared between the hosts), BUDGET (seconds per task, default
# 600), TUNE_ARGS (more `w8a8 tune` options, e.g. "--scale row,row"). Slurm sets the array
# variables; run by hand, SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1 tunes everything.
#SBATCH --job-name=w8a8-tune
#SBATCH --nodes=1
#SBATCH --time=01:00:00
set -euo pipefail

w8a8="${W8A8:-w8a8}"
index="${SLURM_ARRAY_TASK_ID:?run through sbatch --array, or set SLURM_ARRAY_TASK_ID}"
count="${SLURM_ARRAY_TASK_COUNT:?run through sbatch --array, or set SLURM_ARRAY_TASK_COUNT}"
dir="${TUNE_DIR:?set TUNE_DIR to a folder every host can write}"
mkdir -p "$dir"

# Slurm renumbers the GPUs it grants from 0 (CUDA_VISIBLE_DEVICES): use them all.
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -lt 1 ]; then
  echo "slurm-tune: no GPU on $(hostname)" >&2
  exit 1
fi
devices=$(seq -s, 0 $((gpus - 1)))

# shellcheck disable=SC2086
exec "$w8a8" tune --model "${MODEL:-llama3-8b}" --shard "$index/$count" --devices "$devices" \
  --budget "${BUDGET:-600}" --db "$dir/shard-$index.db" ${TUNE_ARGS:-}
