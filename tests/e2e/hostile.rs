//! kvbench against a hostile server: an in-process RESP server that completes
//! the handshake (PING → +PONG; INFO, CONFIG and SLOWLOG get an error, as on a
//! minimal server) and then misbehaves in one way per test: garbage type bytes,
//! a reply nobody asked for, a 1 TiB bulk length, ten thousand nested arrays, a
//! reply larger than any value kvbench writes, a connection closed half-way
//! through a reply, or no reply at all.
//!
//! Each run must end normally (no panic, its reports written) with the fault
//! counted under the right kind and a verdict that says the result is not
//! valid and names the cause (exit code 3), while kvbench runs with 1 GiB of
//! address space
//! (`ulimit -v`), so that a reply allocated in full, however large it claims to
//! be, would fail the run. The server's own counts (connections that sent a
//! request, requests received) are the independent witness.

use std::io::{self, Write};
use std::net::{Shutdown, TcpStream};
use std::process::Output;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use crate::common::scripted_server::{Next, Script, ScriptedServer};
use crate::common::{TempDir, kvbench_in_sh, read_json, warning_kinds};
use serde_json::Value;

/// The address space kvbench runs with, in KiB (`ulimit -v`): 1 GiB.
const ADDRESS_SPACE_KIB: u64 = 1024 * 1024;

/// What the server does once the handshake is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Misbehaviour {
    /// Answers the first request with `?junk\r\n`: no RESP type starts with `?`.
    Garbage,
    /// Sends `+surprise\r\n` on its own right after `+PONG`, before any request,
    /// then answers every request correctly.
    Unsolicited,
    /// Sends `+surprise\r\n` in the same write as `+PONG`, then answers every
    /// request correctly.
    UnsolicitedWithHandshake,
    /// Answers with a bulk length of 2^62 (`$4611686018427387904\r\n`) and nothing more.
    HugeBulkLength,
    /// Answers with 100 000 nested one-element arrays (`*1\r\n` × 100 000).
    DeepNesting,
    /// Answers with a simple string that never ends: `+` and 70 MiB without a CRLF.
    EndlessLine,
    /// Answers with a 512 MiB bulk string (the largest length RESP allows) and
    /// streams its payload, far more than any value kvbench writes.
    OversizedReply,
    /// Sends the first bytes of a reply (`$10\r\nabc`), then closes.
    CloseMidReply,
    /// Reads requests and never answers them.
    Stall,
}

/// The script: one misbehaviour, and the server's own counts.
struct Hostile {
    misbehaviour: Misbehaviour,
    /// Connections that sent at least one GET or SET.
    data_connections: AtomicU64,
    /// GET and SET requests received.
    requests: AtomicU64,
}

/// A running hostile server; stopped when dropped.
type HostileServer = ScriptedServer<Hostile>;

impl HostileServer {
    fn start(misbehaviour: Misbehaviour) -> HostileServer {
        ScriptedServer::spawn(Hostile {
            misbehaviour,
            data_connections: AtomicU64::new(0),
            requests: AtomicU64::new(0),
        })
    }

    fn data_connections(&self) -> u64 {
        self.script().data_connections.load(Ordering::SeqCst)
    }

    fn requests(&self) -> u64 {
        self.script().requests.load(Ordering::SeqCst)
    }
}

/// Answers one GET or SET (`first` for the connection's first) as the scenario says.
fn misbehave(
    stream: &mut TcpStream,
    misbehaviour: Misbehaviour,
    name: &[u8],
    first: bool,
) -> io::Result<Next> {
    let honest: &[u8] = if name == b"GET" {
        b"$-1\r\n"
    } else {
        b"+OK\r\n"
    };
    match misbehaviour {
        Misbehaviour::Unsolicited | Misbehaviour::UnsolicitedWithHandshake => {
            stream.write_all(honest)?
        }
        Misbehaviour::Stall => {}
        // Only the first request gets the bad reply; kvbench must not ask again
        // on a connection it no longer trusts.
        _ if !first => {}
        Misbehaviour::Garbage => stream.write_all(b"?junk\r\n")?,
        Misbehaviour::HugeBulkLength => stream.write_all(b"$4611686018427387904\r\n")?,
        Misbehaviour::DeepNesting => stream.write_all(&b"*1\r\n".repeat(100_000))?,
        Misbehaviour::EndlessLine => {
            stream.write_all(b"+")?;
            // More than the 64 MiB kvbench accepts in one reply; the write
            // fails once kvbench closes the connection.
            let chunk = vec![b'x'; 1024 * 1024];
            for _ in 0..70 {
                stream.write_all(&chunk)?;
            }
        }
        Misbehaviour::OversizedReply => {
            stream.write_all(b"$536870912\r\n")?;
            // 70 MiB, more than the 64 MiB kvbench accepts in one reply; the
            // write fails once kvbench closes the connection.
            let chunk = vec![b'x'; 1024 * 1024];
            for _ in 0..70 {
                stream.write_all(&chunk)?;
            }
        }
        Misbehaviour::CloseMidReply => {
            stream.write_all(b"$10\r\nabc")?;
            stream.flush()?;
            let _ = stream.shutdown(Shutdown::Both);
            return Ok(Next::Hangup);
        }
    }
    Ok(Next::KeepReading)
}

impl Script for Hostile {
    /// GET and SET requests received on the connection.
    type Connection = u64;

    fn answer(
        &self,
        stream: &mut TcpStream,
        name: Option<&[u8]>,
        data_requests: &mut u64,
    ) -> io::Result<Next> {
        let misbehaviour = self.misbehaviour;
        match name.unwrap_or_default() {
            b"PING" if misbehaviour == Misbehaviour::UnsolicitedWithHandshake => {
                stream.write_all(b"+PONG\r\n+surprise\r\n")?;
            }
            b"PING" => {
                stream.write_all(b"+PONG\r\n")?;
                if misbehaviour == Misbehaviour::Unsolicited {
                    // A write of its own, so that it does not arrive in the
                    // same segment as the handshake reply.
                    thread::sleep(Duration::from_millis(30));
                    stream.write_all(b"+surprise\r\n")?;
                }
            }
            name @ (b"GET" | b"SET") => {
                if *data_requests == 0 {
                    self.data_connections.fetch_add(1, Ordering::SeqCst);
                }
                *data_requests += 1;
                self.requests.fetch_add(1, Ordering::SeqCst);
                return misbehave(stream, misbehaviour, name, *data_requests == 1);
            }
            // INFO, CONFIG, SLOWLOG: not supported, as on a minimal server.
            _ => stream.write_all(b"-ERR unknown command\r\n")?,
        }
        Ok(Next::KeepReading)
    }
}

/// What one kvbench run against the hostile server left behind.
struct Outcome {
    out: Output,
    /// `kvbench.errors`.
    errors: Value,
    /// `kvbench.totals`.
    totals: Value,
    /// `kvbench.verdict.reasons`.
    verdict: Vec<Value>,
    /// How long the run waited for replies after sending stopped, in ms
    /// (`runs[0].drain_ms`; the run time itself always lasts `--test-time`).
    drain_ms: u64,
}

impl Outcome {
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }

    /// One counter of `kvbench.errors`.
    fn error(&self, kind: &str) -> u64 {
        self.errors[kind]
            .as_u64()
            .unwrap_or_else(|| panic!("errors.{kind} is not a count: {}", self.errors))
    }

    /// Asserts the counters of `kvbench.errors` named in `expected` (kind,
    /// count), showing all of them and kvbench's stderr when one is off.
    fn assert_errors(&self, expected: &[(&str, u64)]) {
        for &(kind, count) in expected {
            assert_eq!(
                self.error(kind),
                count,
                "errors.{kind}: {}\n{}",
                self.errors,
                self.stderr()
            );
        }
    }

    /// The verdict's reason of `kind`, whose message must contain `cause`.
    fn assert_reason(&self, kind: &str, cause: &str) {
        let reason = self
            .verdict
            .iter()
            .find(|r| r["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} in the verdict: {:?}", self.verdict));
        let message = reason["message"].as_str().unwrap();
        assert!(message.contains(cause), "{kind}: {message}");
        // Said on stderr too, for a script that reads no report.
        assert!(self.stderr().contains(message), "{}", self.stderr());
    }

    /// Replies kvbench recorded (SET + GET).
    fn replies(&self) -> u64 {
        self.totals["SET"]["count"].as_u64().unwrap()
            + self.totals["GET"]["count"].as_u64().unwrap()
    }
}

/// Runs kvbench (`-t 1 -c 1 --test-time 1` and `args`, split at whitespace)
/// against `server` with 1 GiB of address space, and checks that it ended
/// normally with a verdict that the result is not valid: exit 3, no panic, a
/// JSON report, a text report that says so first.
fn run_against(server: &HostileServer, args: &str) -> Outcome {
    run_bounded(server, "--test-time 1", args)
}

/// [`run_against`] with `bound` (`--test-time 1`, `-n 5`) for the run's length.
fn run_bounded(server: &HostileServer, bound: &str, args: &str) -> Outcome {
    let dir = TempDir::new("hostile");
    let json = dir.path("r.json");
    let port = server.port.to_string();
    let mut full = vec!["-s", "127.0.0.1", "-p", &port, "-t", "1", "-c", "1"];
    full.extend(bound.split_whitespace());
    full.push("--hide-histogram");
    full.extend(["--json-out-file", json.to_str().unwrap()]);
    full.extend(args.split_whitespace());
    let out = kvbench_in_sh(&format!("ulimit -v {ADDRESS_SPACE_KIB}"), &full);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "kvbench panicked:\n{stderr}");
    assert_eq!(
        out.status.code(),
        Some(3),
        "kvbench {args}: the invalid result's exit code:\n{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("INVALID RESULT:"),
        "the text report's first line: {stdout}"
    );
    let doc = read_json(&json);
    let k = &doc["kvbench"];
    // A server that answers INFO with an error gives no evidence, and that is
    // no loss to warn about (unlike a control connection that fails).
    assert!(
        !warning_kinds(&doc).contains(&"server_evidence_lost"),
        "{:?}",
        warning_kinds(&doc)
    );
    assert_eq!(k["verdict"]["valid"], false, "{}", k["verdict"]);
    Outcome {
        verdict: k["verdict"]["reasons"].as_array().unwrap().clone(),
        errors: k["errors"].clone(),
        totals: k["totals"].clone(),
        drain_ms: k["runs"][0]["drain_ms"].as_u64().unwrap(),
        out,
    }
}

/// Asserts the one connection was closed for a protocol error, with its one
/// request lost, and not for anything else; `--no-reconnect` kept it closed.
/// The verdict names the fault (`cause`) and that nothing was measured.
fn assert_one_protocol_error(server: &HostileServer, o: &Outcome, cause: &str) {
    o.assert_reason("protocol_errors", cause);
    o.assert_reason("nothing_measured", "not one request was answered");
    // The request in flight was lost; the connection was not lost nor timed
    // out, and --no-reconnect kept it closed.
    o.assert_errors(&[
        ("protocol", 1),
        ("lost_requests", 1),
        ("connection", 0),
        ("timeouts", 0),
        ("reconnects", 0),
    ]);
    assert_eq!(o.replies(), 0, "no reply was valid: {}", o.totals);
    // The server saw one connection ask one request: kvbench did not go on
    // using a connection it could no longer read.
    assert_eq!(server.data_connections(), 1);
    assert_eq!(server.requests(), 1);
}

#[test]
fn garbage_type_bytes_count_one_protocol_error_and_close_the_connection() {
    let server = HostileServer::start(Misbehaviour::Garbage);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o, "unexpected reply type byte 0x3f");
}

#[test]
fn a_bulk_length_of_two_to_the_62_is_rejected_at_once_as_a_protocol_error() {
    let server = HostileServer::start(Misbehaviour::HugeBulkLength);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(
        &server,
        &o,
        "bulk length 4611686018427387904 exceeds the limit",
    );
    // Rejected when the length arrived, not after waiting for the payload
    // until the run's end (then it would be a lost connection, not protocol,
    // after a drain of up to 5 s).
    assert!(o.drain_ms < 1000, "the drain lasted {} ms", o.drain_ms);
}

#[test]
fn a_hundred_thousand_nested_arrays_are_rejected_as_a_protocol_error() {
    let server = HostileServer::start(Misbehaviour::DeepNesting);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o, "nested deeper than");
}

#[test]
fn a_line_that_never_ends_is_rejected_within_bounded_memory() {
    let server = HostileServer::start(Misbehaviour::EndlessLine);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o, "missing CRLF terminator");
}

#[test]
fn a_reply_larger_than_the_reply_cap_is_rejected_within_bounded_memory() {
    let server = HostileServer::start(Misbehaviour::OversizedReply);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o, "reply cap");
}

#[test]
fn a_reply_before_any_request_is_a_protocol_error_not_a_reply() {
    // An open loop at 4 requests a second leaves each connection idle between
    // requests, so the extra reply is seen with nothing in flight (whether it
    // is read before the first request or displaces the first reply).
    let server = HostileServer::start(Misbehaviour::Unsolicited);
    let o = run_against(&server, "--no-reconnect --rate 4 --ratio 0:1");
    o.assert_errors(&[("protocol", 1), ("connection", 0), ("reconnects", 0)]);
    // Read with nothing in flight it is unsolicited; read in place of the
    // GET's reply, a `+` line is not a value nor nil.
    let unsolicited = "a reply arrived that no request asked for";
    let wrong_type = "answered by a reply of another type";
    let named = |cause: &str| {
        o.verdict.iter().any(|r| {
            r["kind"] == "protocol_errors" && r["message"].as_str().unwrap().contains(cause)
        })
    };
    assert!(named(unsolicited) || named(wrong_type), "{:?}", o.verdict);
    // Every reply kvbench recorded answered a request the server received.
    assert!(
        o.replies() <= server.requests(),
        "{} replies for {} requests",
        o.replies(),
        server.requests()
    );
    assert_eq!(server.data_connections(), 1);
}

#[test]
fn a_reply_arriving_together_with_the_handshake_reply_is_a_protocol_error() {
    // The same extra reply, but in the segment that carries `+PONG`: the
    // connection's first handshake must not swallow it unseen (a reconnect's
    // handshake does count it).
    let server = HostileServer::start(Misbehaviour::UnsolicitedWithHandshake);
    let o = run_against(&server, "--no-reconnect --rate 4 --ratio 0:1");
    o.assert_errors(&[("protocol", 1), ("connection", 0)]);
    o.assert_reason("protocol_errors", "no request asked for");
    o.assert_reason("connections_lost", "1 of 1 connection(s)");
    // Seen at the handshake, the connection is reset before it sends a request:
    // every later reply would be matched to the wrong one.
    assert_eq!(server.data_connections(), 0);
    assert_eq!(server.requests(), 0);
}

#[test]
fn a_connection_closed_in_the_middle_of_a_reply_counts_a_lost_connection_and_request() {
    let server = HostileServer::start(Misbehaviour::CloseMidReply);
    let o = run_against(&server, "--no-reconnect");
    // A truncated reply is no protocol error.
    o.assert_errors(&[
        ("connection", 1),
        ("lost_requests", 1),
        ("protocol", 0),
        ("timeouts", 0),
    ]);
    assert_eq!(o.replies(), 0, "{}", o.totals);
    assert_eq!(server.requests(), 1);
    o.assert_reason("nothing_measured", "connections lost 1");
    o.assert_reason("connections_lost", "never offered");
    // The close was noticed when it happened: with its only connection gone,
    // nothing was left to drain after the deadline (rather than 5 s of it).
    assert!(o.drain_ms < 1000, "the drain lasted {} ms", o.drain_ms);
}

#[test]
fn a_server_that_never_answers_trips_the_request_timeout() {
    let server = HostileServer::start(Misbehaviour::Stall);
    let o = run_against(&server, "--no-reconnect --request-timeout 0.2");
    o.assert_errors(&[
        ("timeouts", 1),
        ("lost_requests", 1),
        ("connection", 0),
        ("protocol", 0),
    ]);
    assert_eq!(o.replies(), 0, "{}", o.totals);
    assert_eq!(server.requests(), 1);
    o.assert_reason("nothing_measured", "request timeouts 1");
}

#[test]
fn a_request_bound_run_against_a_server_that_never_answers_ends_after_the_stall_limit() {
    // `-n 5` has no deadline: without a bound it would wait for ever. No
    // reply for 10 s (the default) ends the phase, and the verdict says why.
    let server = HostileServer::start(Misbehaviour::Stall);
    let o = run_bounded(&server, "-n 5", "");
    o.assert_reason("no_progress", "no reply came for 10 s");
    o.assert_reason("nothing_measured", "requests lost in flight 1");
    assert_eq!(o.replies(), 0, "{}", o.totals);
    // One request in flight (pipeline 1), never answered, never sent again.
    assert_eq!(server.requests(), 1);
    o.assert_errors(&[("lost_requests", 1), ("protocol", 0)]);
}

#[test]
fn request_timeout_sets_the_stall_limit_of_a_request_bound_run() {
    let server = HostileServer::start(Misbehaviour::Stall);
    let o = run_bounded(&server, "-n 5", "--request-timeout 0.5");
    o.assert_reason("no_progress", "no reply came for 0.5 s (--request-timeout)");
    assert_eq!(o.replies(), 0, "{}", o.totals);
    assert!(
        (1..=2).contains(&server.requests()),
        "{} requests",
        server.requests()
    );
}

#[test]
fn garbage_with_reconnects_on_reconnects_and_counts_every_garbled_connection() {
    let server = HostileServer::start(Misbehaviour::Garbage);
    let o = run_against(&server, "--max-reconnect-attempts 3");
    let e = &o.errors;
    let reconnects = o.error("reconnects");
    assert!(reconnects >= 1, "no reconnect: {e}\n{}", o.stderr());
    // Each connection kvbench opened (the first and every reconnect that got
    // through the handshake) sent one request and got garbage for it.
    assert_eq!(o.error("protocol"), server.data_connections(), "{e}");
    assert!(
        server.data_connections() >= 2,
        "{} data connections",
        server.data_connections()
    );
    assert_eq!(server.requests(), server.data_connections());
    assert!(reconnects >= server.data_connections() - 1, "{e}");
    assert_eq!(o.error("lost_requests"), o.error("protocol"), "{e}");
    assert_eq!(o.replies(), 0, "{}", o.totals);
    o.assert_reason("protocol_errors", "unexpected reply type byte 0x3f");
}
