//! memtier's `--scan-incremental-iteration` and
//! `--scan-incremental-max-iterations` against a real redis-server: each
//! connection sends `SCAN 0 …`, then follows the cursor every reply
//! returns, and starts again at `SCAN 0` when the server returns 0 or the
//! cycle has sent its most continuations. The server's MONITOR shows what
//! was sent; the test replays each SCAN itself on the same unchanging
//! keyspace (SCAN is deterministic there) to know what kvbench was
//! answered, and `INFO commandstats` counts what kvbench counted.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufReader;
use std::net::TcpStream;

use crate::common::{
    Redis, ask, assert_no_faults, assert_success, kvbench_at, kvbench_json, monitor, monitor_until,
    pipeline, refused_before_connecting, total, u,
};
use crate::json_schema::{assert_valid, validator};
use kvbench::protocol::value::Value as Reply;

/// The last command the test sends, so that a MONITOR capture knows it has
/// seen everything kvbench sent before it.
const END: &str = "end-of-scan-capture";

/// A server holding `keys` keys `scan:0` …, its table settled: every
/// lookup moves an incremental rehash on, so that SCAN visits the same
/// buckets for kvbench and for the test's replay.
fn server_with_keys(keys: usize) -> Redis {
    let redis = Redis::start();
    let names: Vec<String> = (0..keys).map(|i| format!("scan:{i}")).collect();
    let sets: Vec<[&str; 3]> = names.iter().map(|k| ["SET", k.as_str(), "v"]).collect();
    pipeline(redis.port, &sets);
    let lookups: Vec<[&str; 2]> = names.iter().map(|k| ["EXISTS", k.as_str()]).collect();
    for _ in 0..4 {
        pipeline(redis.port, &lookups);
    }
    assert_eq!(redis.dbsize(), keys as u64);
    redis.reset_stats();
    redis
}

/// What the server answers to `SCAN cursor` with `rest`: the next cursor and
/// the keys.
fn scan(port: u16, cursor: u64, rest: &[&str]) -> (u64, Vec<String>) {
    let digits = cursor.to_string();
    let mut command = vec!["SCAN", digits.as_str()];
    command.extend_from_slice(rest);
    let reply = pipeline(port, &[command]).remove(0);
    let Reply::Array(parts) = reply else {
        panic!("SCAN {cursor} answered {reply:?}");
    };
    let [Reply::Bulk(next), Reply::Array(keys)] = &parts[..] else {
        panic!("SCAN {cursor} answered {parts:?}");
    };
    let next = String::from_utf8_lossy(next).parse().unwrap();
    (next, keys.iter().filter_map(Reply::text).collect())
}

/// One connection's SCANs as MONITOR saw them: each one's cursor and its
/// other arguments, in the order sent.
type Scans = Vec<(u64, Vec<String>)>;

/// The SCANs MONITOR saw up to the test's closing `ECHO`, per client
/// address in the order sent: each one's cursor and its other arguments.
fn scans_sent(reader: &mut BufReader<TcpStream>) -> BTreeMap<String, Scans> {
    let mut by_addr: BTreeMap<String, Scans> = BTreeMap::new();
    monitor_until(reader, END, |addr, words| {
        if let [command, cursor, args @ ..] = words
            && *command == "SCAN"
        {
            by_addr.entry(addr.to_string()).or_default().push((
                cursor.parse().unwrap(),
                args.iter().map(|a| a.to_string()).collect(),
            ));
        }
    });
    by_addr
}

/// Runs kvbench against `redis` with `args` while MONITOR watches; returns
/// its JSON report and the SCANs it sent, per connection.
fn run_watched(redis: &Redis, args: &[&str]) -> (serde_json::Value, Vec<Scans>) {
    let mut capture = monitor(redis.port);
    let dir = crate::common::TempDir::new("scan");
    let json = dir.path("r.json");
    let out = kvbench_at(redis.port)
        .args(args)
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out, &format!("{args:?}"));
    assert_eq!(ask(redis.port, &["ECHO", END]), END);
    let sent = scans_sent(&mut capture).into_values().collect();
    (crate::common::read_json(&json), sent)
}

/// kvbench's count of a row of `ALL STATS`.
fn row_count(doc: &serde_json::Value, row: &str) -> u64 {
    u(&doc["ALL STATS"][row]["Count"])
}

#[test]
fn memtiers_cap_of_three_gives_ten_first_scans_and_thirty_that_follow_the_cursor() {
    // memtier's own test: 200 keys, COUNT 1, at most 3 continuations, 40
    // requests on one connection: every cycle is SCAN 0 and three more.
    let redis = server_with_keys(200);
    for protocol in ["redis", "resp3"] {
        redis.reset_stats();
        let report = kvbench_json(
            redis.port,
            &format!(
                "-P {protocol} -t 1 -c 1 -n 40 --scan-incremental-iteration --scan-incremental-max-iterations 3"
            ),
            &["--command", "SCAN 0 COUNT 1"],
        );
        let doc = &report.doc;
        assert_no_faults(doc, protocol);
        // Rows and distributions with blanks and `<cursor>` in their names.
        assert_valid(&validator(), doc, protocol);
        assert_eq!(row_count(doc, "Scan 0s"), 10, "{protocol}");
        assert_eq!(row_count(doc, "Scan <cursor>s"), 30, "{protocol}");
        assert_eq!(total(doc, "SCAN 0", "count"), 10, "{protocol}");
        assert_eq!(total(doc, "SCAN <cursor>", "count"), 30, "{protocol}");
        for row in ["SCAN 0", "SCAN <cursor>"] {
            assert_eq!(total(doc, row, "errors"), 0, "{protocol} {row}");
        }
        // The server counted every one of them as a SCAN.
        assert_eq!(redis.calls("scan"), 40, "{protocol}");
        let config = &doc["kvbench"]["config"];
        assert_eq!(config["scan_incremental_iteration"], true);
        assert_eq!(config["scan_incremental_max_iterations"], 3);
        // memtier's rows in the text report, and the server's count beside
        // kvbench's under the one command name.
        assert!(
            report.stdout.contains("Scan <cursor>s"),
            "{}",
            report.stdout
        );
        assert!(
            report.stdout.contains("SCAN calls 40 (kvbench 40)"),
            "{}",
            report.stdout
        );
    }
}

#[test]
fn a_cycle_follows_the_servers_cursors_to_zero_and_sees_every_key() {
    let keys = 64;
    let redis = server_with_keys(keys);
    let (doc, sent) = run_watched(
        &redis,
        &[
            "-t",
            "1",
            "-c",
            "1",
            "-n",
            "30",
            "--scan-incremental-iteration",
            "--command",
            "SCAN 0 COUNT 7",
        ],
    );
    assert_no_faults(&doc, "scan");
    assert_eq!(redis.calls("scan"), 30);
    let [sent] = &sent[..] else {
        panic!("one connection expected: {sent:?}");
    };
    assert_eq!(sent.len(), 30);
    // Each SCAN is the one the reply before it asked for: the next cursor,
    // or SCAN 0 once the server said 0. The replay learns each reply.
    let mut cycles = Vec::new();
    let mut seen = BTreeSet::new();
    let mut expected = 0;
    for (i, (cursor, rest)) in sent.iter().enumerate() {
        assert_eq!(
            rest,
            &["COUNT", "7"],
            "request {i}: the other arguments stay"
        );
        assert_eq!(*cursor, expected, "request {i} of {sent:?}");
        let (next, found) = scan(redis.port, *cursor, &["COUNT", "7"]);
        seen.extend(found);
        if next == 0 {
            // A whole iteration: every key was in one of its replies.
            cycles.push(std::mem::take(&mut seen));
        }
        expected = next;
    }
    assert!(
        !cycles.is_empty(),
        "no cycle ended within 30 SCANs: {sent:?}"
    );
    let all: BTreeSet<String> = (0..keys).map(|i| format!("scan:{i}")).collect();
    for cycle in &cycles {
        assert_eq!(cycle, &all);
    }
    // kvbench's rows say the same: one SCAN 0 per cycle started.
    let starts = sent.iter().filter(|(c, _)| *c == 0).count() as u64;
    assert!(starts >= 2, "the next cycle starts at SCAN 0: {sent:?}");
    assert_eq!(row_count(&doc, "Scan 0s"), starts);
    assert_eq!(row_count(&doc, "Scan <cursor>s"), 30 - starts);
}

#[test]
fn each_connection_follows_its_own_cursor() {
    // The same unchanging keyspace gives every connection the same chain
    // from 0; a cursor shared between connections would break each one's.
    let redis = server_with_keys(200);
    let (doc, sent) = run_watched(
        &redis,
        &[
            "-t",
            "1",
            "-c",
            "3",
            "-n",
            "9",
            "--scan-incremental-iteration",
            "--scan-incremental-max-iterations",
            "2",
            "--command",
            "SCAN 0 COUNT 1",
        ],
    );
    assert_no_faults(&doc, "scan");
    let (first, _) = scan(redis.port, 0, &["COUNT", "1"]);
    let (second, _) = scan(redis.port, first, &["COUNT", "1"]);
    assert!(
        first != 0 && second != 0,
        "200 keys outlast two SCANs of one"
    );
    let chain = [0, first, second].repeat(3);
    assert_eq!(sent.len(), 3, "{sent:?}");
    for connection in &sent {
        let cursors: Vec<u64> = connection.iter().map(|(c, _)| *c).collect();
        assert_eq!(cursors, chain);
    }
    assert_eq!(row_count(&doc, "Scan 0s"), 9);
    assert_eq!(row_count(&doc, "Scan <cursor>s"), 18);
}

#[test]
fn an_error_reply_starts_the_next_cycle_at_scan_zero() {
    // COUNT 0 is a syntax error to Redis: no reply has a cursor to follow.
    let redis = server_with_keys(10);
    let doc = kvbench_json(
        redis.port,
        // Every reply an error makes the verdict invalid, which is the point.
        "-t 1 -c 1 -n 10 --scan-incremental-iteration --allow-invalid",
        &["--command", "SCAN 0 COUNT 0"],
    )
    .doc;
    assert_eq!(total(&doc, "SCAN 0", "count"), 10);
    assert_eq!(total(&doc, "SCAN 0", "errors"), 10);
    assert_eq!(total(&doc, "SCAN <cursor>", "count"), 0);
    assert_eq!(redis.calls("scan"), 10);
}

#[test]
fn what_the_iteration_cannot_run_with_is_refused_before_connecting() {
    let redis = Redis::start();
    let scan = [
        "--scan-incremental-iteration",
        "--command",
        "SCAN 0 COUNT 10",
    ];
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["--pipeline", "2"],
            "--scan-incremental-iteration",
            "--pipeline 1",
        ),
        (
            vec!["--cluster-mode"],
            "--scan-incremental-iteration",
            "--cluster-mode",
        ),
        (
            vec!["-P", "memcache_text"],
            "--scan-incremental-iteration",
            "memcache_text",
        ),
        (
            vec!["--command", "SCAN 0"],
            "--scan-incremental-iteration",
            "exactly one",
        ),
        (
            vec!["--transaction"],
            "--scan-incremental-iteration",
            "--transaction",
        ),
    ];
    for (extra, flag, says) in cases {
        let mut args = scan.to_vec();
        args.extend_from_slice(&extra);
        let stderr = refused_before_connecting(&redis, &args);
        assert!(
            stderr.contains(flag) && stderr.contains(says),
            "{extra:?}: {stderr}"
        );
    }
    let alone: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["--scan-incremental-iteration"],
            "--scan-incremental-iteration",
            "none was given",
        ),
        (
            vec!["--scan-incremental-iteration", "--command", "GET __key__"],
            "--scan-incremental-iteration",
            "is not a SCAN",
        ),
        (
            vec!["--scan-incremental-iteration", "--command", "SCAN"],
            "--scan-incremental-iteration",
            "has no cursor",
        ),
        (
            vec![
                "--command",
                "SCAN 0",
                "--scan-incremental-max-iterations",
                "3",
            ],
            "--scan-incremental-max-iterations",
            "which is off",
        ),
        (
            vec![
                "--scan-incremental-iteration",
                "--scan-incremental-max-iterations=-1",
            ],
            "--scan-incremental-max-iterations",
            "",
        ),
        (
            vec![
                "--scan-incremental-iteration",
                "--scan-incremental-max-iterations",
                "x",
            ],
            "--scan-incremental-max-iterations",
            "",
        ),
    ];
    for (args, flag, says) in alone {
        let stderr = refused_before_connecting(&redis, &args);
        assert!(
            stderr.contains(flag) && stderr.contains(says),
            "{args:?}: {stderr}"
        );
    }
}
