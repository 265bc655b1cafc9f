#!/usr/bin/env bash
# Installs Debian's slurm-wlm (slurmctld, slurmd, srun, sinfo) and munge (munged,
# mungekey) when they are missing: tests/e2e/slurm.rs runs a private Slurm
# cluster on this machine, with its own munged, to launch kvbench shards with
# srun. Also iproute2 and util-linux (ip netns, unshare), which
# tests/e2e/hosts.rs uses to make client hosts out of network namespaces.
# Used by `make test`; a no-op on a machine that has them.
set -euo pipefail
have_all() {
  for tool in slurmctld slurmd srun sinfo munged mungekey ip unshare; do
    command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null 2>&1 || return 1
  done
}
if have_all; then
  exit 0
fi
echo "slurmctld, slurmd, srun, sinfo, munged, mungekey, ip or unshare not found: installing Debian's packages" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: Slurm or munge is missing and this user cannot install them (not root, no sudo)." >&2
    echo "fix: run 'apt-get install -y slurm-wlm munge iproute2 util-linux' as root, then run the make target again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq slurm-wlm munge iproute2 util-linux >/dev/null
# Debian's packages may start a system-wide munged, slurmctld and slurmd; the
# tests start private ones with their own sockets, ports and state and do not
# need them.
have_all
