//! `-P resp3` (and `-P resp2`) in the load loop against a real Redis 7: the
//! handshake's HELLO (with AUTH inside it, and SELECT after), RESP3 nulls
//! counted as misses, invalidation pushes from `CLIENT TRACKING` counted apart
//! and never matched to a request — each count equal to the server's own
//! `INFO commandstats`.

use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common;
use crate::common::scripted_server::{Next, Script, ScriptedServer};
use crate::common::{Redis, assert_no_faults, kvbench_at, kvbench_json, total, u};
use serde_json::Value;

fn assert_clean(doc: &Value) {
    assert_no_faults(doc, "the run");
}

#[test]
fn resp3_counts_equal_commandstats_and_its_nulls_are_misses() {
    let redis = Redis::start();
    let report = redis.kvbench_json("-P resp3 -t 2 -c 2 -n 200 --ratio 1:1 --key-maximum 5000");
    let doc = &report.doc;
    assert_clean(doc);
    let (sets, gets) = (total(doc, "SET", "count"), total(doc, "GET", "count"));
    assert_eq!(sets + gets, 4 * 200);
    assert_eq!(redis.calls("set"), sets);
    assert_eq!(redis.calls("get"), gets);
    // Keys barely overlap in 5000, so most GETs answer RESP3's `_` null: a
    // miss, where RESP2's decoder would have refused the byte.
    let (hits, misses) = (total(doc, "GET", "hits"), total(doc, "GET", "misses"));
    assert_eq!(hits + misses, gets);
    assert!(misses > gets / 2, "{hits} hits, {misses} misses");
    // Every connection said HELLO: the four benchmark ones, the preflight and
    // the control connection (reopened at most once per phase).
    let hellos = redis.calls("hello");
    assert!((6..=8).contains(&hellos), "{hellos} HELLOs");
    assert_eq!(doc["configuration"]["protocol"], "resp3");
    assert_eq!(doc["kvbench"]["errors"]["pushes"], 0);
    // The server's evidence was read too (the control connection's INFO).
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    assert_eq!(u(&delta["set_calls"]), sets, "{delta}");
    assert_eq!(u(&delta["get_calls"]), gets, "{delta}");
    assert!(
        report
            .stdout
            .contains(&format!("GET calls {gets} (kvbench {gets})")),
        "{}",
        report.stdout
    );
}

#[test]
fn resp3_logs_in_inside_hello_and_selects_the_database() {
    let redis = Redis::start();
    let acl = ["ACL", "SETUSER", "bench", "on", ">s3cret", "~*", "+@all"];
    assert_eq!(redis.command(&acl), b"OK");
    let doc = redis
        .kvbench_json("-P resp3 -a bench:s3cret --select-db 3 -t 2 -c 2 -n 100 --ratio 1:0 --key-maximum 100000")
        .doc;
    assert_clean(&doc);
    assert_eq!(total(&doc, "SET", "count"), 4 * 100);
    assert_eq!(redis.calls("set"), 4 * 100);
    // HELLO carried the credentials: no separate AUTH was sent.
    assert_eq!(redis.calls("auth"), 0);
    assert!(redis.calls("hello") >= 4);
    let keyspace = String::from_utf8(redis.command(&["INFO", "keyspace"])).unwrap();
    assert!(keyspace.contains("db3:keys="), "{keyspace}");
    assert!(!keyspace.contains("db0:"), "{keyspace}");

    let out = kvbench_at(redis.port)
        .args(["-P", "resp3", "-a", "bench:wrong", "-n", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("WRONGPASS"), "{stderr}");
    assert!(!stderr.contains("wrong"), "the password leaked: {stderr}");
}

#[test]
fn invalidation_pushes_are_counted_apart_and_never_matched() {
    let redis = Redis::start();
    // Each connection turns tracking on, GETs keys (which tracks them) and
    // SETs keys, so a SET of a key it read earlier sends it an invalidation
    // push between two replies.
    let args = "-P resp3 -t 1 -c 2 -n 600 --key-minimum 1 --key-maximum 20 --pipeline 8";
    let dir = common::TempDir::new("resp3-push");
    let json = dir.path("r.json");
    let out = kvbench_at(redis.port)
        .args(args.split_whitespace())
        .args([
            "--command",
            "CLIENT TRACKING ON",
            "--command",
            "GET __key__",
        ])
        .args(["--command", "SET __key__ __data__"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    common::assert_success(&out, args);
    let doc = common::read_json(&json);
    assert_clean(&doc);
    let pushes = u(&doc["kvbench"]["errors"]["pushes"]);
    assert!(pushes > 0, "no invalidation arrived");
    // Had a push been matched to a request, every later reply would have
    // been one off, and the counts below would not add up.
    let rows = &doc["kvbench"]["totals"];
    let count = |row: &str| u(&rows[row]["count"]);
    assert_eq!(
        count("CLIENT") + count("GET") + count("SET"),
        2 * 600,
        "{rows}"
    );
    assert_eq!(redis.calls("client|tracking"), count("CLIENT"), "{rows}");
    assert_eq!(redis.calls("get"), count("GET"), "{rows}");
    assert_eq!(redis.calls("set"), count("SET"), "{rows}");
    // A push is no reply: fewer pushes than SETs, and none counted as a GET hit.
    assert!(pushes <= count("SET"), "{pushes} pushes");
    let gets = count("GET");
    assert_eq!(u(&rows["GET"]["hits"]) + u(&rows["GET"]["misses"]), gets);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("Pushes: {pushes} ")),
        "the text report does not say: {stdout}"
    );
}

#[test]
fn resp2_announces_itself_with_hello_2() {
    let redis = Redis::start();
    let doc = kvbench_json(redis.port, "-P resp2 -t 2 -c 2 -n 50 --ratio 1:1", &[]).doc;
    assert_clean(&doc);
    assert_eq!(
        redis.calls("set") + redis.calls("get"),
        4 * 50,
        "every request reached the server"
    );
    assert!(redis.calls("hello") >= 4);
    assert_eq!(doc["configuration"]["protocol"], "resp2");
    // The default protocol sends no HELLO, for servers before 6.0.
    redis.reset_stats();
    let doc = kvbench_json(redis.port, "-c 1 -n 10", &[]).doc;
    assert_eq!(redis.calls("hello"), 0);
    assert_eq!(doc["configuration"]["protocol"], "redis");
}

/// A RESP3 server that sends a push before every third GET's reply and after
/// every SET's, answering GETs alternately with a value and RESP3's null; it
/// counts what it sent.
#[derive(Default)]
struct Pushing {
    gets: AtomicU64,
    sets: AtomicU64,
    pushes: AtomicU64,
    hits: AtomicU64,
}

const PUSH: &[u8] = b">2\r\n$10\r\ninvalidate\r\n*1\r\n$9\r\nmemtier-1\r\n";

impl Script for Pushing {
    type Connection = ();

    fn answer(&self, stream: &mut TcpStream, name: Option<&[u8]>, (): &mut ()) -> io::Result<Next> {
        match name.unwrap_or_default() {
            // An array: a reply to HELLO 3 and to the control connection's
            // HELLO 2 alike.
            b"HELLO" => stream.write_all(b"*2\r\n$5\r\nproto\r\n:3\r\n")?,
            b"PING" => stream.write_all(b"+PONG\r\n")?,
            b"GET" => {
                let n = self.gets.fetch_add(1, Ordering::SeqCst);
                if n % 3 == 0 {
                    self.pushes.fetch_add(1, Ordering::SeqCst);
                    stream.write_all(PUSH)?;
                }
                if n % 2 == 0 {
                    self.hits.fetch_add(1, Ordering::SeqCst);
                    stream.write_all(b"$1\r\nv\r\n")?;
                } else {
                    stream.write_all(b"_\r\n")?;
                }
            }
            b"SET" => {
                self.sets.fetch_add(1, Ordering::SeqCst);
                self.pushes.fetch_add(1, Ordering::SeqCst);
                stream.write_all(&[b"+OK\r\n", PUSH].concat())?;
            }
            // INFO, CONFIG: not supported, as on a minimal server.
            _ => stream.write_all(b"-ERR unknown command\r\n")?,
        }
        Ok(Next::KeepReading)
    }
}

#[test]
fn pushes_between_replies_leave_every_count_exact() {
    let server = ScriptedServer::spawn(Pushing::default());
    let doc = kvbench_json(
        server.port,
        "-P resp3 -t 1 -c 2 -n 300 --ratio 1:2 --pipeline 4",
        &[],
    )
    .doc;
    assert_clean(&doc);
    let script = server.script();
    let sent = |n: &AtomicU64| n.load(Ordering::SeqCst);
    assert_eq!(total(&doc, "SET", "count"), sent(&script.sets));
    assert_eq!(total(&doc, "GET", "count"), sent(&script.gets));
    assert_eq!(sent(&script.sets) + sent(&script.gets), 2 * 300);
    // A push that trails a connection's last reply may still be on its way
    // when the run ends: at most one per connection goes unread.
    let (pushes, pushed) = (u(&doc["kvbench"]["errors"]["pushes"]), sent(&script.pushes));
    assert!(
        pushes <= pushed && pushes + 2 >= pushed,
        "{pushes} of {pushed}"
    );
    assert!(pushed > 200, "{pushed}");
    assert_eq!(total(&doc, "GET", "hits"), sent(&script.hits));
    assert_eq!(
        total(&doc, "GET", "misses"),
        sent(&script.gets) - sent(&script.hits)
    );
}

/// A server from before 6.0: no HELLO.
struct Old;

impl Script for Old {
    type Connection = ();

    fn answer(&self, stream: &mut TcpStream, name: Option<&[u8]>, (): &mut ()) -> io::Result<Next> {
        match name.unwrap_or_default() {
            b"PING" => stream.write_all(b"+PONG\r\n")?,
            _ => stream.write_all(b"-ERR unknown command 'HELLO'\r\n")?,
        }
        Ok(Next::KeepReading)
    }
}

#[test]
fn a_server_without_hello_is_a_usage_error_naming_protocol() {
    let server = ScriptedServer::spawn(Old);
    let out = kvbench_at(server.port)
        .args(["-P", "resp3", "-n", "10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error: --protocol:"), "{stderr}");
    assert!(stderr.contains("use -P redis"), "{stderr}");
}

/// Reconnects run the handshake inside the event loop: HELLO 3's map reply
/// (with AUTH inside it) is decoded there too, and the counts stay exact.
#[test]
fn reconnects_say_hello_3_again_inside_the_event_loop() {
    let redis = Redis::start();
    let acl = ["ACL", "SETUSER", "bench", "on", ">pw", "~*", "+@all"];
    assert_eq!(redis.command(&acl), b"OK");
    let doc = redis
        .kvbench_json(
            "-P resp3 -a bench:pw -t 1 -c 2 -n 200 --ratio 1:1 --pipeline 4 --reconnect-interval 30",
        )
        .doc;
    assert_clean(&doc);
    let reconnects = u(&doc["kvbench"]["errors"]["reconnects"]);
    assert!((10..=14).contains(&reconnects), "{reconnects}");
    let (sets, gets) = (total(&doc, "SET", "count"), total(&doc, "GET", "count"));
    assert_eq!(sets + gets, 2 * 200);
    assert_eq!(redis.calls("set"), sets);
    assert_eq!(redis.calls("get"), gets);
    // One HELLO per connection: the first two, every reconnect, the preflight
    // and the control connection.
    let hellos = redis.calls("hello");
    assert!(
        hellos >= 2 + reconnects + 2,
        "{hellos} HELLOs, {reconnects} reconnects"
    );
    assert!(
        hellos <= 2 + reconnects + 4,
        "{hellos} HELLOs, {reconnects} reconnects"
    );
}
