#!/usr/bin/env bash
# Stop the one-node Slurm cluster that scripts/start-slurm.sh started from DIR: cancels its
# jobs, then ends slurmd, slurmctld and munged by the process ids in DIR's pid files.
#
#   scripts/stop-slurm.sh [--dir DIR]      # DIR as given to start-slurm.sh (default
#                                          # $DP_REPRO_SLURM_DIR, else /tmp/dp-repro-slurm)
#
# Leaves DIR (logs, jobcomp.log) for inspection. Exits 0 when none of the three runs any
# more, 1 if one outlived 10 s after SIGTERM, 2 on bad usage.
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin
dir=${DP_REPRO_SLURM_DIR:-/tmp/dp-repro-slurm}
case ${1:-} in
  --dir) [ $# -eq 2 ] || { echo "usage: $0 [--dir DIR]" >&2; exit 2; }; dir=$2 ;;
  '') ;;
  *) echo "usage: $0 [--dir DIR]" >&2; exit 2 ;;
esac
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
if alive "$dir/slurmctld.pid" && command -v scancel >/dev/null; then
  SLURM_CONF=$dir/slurm.conf scancel --user="$(id -un)" 2>/dev/null || true
fi
status=0
for d in slurmd slurmctld munged; do
  pidfile=$dir/$d.pid
  alive "$pidfile" || continue
  pid=$(cat "$pidfile")
  kill "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "stop-slurm: $d (pid $pid) still runs 10 s after SIGTERM" >&2
    status=1
  else
    echo "stop-slurm: stopped $d (pid $pid)" >&2
  fi
done
exit $status
