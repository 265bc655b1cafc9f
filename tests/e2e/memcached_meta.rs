//! `-P memcache_meta` in the load loop against a real memcached: kvbench's
//! SET and GET counts, hits and misses equal memcached's own `stats`
//! (cmd_set, cmd_get, get_hits, get_misses), pipelined or not, and across
//! reconnects (the opaques start again at 0); the expiry of
//! `--expiry-range` reaches memcached as each item's TTL (read back with
//! `mg KEY t`); and against a stand-in whose replies echo another request's
//! opaque, each reply is a protocol error, never a miss.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::common::memcached::Memcached;
use crate::common::{
    self, TempDir, assert_no_faults, kvbench_json, listen, machine, read_json, total, u,
};

/// Asserts the run had no errors of any kind.
fn assert_clean(doc: &Value) {
    assert_no_faults(doc, "memcache_meta");
    for op in ["SET", "GET"] {
        assert_eq!(total(doc, op, "errors"), 0, "{op} errors");
    }
}

#[test]
fn prefilled_meta_gets_all_hit_and_counts_equal_memcacheds_stats() {
    let m = Memcached::start();
    let args = "-P memcache_meta -t 1 -c 2 -n 150 --ratio 0:1 --key-minimum 1 --key-maximum 400 --prefill --key-pattern R:R";
    let report = kvbench_json(m.port, args, &[]);
    let doc = &report.doc;
    assert_clean(doc);
    let gets = total(doc, "GET", "count");
    assert_eq!(gets, 2 * 150, "kvbench GETs");
    assert_eq!(total(doc, "GET", "hits"), gets, "every GET hits");
    assert_eq!(total(doc, "GET", "misses"), 0);
    // The prefill's ms wrote each key once; the run's mg wrote nothing.
    assert_eq!(m.stat("cmd_set"), 400, "memcached's cmd_set");
    assert_eq!(m.stat("curr_items"), 400, "memcached's items");
    assert_eq!(m.stat("cmd_get"), gets, "memcached's cmd_get");
    assert_eq!(m.stat("get_hits"), gets, "memcached's get_hits");
    assert_eq!(m.stat("get_misses"), 0, "memcached's get_misses");
    assert_eq!(doc["configuration"]["protocol"], "memcache_meta");
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    assert_eq!(u(&delta["get_calls"]), gets, "{delta}");
    assert_eq!(u(&delta["keyspace_hits"]), gets, "{delta}");
    assert_eq!(u(&delta["keys_after"]), 400, "{delta}");
    assert!(
        report
            .stdout
            .contains(&format!("GET calls {gets} (kvbench {gets})")),
        "{}",
        report.stdout
    );
}

#[test]
fn pipelined_meta_hits_and_misses_equal_memcacheds() {
    let m = Memcached::start();
    let args = "-P memcache_meta -t 2 -c 2 -n 300 --ratio 1:3 --key-minimum 1 --key-maximum 2000 --pipeline 4";
    let doc = kvbench_json(m.port, args, &[]).doc;
    assert_clean(&doc);
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    assert_eq!(sets + gets, 4 * 300, "every request answered");
    assert!((250..=350).contains(&sets), "{sets} SETs of 1200 at 1:3");
    assert_eq!(m.stat("cmd_set"), sets, "cmd_set");
    assert_eq!(m.stat("cmd_get"), gets, "cmd_get");
    let (hits, misses) = (total(&doc, "GET", "hits"), total(&doc, "GET", "misses"));
    assert_eq!(hits + misses, gets);
    assert_eq!(m.stat("get_hits"), hits, "get_hits");
    assert_eq!(m.stat("get_misses"), misses, "get_misses");
    // At most 300 distinct keys of 2000 are written, so most GETs miss, yet
    // the GETs after a key's SET hit.
    assert!(
        misses > gets / 2 && hits > 0,
        "{hits} hits, {misses} misses"
    );
}

#[test]
fn opaques_start_again_at_each_reconnect() {
    let m = Memcached::start();
    let args = "-P memcache_meta -t 1 -c 2 -n 200 --ratio 1:1 --key-maximum 100 --pipeline 4 --reconnect-interval 30";
    let doc = kvbench_json(m.port, args, &[]).doc;
    let errors = &doc["kvbench"]["errors"];
    // 400 requests, a reconnect after every 30 on each connection.
    assert!((10..=14).contains(&u(&errors["reconnects"])), "{errors}");
    assert_clean(&doc);
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    assert_eq!((sets, gets), (200, 200));
    assert_eq!(m.stat("cmd_set"), sets, "cmd_set");
    assert_eq!(m.stat("cmd_get"), gets, "cmd_get");
    assert_eq!(
        m.stat("get_hits") + m.stat("get_misses"),
        gets,
        "get_hits + get_misses"
    );
    assert_eq!(m.stat("get_hits"), total(&doc, "GET", "hits"), "get_hits");
}

/// The remaining TTL memcached reports for `key` (`mg KEY t`): `None` for a
/// miss, -1 for an item that never expires.
fn ttl_of(s: &mut BufReader<TcpStream>, key: &str) -> Option<i64> {
    s.get_mut()
        .write_all(format!("mg {key} t\r\n").as_bytes())
        .unwrap();
    let mut line = String::new();
    s.read_line(&mut line).unwrap();
    if line == "EN\r\n" {
        return None;
    }
    let ttl = line
        .strip_prefix("HD t")
        .unwrap_or_else(|| panic!("mg {key} t answered {line:?}"));
    Some(ttl.trim().parse().unwrap())
}

#[test]
fn expiry_range_reaches_memcached_as_each_items_ttl() {
    let m = Memcached::start();
    let args = "-P memcache_meta -t 1 -c 1 -n 200 --ratio 1:0 --key-minimum 1 --key-maximum 100 --expiry-range 100-200";
    let doc = kvbench_json(m.port, args, &[]).doc;
    assert_clean(&doc);
    assert_eq!(total(&doc, "SET", "count"), 200);
    assert_eq!(m.stat("cmd_set"), 200);
    let mut s = BufReader::new(m.connect());
    let ttls: Vec<i64> = (1..=100)
        .filter_map(|k| ttl_of(&mut s, &format!("memtier-{k}")))
        .collect();
    assert_eq!(ttls.len() as u64, m.stat("curr_items"), "{ttls:?}");
    assert!(ttls.len() > 50, "{} keys written of 100", ttls.len());
    // Drawn in 100..=200 s; a generous minute is allowed to have passed.
    assert!(ttls.iter().all(|t| (40..=200).contains(t)), "{ttls:?}");
    let (low, high) = (ttls.iter().min().unwrap(), ttls.iter().max().unwrap());
    assert!(high - low > 20, "the expiries are drawn, not one: {ttls:?}");

    // Without --expiry-range an item never expires.
    let args = "-P memcache_meta -t 1 -c 1 -n 10 --ratio 1:0 --key-prefix plain- --key-maximum 5";
    kvbench_json(m.port, args, &[]);
    let plain: Vec<i64> = (1..=5)
        .filter_map(|k| ttl_of(&mut s, &format!("plain-{k}")))
        .collect();
    assert!(
        !plain.is_empty() && plain.iter().all(|&t| t == -1),
        "{plain:?}"
    );
}

/// A meta stand-in that answers every `mg` with `EN` echoing the next
/// request's opaque instead of this one's, and anything else with `END`
/// (as a server without stats); it counts the `mg`s it answered.
struct OffByOne {
    port: u16,
    gets: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    _share: machine::Share,
}

impl OffByOne {
    fn start() -> OffByOne {
        let listener = listen();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (gets, stop) = (
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (g, s) = (Arc::clone(&gets), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let g = Arc::clone(&g);
                        std::thread::spawn(move || answer_off_by_one(stream, &g));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        OffByOne {
            port,
            gets,
            stop,
            _share: machine::share(),
        }
    }
}

impl Drop for OffByOne {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn answer_off_by_one(stream: TcpStream, gets: &AtomicU64) {
    stream.set_nonblocking(false).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut lines = BufReader::new(stream);
    let mut line = String::new();
    while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
        let opaque = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix('O'))
            .and_then(|o| o.parse::<u64>().ok());
        let reply = match (line.starts_with("mg "), opaque) {
            (true, Some(o)) => {
                gets.fetch_add(1, Ordering::SeqCst);
                format!("EN O{}\r\n", o + 1)
            }
            _ => "END\r\n".to_string(),
        };
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
        line.clear();
    }
}

#[test]
fn a_reply_echoing_another_requests_opaque_is_a_protocol_error_not_a_miss() {
    let server = OffByOne::start();
    let dir = TempDir::new("mc-meta-lie");
    let json = dir.path("r.json");
    let out = common::kvbench_at(server.port)
        .args(["-P", "memcache_meta", "-t", "1", "-c", "1", "-n", "20"])
        .args(["--ratio", "0:1", "--allow-invalid"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let doc = read_json(&json);
    let answered = server.gets.load(Ordering::SeqCst);
    assert!(answered > 0, "the server answered no mg");
    let errors = &doc["kvbench"]["errors"];
    // Every answer is out of step: each closes its connection, uncounted.
    assert_eq!(u(&errors["protocol"]), answered, "{errors}");
    assert_eq!(total(&doc, "GET", "count"), 0, "{errors}");
    assert_eq!(total(&doc, "GET", "misses"), 0, "{errors}");
    let reasons = doc["kvbench"]["verdict"]["reasons"].as_array().unwrap();
    let message = reasons
        .iter()
        .find(|r| r["kind"] == "protocol_errors")
        .unwrap_or_else(|| panic!("no protocol_errors reason: {reasons:?}"))["message"]
        .as_str()
        .unwrap();
    assert!(message.contains("out of step"), "{message}");
}

#[test]
fn settings_memcached_lacks_are_refused_before_connecting() {
    let m = Memcached::start();
    let long_prefix = "k".repeat(245);
    let cases: [(&[&str], &str, &str); 6] = [
        (&["-a", "pw"], "--authenticate", "memcached has no AUTH"),
        (&["--select-db", "2"], "--select-db", "no databases"),
        (&["--slowlog"], "--slowlog", "no slow log"),
        (
            &["--command", "INCR __key__"],
            "--command",
            "not supported with -P memcache_meta",
        ),
        (&["--key-prefix", "a b"], "--key-prefix", "space"),
        (
            &["--key-prefix", &long_prefix],
            "--key-prefix",
            "at most 250",
        ),
    ];
    for (args, flag, says) in cases {
        // Each `stats` the test reads is one connection of its own.
        let before = m.stat("total_connections");
        let out = common::kvbench_at(m.port)
            .args(["-P", "memcache_meta", "-n", "10"])
            .args(args)
            .output()
            .unwrap();
        let after = m.stat("total_connections");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(says),
            "{args:?}: {stderr}"
        );
        assert_eq!(after, before + 1, "{args:?}: kvbench connected: {stderr}");
    }
    assert_eq!(m.stat("cmd_set") + m.stat("cmd_get"), 0);
}
