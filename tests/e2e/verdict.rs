//! The verdict against real servers: a clean run is valid with no reasons and
//! exits 0; a run the server mostly refuses (`-OOM` at `maxmemory`), a
//! memcached whose VALUE lengths lie and a cluster node whose MOVED points at
//! a closed port each end with a verdict that names the cause, a text report
//! that says so on its first line, and exit code 3 (0 with `--allow-invalid`).
//! The server's own counters (`errorstats`) are the witness of the refusals.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use crate::common;
use crate::common::scripted_server::{Next, Script, ScriptedServer};
use crate::common::{Redis, TempDir, free_port, info, kvbench_at, read_json, total, u};
use serde_json::Value;

/// A run's exit code, text report, stderr and JSON report.
struct Judged {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    doc: Value,
}

impl Judged {
    fn verdict(&self) -> &Value {
        &self.doc["kvbench"]["verdict"]
    }

    fn kinds(&self) -> Vec<&str> {
        self.verdict()["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect()
    }

    fn message(&self, kind: &str) -> &str {
        self.verdict()["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["kind"] == kind)
            .and_then(|r| r["message"].as_str())
            .unwrap_or_else(|| panic!("no {kind} in {}", self.verdict()))
    }

    /// Asserts the run was judged invalid for `kind`, with exit code `code`.
    fn assert_invalid(&self, kind: &str, code: i32) {
        assert_eq!(self.code, Some(code), "exit code:\n{}", self.stderr);
        assert_eq!(self.verdict()["valid"], false, "{}", self.verdict());
        assert!(self.kinds().contains(&kind), "{:?}", self.kinds());
        assert!(
            self.stdout.starts_with("INVALID RESULT:"),
            "first line: {}",
            self.stdout.lines().next().unwrap_or_default()
        );
        assert!(
            self.stderr.contains(self.message(kind)),
            "stderr lacks the reason:\n{}",
            self.stderr
        );
    }
}

/// Runs kvbench at `port` with `args` (split at whitespace) and a JSON report.
fn judged(port: u16, args: &str) -> Judged {
    let dir = TempDir::new("verdict");
    let json = dir.path("r.json");
    let out: Output = kvbench_at(port)
        .args(args.split_whitespace())
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        json.exists(),
        "no JSON report ({:?}):\n{stderr}",
        out.status
    );
    Judged {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        doc: read_json(&json),
    }
}

#[test]
fn a_clean_run_is_valid_with_no_reasons_and_exits_0() {
    let redis = Redis::start();
    let r = judged(redis.port, "-t 1 -c 2 --test-time 2 -x 2 --ratio 1:1");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.verdict()["valid"], true);
    assert_eq!(r.verdict()["reasons"].as_array().unwrap().len(), 0);
    // Every section's verdict too: each run, BEST, WORST, the aggregate.
    let sections = r.verdict()["sections"].as_object().unwrap();
    assert_eq!(sections.len(), 5, "{sections:?}");
    assert!(
        sections.values().all(|s| s["valid"] == true),
        "{sections:?}"
    );
    assert!(sections.contains_key("AGGREGATED AVERAGE RESULTS (2 runs)"));
    // memtier's layout starts the text, unchanged.
    assert!(r.stdout.starts_with("1         Threads"), "{}", r.stdout);
    assert!(!r.stderr.contains("invalid"), "{}", r.stderr);
}

/// A server that refuses writes once its 1 MiB is spent.
fn full_server() -> Redis {
    Redis::start_with(&["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"])
}

/// The server's `errorstat_OOM` count.
fn oom_errors(redis: &Redis) -> u64 {
    let line = info(redis.port, "errorstats", "errorstat_OOM");
    line.trim_start_matches("count=")
        .split(',')
        .next()
        .unwrap_or("0")
        .parse()
        .unwrap_or(0)
}

/// SETs of 1 KiB values over a range far larger than the 1 MiB the server may use.
const FILL: &str = "-t 1 -c 2 --test-time 2 --ratio 1:0 -d 1024 --key-maximum 1000000";

#[test]
fn a_run_the_server_mostly_refuses_with_oom_is_invalid_and_exits_3() {
    let redis = full_server();
    let r = judged(redis.port, FILL);
    r.assert_invalid("error_replies", 3);
    let sets = total(&r.doc, "SET", "count");
    let errors = total(&r.doc, "SET", "errors");
    // The witness: every OOM kvbench counted, the server counted too.
    assert_eq!(oom_errors(&redis), errors, "{}", r.doc["kvbench"]["errors"]);
    assert!(errors * 100 > sets * 90, "{errors} of {sets} refused");
    let message = r.message("error_replies");
    assert!(message.contains("most of them OOM"), "{message}");
    assert!(message.contains("--max-error-share 1"), "{message}");
    assert_eq!(r.verdict()["reasons"][0]["phase"], "RUN #1");
    assert_eq!(r.verdict()["sections"]["ALL STATS"]["valid"], false);
    assert!(r.stderr.contains("exit code 3"), "{}", r.stderr);
}

#[test]
fn allow_invalid_exits_0_and_the_reports_still_say_it() {
    let redis = full_server();
    let r = judged(redis.port, &format!("{FILL} --allow-invalid"));
    r.assert_invalid("error_replies", 0);
    assert!(r.stdout.lines().next().unwrap().contains("--allow-invalid"));
    assert!(r.stderr.contains("--allow-invalid"), "{}", r.stderr);
}

#[test]
fn max_error_share_sets_the_limit() {
    let redis = full_server();
    let r = judged(redis.port, &format!("{FILL} --max-error-share 100"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.verdict()["valid"], true, "{}", r.verdict());
    // The warning stays: a thing to know, even where the verdict allows it.
    let warnings = r.doc["kvbench"]["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w["kind"] == "error_replies"));
    assert!(u(&r.doc["kvbench"]["totals"]["SET"]["errors"]) > 0);
}

/// A memcached text server whose `VALUE` lines announce 5 bytes and send 10.
struct LyingMemcached {
    port: u16,
    stop: Arc<AtomicBool>,
    gets: Arc<AtomicU64>,
}

impl LyingMemcached {
    fn start() -> LyingMemcached {
        let listener = common::listen();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let gets = Arc::new(AtomicU64::new(0));
        let (s, g) = (Arc::clone(&stop), Arc::clone(&gets));
        thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let g = Arc::clone(&g);
                        thread::spawn(move || lie(stream, &g));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        LyingMemcached { port, stop, gets }
    }
}

impl Drop for LyingMemcached {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn lie(stream: TcpStream, gets: &AtomicU64) {
    stream.set_nonblocking(false).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut lines = BufReader::new(stream);
    let mut line = String::new();
    while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
        let reply: Vec<u8> = if let Some(key) = line.strip_prefix("get ") {
            gets.fetch_add(1, Ordering::SeqCst);
            let key = key.trim();
            format!("VALUE {key} 0 5\r\n0123456789\r\nEND\r\n").into_bytes()
        } else if line.starts_with("version") {
            b"VERSION 1.6.18\r\n".to_vec()
        } else {
            // `stats` and anything else: nothing to tell.
            b"END\r\n".to_vec()
        };
        if writer.write_all(&reply).is_err() {
            return;
        }
        line.clear();
    }
}

#[test]
fn a_memcached_whose_value_lengths_lie_is_a_protocol_error_that_invalidates_the_run() {
    let server = LyingMemcached::start();
    let r = judged(
        server.port,
        "-P memcache_text -t 1 -c 1 --test-time 1 --ratio 0:1 --no-reconnect",
    );
    r.assert_invalid("protocol_errors", 3);
    assert!(
        r.message("protocol_errors")
            .contains("malformed VALUE block"),
        "{}",
        r.message("protocol_errors")
    );
    assert!(r.kinds().contains(&"nothing_measured"), "{:?}", r.kinds());
    // One connection, one GET, its lie caught at once.
    assert_eq!(server.gets.load(Ordering::SeqCst), 1);
    assert_eq!(u(&r.doc["kvbench"]["errors"]["protocol"]), 1);
}

/// A one-node "cluster" that owns every slot and answers each GET and SET
/// with a MOVED to a port where nothing listens.
struct MovedAway {
    to: u16,
    requests: AtomicU64,
}

impl Script for MovedAway {
    /// CLUSTER requests on the connection: kvbench asks `CLUSTER SHARDS`,
    /// then (told it is unknown, as Redis 6 says) `CLUSTER SLOTS`.
    type Connection = u64;

    fn answer(
        &self,
        stream: &mut TcpStream,
        name: Option<&[u8]>,
        cluster_requests: &mut u64,
    ) -> std::io::Result<Next> {
        let me = stream.local_addr()?.port();
        let reply = match name.unwrap_or_default() {
            b"PING" => "+PONG\r\n".to_string(),
            b"CLUSTER" if *cluster_requests % 2 == 0 => {
                *cluster_requests += 1;
                "-ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP.\r\n".to_string()
            }
            b"CLUSTER" => {
                *cluster_requests += 1;
                format!(
                    "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$9\r\n127.0.0.1\r\n:{me}\r\n$40\r\n{}\r\n",
                    "a".repeat(40)
                )
            }
            b"GET" | b"SET" => {
                self.requests.fetch_add(1, Ordering::SeqCst);
                format!("-MOVED 1 127.0.0.1:{}\r\n", self.to)
            }
            _ => "-ERR unknown command\r\n".to_string(),
        };
        stream.write_all(reply.as_bytes())?;
        Ok(Next::KeepReading)
    }
}

#[test]
fn a_moved_to_a_port_that_refuses_is_never_a_valid_result() {
    let closed = free_port();
    let server = ScriptedServer::spawn(MovedAway {
        to: closed,
        requests: AtomicU64::new(0),
    });
    let r = judged(
        server.port,
        "--cluster-mode -t 1 -c 1 --test-time 2 --ratio 1:1",
    );
    assert_eq!(r.code, Some(3), "{}\n{}", r.stderr, r.stdout);
    assert_eq!(r.verdict()["valid"], false, "{}", r.verdict());
    assert!(
        server.script().requests.load(Ordering::SeqCst) > 0,
        "no request reached the seed"
    );
    r.assert_invalid("nothing_measured", 3);
    // The cause, in the counts: the node MOVED points at refuses every
    // connect, so what was redirected there was never sent.
    let message = r.message("nothing_measured");
    assert!(message.contains("reconnects refused"), "{message}");
    assert!(
        message.contains("requests not sent to a node that was down"),
        "{message}"
    );
    assert!(u(&r.doc["kvbench"]["errors"]["refused"]) > 0);
}
