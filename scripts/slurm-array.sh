#!/usr/bin/env bash
# Run a dp-repro spec as a Slurm job array of N shards, then merge the shards.
#
#   scripts/slurm-array.sh SPEC N [extra `dp-repro run` options, e.g. --data-dir DIR]
#
# Array task i runs `dp-repro run SPEC --shard i/N --out OUT/shard-i`; a job that depends
# on the whole array runs `dp-repro merge OUT/shard-* --out OUT` and renders the tables.
# If a shard fails, Slurm cancels the merge job (reason DependencyNeverSatisfied) instead of
# leaving it pending; running the same command again resubmits everything, and each shard
# resumes from its runs.csv (finished shards end at once).
#
# Environment: DP_REPRO_BIN (default target/release/dp-repro), OUT (default
# results/<spec file stem>), CPUS (cores per array task, default 4), SBATCH_ARGS (extra
# sbatch options such as a partition or time limit).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 SPEC N [dp-repro run options]" >&2
  exit 2
fi
spec=$1
n=$2
shift 2
case $n in '' | *[!0-9]* | 0) echo "$0: N must be a positive integer, got '$n'" >&2; exit 2 ;; esac
[ -f "$spec" ] || { echo "$0: no spec file '$spec'" >&2; exit 2; }
bin=${DP_REPRO_BIN:-target/release/dp-repro}
out=${OUT:-results/$(basename "$spec" .yaml)}
cpus=${CPUS:-4}
extra=""
for a in "$@"; do extra="$extra $(printf '%q' "$a")"; done
# `validate` takes the data and manifest folders of the run options; `merge` the manifests.
validate_args=()
merge_extra=""
prev=""
for a in "$@"; do
  case $prev in
    --data-dir) validate_args+=(--data-dir "$a") ;;
    --manifests) validate_args+=(--manifests "$a"); merge_extra="$merge_extra --manifests $(printf '%q' "$a")" ;;
  esac
  case $a in
    --data-dir=*) validate_args+=("$a") ;;
    --manifests=*) validate_args+=("$a"); merge_extra="$merge_extra $(printf '%q' "$a")" ;;
  esac
  prev=$a
done

"$bin" validate "$spec" "${validate_args[@]}" >/dev/null
mkdir -p "$out"
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=dp-repro --array="1-$n" --cpus-per-task="$cpus" \
  --output="$out/slurm-%A_%a.log" \
  --wrap "$(printf '%q' "$bin") run $(printf '%q' "$spec") --quiet --jobs $cpus --shard \${SLURM_ARRAY_TASK_ID}/$n --out $(printf '%q' "$out")/shard-\${SLURM_ARRAY_TASK_ID}$extra")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=dp-repro-merge --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/slurm-merge-%j.log" \
  --wrap "$(printf '%q' "$bin") merge $(printf '%q' "$out")/shard-* --out $(printf '%q' "$out")$merge_extra")
echo "submitted array job $array ($n shards) and merge job ${merge%%;*}; results in $out"
