#!/usr/bin/env bash
# Installs Debian's redis-server (and redis-tools), memcached, sasl2-bin (the SASL
# memcached tests make their sasldb with its saslpasswd2) and the openssl CLI (the
# TLS tests make their certificates with it) when they are missing.
# Used by `make demo` and `make test`; a no-op on a machine that has them.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1 && command -v redis-benchmark >/dev/null 2>&1 \
  && command -v python3 >/dev/null 2>&1 && command -v memcached >/dev/null 2>&1 \
  && command -v openssl >/dev/null 2>&1 && command -v saslpasswd2 >/dev/null 2>&1; then
  exit 0
fi
echo "redis-server, redis-benchmark, memcached, saslpasswd2, openssl or python3 not found: installing Debian's packages" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: redis-server is missing and this user cannot install it (not root, no sudo)." >&2
    echo "fix: run 'apt-get install -y redis-server' as root, then run the make target again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq redis-server redis-tools memcached sasl2-bin openssl python3 >/dev/null
# Debian's packages may start system-wide servers on 6379 and 11211; kvbench's
# demo and tests use private servers on free ports and do not need them.
command -v redis-server >/dev/null 2>&1 && command -v memcached >/dev/null 2>&1
