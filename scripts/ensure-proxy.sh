#!/usr/bin/env bash
# Installs Debian's nutcracker (twemproxy), haproxy and prometheus-node-exporter
# when they are missing: tests/e2e/watch.rs puts redis-server shards behind a
# private nutcracker and reads a private node exporter (each with its own
# config and loopback ports, tests/e2e/common/proxy.rs) to check what
# `--watch` reports. Used by `make deps`; a no-op on a machine that has them.
set -euo pipefail
# nutcracker and haproxy install to /usr/sbin, which a user's PATH may lack;
# the tests look there too.
PATH="$PATH:/usr/sbin:/sbin"
commands=(nutcracker haproxy prometheus-node-exporter)
packages=(nutcracker haproxy prometheus-node-exporter)
missing=()
for c in "${commands[@]}"; do
  command -v "$c" >/dev/null 2>&1 || missing+=("$c")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
echo "${missing[*]} not found: installing Debian's ${packages[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: ${missing[*]} missing and this user cannot install it (not root, no sudo)." >&2
    echo "fix: run 'apt-get install -y ${packages[*]}' as root, then run the make target again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Another `make deps` may be installing at the same moment: wait for its
# dpkg lock rather than fail.
lock=(-o DPkg::Lock::Timeout=300)
$SUDO apt-get "${lock[@]}" update -qq
# The node exporter's recommended packages (smartmontools, moreutils and
# their own) are for its textfile collectors, which the tests leave off.
$SUDO apt-get "${lock[@]}" install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
# Debian's packages may start system-wide services (haproxy on its default
# config, the node exporter on :9100; nutcracker ships disabled); the tests
# start their own on free ports and never read those.
for c in "${commands[@]}"; do
  command -v "$c" >/dev/null 2>&1
done
