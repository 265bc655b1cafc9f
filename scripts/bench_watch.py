"""The watch row of `make bench`: kvbench with and without four `--watch`es
(three idle redis-servers standing in for shards behind a proxy, and a
Prometheus node exporter, or a fourth redis-server where none is installed),
on the same workload against the same server, in rounds (A B A B), and the
ratio of their client CPU time per request and of their throughput.

The watches are read on the master thread, once a second and around each
phase, never on a worker: watching should cost the client nothing per
request. The ratio is reported, never asserted (docs/performance.md).
"""

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

WATCHED_SERVERS = 3


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port, what, proc):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    sys.exit(f"bench: {what} did not start on {port}")


def _start_watched(workdir):
    """The watched components: (processes, --watch flags)."""
    procs, flags = [], []
    count = WATCHED_SERVERS
    exporter = shutil.which("prometheus-node-exporter")
    if not exporter:
        count += 1
    for i in range(count):
        port = _free_port()
        proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", workdir], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        _wait_port(port, "a watched redis-server", proc)
        procs.append(proc)
        flags += ["--watch", f"redis://127.0.0.1:{port}"]
    if exporter:
        port = _free_port()
        proc = subprocess.Popen([exporter, f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
                                 "--collector.cpu", "--collector.netdev"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(port, "prometheus-node-exporter", proc)
        procs.append(proc)
        flags += ["--watch", f"node://127.0.0.1:{port}"]
    return procs, flags


def watch_rows(run, workloads, pairs):
    """`run(conns, pipeline, requests, extra)` is one kvbench run's row;
    each workload with and without the watches, alternately."""
    workdir = tempfile.mkdtemp(prefix="kvbench-bench-watch-")
    procs, flags = _start_watched(workdir)
    try:
        rows = []
        for name, conns, pipeline, requests in workloads:
            plain, watched = [], []
            for _ in range(pairs):
                plain.append(run(conns, pipeline, requests, ()))
                watched.append(run(conns, pipeline, requests, tuple(flags)))
            rows.append((name, plain, watched))
            print(f"bench: watch {name} done", file=sys.stderr)
        return rows, len(flags) // 2
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(workdir, ignore_errors=True)


def render_watch(result, pairs):
    rows, watches = result
    med = lambda runs, key: statistics.median(r[key] for r in runs)
    out = [f"Watching ({watches} `--watch`es: idle redis-servers and a node exporter, read once a second on the "
           f"master thread) against not watching, same server and workload; {pairs} A/B pair(s), medians:", "",
           "| workload | CPU µs/request plain | CPU µs/request watched | watched / plain CPU | watched / plain throughput |",
           "|---|---:|---:|---:|---:|"]
    for name, plain, watched in rows:
        cpu = statistics.median(w["cpu_us"] / p["cpu_us"] for p, w in zip(plain, watched))
        ops = statistics.median(w["ops"] / p["ops"] for p, w in zip(plain, watched))
        out.append(f"| {name} | {med(plain, 'cpu_us'):.2f} | {med(watched, 'cpu_us'):.2f} | {cpu:.2f} | {ops:.2f} |")
    return "\n".join(out)
