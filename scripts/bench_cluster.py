"""The cluster row of `make bench` (`bench.py --only cluster`): kvbench against
a 3-master Redis Cluster on loopback beside kvbench against one standalone
server, on the same workload, in rounds (A B A B), and the ratio of their
client CPU time per request.

Three server processes sharing one CPU cost the client more kernel time per
request than one server does, routing or not, so that ratio mixes the
client's routing with the servers' arrangement. Two controls take them
apart: a cluster of one master (every slot on one node: all of kvbench's
cluster machinery against one server process) over the standalone server,
and the 3-master cluster over three standalone servers driven by three
kvbench processes at once (the cluster's server processes and sockets,
without routing). What routing costs the client is those two ratios; they
are reported against a bound of 1.2, never asserted.

The clusters are started here (`redis-server --cluster-enabled yes`, joined
by `redis-cli --cluster create`, or given every slot with `CLUSTER
ADDSLOTSRANGE` when alone) and stopped at the end. Every server is pinned to
the same CPU, so only the client's work differs.
"""

import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

# Client CPU per request, kvbench in cluster mode over kvbench standalone.
CPU_RATIO_BOUND = 1.2
MASTERS = 3
# The standalone target with a connection per master per client, as many
# sockets and requests in flight as the cluster run has.
AS_MANY = f"standalone, {MASTERS} × the connections"
# The controls that isolate routing (module doc).
ONE_MASTER = "cluster of one master"
APART = f"{MASTERS} standalone servers, a client each"


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def cluster_port(taken):
    """A port whose cluster bus port (+10 000) is free too, in 20 000-29 999
    (below the ephemeral range, where other sockets come and go)."""
    for _ in range(10_000):
        port = random.randrange(20_000, 30_000)
        if port not in taken and bindable(port) and bindable(port + 10_000):
            return port
    sys.exit("bench: no free port pair (port and port + 10000) in 20000-29999")


def redis_cli(port, *args, timeout=10):
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), *args],
                          capture_output=True, text=True, timeout=timeout).stdout


def wait_until(ready, what, limit_s=30):
    give_up = time.monotonic() + limit_s
    while not ready():
        if time.monotonic() > give_up:
            raise RuntimeError(f"gave up waiting {limit_s} s for {what}")
        time.sleep(0.05)


def start_cluster(cpu, pinned, masters=MASTERS):
    """`masters` cluster-enabled servers on `cpu`, all slots assigned; returns
    (processes, ports, working directory)."""
    workdir = tempfile.mkdtemp(prefix="kvbench-bench-cluster-")
    procs, ports = [], []
    try:
        for _ in range(masters):
            port = cluster_port(ports)
            command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                       "--appendonly", "no", "--dir", workdir, "--maxclients", "10000",
                       "--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf"]
            procs.append(subprocess.Popen(pinned(cpu, command) if cpu is not None else command,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            ports.append(port)
        for port in ports:
            wait_until(lambda: redis_cli(port, "PING").strip() == "PONG", f"node {port} to start")
        if masters == 1:
            # `redis-cli --cluster create` wants three masters at least.
            added = redis_cli(ports[0], "CLUSTER", "ADDSLOTSRANGE", "0", "16383").strip()
            if added != "OK":
                raise RuntimeError(f"CLUSTER ADDSLOTSRANGE 0 16383 answered {added!r}")
        else:
            create = subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
                                     "--cluster-yes"], capture_output=True, text=True, timeout=60)
            if create.returncode != 0:
                raise RuntimeError(f"redis-cli --cluster create failed: {create.stdout[-2000:]}{create.stderr}")
        for port in ports:
            wait_until(lambda: "cluster_state:ok" in redis_cli(port, "CLUSTER", "INFO"),
                       f"node {port} to say cluster_state:ok")
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        stop_cluster(procs, workdir)
        sys.exit(f"bench: the cluster did not start: {e}")
    return procs, ports, workdir


def stop_cluster(procs, workdir):
    for proc in procs:
        proc.kill()
        proc.wait()
    shutil.rmtree(workdir, ignore_errors=True)


def cluster_rows(measure, apart, start_server, stop_server, pinned, workloads, pairs):
    """For each (name, connections, pipeline, requests) workload, `pairs`
    rounds of kvbench standalone then kvbench --cluster-mode, each with
    epoll and then with --io-engine uring, and the two controls (module
    doc), every server on CPU 0. `measure(port, connections, pipeline,
    requests, extra_flags)` runs kvbench once and returns its numbers;
    `apart(ports, connections, pipeline, requests)` runs one kvbench per
    port at once and returns their numbers summed."""
    server, port, workdir = start_server(0)
    servers = [start_server(0) for _ in range(MASTERS)]
    procs, ports, cluster_dir = start_cluster(0, pinned)
    alone, alone_ports, alone_dir = start_cluster(0, pinned, masters=1)
    rows = []
    try:
        for name, conns, pipeline, requests in workloads:
            runs = {"standalone": [], "cluster": [], "standalone uring": [], "cluster uring": [],
                    AS_MANY: [], ONE_MASTER: [], APART: []}
            uring = ("--io-engine", "uring")
            for _ in range(pairs):  # A B C D E F G: drifts hit every target alike
                runs["standalone"].append(measure(port, conns, pipeline, requests, ()))
                # The cluster's sockets and depth against one server: what
                # three times the connections cost without any routing.
                runs[AS_MANY].append(measure(port, conns * MASTERS, pipeline, requests, ()))
                runs["cluster"].append(measure(ports[0], conns, pipeline, requests, ("--cluster-mode",)))
                runs[ONE_MASTER].append(measure(alone_ports[0], conns, pipeline, requests, ("--cluster-mode",)))
                runs[APART].append(apart([s[1] for s in servers], conns, pipeline, requests))
                runs["standalone uring"].append(measure(port, conns, pipeline, requests, uring))
                runs["cluster uring"].append(measure(ports[0], conns, pipeline, requests,
                                                     ("--cluster-mode", *uring)))
            rows.append((name, runs))
            print(f"bench: cluster {name} done", file=sys.stderr)
    finally:
        stop_cluster(procs, cluster_dir)
        stop_cluster(alone, alone_dir)
        for s in servers:
            stop_server(s[0], s[2])
        stop_server(server, workdir)
    return rows


def render_cluster(rows, pairs):
    med = lambda runs, key: statistics.median(r[key] for r in runs)
    ratio = lambda runs, over, of: statistics.median(c["cpu_us"] / s["cpu_us"]
                                                     for s, c in zip(runs[over], runs[of]))
    out = [f"Cluster ({MASTERS} masters on loopback beside one standalone server, all on CPU 0; kvbench on "
           f"CPU 1; SET:GET 1:1, 32-byte values, 100 000 keys; the controls: a cluster of one master, and "
           f"{MASTERS} standalone servers each driven by its own kvbench with the same connections, all at once; "
           f"{pairs} round(s), medians):", "",
           "| workload | target | ops/sec | p50 ms | p99 ms | CPU µs/request |", "|---|---|---:|---:|---:|---:|"]
    ratios = ["", "Client CPU per request, the median over the rounds of each round's ratio; routing's own cost is "
                  f"the last two columns, judged against the bound of {CPU_RATIO_BOUND}:", "",
              f"| workload | cluster / standalone | cluster / {AS_MANY} | {ONE_MASTER} / standalone "
              f"| cluster / {APART} | within {CPU_RATIO_BOUND} |", "|---|---:|---:|---:|---:|---|"]
    for name, runs in rows:
        for target, r in runs.items():
            if r:
                out.append(f"| {name} | {target} | {med(r, 'ops'):.0f} | {med(r, 'p50'):.3f} | {med(r, 'p99'):.3f} "
                           f"| {med(r, 'cpu_us'):.2f} |")
        for engine, suffix in (("epoll", ""), ("uring", " uring")):
            plain = ratio(runs, "standalone" + suffix, "cluster" + suffix)
            if engine == "epoll" and runs.get(ONE_MASTER):
                controls = [ratio(runs, AS_MANY, "cluster"), ratio(runs, "standalone", ONE_MASTER),
                            ratio(runs, APART, "cluster")]
                within = "yes" if max(controls[1:]) <= CPU_RATIO_BOUND else "**no**"
                cells = " | ".join(f"{c:.2f}" for c in controls)
            else:
                cells, within = "– | – | –", "–"
            ratios.append(f"| {name} ({engine}) | {plain:.2f} | {cells} | {within} |")
    return "\n".join(out + ratios)
