//! memtier 2.5's flags on kvbench's machinery, each against a real server:
//! `--command-miss-tracking` (the server's own miss count against the
//! JSON's), `--prometheus-run-label` (scraped during a run) and
//! `--read-preference-fallback primary` (a cluster whose shards have no
//! replica serves every read from its master, per node's own commandstats).

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::cluster::Cluster;
use crate::common::cluster::kvbench::kvbench_cluster;
use crate::common::ports::free_port;
use crate::common::{self, Redis, TempDir, info_u64, kvbench_at, kvbench_json, machine, total};

/// 100 GETs of `--command` on an empty server, with `extra` flags: every one
/// a miss in the server's count.
fn command_gets(extra: &[&str]) -> (u64, u64, u64) {
    let redis = Redis::start();
    let mut args = vec!["--command", "GET __key__"];
    args.extend_from_slice(extra);
    let doc = kvbench_json(redis.port, "-n 100 -c 1 -t 1", &args).doc;
    assert_eq!(info_u64(redis.port, "stats", "keyspace_misses"), 100);
    (
        total(&doc, "GET", "count"),
        total(&doc, "GET", "hits"),
        total(&doc, "GET", "misses"),
    )
}

#[test]
fn command_miss_tracking_off_counts_none_of_the_servers_misses() {
    // auto (memtier's default): the row counts the server's 100 misses.
    assert_eq!(command_gets(&[]), (100, 0, 100));
    assert_eq!(
        command_gets(&["--command-miss-tracking", "auto"]),
        (100, 0, 100)
    );
    // off: the same 100 replies, no hit or miss counted.
    assert_eq!(
        command_gets(&["--command-miss-tracking", "off"]),
        (100, 0, 0)
    );
}

/// A plain HTTP/1.0 GET of `/metrics`: the body of a 200 answer.
fn scrape(port: u16) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    std::io::Write::write_all(&mut s, b"GET /metrics HTTP/1.0\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.contains(" 200 ").then(|| body.to_string())
}

#[test]
fn prometheus_run_label_is_on_every_sample_of_the_endpoint() {
    let _machine = machine::share();
    let redis = Redis::start();
    let port = free_port();
    let dir = TempDir::new("prometheus-run-label");
    let json = dir.path("r.json");
    let mut child = kvbench_at(redis.port)
        .args(["--test-time", "4", "-t", "1", "-c", "2"])
        .args(["--prometheus-port", &port.to_string()])
        .args(["--prometheus-run-label", "env=staging"])
        .args(["--prometheus-run-label", "name=a \"b\""])
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(60);
    let body = loop {
        if let Some(body) = scrape(port)
            && body.contains("kvbench_requests_total{")
            && body.contains("phase=\"run\"")
        {
            break body;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "kvbench ended unscraped"
        );
        assert!(Instant::now() < give_up, "no run sample on port {port}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut stderr = String::new();
    let mut pipe = child.stderr.take().unwrap();
    pipe.read_to_string(&mut stderr).unwrap();
    assert!(child.wait().unwrap().success(), "{stderr}");
    let samples: Vec<&str> = body.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(samples.len() > 10, "{body}");
    for line in samples {
        assert!(
            line.starts_with("kvbench_") && line.contains("{env=\"staging\",name=\"a \\\"b\\\"\""),
            "{line}"
        );
    }
    // The run itself is the usual one: the server counted it all.
    let doc = common::read_json(&json);
    assert_eq!(redis.calls("get"), total(&doc, "GET", "count"));
}

#[test]
fn read_preference_fallback_primary_reads_a_replicaless_shard_on_its_master() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let args = "-t 2 -c 2 -n 500 --ratio 1:1 --key-minimum 1 --key-maximum 5000 \
                --read-preference secondary --read-preference-fallback primary";
    let doc = kvbench_cluster(&cluster, args, &[]).doc;
    let gets = total(&doc, "GET", "count");
    assert_eq!(gets, 1_000);
    // No shard has a replica: every read on a master, as memtier's fallback.
    assert_eq!(cluster.sum_calls("get"), gets);
    assert_eq!(cluster.sum_calls_all("get"), gets);
}

/// The `pN` values of `[RUN #1 …] latency win2s` lines, per line.
fn window_values(stderr: &str) -> Vec<Vec<f64>> {
    stderr
        .lines()
        .filter(|l| l.starts_with("[RUN #1 ") && l.contains("] latency win2s "))
        .map(|l| {
            let fields = l.split("] latency win2s ").nth(1).unwrap();
            let words: Vec<&str> = fields.trim_end_matches(" ms").split_whitespace().collect();
            words.chunks(2).map(|w| w[1].parse().unwrap()).collect()
        })
        .collect()
}

#[test]
fn latency_window_adds_a_line_per_second_within_the_runs_own_latencies() {
    let _machine = machine::share();
    let redis = Redis::start();
    let args =
        "--test-time 3 -c 1 -t 1 --ratio 1:1 --realtime-latencies --print-percentiles 50,99,100";
    let report = kvbench_json(redis.port, args, &["--latency-window", "2"]);
    let (doc, stderr) = (&report.doc, &report.stderr);
    let count = total(doc, "SET", "count") + total(doc, "GET", "count");
    assert_eq!(redis.calls("set") + redis.calls("get"), count);
    let blocks = stderr
        .lines()
        .filter(|l| l.starts_with("[RUN #1 ") && l.contains("] throughput "))
        .count();
    assert!((2..=4).contains(&blocks), "{stderr}");
    // One window line per block (three percentiles fit one line), each
    // p50 <= p99 <= p100, none above the run's own maximum.
    let max_ms = common::f(&doc["ALL STATS"]["Totals"]["Percentile Latencies"]["p100.0"]);
    let windows = window_values(stderr);
    assert_eq!(windows.len(), blocks, "{stderr}");
    for w in &windows {
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0] > 0.0 && w[0] <= w[1] && w[1] <= w[2], "{w:?}");
        assert!(w[2] <= max_ms + 0.01, "{w:?} vs {max_ms}");
    }
    // Without the flag the block is as it was.
    let report = kvbench_json(redis.port, args, &[]);
    assert!(
        window_values(&report.stderr).is_empty(),
        "{}",
        report.stderr
    );
}

#[test]
fn prometheus_latency_buckets_are_the_histograms_bounds() {
    let _machine = machine::share();
    let redis = Redis::start();
    let port = free_port();
    let mut child = kvbench_at(redis.port)
        .args(["--test-time", "3", "-t", "1", "-c", "1"])
        .args(["--prometheus-port", &port.to_string()])
        .args(["--prometheus-latency-buckets", "0.001,0.0025,0.01,1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(60);
    let body = loop {
        if let Some(body) = scrape(port)
            && body.contains("phase=\"run\"")
            && body.contains("kvbench_request_duration_seconds_count{")
        {
            break body;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "kvbench ended unscraped"
        );
        assert!(Instant::now() < give_up, "no run sample on port {port}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(child.wait().unwrap().success());
    let run_get = "phase=\"run\",run=\"1\",op=\"GET\"";
    let buckets: Vec<(String, f64)> = body
        .lines()
        .filter(|l| {
            l.starts_with("kvbench_request_duration_seconds_bucket{") && l.contains(run_get)
        })
        .map(|l| {
            let le = l.split("le=\"").nth(1).unwrap().split('"').next().unwrap();
            (
                le.to_string(),
                l.rsplit(' ').next().unwrap().parse().unwrap(),
            )
        })
        .collect();
    let les: Vec<&str> = buckets.iter().map(|(le, _)| le.as_str()).collect();
    assert_eq!(les, ["0.001", "0.0025", "0.01", "1", "+Inf"], "{body}");
    // Cumulative, ending at the series' count.
    assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "{buckets:?}");
    let count: f64 = body
        .lines()
        .find(|l| l.starts_with("kvbench_request_duration_seconds_count{") && l.contains(run_get))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
        .unwrap();
    assert_eq!(buckets[4].1, count);
}

/// `--command` with `auto` miss tracking on a server where keys 1–50 of
/// 1–100 exist, and the server's own lookups after the run: kvbench's hits
/// and misses of the row, and the server's keyspace hits and misses.
fn shaped(redis: &Redis, command: &str) -> ((u64, u64), (u64, u64)) {
    redis.reset_stats();
    let row = command.split_whitespace().next().unwrap();
    let doc = kvbench_json(
        redis.port,
        "-n 200 -c 1 -t 1 --key-maximum 100",
        &["--command", command],
    )
    .doc;
    assert_eq!(total(&doc, row, "count"), 200, "{command}");
    let server = (
        info_u64(redis.port, "stats", "keyspace_hits"),
        info_u64(redis.port, "stats", "keyspace_misses"),
    );
    (
        (total(&doc, row, "hits"), total(&doc, row, "misses")),
        server,
    )
}

#[test]
fn command_miss_tracking_auto_counts_each_key_of_a_multi_key_or_collection_reply() {
    let redis = Redis::start();
    for k in 1..=50 {
        redis.command(&["SET", &format!("memtier-{k}"), "v"]);
        redis.command(&["RPUSH", &format!("list-memtier-{k}"), "a", "b"]);
    }
    // memtier's reply shapes, each counted key by key as the server counts
    // its own lookups: an MGET's elements, an EXISTS' count, a list's
    // emptiness. About half of the keys exist, so both sides are counted.
    for command in [
        "MGET __key__ __key__ __key__",
        "EXISTS __key__ __key__",
        // `__key__` is `memtier-N`: the lists are `list-memtier-N`.
        "LRANGE list-__key__ 0 -1",
    ] {
        let (kvbench, server) = shaped(&redis, command);
        assert_eq!(kvbench, server, "{command}: kvbench's hits and misses");
        let lookups = 200 * command.matches("__key__").count() as u64;
        assert_eq!(kvbench.0 + kvbench.1, lookups, "{command}");
        assert!(
            kvbench.0 > lookups / 5 && kvbench.1 > lookups / 5,
            "{command}: {kvbench:?}"
        );
    }
    // off: the same replies, nothing counted.
    redis.reset_stats();
    let doc = kvbench_json(
        redis.port,
        "-n 200 -c 1 -t 1 --key-maximum 100",
        &[
            "--command",
            "MGET __key__ __key__",
            "--command-miss-tracking",
            "off",
        ],
    )
    .doc;
    assert_eq!(
        (total(&doc, "MGET", "hits"), total(&doc, "MGET", "misses")),
        (0, 0)
    );
}
