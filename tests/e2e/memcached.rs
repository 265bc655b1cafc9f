//! `-P memcache_text` and `-P memcache_binary` in the load loop against a real
//! memcached: kvbench's SET and GET counts, hits and misses equal memcached's
//! own `stats` (cmd_set, cmd_get, get_hits, get_misses), the report's server
//! evidence reads the same counters, and the JSON names the protocol as
//! memtier writes it. Against a lying text server, a `VALUE` for another key
//! and a `VALUE` block shorter than it says are protocol errors at once, never
//! hits.

mod lies;

use crate::common;
use crate::common::memcached::Memcached;
use crate::common::{TempDir, assert_no_faults, kvbench_json, read_json, total, u};
use serde_json::Value;

/// Asserts the run had no errors of any kind.
fn assert_clean(doc: &Value, what: &str) {
    assert_no_faults(doc, what);
    for op in ["SET", "GET"] {
        assert_eq!(total(doc, op, "errors"), 0, "{what}: {op} errors");
    }
}

/// A prefill of keys 1..=400, then GETs only over them: every GET hits, and
/// memcached counted exactly what kvbench did, in either protocol.
fn prefilled_gets_all_hit(protocol: &str) {
    let m = Memcached::start();
    let args = format!(
        "-P {protocol} -t 1 -c 2 -n 150 --ratio 0:1 --key-minimum 1 --key-maximum 400 --prefill --key-pattern R:R"
    );
    let report = kvbench_json(m.port, &args, &[]);
    let doc = &report.doc;
    assert_clean(doc, protocol);
    let gets = total(doc, "GET", "count");
    assert_eq!(gets, 2 * 150, "{protocol}: kvbench GETs");
    assert_eq!(
        total(doc, "GET", "hits"),
        gets,
        "{protocol}: every GET hits"
    );
    assert_eq!(total(doc, "GET", "misses"), 0, "{protocol}: no misses");
    // The prefill wrote each key once; the run wrote nothing.
    assert_eq!(m.stat("cmd_set"), 400, "{protocol}: memcached's cmd_set");
    assert_eq!(m.stat("curr_items"), 400, "{protocol}: memcached's items");
    assert_eq!(m.stat("cmd_get"), gets, "{protocol}: memcached's cmd_get");
    assert_eq!(m.stat("get_hits"), gets, "{protocol}: memcached's get_hits");
    assert_eq!(
        m.stat("get_misses"),
        0,
        "{protocol}: memcached's get_misses"
    );
    assert_eq!(doc["configuration"]["protocol"], protocol);
    // The evidence of the run, read from memcached's stats by kvbench itself.
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    assert_eq!(u(&delta["get_calls"]), gets, "{protocol}: {delta}");
    assert_eq!(u(&delta["set_calls"]), 0, "{protocol}: {delta}");
    assert_eq!(u(&delta["keyspace_hits"]), gets, "{protocol}: {delta}");
    assert_eq!(u(&delta["keys_after"]), 400, "{protocol}: {delta}");
    assert!(
        report.stdout.contains("Server: memcached 1."),
        "{protocol}: {}",
        report.stdout
    );
    assert!(
        report
            .stdout
            .contains(&format!("GET calls {gets} (kvbench {gets})")),
        "{protocol}: {}",
        report.stdout
    );
}

#[test]
fn memcache_text_prefilled_gets_all_hit_and_counts_equal_memcacheds_stats() {
    prefilled_gets_all_hit("memcache_text");
}

#[test]
fn memcache_binary_prefilled_gets_all_hit_and_counts_equal_memcacheds_stats() {
    prefilled_gets_all_hit("memcache_binary");
}

/// A mixed run over a range larger than what it writes: some GETs miss, and
/// kvbench's hits and misses are memcached's, one for one.
fn mixed_hits_and_misses_match(protocol: &str) {
    let m = Memcached::start();
    let args = format!(
        "-P {protocol} -t 2 -c 2 -n 300 --ratio 1:3 --key-minimum 1 --key-maximum 2000 --pipeline 4"
    );
    let doc = kvbench_json(m.port, &args, &[]).doc;
    assert_clean(&doc, protocol);
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    assert_eq!(sets + gets, 4 * 300, "{protocol}: every request answered");
    assert_eq!(m.stat("cmd_set"), sets, "{protocol}: cmd_set");
    assert_eq!(m.stat("cmd_get"), gets, "{protocol}: cmd_get");
    let (hits, misses) = (total(&doc, "GET", "hits"), total(&doc, "GET", "misses"));
    assert_eq!(hits + misses, gets, "{protocol}");
    assert_eq!(m.stat("get_hits"), hits, "{protocol}: get_hits");
    assert_eq!(m.stat("get_misses"), misses, "{protocol}: get_misses");
    // At most 300 distinct keys of 2000 are written, so most GETs miss, yet
    // the GETs after a key's SET hit.
    assert!(
        misses > gets / 2 && hits > 0,
        "{protocol}: {hits} hits, {misses} misses"
    );
    let rate = doc["kvbench"]["hit_rate_percent"].as_f64().unwrap();
    let expected = 100.0 * hits as f64 / gets as f64;
    assert!(
        (rate - expected).abs() < 0.001,
        "{protocol}: {rate} vs {expected}"
    );
}

#[test]
fn memcache_text_hits_and_misses_equal_memcacheds() {
    mixed_hits_and_misses_match("memcache_text");
}

#[test]
fn memcache_binary_hits_and_misses_equal_memcacheds() {
    mixed_hits_and_misses_match("memcache_binary");
}

/// Values above memcached's item size limit are refused by memcached one by
/// one: counted as errors, the connection keeps going, and the GETs still run.
#[test]
fn values_over_the_item_limit_are_counted_errors_not_a_stuck_connection() {
    for protocol in ["memcache_text", "memcache_binary"] {
        let m = Memcached::start_with(&["-I", "1m"]);
        let dir = TempDir::new("mc-large");
        let json = dir.path("r.json");
        let out = common::kvbench_at(m.port)
            .args(["-P", protocol, "-t", "1", "-c", "1", "-n", "20"])
            .args(["--ratio", "1:1", "--key-maximum", "50", "-d", "1100000"])
            .args(["--json-out-file", json.to_str().unwrap()])
            .output()
            .unwrap();
        let doc = read_json(&json);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(total(&doc, "SET", "count"), 10, "{protocol}: {stderr}");
        assert_eq!(
            total(&doc, "SET", "errors"),
            10,
            "{protocol}: every SET refused"
        );
        assert_eq!(
            total(&doc, "GET", "count"),
            10,
            "{protocol}: GETs still answered"
        );
        assert_eq!(
            total(&doc, "GET", "hits"),
            0,
            "{protocol}: nothing was stored"
        );
        assert_eq!(doc["kvbench"]["errors"]["protocol"], 0, "{protocol}");
        assert_eq!(doc["kvbench"]["errors"]["connection"], 0, "{protocol}");
        assert_eq!(m.stat("curr_items"), 0, "{protocol}");
        assert_eq!(m.stat("cmd_get"), 10, "{protocol}");
        // The advice is memcached's, not Redis' INFO errorstats.
        let warnings = doc["kvbench"]["warnings"].as_array().unwrap();
        let advice = warnings
            .iter()
            .find(|w| w["kind"] == "error_replies")
            .unwrap_or_else(|| panic!("{protocol}: no error_replies warning: {warnings:?}"));
        let message = advice["message"].as_str().unwrap();
        assert!(
            message.contains("item size limit (-I"),
            "{protocol}: {message}"
        );
        assert!(!message.contains("INFO"), "{protocol}: {message}");
    }
}

/// A memcached-binary stand-in that answers every GET with a miss, but swaps
/// the responses to the first two GETs of its first benchmark connection.
/// Text lines (the control connection's `stats`) get `ERROR`, as a server
/// without stats would answer.
fn swapping_server() -> (u16, std::thread::JoinHandle<()>) {
    use std::io::{Read, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    let listener = common::listen();
    let port = listener.local_addr().unwrap().port();
    let swapped = Arc::new(AtomicBool::new(false));
    let handle = std::thread::spawn(move || {
        listener.set_nonblocking(true).unwrap();
        let give_up = std::time::Instant::now() + Duration::from_secs(20);
        let mut threads = Vec::new();
        while std::time::Instant::now() < give_up {
            let Ok((mut s, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            let swapped = Arc::clone(&swapped);
            threads.push(std::thread::spawn(move || {
                s.set_nonblocking(false).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut held: Option<Vec<u8>> = None;
                let mut header = [0u8; 24];
                loop {
                    if s.read_exact(&mut header[..1]).is_err() {
                        return;
                    }
                    if header[0] != 0x80 {
                        // A text line: read to its end and refuse it.
                        let mut byte = [0u8; 1];
                        while byte[0] != b'\n' && s.read_exact(&mut byte).is_ok() {}
                        let _ = s.write_all(b"ERROR\r\n");
                        continue;
                    }
                    if s.read_exact(&mut header[1..]).is_err() {
                        return;
                    }
                    let body = u32::from_be_bytes(header[8..12].try_into().unwrap());
                    let mut rest = vec![0u8; body as usize];
                    if s.read_exact(&mut rest).is_err() {
                        return;
                    }
                    if header[1] == 0x10 {
                        // The preflight's STAT: the empty packet that ends
                        // the stats, at once, outside the swap.
                        let mut end = vec![0x81, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
                        end.extend_from_slice(&header[12..16]);
                        end.extend_from_slice(&[0; 8]);
                        let _ = s.write_all(&end);
                        continue;
                    }
                    // A miss carrying the request's opcode and opaque.
                    let mut miss = vec![0x81, header[1], 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];
                    miss.extend_from_slice(&header[12..16]);
                    miss.extend_from_slice(&[0; 8]);
                    match held.take() {
                        Some(first) => {
                            let _ = s.write_all(&[miss, first].concat());
                        }
                        None if !swapped.swap(true, Ordering::SeqCst) => held = Some(miss),
                        None => {
                            let _ = s.write_all(&miss);
                        }
                    }
                }
            }));
        }
        for t in threads {
            let _ = t.join();
        }
    });
    (port, handle)
}

#[test]
fn a_binary_response_out_of_order_is_a_protocol_error_not_a_mismatched_latency() {
    let (port, _server) = swapping_server();
    let dir = TempDir::new("mc-swap");
    let json = dir.path("r.json");
    let out = common::kvbench_at(port)
        .args(["-P", "memcache_binary", "-t", "1", "-c", "1", "-n", "20"])
        .args(["--ratio", "0:1", "--pipeline", "2"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc = read_json(&json);
    let errors = &doc["kvbench"]["errors"];
    assert_eq!(errors["protocol"], 1, "{errors} {stderr}");
    // Both requests of the swapped pair were lost with the connection, which
    // was reconnected; every other GET was answered, as a miss.
    assert_eq!(errors["lost_requests"], 2, "{errors}");
    assert_eq!(errors["reconnects"], 1, "{errors}");
    let gets = total(&doc, "GET", "count");
    assert_eq!(gets, 18, "{stderr}");
    assert_eq!(total(&doc, "GET", "misses"), gets);
}

/// `--reconnect-interval` reconnects without a handshake, and the binary
/// opaques start again from 0 on every new connection: no protocol error,
/// and the counts still equal memcached's.
#[test]
fn reconnects_need_no_handshake_and_restart_the_opaques() {
    for protocol in ["memcache_text", "memcache_binary"] {
        let m = Memcached::start();
        let args = format!(
            "-P {protocol} -t 1 -c 2 -n 200 --ratio 1:1 --key-maximum 100 --pipeline 4 --reconnect-interval 30"
        );
        let doc = kvbench_json(m.port, &args, &[]).doc;
        assert_clean(&doc, protocol);
        let reconnects = u(&doc["kvbench"]["errors"]["reconnects"]);
        // 200 requests per connection in shares of 30: six planned reconnects each.
        assert!((10..=14).contains(&reconnects), "{protocol}: {reconnects}");
        let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
        assert_eq!(sets + gets, 2 * 200, "{protocol}");
        assert_eq!(m.stat("cmd_set"), sets, "{protocol}");
        assert_eq!(m.stat("cmd_get"), gets, "{protocol}");
        // Two benchmark connections, each reconnected, plus the preflight and
        // the control connection's reopenings: memcached saw them all.
        assert!(m.stat("total_connections") >= 2 + reconnects, "{protocol}");
    }
}

/// memcached restarting during a binary run: the requests in flight are
/// lost with the connection, and the reconnected one numbers its opaques
/// from 0 again, so it is not taken for a server answering out of order.
#[test]
fn a_restart_mid_run_loses_only_what_was_in_flight() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let mut m = Memcached::start();
    let dir = TempDir::new("mc-restart");
    let json = dir.path("r.json");
    let mut kvbench = common::kvbench_at(m.port)
        .args([
            "-P",
            "memcache_binary",
            "-t",
            "1",
            "-c",
            "2",
            "--test-time",
            "3",
        ])
        .args(["--ratio", "1:1", "--key-maximum", "1000", "--pipeline", "8"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(20);
    while m.stat("cmd_get") == 0 {
        assert!(Instant::now() < give_up, "no traffic reached memcached");
        std::thread::sleep(Duration::from_millis(20));
    }
    m.restart();
    let status = loop {
        if let Some(status) = kvbench.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > give_up {
            let _ = kvbench.kill();
            panic!("kvbench did not finish its 3 s run");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let doc = read_json(&json);
    let errors = &doc["kvbench"]["errors"];
    assert_eq!(errors["protocol"], 0, "{errors}");
    assert!(u(&errors["connection"]) >= 1, "{errors}");
    assert!(u(&errors["reconnects"]) >= 2, "{errors}");
    assert!(u(&errors["lost_requests"]) <= 2 * 8, "{errors}");
    // The new process saw only what came after the reconnects: kvbench's
    // GETs are at least its cmd_get, and the reconnected connections
    // worked (the new server counted requests from them).
    let gets = total(&doc, "GET", "count");
    let after = m.stat("cmd_get");
    assert!(after > 0 && after <= gets, "{after} of {gets}");
}
