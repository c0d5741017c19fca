#!/usr/bin/env bash
# Start a one-node Slurm cluster on this machine (munged, slurmctld, slurmd), for trying
# scripts/slurm-array.sh and for its test (tests/slurm_real.rs). Works without systemd or
# cgroups (containers): processes are tracked through /proc, tasks are not confined.
#
#   scripts/start-slurm.sh [--dir DIR] [--port P] [--no-install]
#   eval "$(scripts/start-slurm.sh)"        # sbatch, squeue, sinfo then talk to it
#   scripts/start-slurm.sh --check          # exit 0 if installed, 3 (naming what lacks) if not
#   scripts/start-slurm.sh --install        # install what lacks, start nothing
#   scripts/stop-slurm.sh [--dir DIR]
#
# Installs Debian's `slurm-wlm` and `munge` with apt-get when a program is missing (as root;
# --no-install forbids it). Everything else lives in DIR (default /tmp/dp-repro-slurm): the
# munge key and socket, slurm.conf, state, spool, logs (DIR/log/*.log, finished jobs in
# DIR/log/jobcomp.log) and pid files. slurmctld listens on 127.0.0.1:P (default 6817) and
# slurmd on P+1. The node is this host (`hostname -s`) with the CPUs and memory `slurmd -C`
# reads off the machine, in one default partition `main`; the daemons and jobs run as the
# calling user. Prints one line on stdout, `export SLURM_CONF=DIR/slurm.conf`; progress and
# errors go to stderr. Exits 0 once `sinfo` shows the node idle, 1 if a step failed (with the
# daemon's log), 2 on bad usage, 3 if programs are missing and may not be installed.
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin
dir=${DP_REPRO_SLURM_DIR:-/tmp/dp-repro-slurm}
port=6817
install=1
check_only=0
install_only=0
usage() { echo "usage: $0 [--dir DIR] [--port P] [--no-install] [--check | --install]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --dir) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
    --port) [ $# -ge 2 ] || usage; port=$2; shift 2 ;;
    --no-install) install=0; shift ;;
    --check) check_only=1; shift ;;
    --install) install_only=1; shift ;;
    *) usage ;;
  esac
done
case $port in '' | *[!0-9]*) echo "$0: --port must be a number, got '$port'" >&2; exit 2 ;; esac
say() { echo "start-slurm: $*" >&2; }
fail() { say "$*"; exit 1; }

programs="munged munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel"
missing() { for p in $programs; do command -v "$p" >/dev/null || printf '%s ' "$p"; done; }
lack=$(missing)
if [ -n "$lack" ]; then
  if [ "$check_only" = 1 ] || [ "$install" = 0 ]; then
    say "not installed: $lack(Debian packages slurm-wlm and munge; $0 installs them as root)"
    exit 3
  fi
  [ "$(id -u)" = 0 ] || { say "not installed: $lack; run as root to install slurm-wlm and munge"; exit 3; }
  say "installing slurm-wlm and munge (missing: $lack)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends slurm-wlm munge >&2 ||
    { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends slurm-wlm munge >&2; } ||
    fail "apt-get could not install slurm-wlm and munge"
  lack=$(missing)
  [ -z "$lack" ] || fail "still missing after the install: $lack"
fi
if [ "$check_only" = 1 ] || [ "$install_only" = 1 ]; then say "installed: $programs"; exit 0; fi

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
for d in munged slurmctld slurmd; do
  if alive "$dir/$d.pid"; then
    fail "$d already runs from $dir (pid $(cat "$dir/$d.pid")); stop it first: scripts/stop-slurm.sh --dir $dir"
  fi
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
# munged wants its socket folder searchable by all and writable by none but its owner.
chmod 0755 "$dir"
chmod 0755 "$dir/munge"
chmod 0700 "$dir/state" "$dir/spool"
user=$(id -un)
host=$(hostname -s)

# MUNGE: a fresh key, and a daemon of our own on a socket in DIR.
socket=$dir/munge/munge.socket
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" ||
  fail "munged did not start: $(tail -5 "$dir/log/munged.log" 2>/dev/null)"
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null ||
  fail "munge does not answer on $socket: $(tail -5 "$dir/log/munged.log")"

# The node as slurmd sees the machine: CPUs, sockets, cores, threads, memory.
hw=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
case $hw in *CPUs=*RealMemory=*) ;; *) fail "slurmd -C printed no node description: '$hw'" ;; esac
cat >"$dir/slurm.conf" <<EOF
# Written by scripts/start-slurm.sh: a one-node cluster on $host for tests.
ClusterName=dp-repro
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No systemd, no cgroups in a container: track processes through /proc, confine nothing.
# (With proctrack/cgroup under gVisor, slurmstepd aborts for want of a freezer cgroup and
# the job is still reported COMPLETED with exit code 0 without having run.)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# Refuse at submission a job the node can never run (more CPUs than it has, say) instead
# of leaving it pending with reason PartitionConfig.
EnforcePartLimits=ALL
MpiDefault=none
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf

# -c: start from empty state, -i: ignore state that would not load.
slurmctld -c -i -f "$SLURM_CONF" || fail "slurmctld did not start: $(tail -20 "$dir/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start: $(tail -20 "$dir/log/slurmd.log" 2>/dev/null)"
say "waiting for node $host to be idle"
state=""
for _ in $(seq 120); do
  state=$(sinfo -h -N -n "$host" -o '%T' 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  say "node $host is '${state:-unknown}' after 60 s, not idle"
  for l in slurmctld slurmd; do say "--- $dir/log/$l.log (last lines)"; tail -20 "$dir/log/$l.log" >&2 || true; done
  exit 1
fi
say "node $host idle: $(sinfo -h -N -n "$host" -o '%c CPUs, %m MB')"
echo "export SLURM_CONF=$SLURM_CONF"
