#!/usr/bin/env bash
# Installs Debian's prometheus when it is missing: tests/e2e/metrics.rs starts a
# private one (its own config, storage and loopback port) to scrape kvbench's
# --metrics-listen endpoint. Used by `make deps`; a no-op on a machine that has it.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
echo "prometheus not found: installing Debian's package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: prometheus is missing and this user cannot install it (not root, no sudo)." >&2
    echo "fix: run 'apt-get install -y prometheus' as root, then run the make target again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq prometheus >/dev/null
# Debian's package may start a system-wide prometheus on 9090; the tests start
# their own on a free port and do not need it.
command -v prometheus >/dev/null 2>&1
