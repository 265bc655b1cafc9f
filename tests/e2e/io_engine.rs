//! `--io-engine uring` against real servers: the counts kvbench reports are
//! the server's own (Redis's commandstats, memcached's `stats`), its
//! latencies lie in the same bounds as epoll's, a server that kills every
//! connection is survived by reconnecting through the ring, and what the
//! ring does not carry (TLS) is refused before any connection opens. Where
//! the kernel refuses io_uring each test says so and passes: the rest of the
//! suite runs its counts checks once more under the ring only where it can
//! (`make test`, `KVBENCH_IO_ENGINE=uring`).

use std::process::Stdio;
use std::time::Duration;

use crate::common::memcached::Memcached;
use crate::common::{
    Redis, TempDir, f, kvbench, kvbench_at, kvbench_json, read_json, refused_before_connecting,
    total, u, wait_for_traffic,
};

/// False, with the kernel's reason printed, where this kernel refuses
/// io_uring (a container's seccomp profile, `io_uring_disabled`).
fn ring_allowed() -> bool {
    let out = kvbench(&[
        "--io-engine",
        "uring",
        "-p",
        "1",
        "-n",
        "1",
        "--hide-histogram",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("refuses io_uring") {
        eprintln!("skipped: {}", stderr.trim());
        return false;
    }
    true
}

#[test]
fn uring_counts_equal_the_servers_calls_and_latencies_are_bounded() {
    if !ring_allowed() {
        return;
    }
    let redis = Redis::start();
    let report = redis.kvbench_json(
        "--io-engine uring -t 2 -c 5 --pipeline 4 --ratio 1:1 --key-maximum 5000 --test-time 2",
    );
    let doc = &report.doc;
    assert_eq!(doc["kvbench"]["config"]["io_engine"], "uring");
    let (sets, gets) = (total(doc, "SET", "count"), total(doc, "GET", "count"));
    assert!(sets > 100 && gets > 100, "{sets} SETs, {gets} GETs");
    assert_eq!(redis.calls("set"), sets);
    assert_eq!(redis.calls("get"), gets);
    let totals = &doc["ALL STATS"]["Totals"];
    let (p50, p99) = (
        f(&totals["Percentile Latencies"]["p50.00"]),
        f(&totals["Percentile Latencies"]["p99.00"]),
    );
    assert!(
        p50 > 0.0 && p50 <= p99 && p99 < 1000.0,
        "p50 {p50} ms, p99 {p99} ms"
    );
    assert_eq!(u(&doc["kvbench"]["errors"]["connection"]), 0);
}

#[test]
fn uring_memcached_counts_equal_the_servers_stats() {
    if !ring_allowed() {
        return;
    }
    let mc = Memcached::start();
    let port = mc.port.to_string();
    let report = kvbench_json(
        mc.port,
        "--io-engine uring --protocol memcache_text -t 1 -c 4 --pipeline 8 --ratio 1:2 --key-maximum 2000 -n 500",
        &[],
    );
    let doc = &report.doc;
    assert_eq!(total(doc, "SET", "count"), mc.stat("cmd_set"), "{port}");
    assert_eq!(total(doc, "GET", "count"), mc.stat("cmd_get"), "{port}");
    assert_eq!(
        total(doc, "SET", "count") + total(doc, "GET", "count"),
        4 * 500
    );
}

#[test]
fn uring_reconnects_after_the_server_kills_every_connection() {
    if !ring_allowed() {
        return;
    }
    let redis = Redis::start();
    let dir = TempDir::new("uring-kill");
    let json = dir.path("r.json");
    let mut child = kvbench_at(redis.port)
        .args([
            "--io-engine",
            "uring",
            "-t",
            "1",
            "-c",
            "4",
            "--ratio",
            "1:1",
            "--test-time",
            "4",
            "--json-out-file",
        ])
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut child);
    std::thread::sleep(Duration::from_millis(500));
    let killed = redis.command(&["CLIENT", "KILL", "TYPE", "normal"]);
    let killed: u64 = String::from_utf8_lossy(&killed).parse().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let doc = read_json(&json);
    let errors = &doc["kvbench"]["errors"];
    // The test's own connection and kvbench's control connections are
    // killed too: kvbench lost at most its 4, and every one came back.
    assert!((4..=8).contains(&killed), "killed {killed}");
    assert!((1..=4).contains(&u(&errors["connection"])), "{errors}");
    assert!(
        u(&errors["reconnects"]) >= u(&errors["connection"]),
        "{errors}"
    );
    // The server executed every request kvbench counted, and at most the
    // ones lost in flight besides.
    let counted = total(&doc, "SET", "count") + total(&doc, "GET", "count");
    let served = redis.calls("set") + redis.calls("get");
    let lost = u(&errors["lost_requests"]);
    assert!(
        served >= counted && served <= counted + lost,
        "served {served}, counted {counted}, lost {lost}"
    );
    assert!(counted > 1000, "{counted}");
}

#[test]
fn uring_with_tls_is_refused_before_connecting() {
    let redis = Redis::start();
    let stderr = refused_before_connecting(
        &redis,
        [
            "--io-engine",
            "uring",
            "--tls",
            "--tls-skip-verify",
            "-n",
            "1",
        ],
    );
    assert!(
        stderr.contains("--io-engine") && stderr.contains("does not carry TLS"),
        "{stderr}"
    );
}
