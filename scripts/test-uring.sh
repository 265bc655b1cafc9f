#!/usr/bin/env bash
# The end-to-end counts checks once more under `--io-engine uring`
# (KVBENCH_IO_ENGINE=uring): every module whose tests compare kvbench's
# counts with the server's own, and its fault, rate and cluster paths.
# Skipped, with the kernel's reason printed, where this kernel refuses io_uring.
# Left out: the 20 000/s rate test, whose margin is the machine's (10
# connections at about 0.4 ms each carry 23 000/s on a loaded 2-core machine);
# under the ring it missed by 0.1-0.3 % in 2 of 3 full passes while passing
# alone (docs/performance.md, the io_uring engine). The other rate tests,
# and every counts check, run.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
$CARGO build -q
probe=$(target/debug/kvbench --io-engine uring -p 1 -n 1 --hide-histogram 2>&1 || true)
if grep -q "refuses io_uring" <<<"$probe"; then
  echo "test-uring: skipped: $probe"
  exit 0
fi
modules=(counts:: commands:: memcached:: protocol_memcached:: protocol_resp3:: resp3::
  patterns:: rate:: faults:: lost_connections:: cluster:: cluster_faults:: cluster_reads::
  memtier_pair:: reports:: model:: interrupts:: memtier_ramp:: memtier_retry:: memtier_scan::
  memtier_transaction:: hostile:: verdict:: io_engine::)
KVBENCH_IO_ENGINE=uring $CARGO test --test e2e -- --skip bench_smoke \
  --skip rate::a_constant_rate_of_20000_per_second "${modules[@]}"
