#!/usr/bin/env bash
# Installs Debian's redis-server (and redis-tools), memcached, sasl2-bin (the SASL
# memcached tests make their sasldb with its saslpasswd2) and the openssl CLI (the
# TLS tests make their certificates with it) when they are missing.
# With --demo-only (`make demo`), redis-server alone: all the demo runs against.
# Used by `make demo` and `make test`; a no-op on a machine that has them.
set -euo pipefail
demo_only=false
case "${1:-}" in
  --demo-only) demo_only=true ;;
  "") ;;
  *) echo "usage: $0 [--demo-only]" >&2; exit 2 ;;
esac
# The demo's install leaves out Debian's recommended packages too: it is the
# first thing a new user waits for.
apt_options=()
if $demo_only; then
  commands=(redis-server)
  packages=(redis-server)
  apt_options=(--no-install-recommends)
else
  commands=(redis-server redis-benchmark python3 memcached openssl saslpasswd2)
  packages=(redis-server redis-tools memcached sasl2-bin openssl python3)
fi
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
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${apt_options[@]}" "${packages[@]}" >/dev/null
# Debian's packages may start system-wide servers on 6379 and 11211; kvbench's
# demo and tests use private servers on free ports and do not need them.
for c in "${commands[@]}"; do
  command -v "$c" >/dev/null 2>&1
done
