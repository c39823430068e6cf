#!/usr/bin/env bash
# A real Slurm cluster of 4 nodes on this one machine, for the fleet tests and
# for trying `carmbench fleet` without a cluster. Debian's slurmctld, slurmd,
# slurm-client and munge; Slurm's multiple-slurmd support runs one slurmd per
# node name (n1..n4) on its own port. Everything (configuration, state, logs,
# pids, munge key and socket) lives in one directory, outside systemd.
#
#   eval "$(scripts/slurm-local.sh up [DIR])"    # prints: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm-local.sh down [DIR]
#
# DIR defaults to ${TMPDIR:-/tmp}/carmbench-slurm-$(id -un).
set -euo pipefail
# The daemons live in sbin, which a user's PATH may lack.
export PATH="$PATH:/usr/sbin:/sbin"

cmd=${1:-}
dir=${2:-${TMPDIR:-/tmp}/carmbench-slurm-$(id -un)}
nodes=4
ctld_port=17000
first_port=17001

need() {
    for p in "$@"; do
        command -v "$p" >/dev/null 2>&1 && continue
        echo "slurm-local: $p not found; as root: apt-get install slurmctld slurmd slurm-client munge" >&2
        exit 1
    done
}

down() {
    [ -f "$dir/slurm.conf" ] || return 0
    SLURM_CONF="$dir/slurm.conf" scontrol shutdown >/dev/null 2>&1 || true
    # Whatever did not stop within 5 s, by its pid file.
    for _ in $(seq 50); do
        alive=0
        for f in "$dir"/run/slurm*.pid; do
            [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
        done
        [ $alive -eq 0 ] && break
        sleep 0.1
    done
    for f in "$dir"/run/slurm*.pid "$dir"/munge/munged.pid; do
        [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
    sleep 0.2
    rm -rf "$dir"
}

# A start that failed: what the logs said, then nothing left running.
failed() {
    echo "slurm-local: the cluster did not come up: $1" >&2
    tail -n 3 "$dir"/log/*.log "$dir"/munge/munged.log 2>/dev/null >&2 || true
    down
    exit 1
}

up() {
    need munged slurmctld slurmd scontrol sinfo srun
    down
    trap 'failed "a daemon did not start"' ERR
    local user host cpus
    user=$(id -un)
    host=$(hostname -s)
    cpus=$(nproc)
    mkdir -p "$dir"/{state,spool,log,run,munge}
    # munged refuses a socket directory others can write to.
    chmod 755 "$dir"
    chmod 711 "$dir/munge"
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
    munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed" --force
    cat >"$dir/slurm.conf" <<CONF
ClusterName=carmbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MailProg=/bin/true
SlurmdTimeout=30
NodeName=n[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$first_port-$((first_port + nodes - 1))] CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld
    for i in $(seq "$nodes"); do
        slurmd -N "n$i"
    done
    # Ready when every node is idle.
    for _ in $(seq 200); do
        idle=$(sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle' || true)
        if [ "$idle" -eq "$nodes" ]; then
            echo "export SLURM_CONF=$dir/slurm.conf"
            return 0
        fi
        sleep 0.1
    done
    sinfo -N >&2 || true
    failed "the nodes are not idle after 20 s (another cluster on ports $ctld_port-$((first_port + nodes - 1))?)"
}

case "$cmd" in
up) up ;;
down) down ;;
*)
    echo "usage: $0 up|down [DIR]" >&2
    exit 2
    ;;
esac
