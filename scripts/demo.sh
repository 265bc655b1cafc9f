#!/usr/bin/env bash
# `make demo`: starts a private redis-server (persistence off) on a free loopback
# port, runs kvbench with configs/demo.toml, prints the report, writes
# results/demo.json, and stops the server however the run ends.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${KVBENCH_BIN:-target/release/kvbench}
mkdir -p results

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=""
for _ in $(seq 1 50); do
  candidate=$((20000 + RANDOM % 40000))
  if ! port_in_use "$candidate"; then port=$candidate; break; fi
done
[ -n "$port" ] || { echo "error: no free loopback port found" >&2; exit 1; }

workdir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$workdir" --daemonize no >"$workdir/redis.log" 2>&1 &
redis_pid=$!
cleanup() {
  kill "$redis_pid" 2>/dev/null || true
  wait "$redis_pid" 2>/dev/null || true
  rm -rf "$workdir"
}
trap cleanup EXIT INT TERM

for _ in $(seq 1 100); do
  if port_in_use "$port"; then break; fi
  if ! kill -0 "$redis_pid" 2>/dev/null; then
    echo "error: redis-server exited at start:" >&2; cat "$workdir/redis.log" >&2; exit 1
  fi
  sleep 0.05
done

echo "demo: redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on 127.0.0.1:$port (persistence off)" >&2
"$BIN" --config configs/demo.toml -s 127.0.0.1 -p "$port" --json-out-file results/demo.json
echo "demo: JSON report written to results/demo.json" >&2
