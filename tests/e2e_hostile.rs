//! kvbench against a hostile server: an in-process RESP server that completes
//! the handshake (PING → +PONG; INFO, CONFIG and SLOWLOG get an error, as on a
//! minimal server) and then misbehaves in one way per test: garbage type bytes,
//! a reply nobody asked for, a 1 TiB bulk length, ten thousand nested arrays, a
//! reply larger than any value kvbench writes, a connection closed half-way
//! through a reply, or no reply at all.
//!
//! Each run must end normally (exit 0, no panic) with the fault counted under
//! the right kind, while kvbench runs with 1 GiB of address space
//! (`ulimit -v`), so that a reply allocated in full, however large it claims to
//! be, would fail the run. The server's own counts (connections that sent a
//! request, requests received) are the independent witness.

mod common;

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use common::{TempDir, read_json};
use kvbench::protocol::resp::{self, Reply};
use serde_json::Value;

/// How often idle server threads look at the stop flag.
const POLL: Duration = Duration::from_millis(20);

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
    /// Answers with a bulk length of 1 TiB (`$1099511627776\r\n`) and nothing more.
    HugeBulkLength,
    /// Answers with 10 000 nested one-element arrays (`*1\r\n` × 10 000).
    DeepNesting,
    /// Answers with a 512 MiB bulk string (the largest length RESP allows) and
    /// streams its payload, far more than any value kvbench writes.
    OversizedReply,
    /// Sends the first bytes of a reply (`$10\r\nabc`), then closes.
    CloseMidReply,
    /// Reads requests and never answers them.
    Stall,
}

/// What the server's threads share.
#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    /// Connections that sent at least one GET or SET.
    data_connections: AtomicU64,
    /// GET and SET requests received.
    requests: AtomicU64,
}

/// A running hostile server; stopped when dropped.
struct HostileServer {
    port: u16,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl HostileServer {
    fn start(misbehaviour: Misbehaviour) -> HostileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || accept_loop(&listener, &shared, misbehaviour))
        };
        HostileServer {
            port,
            shared,
            acceptor: Some(acceptor),
        }
    }

    fn data_connections(&self) -> u64 {
        self.shared.data_connections.load(Ordering::SeqCst)
    }

    fn requests(&self) -> u64 {
        self.shared.requests.load(Ordering::SeqCst)
    }
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>, misbehaviour: Misbehaviour) {
    let mut connections = Vec::new();
    while !shared.stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(shared);
                connections.push(thread::spawn(move || {
                    let _ = serve(stream, &shared, misbehaviour);
                }));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(2))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    for connection in connections {
        let _ = connection.join();
    }
}

/// The command name of one whole request (`*N\r\n$len\r\nNAME\r\n...`), upper-cased.
fn command_name(request: &[u8]) -> Option<Vec<u8>> {
    let header = request.windows(2).position(|w| w == b"\r\n")? + 2;
    match resp::decode(&request[header..]) {
        Ok(Some((Reply::Bulk(name), _))) => Some(name.to_ascii_uppercase()),
        _ => None,
    }
}

/// What to do after answering a data request.
enum Next {
    KeepReading,
    Hangup,
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
        Misbehaviour::HugeBulkLength => stream.write_all(b"$1099511627776\r\n")?,
        Misbehaviour::DeepNesting => stream.write_all(&b"*1\r\n".repeat(10_000))?,
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

/// Serves one connection until the client hangs up or the server stops.
fn serve(mut stream: TcpStream, shared: &Shared, misbehaviour: Misbehaviour) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(POLL))?;
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let mut data_requests = 0u64;
    loop {
        loop {
            let used = match resp::decode(&pending) {
                Ok(Some((Reply::Array(_), used))) => used,
                Ok(None) => break,
                // Not a request kvbench sends: hang up.
                Ok(Some(_)) | Err(_) => return Ok(()),
            };
            let name = command_name(&pending[..used]).unwrap_or_default();
            pending.drain(..used);
            match name.as_slice() {
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
                b"GET" | b"SET" => {
                    if data_requests == 0 {
                        shared.data_connections.fetch_add(1, Ordering::SeqCst);
                    }
                    data_requests += 1;
                    shared.requests.fetch_add(1, Ordering::SeqCst);
                    if let Next::Hangup =
                        misbehave(&mut stream, misbehaviour, &name, data_requests == 1)?
                    {
                        return Ok(());
                    }
                }
                // INFO, CONFIG, SLOWLOG: not supported, as on a minimal server.
                _ => stream.write_all(b"-ERR unknown command\r\n")?,
            }
        }
        if shared.stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => pending.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
}

/// What one kvbench run against the hostile server left behind.
struct Outcome {
    out: Output,
    /// `kvbench.errors`.
    errors: Value,
    /// `kvbench.totals`.
    totals: Value,
    /// The run's `Total duration` in ms, as kvbench measured it.
    duration_ms: u64,
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

    /// Replies kvbench recorded (SET + GET).
    fn replies(&self) -> u64 {
        self.totals["SET"]["count"].as_u64().unwrap()
            + self.totals["GET"]["count"].as_u64().unwrap()
    }
}

/// Runs kvbench (`-t 1 -c 1 --test-time 1` and `args`, split at whitespace)
/// against `server` with 1 GiB of address space, and checks that it ended
/// normally: exit 0, no panic, a JSON report.
fn run_against(server: &HostileServer, args: &str) -> Outcome {
    let dir = TempDir::new("hostile");
    let json = dir.path("r.json");
    let port = server.port.to_string();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args([
            "-s",
            "127.0.0.1",
            "-p",
            &port,
            "-t",
            "1",
            "-c",
            "1",
            "--test-time",
            "1",
        ])
        .args([
            "--hide-histogram",
            "--json-out-file",
            json.to_str().unwrap(),
        ])
        .args(args.split_whitespace())
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run kvbench under sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "kvbench panicked:\n{stderr}");
    assert!(
        out.status.success(),
        "kvbench {args} failed ({:?}):\n{stderr}",
        out.status
    );
    let doc = read_json(&json);
    let k = &doc["kvbench"];
    Outcome {
        errors: k["errors"].clone(),
        totals: k["totals"].clone(),
        duration_ms: doc["ALL STATS"]["Runtime"]["Total duration"]
            .as_u64()
            .unwrap(),
        out,
    }
}

/// Asserts the one connection was closed for a protocol error, with its one
/// request lost, and not for anything else; `--no-reconnect` kept it closed.
fn assert_one_protocol_error(server: &HostileServer, o: &Outcome) {
    let e = &o.errors;
    assert_eq!(
        o.error("protocol"),
        1,
        "protocol errors: {e}\n{}",
        o.stderr()
    );
    assert_eq!(o.error("lost_requests"), 1, "the request in flight: {e}");
    assert_eq!(o.error("connection"), 0, "not a lost connection: {e}");
    assert_eq!(o.error("timeouts"), 0, "not a timeout: {e}");
    assert_eq!(o.error("reconnects"), 0, "--no-reconnect: {e}");
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
    assert_one_protocol_error(&server, &o);
}

#[test]
fn a_one_tebibyte_bulk_length_is_rejected_at_once_as_a_protocol_error() {
    let server = HostileServer::start(Misbehaviour::HugeBulkLength);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o);
    // Rejected when the length arrived, not after waiting for the payload
    // until the run's end (then it would be a lost connection, not protocol).
    assert!(o.duration_ms < 1000, "the run lasted {} ms", o.duration_ms);
}

#[test]
fn ten_thousand_nested_arrays_are_rejected_as_a_protocol_error() {
    let server = HostileServer::start(Misbehaviour::DeepNesting);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o);
}

#[test]
fn a_reply_larger_than_the_reply_cap_is_rejected_within_bounded_memory() {
    let server = HostileServer::start(Misbehaviour::OversizedReply);
    let o = run_against(&server, "--no-reconnect");
    assert_one_protocol_error(&server, &o);
}

#[test]
fn a_reply_before_any_request_is_a_protocol_error_not_a_reply() {
    // An open loop at 4 requests a second leaves each connection idle between
    // requests, so the extra reply is seen with nothing in flight (whether it
    // is read before the first request or displaces the first reply).
    let server = HostileServer::start(Misbehaviour::Unsolicited);
    let o = run_against(&server, "--no-reconnect --rate 4 --ratio 0:1");
    let e = &o.errors;
    assert_eq!(
        o.error("protocol"),
        1,
        "protocol errors: {e}\n{}",
        o.stderr()
    );
    assert_eq!(o.error("connection"), 0, "{e}");
    assert_eq!(o.error("reconnects"), 0, "{e}");
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
    let e = &o.errors;
    assert_eq!(
        o.error("protocol"),
        1,
        "protocol errors: {e}\n{}",
        o.stderr()
    );
    assert_eq!(o.error("connection"), 0, "{e}");
    // Seen at the handshake, the connection is reset before it sends a request:
    // every later reply would be matched to the wrong one.
    assert_eq!(server.data_connections(), 0);
    assert_eq!(server.requests(), 0);
}

#[test]
fn a_connection_closed_in_the_middle_of_a_reply_counts_a_lost_connection_and_request() {
    let server = HostileServer::start(Misbehaviour::CloseMidReply);
    let o = run_against(&server, "--no-reconnect");
    let e = &o.errors;
    assert_eq!(
        o.error("connection"),
        1,
        "lost connections: {e}\n{}",
        o.stderr()
    );
    assert_eq!(o.error("lost_requests"), 1, "{e}");
    assert_eq!(
        o.error("protocol"),
        0,
        "a truncated reply is no protocol error: {e}"
    );
    assert_eq!(o.error("timeouts"), 0, "{e}");
    assert_eq!(o.replies(), 0, "{}", o.totals);
    assert_eq!(server.requests(), 1);
    // The close was noticed when it happened: with its only connection gone,
    // the run ended before its 1 s deadline rather than draining 5 s after it.
    assert!(o.duration_ms < 1000, "the run lasted {} ms", o.duration_ms);
}

#[test]
fn a_server_that_never_answers_trips_the_request_timeout() {
    let server = HostileServer::start(Misbehaviour::Stall);
    let o = run_against(&server, "--no-reconnect --request-timeout 0.2");
    let e = &o.errors;
    assert_eq!(o.error("timeouts"), 1, "timeouts: {e}\n{}", o.stderr());
    assert_eq!(o.error("lost_requests"), 1, "{e}");
    assert_eq!(o.error("connection"), 0, "{e}");
    assert_eq!(o.error("protocol"), 0, "{e}");
    assert_eq!(o.replies(), 0, "{}", o.totals);
    assert_eq!(server.requests(), 1);
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
}
