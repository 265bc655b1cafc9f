#!/usr/bin/env bash
# `make demo`: starts a private redis-server (persistence off) on a free loopback
# port, runs kvbench with configs/demo.toml, prints the report, writes
# results/demo.json, and stops the server however the run ends.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${KVBENCH_BIN:-target/release/kvbench}
mkdir -p results

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Ports are drawn below the kernel's ephemeral range (where client sockets come
# and go and can hold a port between the probe and the server's bind), and a
# server that still fails to bind is retried on another port.
low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ "$low" -gt 20100 ] || low=32768
workdir=$(mktemp -d)
redis_pid=""
cleanup() {
  [ -z "$redis_pid" ] || kill "$redis_pid" 2>/dev/null || true
  [ -z "$redis_pid" ] || wait "$redis_pid" 2>/dev/null || true
  rm -rf "$workdir"
}
trap cleanup EXIT INT TERM

start_server() {
  redis-server --port "$1" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$workdir" --daemonize no >"$workdir/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do
    if port_in_use "$1"; then return 0; fi
    if ! kill -0 "$redis_pid" 2>/dev/null; then
      wait "$redis_pid" 2>/dev/null || true
      redis_pid=""
      return 1
    fi
    sleep 0.05
  done
  return 1
}

port=""
for _ in $(seq 1 20); do
  candidate=$((20000 + RANDOM % (low - 20000)))
  port_in_use "$candidate" && continue
  if start_server "$candidate"; then port=$candidate; break; fi
done
if [ -z "$port" ]; then
  echo "error: redis-server did not start on any of 20 free loopback ports:" >&2
  cat "$workdir/redis.log" >&2
  exit 1
fi

echo "demo: redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$port (persistence off)" >&2
"$BIN" --config configs/demo.toml -s 127.0.0.1 -p "$port" --json-out-file results/demo.json
echo "demo: JSON report written to results/demo.json" >&2
