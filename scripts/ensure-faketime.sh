#!/usr/bin/env bash
# Installs Debian's faketime (libfaketime) when it is missing: the merge tests
# set one shard's clock off with it. Used by `make test`; a no-op on a machine
# that has it.
set -euo pipefail
command -v faketime >/dev/null 2>&1 && exit 0
echo "faketime not found: installing Debian's package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: faketime is missing and this user cannot install it (not root, no sudo)." >&2
    echo "fix: run 'apt-get install -y faketime' as root, then run the make target again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq faketime >/dev/null
command -v faketime >/dev/null 2>&1
