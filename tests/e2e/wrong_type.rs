//! Replies of the wrong type are faults, not successes: an in-process RESP
//! server answers GET with `+OK`, `:5` or an array (a read of one value wants
//! a bulk string or nil), answers SET with a nil or a value (a SET of one
//! key and value wants a status), or sends every reply twice, which shifts each reply
//! onto the next request. Each run is not valid (exit 3), with the protocol
//! fault counted and named by the verdict.

use std::io::{self, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::thread;
use std::time::Duration;

use crate::common::scripted_server::{Next, Script, ScriptedServer};
use crate::common::{TempDir, kvbench_at, read_json};

/// How the server answers a GET or SET.
#[derive(Debug, Clone, Copy)]
enum Answer {
    /// GET gets these bytes; SET gets `+OK`.
    Get(&'static [u8]),
    /// SET gets these bytes; GET gets a value.
    Set(&'static [u8]),
    /// Every reply (a GET's value, a SET's `+OK`) is sent twice.
    Twice,
}

impl Script for Answer {
    type Connection = ();

    fn answer(&self, stream: &mut TcpStream, name: Option<&[u8]>, _: &mut ()) -> io::Result<Next> {
        match (name.unwrap_or_default(), *self) {
            (b"PING", _) => stream.write_all(b"+PONG\r\n")?,
            (b"GET", Answer::Get(bytes)) => stream.write_all(bytes)?,
            (b"GET", Answer::Twice) => twice(stream, b"$1\r\nv\r\n")?,
            (b"SET", Answer::Twice) => twice(stream, b"+OK\r\n")?,
            (b"SET", Answer::Get(_)) => stream.write_all(b"+OK\r\n")?,
            (b"SET", Answer::Set(bytes)) => stream.write_all(bytes)?,
            (b"GET", Answer::Set(_)) => stream.write_all(b"$1\r\nv\r\n")?,
            // INFO, CONFIG, SLOWLOG: not supported, as on a minimal server.
            _ => stream.write_all(b"-ERR unknown command\r\n")?,
        }
        Ok(Next::KeepReading)
    }
}

/// Writes `reply`, then again a little later: by then the client has sent
/// its next request, which the copy seems to answer.
fn twice(stream: &mut TcpStream, reply: &[u8]) -> io::Result<()> {
    stream.write_all(reply)?;
    thread::sleep(Duration::from_millis(2));
    stream.write_all(reply)
}

/// Runs a 1 s load against a server answering as `answer`; asserts exit 3 and
/// a protocol fault named in the verdict, and returns the verdict's message.
fn run(answer: Answer, args: &str) -> String {
    let server = ScriptedServer::spawn(answer);
    let dir = TempDir::new("wrong-type");
    let json = dir.path("r.json");
    let out = kvbench_at(server.port)
        .args(format!("-t 1 -c 1 --test-time 1 --no-reconnect {args}").split_whitespace())
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run kvbench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(3), "{answer:?}: {stderr}");
    let k = read_json(&json)["kvbench"].clone();
    assert_eq!(k["verdict"]["valid"], false, "{answer:?}: {}", k["verdict"]);
    assert!(
        k["errors"]["protocol"].as_u64().unwrap() >= 1,
        "{answer:?}: {}",
        k["errors"]
    );
    let reason = k["verdict"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "protocol_errors")
        .unwrap_or_else(|| panic!("{answer:?}: no protocol_errors: {}", k["verdict"]))
        .clone();
    reason["message"].as_str().unwrap().to_string()
}

#[test]
fn a_get_answered_by_another_type_is_a_protocol_fault() {
    for bytes in [&b"+OK\r\n"[..], b":5\r\n", b"*1\r\n$1\r\nv\r\n"] {
        let message = run(Answer::Get(bytes), "--ratio 0:1");
        assert!(message.contains("another type"), "{message}");
    }
}

#[test]
fn a_server_that_sends_every_reply_twice_is_out_of_step() {
    // The SET's second +OK answers the GET sent after it.
    let message = run(Answer::Twice, "--ratio 1:1");
    assert!(message.contains("another type"), "{message}");
}

#[test]
fn a_set_answered_by_a_value_or_nil_is_a_protocol_fault() {
    for bytes in [&b"$-1\r\n"[..], b"$1\r\nv\r\n"] {
        let message = run(Answer::Set(bytes), "--ratio 1:0");
        assert!(message.contains("another type"), "{message}");
    }
}
