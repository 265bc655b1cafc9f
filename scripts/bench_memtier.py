"""The memtier rows of `make bench`: kvbench beside memtier_benchmark in the
same run, on the same server, alternately.

memtier_benchmark is no Debian package, so `make bench` does not install it:
build it beside the project (docs/performance.md, "Against memtier_benchmark")
and name it with `MEMTIER=/path/to/memtier_benchmark` (or put it on PATH).
Without it the rows say so and the rest of the bench runs as before.

Two tables:
* 50 connections, one thread, at pipeline 1 and 16, both clients pinned to
  CPU 1 (SET:GET 1:1, 32-byte values, 100 000 keys): CPU per request and
  throughput, kvbench over memtier, per pair.
* The whitepaper's client shape, `-t 20 -c 100` (2 000 connections) at
  pipeline 1, each tool with its own default placement (kvbench chooses
  one, memtier has none), the server pinned to CPU 0; kvbench with epoll and
  with `--io-engine uring`, A B C in rounds.
memtier runs with `--distinct-client-seed`: its default gives every
connection the same seed, whose lockstep keys keep Redis cache-hot (13-35 %
more throughput, docs/memtier-compat.md), while kvbench's default gives each
connection its own; so both sides seed alike.
No number is asserted here.
"""

import json
import os
import shutil
import statistics
import sys
import tempfile

SMALL = [("p1-50conns", 50, 1, 400_000), ("p16-50conns", 50, 16, 3_000_000)]
SMALL_QUICK = [("p1-50conns", 50, 1, 20_000)]
HEADLINE_REQUESTS, HEADLINE_QUICK = 600_000, 20_000


def find(explicit=None):
    """memtier_benchmark's path: the flag, then $MEMTIER, then PATH; or None."""
    for candidate in (explicit, os.environ.get("MEMTIER"), shutil.which("memtier_benchmark")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def memtier(binary, run_measured, pinned, port, threads, clients, pipeline, requests, cpu=1):
    """One memtier_benchmark run; its numbers from its JSON and its rusage."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "m.json")
        cmd = [binary, "-s", "127.0.0.1", "-p", str(port), "-t", str(threads), "-c", str(clients),
               "-n", str(max(1, requests // (threads * clients))), "--ratio", "1:1", "-d", "32",
               "--key-maximum", "100000", "--pipeline", str(pipeline), "--hide-histogram",
               # Like kvbench's default: each connection its own seed.
               "--distinct-client-seed", "--json-out-file", report]
        _, cpu_s, rss = run_measured(pinned(cpu, cmd) if cpu is not None else cmd)
        with open(report) as f:
            totals = json.load(f)["ALL STATS"]["Totals"]
    done = totals["Count"]
    pct = totals["Percentile Latencies"]
    return {"ops": totals["Ops/sec"], "p50": pct["p50.00"], "p99": pct["p99.00"], "cpu_us": cpu_s * 1e6 / done,
            "rss_mib": rss / 1024, "requests": done}


def small_rows(kvbench, memtier_run, workloads, pairs):
    """kvbench then memtier, A B A B, one thread each, pinned to CPU 1.
    `kvbench(conns, pipeline, requests)` and `memtier_run(conns, pipeline,
    requests)` run one tool once."""
    rows = []
    for name, conns, pipeline, requests in workloads:
        kv, mt = [], []
        for _ in range(pairs):
            kv.append(kvbench(conns, pipeline, requests))
            mt.append(memtier_run(conns, pipeline, requests))
        rows.append((name, kv, mt))
        print(f"bench: memtier {name} done", file=sys.stderr)
    return rows


def headline_rows(variants, pairs):
    """`variants`: (name, run) pairs, each run once per round, in turn."""
    runs = {name: [] for name, _ in variants}
    for _ in range(pairs):
        for name, run in variants:
            runs[name].append(run())
    print("bench: memtier headline done", file=sys.stderr)
    return runs


def spread(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def render(small, headline, pairs, missing=None):
    if missing:
        return ("Against memtier_benchmark: not measured in this run (" + missing + "; build it beside the "
                "project and run `MEMTIER=/path/to/memtier_benchmark make bench`, docs/performance.md).")
    out = ["Against memtier_benchmark (SET:GET 1:1, 32-byte values, 100 000 keys; one thread each, both pinned "
           f"to CPU 1, server on CPU 0; {pairs} A/B pair(s), ratio median (min–max); memtier with "
           "--distinct-client-seed, so that both sides give each connection its own seed):", "",
           "| workload | kvbench CPU µs/request | memtier CPU µs/request | kvbench/memtier CPU "
           "| kvbench ops/sec | memtier ops/sec | kvbench/memtier throughput |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    med = lambda runs, key: statistics.median(r[key] for r in runs)
    for name, kv, mt in small:
        out.append(f"| {name} | {med(kv, 'cpu_us'):.2f} | {med(mt, 'cpu_us'):.2f} "
                   f"| {spread([k['cpu_us'] / m['cpu_us'] for k, m in zip(kv, mt)])} "
                   f"| {med(kv, 'ops'):.0f} | {med(mt, 'ops'):.0f} "
                   f"| {spread([k['ops'] / m['ops'] for k, m in zip(kv, mt)])} |")
    out += ["", "The whitepaper's client shape, `-t 20 -c 100` (2 000 connections), pipeline 1, server on CPU 0, "
            f"each tool with its default placement; {pairs} round(s), ratios against memtier in the same round, "
            "median (min–max); goal: throughput ≥ 1, CPU ≤ 0.7:", "",
            "| client | chosen placement | ops/sec | CPU µs/request | p99 ms | throughput / memtier | CPU / memtier |",
            "|---|---|---:|---:|---:|---:|---:|"]
    base = headline["memtier -t 20 -c 100"]
    for name, runs in headline.items():
        ratio = lambda key: spread([r[key] / b[key] for r, b in zip(runs, base)])
        out.append(f"| {name} | {runs[0].get('placement', '–')} | {med(runs, 'ops'):.0f} "
                   f"| {med(runs, 'cpu_us'):.2f} | {med(runs, 'p99'):.3f} | {ratio('ops')} | {ratio('cpu_us')} |")
    return "\n".join(out)
