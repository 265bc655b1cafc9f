#!/usr/bin/env python3
"""`make bench`: kvbench and redis-benchmark side by side, in the same run.

Starts a private redis-server (persistence off) pinned to CPU 0, then runs the
two clients alternately (A B A B ...) pinned to CPU 1 on the same workloads and
reports, for each: ops/sec, p50/p99 latency, client CPU time per request
(user + system, from the child's own rusage), peak RSS, and system calls per
request where strace is available; then the kvbench / redis-benchmark ratios
(median over the pairs). With --write-doc the table replaces the generated part
of docs/performance.md.

The watch row runs each workload with and without four `--watch`es
(scripts/bench_watch.py): what watching costs the client per request.

`--only cluster` (part of the full run, not of `--quick`) compares kvbench
against a 3-master Redis Cluster with kvbench against one server; see
scripts/bench_cluster.py. `--only memtier` (also part of the full run) puts
kvbench beside memtier_benchmark where one is named (`--memtier`, `MEMTIER`
or PATH); see scripts/bench_memtier.py.

No number is asserted here: performance is measured, not tested. `--quick` is
the tiny variant that `make test` runs to prove the script works.
"""

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from bench_cluster import cluster_rows, render_cluster
from bench_watch import render_watch, watch_rows
import bench_memtier

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, connections, pipeline, requests per tool (full run)
WORKLOADS = [
    ("p1-50conns", 50, 1, 400_000),
    ("p16-50conns", 50, 16, 3_000_000),
    ("p1-2000conns", 2000, 1, 400_000),
]
QUICK = [("p1-50conns", 50, 1, 20_000), ("p16-50conns", 50, 16, 40_000)]
# The same shapes over TLS (--tls for both clients, a server with a TLS port).
TLS_WORKLOADS = [("tls-p1-50conns", 50, 1, 400_000), ("tls-p16-50conns", 50, 16, 3_000_000)]
TLS_QUICK = [("tls-p1-50conns", 50, 1, 20_000)]
# kvbench against the floor client (examples/floor.rs): GETs of keys that do
# not exist, so the server's work is the least and the same for both.
FLOOR_WORKLOADS = [("floor-p1-50conns", 50, 1, 400_000), ("floor-p16-50conns", 50, 16, 3_000_000)]
FLOOR_QUICK = [("floor-p1-50conns", 50, 1, 20_000)]
# The cluster row: the 50-connection shapes, against 3 masters and against one server.
CLUSTER_WORKLOADS, CLUSTER_QUICK = WORKLOADS[:2], QUICK[:1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cpu, cmd):
    return (["taskset", "-c", str(cpu)] if shutil.which("taskset") and os.cpu_count() > 1 else []) + cmd


def run_measured(cmd, strace_file=None):
    """Runs cmd; returns (stdout, cpu seconds, max RSS KiB) from its own rusage."""
    if strace_file:
        cmd = ["strace", "-f", "-c", "-o", strace_file] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({code}): {err.decode()[-2000:]}")
    return out.decode(), usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def syscalls(strace_file):
    total = 0
    with open(strace_file) as f:
        for line in f:
            m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
            if m and m.group(2) != "total":
                total += int(m.group(1))
    return total


def redis_benchmark(port, conns, pipeline, requests, strace_file=None, threads=None, cpu=1, tls=()):
    per_test = requests // 2
    cmd = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(conns),
           "-n", str(per_test), "-t", "set,get", "-d", "32", "-r", "100000",
           "-P", str(pipeline), "--csv", *tls] + (["--threads", str(threads)] if threads else [])
    cmd = pinned(cpu, cmd) if cpu is not None else cmd
    out, cpu, rss = run_measured(cmd, strace_file)
    rows = [l.replace('"', "").split(",") for l in out.splitlines() if l.startswith(('"SET"', '"GET"'))]
    seconds = sum(per_test / float(r[1]) for r in rows)
    p50 = statistics.mean(float(r[4]) for r in rows)
    p99 = statistics.mean(float(r[6]) for r in rows)
    return {"ops": 2 * per_test / seconds, "p50": p50, "p99": p99, "cpu_us": cpu * 1e6 / (2 * per_test),
            "rss_mib": rss / 1024, "requests": 2 * per_test}


def floor(binary, port, conns, window, requests, cpu=1):
    """The floor client: the least a client can do per request (examples/floor.rs)."""
    out, cpu_s, rss = run_measured(pinned(cpu, [binary, "--port", str(port), "--conns", str(conns),
                                                "--window", str(window), "--requests", str(requests)]))
    doc = json.loads(out)
    return {"ops": doc["requests"] / doc["seconds"], "cpu_us": cpu_s * 1e6 / doc["requests"],
            "rss_mib": rss / 1024, "requests": doc["requests"]}


def floor_rows(kvbench_bin, floor_bin, port, workloads, pairs):
    """kvbench with epoll, kvbench with io_uring (GET-only, every key
    missing) and the floor client, A B C A B C."""
    rows = []
    for name, conns, pipeline, requests in workloads:
        kv, ring, fl = [], [], []
        for _ in range(pairs):
            kv.append(kvbench(kvbench_bin, port, conns, pipeline, requests, ratio="0:1",
                              extra=("--key-prefix", "floor:missing:")))
            try:
                ring.append(kvbench(kvbench_bin, port, conns, pipeline, requests, ratio="0:1",
                                    extra=("--key-prefix", "floor:missing:", "--io-engine", "uring")))
            except SystemExit:  # a kernel that refuses io_uring (run_measured exits)
                print("bench: --io-engine uring refused here; its columns read n/a", file=sys.stderr)
            fl.append(floor(floor_bin, port, conns, pipeline, requests))
        rows.append((name, kv, ring, fl))
        print(f"bench: {name} done", file=sys.stderr)
    return rows


def render_floor(rows, pairs):
    out = ["kvbench against the floor client (examples/floor.rs: one write and one read per window on epoll, "
           "nothing else), GETs of missing keys, client pinned to CPU 1, kvbench with `--io-engine epoll` and "
           f"`--io-engine uring`; {pairs} A/B/C triple(s), ratio median (min–max):", "",
           "| workload | epoll CPU µs/request | uring CPU µs/request | floor CPU µs/request "
           "| epoll/floor CPU | uring/floor CPU | epoll/floor throughput | uring/floor throughput |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]

    def ratio(a, b, key):
        r = [x[key] / y[key] for x, y in zip(a, b)]
        return f"{statistics.median(r):.2f} ({min(r):.2f}–{max(r):.2f})" if r else "n/a"

    for name, kv, ring, fl in rows:
        ring_us = f"{med(ring, 'cpu_us'):.2f}" if ring else "n/a"
        out.append(f"| {name} | {med(kv, 'cpu_us'):.2f} | {ring_us} | {med(fl, 'cpu_us'):.2f} "
                   f"| {ratio(kv, fl, 'cpu_us')} | {ratio(ring, fl, 'cpu_us')} "
                   f"| {ratio(kv, fl, 'ops')} | {ratio(ring, fl, 'ops')} |")
    return "\n".join(out)


def kvbench_command(binary, port, conns, pipeline, requests, report, threads=1, cpu=1, placement=("--no-pin",),
                    tls=(), extra=(), ratio="1:1"):
    launch = pinned(cpu, []) if cpu is not None else []
    return launch + [binary, "-s", "127.0.0.1", "-p", str(port), "-t", str(threads), "-c", str(conns // threads),
                     "-n", str(max(1, requests // conns)), "--ratio", ratio, "-d", "32",
                     "--key-maximum", "100000", "--pipeline", str(pipeline), *placement, *tls, *extra,
                     "--hide-histogram", "--json-out-file", report]


def kvbench_report(report):
    """(the whole report, the requests it completed) of one kvbench run."""
    with open(report) as f:
        doc = json.load(f)
    return doc, doc["kvbench"]["totals"]["SET"]["count"] + doc["kvbench"]["totals"]["GET"]["count"]


def kvbench(binary, port, conns, pipeline, requests, strace_file=None, **flags):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        _, cpu_s, rss = run_measured(kvbench_command(binary, port, conns, pipeline, requests, report, **flags),
                                     strace_file)
        doc, done = kvbench_report(report)
    totals = doc["ALL STATS"]["Totals"]
    pct = totals["Percentile Latencies"]
    return {"ops": totals["Ops/sec"], "p50": pct["p50.00"], "p99": pct["p99.00"], "cpu_us": cpu_s * 1e6 / done,
            "rss_mib": rss / 1024, "requests": done,
            "placement": (doc["kvbench"].get("placement") or {}).get("reason", "?")}


def kvbench_side_by_side(binary, ports, conns, pipeline, requests):
    """One kvbench per port, all at once, each with `conns` connections and
    its share of `requests`: their CPU time summed over their requests, their
    ops/sec summed, the worst of their percentiles."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for i, port in enumerate(ports):
            report = os.path.join(tmp, f"r{i}.json")
            cmd = kvbench_command(binary, port, conns, pipeline, requests // len(ports), report)
            runs.append((subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), report))
        cpu_s, rss, done, ops, p50, p99 = 0.0, 0, 0, 0.0, 0.0, 0.0
        for proc, report in runs:
            err = proc.stderr.read()
            _, status, usage = os.wait4(proc.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"bench: one of the kvbench runs against ports {ports} failed: {err.decode()[-2000:]}")
            doc, n = kvbench_report(report)
            totals = doc["ALL STATS"]["Totals"]
            cpu_s += usage.ru_utime + usage.ru_stime
            rss = max(rss, usage.ru_maxrss)
            done += n
            ops += totals["Ops/sec"]
            p50 = max(p50, totals["Percentile Latencies"]["p50.00"])
            p99 = max(p99, totals["Percentile Latencies"]["p99.00"])
    return {"ops": ops, "p50": p50, "p99": p99, "cpu_us": cpu_s * 1e6 / done, "rss_mib": rss / 1024,
            "requests": done}


# redis-benchmark's own tests, one at a time for both tools (`-t hset` …), so
# each tool's rusage is that test's alone; LRANGE_100's includes its LPUSH
# preparation for both. Requests per test (full run, quick run).
SUITE_TESTS = ["hset", "lpush", "lrange_100"]
SUITE_REQUESTS, SUITE_QUICK = 200_000, 10_000


def suite_row(tool, binary, port, test, conns, requests):
    """One suite test by `kvbench suite` or redis-benchmark, with the same
    redis-benchmark flags; both print redis-benchmark's --csv, read alike."""
    flags = ["-h", "127.0.0.1", "-p", str(port), "-c", str(conns), "-n", str(requests), "-t", test,
             "-d", "32", "-r", "100000", "--csv"]
    cmd = [binary, "suite"] + flags if tool == "kvbench" else ["redis-benchmark"] + flags
    out, cpu, rss = run_measured(pinned(1, cmd))
    rows = [l.replace('"', "").split(",") for l in out.splitlines()
            if l.startswith('"') and not l.startswith('"test"')]
    measured = [r for r in rows if not r[0].startswith("LPUSH (needed")][-1]
    sent = requests * len(rows)
    return {"ops": float(measured[1]), "p50": float(measured[4]), "p99": float(measured[6]),
            "cpu_us": cpu * 1e6 / sent, "rss_mib": rss / 1024, "requests": sent}


# The whitepaper's client shape, -t 20 -c 100 (2 000 connections), against a
# local server placed two ways; requests per tool for the full and quick runs.
PLACEMENT_REQUESTS, PLACEMENT_QUICK = 600_000, 20_000


def placement_rows(binary, requests, pairs):
    """The same -t 20 -c 100 workload with kvbench's default placement, --no-pin
    and --cpus apart from the server, beside redis-benchmark -c 2000 --threads 2,
    in rounds (A B C D, A B C D ...), against a server pinned to CPU 0 and one
    that may run anywhere."""
    cpus = os.cpu_count() or 1
    rows = []
    for server_cpu, label in ((0, "server on CPU 0"), (None, "server unpinned")):
        server, port, workdir = start_server(server_cpu)
        try:
            variants = [("kvbench default", lambda: kvbench(binary, port, 2000, 1, requests, threads=20, cpu=None, placement=())),
                        ("kvbench --no-pin", lambda: kvbench(binary, port, 2000, 1, requests, threads=20, cpu=None))]
            if cpus > 1:
                apart = f"1-{cpus - 1}" if cpus > 2 else "1"
                variants.append((f"kvbench --cpus {apart}",
                                 lambda: kvbench(binary, port, 2000, 1, requests, threads=20, cpu=None,
                                                 placement=("--cpus", apart))))
                # What the default was before placement was chosen: every CPU, round-robin.
                every = f"0-{cpus - 1}"
                variants.append((f"kvbench --cpus {every} (pin all)",
                                 lambda: kvbench(binary, port, 2000, 1, requests, threads=20, cpu=None,
                                                 placement=("--cpus", every))))
            variants.append(("redis-benchmark --threads 2",
                             lambda: redis_benchmark(port, 2000, 1, requests, threads=2, cpu=None)))
            runs = {name: [] for name, _ in variants}
            for _ in range(pairs):
                for name, fn in variants:
                    runs[name].append(fn())
            rows.append((label, runs))
        finally:
            stop_server(server, workdir)
        print(f"bench: placement, {label} done", file=sys.stderr)
    return rows


def render_placement(rows, pairs):
    out = ["Placement (the whitepaper's -t 20 -c 100 = 2 000 connections, SET:GET 1:1, pipeline 1; "
           f"{pairs} round(s), medians; min–max of ops/sec shows the spread):", "",
           "| server | client | chosen placement | ops/sec | min–max | CPU µs/request | p99 ms |",
           "|---|---|---|---:|---:|---:|---:|"]
    for label, runs in rows:
        for name, r in runs.items():
            chosen = r[0].get("placement", "–")
            lo, hi = min(x["ops"] for x in r), max(x["ops"] for x in r)
            out.append(f"| {label} | {name} | {chosen} | {med(r, 'ops'):.0f} | {lo:.0f}–{hi:.0f} "
                       f"| {med(r, 'cpu_us'):.2f} | {med(r, 'p99'):.3f} |")
    return "\n".join(out)


def cluster_table(binary, workloads, pairs):
    """The cluster row's runs: kvbench pinned to CPU 1, servers on CPU 0."""
    measure = lambda port, conns, pipeline, requests, extra: kvbench(binary, port, conns, pipeline, requests,
                                                                     extra=extra)
    apart = lambda ports, conns, pipeline, requests: kvbench_side_by_side(binary, ports, conns, pipeline, requests)
    return cluster_rows(measure, apart, start_server, stop_server, pinned, workloads, pairs)


def memtier_table(args, pairs):
    """kvbench beside memtier_benchmark (scripts/bench_memtier.py), against a
    server of their own on CPU 0; a sentence instead where memtier is absent."""
    binary = bench_memtier.find(args.memtier)
    if binary is None:
        return bench_memtier.render(None, None, pairs, missing="no memtier_benchmark found")
    small_workloads = bench_memtier.SMALL_QUICK if args.quick else bench_memtier.SMALL
    requests = bench_memtier.HEADLINE_QUICK if args.quick else bench_memtier.HEADLINE_REQUESTS
    server, port, workdir = start_server(0)
    try:
        run_mt = lambda threads, clients, pipeline, n, cpu: bench_memtier.memtier(
            binary, run_measured, pinned, port, threads, clients, pipeline, n, cpu)
        small = bench_memtier.small_rows(
            lambda conns, pipeline, n: kvbench(args.kvbench, port, conns, pipeline, n),
            lambda conns, pipeline, n: run_mt(1, conns, pipeline, n, 1), small_workloads, pairs)
        variants = [
            ("kvbench -t 20 -c 100", lambda: kvbench(args.kvbench, port, 2000, 1, requests, threads=20, cpu=None,
                                                     placement=())),
            ("kvbench -t 20 -c 100 --io-engine uring",
             lambda: kvbench(args.kvbench, port, 2000, 1, requests, threads=20, cpu=None, placement=(),
                             extra=("--io-engine", "uring"))),
            ("memtier -t 20 -c 100", lambda: run_mt(20, 100, 1, requests, None)),
        ]
        headline = bench_memtier.headline_rows(variants, pairs)
    finally:
        stop_server(server, workdir)
    return bench_memtier.render(small, headline, pairs)


def stop_server(server, workdir):
    server.kill()
    server.wait()
    shutil.rmtree(workdir, ignore_errors=True)


def make_certs(workdir):
    """A CA and a server certificate for 127.0.0.1 it signs, made with the openssl CLI."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=workdir, check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=bench CA")
    openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(workdir, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "server.ext", "-out", "server.crt")


def start_server(cpu=0, tls=False):
    """A private redis-server; with `tls`, it listens on a TLS port only, and the
    client flags that reach it (a CA file in its working directory) come back too."""
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="kvbench-bench-")
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no", "--dir", workdir, "--maxclients", "10000"]
    client_tls = ()
    if tls:
        make_certs(workdir)
        path = lambda name: os.path.join(workdir, name)
        command[1:3] = ["--port", "0", "--tls-port", str(port), "--tls-cert-file", path("server.crt"),
                        "--tls-key-file", path("server.key"), "--tls-ca-cert-file", path("ca.crt"),
                        "--tls-auth-clients", "no"]
        client_tls = ("--tls", "--cacert", path("ca.crt"))
    server = subprocess.Popen(pinned(cpu, command) if cpu is not None else command,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return (server, port, workdir, client_tls) if tls else (server, port, workdir)
        except OSError:
            time.sleep(0.05)
    server.kill()
    sys.exit("bench: redis-server did not start")


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
    except OSError:
        pass
    version = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()
    redis = next((v[2:] for v in version if v.startswith("v=")), "?")
    return f"{os.cpu_count()} vCPUs ({model}), Linux {platform.release()}, redis-server {redis}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kvbench", default=os.path.join(ROOT, "target", "release", "kvbench"))
    ap.add_argument("--floor", default=os.path.join(ROOT, "target", "release", "examples", "floor"),
                    help="the floor client (cargo build --release --example floor)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="tiny workloads, one pair: proves the script works")
    ap.add_argument("--write-doc", action="store_true", help="replace the generated table in docs/performance.md")
    ap.add_argument("--memtier", help="memtier_benchmark to compare against (default: $MEMTIER, then PATH)")
    ap.add_argument("--only", choices=["placement", "cluster", "memtier", "watch"],
                    help="run only the placement or the cluster rows (printed, never written to the doc)")
    ap.add_argument("--criterion", metavar="FILE", help="only turn this `cargo bench` output into the micro-benchmark table")
    args = ap.parse_args()
    if args.criterion:
        table = criterion_table(args.criterion)
        print(table)
        if args.write_doc:
            write_doc(table, "micro")
        return
    for tool in ("redis-server", "redis-benchmark"):
        if not shutil.which(tool):
            sys.exit(f"bench: {tool} not found; run `make bench`, which installs redis-server and redis-tools")
    workloads, pairs = (QUICK, 1) if args.quick else (WORKLOADS, args.pairs)
    if args.only == "placement":
        requests = PLACEMENT_QUICK if args.quick else PLACEMENT_REQUESTS
        print(render_placement(placement_rows(args.kvbench, requests, pairs), pairs))
        return
    if args.only == "memtier":
        print(memtier_table(args, pairs))
        return
    if args.only == "watch":
        server, port, workdir = start_server()
        try:
            print(render_watch(watch_rows(lambda c, p, n, extra: kvbench(args.kvbench, port, c, p, n, extra=extra),
                                          workloads[:2], pairs), pairs))
        finally:
            stop_server(server, workdir)
        return
    if args.only == "cluster":
        print(render_cluster(cluster_table(args.kvbench, CLUSTER_QUICK if args.quick else CLUSTER_WORKLOADS,
                                           pairs), pairs))
        return
    server, port, workdir = start_server()
    try:
        rows = []
        for name, conns, pipeline, requests in workloads:
            kv, rb = [], []
            for _ in range(pairs):  # A B A B: drifts hit both tools alike
                kv.append(kvbench(args.kvbench, port, conns, pipeline, requests))
                rb.append(redis_benchmark(port, conns, pipeline, requests))
            calls = {}
            if shutil.which("strace") and not args.quick:
                with tempfile.TemporaryDirectory() as tmp:
                    small = max(requests // 10, 20_000)
                    for tool, fn in (("kvbench", lambda f: kvbench(args.kvbench, port, conns, pipeline, small, f)),
                                     ("redis-benchmark", lambda f: redis_benchmark(port, conns, pipeline, small, f))):
                        path = os.path.join(tmp, tool)
                        done = fn(path)["requests"]
                        calls[tool] = syscalls(path) / done
            rows.append((name, kv, rb, calls))
            print(f"bench: {name} done", file=sys.stderr)
        # redis-benchmark's tests beside kvbench suite's, A B A B.
        for test in SUITE_TESTS:
            kv, rb = [], []
            for _ in range(pairs):
                requests = SUITE_QUICK if args.quick else SUITE_REQUESTS
                kv.append(suite_row("kvbench", args.kvbench, port, test, 50, requests))
                rb.append(suite_row("redis-benchmark", args.kvbench, port, test, 50, requests))
            rows.append((test.upper(), kv, rb, {}))
            print(f"bench: suite {test} done", file=sys.stderr)
        floors = floor_rows(args.kvbench, args.floor, port, FLOOR_QUICK if args.quick else FLOOR_WORKLOADS, pairs)
        # The same workloads with four --watches and without (scripts/bench_watch.py).
        watch = watch_rows(lambda c, p, n, extra: kvbench(args.kvbench, port, c, p, n, extra=extra),
                           workloads, pairs)
        # Scaling: the same 50 connections on 1 and on 2 threads, client unpinned.
        scaling = []
        for threads in (1, 2):
            runs = [kvbench(args.kvbench, port, 50, 1, workloads[0][3], threads=threads, cpu=None) for _ in range(pairs)]
            scaling.append((threads, runs))
    finally:
        stop_server(server, workdir)
    # The same clients over TLS, against a server with a TLS port only.
    server, port, workdir, tls = start_server(tls=True)
    try:
        for name, conns, pipeline, requests in TLS_QUICK if args.quick else TLS_WORKLOADS:
            kv, rb = [], []
            for _ in range(pairs):
                kv.append(kvbench(args.kvbench, port, conns, pipeline, requests, tls=tls))
                rb.append(redis_benchmark(port, conns, pipeline, requests, tls=tls))
            rows.append((name, kv, rb, {}))
            print(f"bench: {name} done", file=sys.stderr)
    finally:
        stop_server(server, workdir)
    placement = placement_rows(args.kvbench, PLACEMENT_QUICK if args.quick else PLACEMENT_REQUESTS, pairs)
    table = render(rows, pairs) + "\n\n" + render_floor(floors, pairs) + "\n\n" + render_watch(watch, pairs) + "\n\n" + render_scaling(scaling) + "\n\n" + render_placement(placement, pairs)
    if not args.quick:  # the quick run stays on what every build supports
        table += "\n\n" + render_cluster(cluster_table(args.kvbench, CLUSTER_WORKLOADS, pairs), pairs)
        table += "\n\n" + memtier_table(args, pairs)
    print(table)
    if args.write_doc and not args.quick:
        write_doc(table)


def med(runs, key):
    return statistics.median(r[key] for r in runs)


def render(rows, pairs):
    out = [f"Machine: {machine()}. Server pinned to CPU 0, client to CPU 1; SET:GET 1:1, 32-byte values, "
           f"100 000 keys; {pairs} A/B pair(s) per workload, medians shown.", "",
           "| workload | tool | ops/sec | p50 ms | p99 ms | CPU µs/request | syscalls/request | max RSS MiB |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    ratios = ["", "| workload | kvbench / redis-benchmark: CPU per request | throughput | max RSS |", "|---|---:|---:|---:|"]
    for name, kv, rb, calls in rows:
        for tool, runs in (("kvbench", kv), ("redis-benchmark", rb)):
            sc = f"{calls[tool]:.2f}" if tool in calls else "–"
            out.append(f"| {name} | {tool} | {med(runs, 'ops'):.0f} | {med(runs, 'p50'):.3f} | {med(runs, 'p99'):.3f} "
                       f"| {med(runs, 'cpu_us'):.2f} | {sc} | {med(runs, 'rss_mib'):.1f} |")
        cpu = statistics.median(k["cpu_us"] / r["cpu_us"] for k, r in zip(kv, rb))
        ops = statistics.median(k["ops"] / r["ops"] for k, r in zip(kv, rb))
        rss = statistics.median(k["rss_mib"] / r["rss_mib"] for k, r in zip(kv, rb))
        ratios.append(f"| {name} | {cpu:.2f} | {ops:.2f} | {rss:.2f} |")
    return "\n".join(out + ratios)


def criterion_table(path):
    """`group/name  time: [low mid high]` lines of criterion's output, as a table."""
    rows, name = [], None
    timing = re.compile(r"^(.*?)\s*time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]")
    with open(path) as f:
        for line in f:
            m = timing.match(line)
            if m:
                rows.append((m.group(1).strip() or name, float(m.group(2)), m.group(3)))
                name = None
            elif line.strip() and not line.startswith((" ", "Benchmarking", "Found", "Gnuplot", "Warning")):
                name = line.strip()
    scale = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6}
    out = ["| micro-benchmark | ns/op |", "|---|---:|"]
    out += [f"| {n} | {v * scale.get(u, 1.0):.2f} |" for n, v, u in rows]
    return "\n".join(out)


def render_scaling(scaling):
    out = ["Scaling (kvbench alone, 50 connections at pipeline 1, client not pinned, server on CPU 0):", "",
           "| threads | ops/sec | CPU µs/request | p99 ms |", "|---:|---:|---:|---:|"]
    for threads, runs in scaling:
        out.append(f"| {threads} | {med(runs, 'ops'):.0f} | {med(runs, 'cpu_us'):.2f} | {med(runs, 'p99'):.3f} |")
    return "\n".join(out)


def write_doc(table, block="bench"):
    path = os.path.join(ROOT, "docs", "performance.md")
    start, end = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
    with open(path) as f:
        text = f.read()
    if start not in text or end not in text:
        sys.exit(f"bench: {path} lacks the {start} / {end} markers")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    stamp = time.strftime("%Y-%m-%d")
    with open(path, "w") as f:
        f.write(f"{head}{start}\n_Generated by `make bench` on {stamp}._\n\n{table}\n{end}{tail}")


if __name__ == "__main__":
    main()
