#!/usr/bin/env bash
# Installs Debian's chromium when /usr/bin/chromium is missing: tests/e2e/html.rs
# renders the HTML report in it (headless) to check the page's DOM, console and pixels.
# Used by `make deps` (and so `make test`); a no-op on a machine that has it.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "chromium not found: installing Debian's package" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: chromium is missing and this user cannot install it (not root, no sudo)." >&2
    echo "fix: run 'apt-get install -y --no-install-recommends chromium' as root, then run the make target again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
test -x /usr/bin/chromium
