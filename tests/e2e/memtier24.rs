//! memtier 2.4's flags on kvbench's machinery, each against a real server:
//! `--read-preference` (reads where asked, per node's own commandstats, on a
//! 3-master + 3-replica cluster), `--prometheus-port` (scraped during a run
//! on loopback), `--connection-stage-timeout` (a listener that never answers
//! the handshake), `--miss-rate-threshold` (the server's own hit and miss
//! counts) and `--graphite-port` (an in-process HTTP listener records the
//! event POSTs, since Graphite-web itself is not practical to start here),
//! and memtier 2.4's `TLS` object (the version and cipher a TLS server agreed to).

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::cluster::kvbench::kvbench_cluster;
use crate::common::ports::{free_port, listen};
use crate::common::tls::{Certs, TlsRedis, kvbench_bounded};
use crate::common::{
    self, Redis, TempDir, info_u64, kvbench_at, kvbench_json, machine, total, warning_kinds,
};

/// Runs 1:1 SET/GET with `--read-preference mode`, the stats reset before.
fn run_preference(cluster: &Cluster, mode: &str) -> common::Report {
    cluster.reset_stats();
    let args = format!(
        "-t 2 -c 4 -n 1000 --ratio 1:1 --key-minimum 1 --key-maximum 5000 --read-preference {mode}"
    );
    kvbench_cluster(cluster, &args, &[])
}

#[test]
fn read_preference_sends_reads_where_memtier_names_say() {
    let cluster = Cluster::start_with_replicas(3, 1);
    let (masters, replicas) = (cluster.masters(), cluster.replicas());
    let gets_on = |ports: &[u16]| -> u64 { ports.iter().map(|&p| cluster.calls(p, "get")).sum() };

    // secondary and secondaryPreferred: every GET on a replica (each master has one).
    for mode in ["secondary", "secondaryPreferred"] {
        let doc = run_preference(&cluster, mode).doc;
        assert_eq!(total(&doc, "GET", "count"), 4_000, "{mode}");
        assert_eq!(
            (gets_on(&replicas), gets_on(&masters)),
            (4_000, 0),
            "{mode}"
        );
        assert_eq!(cluster.sum_calls("set"), 4_000, "{mode}: SETs on masters");
        assert_eq!(gets_on(&replicas), cluster.sum_calls_all("get"), "{mode}");
    }

    // nearest: each shard's reads all on one of its nodes, the one the
    // PING measurement named fastest; writes on the masters.
    let report = run_preference(&cluster, "nearest");
    let doc = &report.doc;
    assert_eq!(total(doc, "GET", "count"), 4_000);
    assert_eq!(gets_on(&replicas) + gets_on(&masters), 4_000);
    assert_eq!(cluster.sum_calls("set"), 4_000);
    let line = report
        .stderr
        .lines()
        .find(|l| l.contains("--read-from nearest: fastest PING"))
        .unwrap_or_else(|| panic!("no measurement line: {}", report.stderr));
    let rtt_ms = |port: u16| -> f64 {
        let at = line
            .find(&format!("127.0.0.1:{port} "))
            .unwrap_or_else(|| panic!("{port} not measured: {line}"));
        let rest = &line[at..];
        rest.split(' ').nth(1).unwrap().parse().unwrap()
    };
    for &replica in &replicas {
        let master = cluster.master_of(replica);
        let (on_master, on_replica) = (cluster.calls(master, "get"), cluster.calls(replica, "get"));
        // Uniform keys: about a third of the reads per shard, all on one node.
        assert!(
            (800..=2_200).contains(&(on_master + on_replica)),
            "shard {master}: {on_master} + {on_replica} GETs"
        );
        assert!(
            on_master == 0 || on_replica == 0,
            "shard {master}: reads split {on_master} / {on_replica}"
        );
        // The faster node takes the reads (a tie, which the printed
        // rounding may hide, keeps the master).
        let (m, r) = (rtt_ms(master), rtt_ms(replica));
        if r < m {
            assert!(on_replica > 0, "shard {master}: {line}");
        } else if r > m {
            assert!(on_master > 0, "shard {master}: {line}");
        }
    }
}

/// A plain HTTP/1.0 GET of `/metrics`, the status and the body.
fn scrape(port: u16) -> Option<(u16, String)> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    std::io::Write::write_all(&mut s, b"GET /metrics HTTP/1.0\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    Some((head.split(' ').nth(1)?.parse().ok()?, body.to_string()))
}

/// The sum of every `kvbench_requests_total` sample of the run phase.
fn run_requests(body: &str) -> f64 {
    body.lines()
        .filter(|l| l.starts_with("kvbench_requests_total{") && l.contains("phase=\"run\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[test]
fn prometheus_port_serves_metrics_on_loopback_during_the_run() {
    let _machine = machine::share();
    let redis = Redis::start();
    let port = free_port();
    let dir = TempDir::new("prometheus-port");
    let json = dir.path("r.json");
    let mut child = kvbench_at(redis.port)
        .args(["--test-time", "4", "-t", "1", "-c", "2"])
        .args(["--prometheus-port", &port.to_string()])
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Scrape until a sample shows the run under way (generous: a loaded machine).
    let give_up = Instant::now() + Duration::from_secs(60);
    let seen = loop {
        if let Some((200, body)) = scrape(port) {
            let n = run_requests(&body);
            if n > 0.0 {
                break n;
            }
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "kvbench ended unscraped"
        );
        assert!(
            Instant::now() < give_up,
            "no run sample on 127.0.0.1:{port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(child.wait().unwrap().success(), "{stderr}");
    assert!(
        stderr.contains(&format!("metrics at http://127.0.0.1:{port}/metrics")),
        "{stderr}"
    );
    let doc = common::read_json(&json);
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    // The scrape saw part of the run; the server counted all of it.
    assert!(
        seen >= 1.0 && seen <= (sets + gets) as f64,
        "{seen} of {sets}+{gets}"
    );
    assert_eq!(redis.calls("set"), sets);
    assert_eq!(redis.calls("get"), gets);
}

#[test]
fn connection_stage_timeout_bounds_a_handshake_that_never_answers() {
    // Accepts connections and reads them, never answering: the handshake's
    // first reply never comes.
    let silent = listen();
    let port = silent.local_addr().unwrap().port();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        silent.set_nonblocking(true).unwrap();
        let mut held = Vec::new();
        while stop_rx.try_recv().is_err() {
            if let Ok((s, _)) = silent.accept() {
                held.push(s);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        held.len()
    });
    let out = kvbench_at(port)
        .args(["--connection-stage-timeout", "1", "-n", "10"])
        .output()
        .unwrap();
    stop_tx.send(()).unwrap();
    let accepted = holder.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("within --connection-timeout 1 s"),
        "{stderr}"
    );
    assert!(accepted >= 1, "kvbench never connected");

    // 0 is memtier's "no bound": the run goes, and memtier's configuration
    // block writes 0 as memtier does.
    let redis = Redis::start();
    let report = kvbench_json(
        redis.port,
        "-n 50 -c 1 -t 1 --connection-stage-timeout 0",
        &[],
    );
    assert_eq!(report.doc["configuration"]["connection_timeout"], 0);
    assert_eq!(redis.calls("set") + redis.calls("get"), 50);
}

#[test]
fn miss_rate_threshold_warns_by_the_servers_own_misses() {
    let redis = Redis::start();
    // An empty server: every GET misses.
    let args = "-n 200 -c 1 -t 1 --ratio 0:1 --miss-rate-threshold 50";
    let doc = kvbench_json(redis.port, args, &[]).doc;
    let misses = info_u64(redis.port, "stats", "keyspace_misses");
    assert_eq!(misses, 200);
    assert_eq!(total(&doc, "GET", "count"), misses);
    assert!(
        warning_kinds(&doc).contains(&"miss_rate_above_threshold"),
        "{:?}",
        warning_kinds(&doc)
    );

    // Every key written first: no miss, no warning even at threshold 0.
    let redis = Redis::start();
    let args = "-n 200 -c 1 -t 1 --ratio 0:1 --prefill --key-minimum 1 --key-maximum 100 --miss-rate-threshold 0";
    let doc = kvbench_json(redis.port, args, &[]).doc;
    assert_eq!(info_u64(redis.port, "stats", "keyspace_misses"), 0);
    assert_eq!(info_u64(redis.port, "stats", "keyspace_hits"), 200);
    assert!(
        !warning_kinds(&doc).contains(&"miss_rate_above_threshold"),
        "{:?}",
        warning_kinds(&doc)
    );
}

/// Accepts HTTP requests on `listener` and sends each body down the channel.
fn record_posts(listener: TcpListener) -> mpsc::Receiver<(String, String)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(s) = s else { return };
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut reader = BufReader::new(s);
            let mut head = String::new();
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            if tx.send((head, String::from_utf8(body).unwrap())).is_err() {
                return;
            }
        }
    });
    rx
}

#[test]
fn graphite_port_posts_memtiers_start_and_end_events_per_run() {
    let redis = Redis::start();
    let graphite = listen();
    let graphite_port = graphite.local_addr().unwrap().port();
    let posts = record_posts(graphite);
    let statsd = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let statsd_port = statsd.local_addr().unwrap().port().to_string();
    let args = format!(
        "-n 100 -c 2 -t 1 --run-count 2 --statsd-host 127.0.0.1 --statsd-port {statsd_port} --statsd-run-label nightly --graphite-port {graphite_port}"
    );
    let doc = kvbench_json(redis.port, &args, &[]).doc;
    let mut events = Vec::new();
    while let Ok((head, body)) = posts.recv_timeout(Duration::from_secs(30)) {
        assert!(head.starts_with("POST /events/ HTTP/1.1\r\n"), "{head}");
        assert!(head.contains("Content-Type: application/json"), "{head}");
        events.push(serde_json::from_str::<Value>(&body).unwrap());
        if events.len() == 4 {
            break;
        }
    }
    let mut seen: Vec<(String, String, String)> = events
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            (s("what"), s("tags"), s("data"))
        })
        .collect();
    seen.sort();
    let want = |what: &str, tags: &str, data: &str| (what.into(), tags.into(), data.into());
    assert_eq!(
        seen,
        [
            want("Benchmark Completed", "memtier,end,run:nightly", "run=1"),
            want("Benchmark Completed", "memtier,end,run:nightly", "run=2"),
            want(
                "Benchmark Started",
                "memtier,start,run:nightly",
                "threads=1 connections=2 run=1"
            ),
            want(
                "Benchmark Started",
                "memtier,start,run:nightly",
                "threads=1 connections=2 run=2"
            ),
        ]
    );
    // Two runs of 2 × 100 requests, as the server counted them.
    let requests = total(&doc, "SET", "count") + total(&doc, "GET", "count");
    assert_eq!(requests, 400, "the JSON's totals cover both runs");
    assert_eq!(redis.calls("set") + redis.calls("get"), requests);
    assert!(posts.recv_timeout(Duration::from_millis(500)).is_err());
}

/// A TLS run's JSON and stderr; asserts the server counted every request.
fn tls_run(redis: &TlsRedis, certs: &Certs) -> (Value, String) {
    let dir = TempDir::new("tls-object");
    let json = dir.path("r.json");
    let cacert = certs.path("ca.crt");
    let args = [
        "--tls", "--cacert", &cacert, "-c", "1", "-t", "1", "-n", "40",
    ];
    let mut full = args.to_vec();
    full.extend(["--json-out-file", json.to_str().unwrap()]);
    let out = kvbench_bounded(redis.tls, &full);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let doc = common::read_json(&json);
    assert_eq!(
        redis.calls(),
        (total(&doc, "SET", "count"), total(&doc, "GET", "count"))
    );
    assert_eq!(
        total(&doc, "SET", "count") + total(&doc, "GET", "count"),
        40
    );
    (doc, stderr)
}

#[test]
fn the_tls_object_names_the_version_and_cipher_the_server_agreed_to() {
    let certs = Certs::make();
    // A server offering both versions settles on TLS 1.3.
    let redis = TlsRedis::start(&certs, false);
    let (doc, stderr) = tls_run(&redis, &certs);
    let tls = &doc["TLS"];
    assert_eq!(tls["negotiated_version"], "TLSv1.3", "{doc}");
    let cipher = tls["negotiated_cipher"].as_str().unwrap();
    assert!(
        [
            "TLS_AES_256_GCM_SHA384",
            "TLS_AES_128_GCM_SHA256",
            "TLS_CHACHA20_POLY1305_SHA256"
        ]
        .contains(&cipher),
        "{cipher}"
    );
    let line = format!("TLS connection established: protocol TLSv1.3, cipher {cipher}");
    assert_eq!(stderr.matches(&line).count(), 1, "{stderr}");

    // One limited to TLS 1.2: an ECDHE suite by OpenSSL's name.
    let redis = TlsRedis::start_with(&certs, "server.crt", false, &["--tls-protocols", "TLSv1.2"]);
    let (doc, _) = tls_run(&redis, &certs);
    assert_eq!(doc["TLS"]["negotiated_version"], "TLSv1.2", "{doc}");
    let cipher = doc["TLS"]["negotiated_cipher"].as_str().unwrap();
    assert!(cipher.starts_with("ECDHE-"), "{cipher}");

    // Without --tls there is no TLS object.
    let plain = Redis::start();
    let doc = kvbench_json(plain.port, "-n 10 -c 1 -t 1", &[]).doc;
    assert!(doc.get("TLS").is_none(), "{doc}");
}

#[test]
fn realtime_latencies_prints_each_seconds_block_within_the_runs_own_numbers() {
    let _machine = machine::share();
    let redis = Redis::start();
    let args = "--test-time 3 -c 1 -t 1 --ratio 1:1 --realtime-latencies --print-percentiles 50,99,99.9,100";
    let report = kvbench_json(redis.port, args, &[]);
    let (doc, stderr) = (&report.doc, &report.stderr);
    let count = total(doc, "SET", "count") + total(doc, "GET", "count");
    assert_eq!(redis.calls("set") + redis.calls("get"), count);
    let throughput: Vec<u64> = stderr
        .lines()
        .filter(|l| l.starts_with("[RUN #1 ") && l.contains("] throughput "))
        .map(|l| {
            let after = l.split("] throughput ").nth(1).unwrap();
            after.split(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    // Whole seconds of a 3 s run; the partial last one is in the report only.
    assert!((2..=4).contains(&throughput.len()), "{stderr}");
    assert!(throughput.iter().all(|&n| n > 0), "{throughput:?}");
    assert!(
        throughput.iter().sum::<u64>() <= count,
        "{throughput:?} of {count}"
    );
    // Four percentiles: one line of three, one of the fourth ending in ms,
    // each second; no second's p100 above the run's own maximum.
    let max_ms = common::f(&doc["ALL STATS"]["Totals"]["Percentile Latencies"]["p100.0"]);
    let p100: Vec<f64> = stderr
        .lines()
        .filter(|l| l.starts_with("[RUN #1 ") && l.contains("] latency p100 "))
        .map(|l| {
            assert!(l.ends_with(" ms"), "{l}");
            let after = l.split("] latency p100 ").nth(1).unwrap();
            after.split(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(p100.len(), throughput.len(), "{stderr}");
    assert!(
        p100.iter().all(|&v| v > 0.0 && v <= max_ms + 0.01),
        "{p100:?} vs {max_ms}"
    );
    let first_lines = stderr
        .lines()
        .filter(|l| l.contains("] latency p50 "))
        .count();
    assert_eq!(first_lines, throughput.len(), "{stderr}");
}
