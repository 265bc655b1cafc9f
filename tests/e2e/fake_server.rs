//! An in-process fake RESP server whose replies come apart in time: it answers
//! PING at once (kvbench's handshake), then every GET (`$-1`) and SET (`+OK`) it
//! reads ONE reply at a time, each written after a pause of its own and flushed
//! alone, so that the replies to one pipelined batch reach the client in
//! different reads. A real server answers a batch in one write, which would hide
//! a client that times a whole batch with one clock reading.
//!
//! Any other command gets an error reply, as from a minimal server. It listens on
//! 127.0.0.1 only, serves every connection (kvbench opens one to check the
//! address before its workers open theirs), counts the GETs and SETs it answered,
//! and stops when dropped: each connection ends when its client hangs up or the
//! server stops, and the drop waits for all of them. The serving itself is
//! the common module's [`ScriptedServer`]; this is its script.

use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use crate::common::scripted_server::{Next, Script, ScriptedServer};

/// The script: a pause before each GET or SET reply, and what was answered.
pub struct Gaps {
    gap: Duration,
    gets: AtomicU64,
    sets: AtomicU64,
    /// Requests that were not arrays of bulk strings.
    malformed: AtomicU64,
}

/// A running fake server; stopped when dropped.
pub type FakeServer = ScriptedServer<Gaps>;

impl FakeServer {
    /// Starts a server that pauses `gap` before each GET or SET reply.
    pub fn start(gap: Duration) -> FakeServer {
        ScriptedServer::spawn(Gaps {
            gap,
            gets: AtomicU64::new(0),
            sets: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
        })
    }

    /// GET requests answered so far.
    pub fn gets(&self) -> u64 {
        self.script().gets.load(Ordering::SeqCst)
    }

    /// SET requests answered so far.
    pub fn sets(&self) -> u64 {
        self.script().sets.load(Ordering::SeqCst)
    }

    /// Requests that were not arrays of bulk strings (the connection was closed).
    pub fn malformed(&self) -> u64 {
        self.script().malformed.load(Ordering::SeqCst)
    }
}

impl Script for Gaps {
    type Connection = ();

    /// One reply per write, flushed alone.
    fn answer(&self, stream: &mut TcpStream, name: Option<&[u8]>, _: &mut ()) -> io::Result<Next> {
        let Some(name) = name else {
            self.malformed();
            return Ok(Next::Hangup);
        };
        let reply: &[u8] = match name {
            b"PING" => b"+PONG\r\n",
            b"GET" => {
                thread::sleep(self.gap);
                self.gets.fetch_add(1, Ordering::SeqCst);
                b"$-1\r\n"
            }
            b"SET" => {
                thread::sleep(self.gap);
                self.sets.fetch_add(1, Ordering::SeqCst);
                b"+OK\r\n"
            }
            // Anything else (INFO, CONFIG, ...) is not supported, as on a
            // minimal server.
            _ => b"-ERR unknown command\r\n",
        };
        stream.write_all(reply)?;
        stream.flush()?;
        Ok(Next::KeepReading)
    }

    fn malformed(&self) {
        self.malformed.fetch_add(1, Ordering::SeqCst);
    }
}

/// Answers INFO one byte every 0.5 s (a reply that would take 8 minutes),
/// and everything else at once.
/// Counts the INFO requests it began to answer.
#[derive(Default)]
struct TrickledInfo {
    infos: AtomicU64,
}

impl Script for TrickledInfo {
    type Connection = ();

    fn answer(&self, stream: &mut TcpStream, name: Option<&[u8]>, _: &mut ()) -> io::Result<Next> {
        match name {
            Some(b"INFO") => {
                self.infos.fetch_add(1, Ordering::SeqCst);
                let reply = [&b"$1000\r\n"[..], &[b'x'; 1000][..]].concat();
                for byte in reply {
                    stream.write_all(&[byte])?;
                    thread::sleep(Duration::from_millis(500));
                }
            }
            Some(b"PING") => stream.write_all(b"+PONG\r\n")?,
            Some(b"GET") => stream.write_all(b"$-1\r\n")?,
            Some(_) => stream.write_all(b"+OK\r\n")?,
            None => return Ok(Next::Hangup),
        }
        Ok(Next::KeepReading)
    }
}

/// kvbench against `server` for 10 requests with `--connection-timeout
/// timeout`, its stderr piped.
fn spawn_against(server: &ScriptedServer<TrickledInfo>, timeout: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &server.port.to_string()])
        .args(["-t", "1", "-c", "1", "-n", "10"])
        .args(["--connection-timeout", timeout])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// `child`'s exit status and stderr, once it ends within `limit` (else it
/// is killed and the test fails, saying `what`).
fn exit_within(
    mut child: std::process::Child,
    limit: Duration,
    what: &str,
) -> (std::process::ExitStatus, String) {
    let since = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if since.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what}");
        }
        thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status, stderr)
}

/// The preflight's INFO is bounded as a whole by --connection-timeout, not
/// per byte: a trickle held kvbench before the run for ever.
#[test]
fn a_trickled_info_ends_within_the_connection_timeout() {
    let server = ScriptedServer::spawn(TrickledInfo::default());
    let child = spawn_against(&server, "2");
    let (status, stderr) = exit_within(
        child,
        Duration::from_secs(60),
        "kvbench still waiting for INFO after 60 s",
    );
    assert_eq!(status.code(), Some(0), "{status:?}: {stderr}");
    // The silence is said, and the server is not asked again: a second INFO
    // (the phase's evidence, the per-second samples) waited as long again.
    assert!(
        stderr.contains("evidence is missing because INFO before the run failed")
            && stderr.contains("--connection-timeout 2 s"),
        "{stderr}"
    );
    assert_eq!(server.script().infos.load(Ordering::SeqCst), 1, "{stderr}");
}

/// SIGTERM while kvbench waits for a trickling INFO ends it at once (exit
/// 143), not after the whole --connection-timeout: a read with a timeout is
/// not cut short by a signal handled on another thread, so the wait is read
/// in short slices that look at the signal.
#[test]
fn sigterm_during_a_trickled_info_ends_kvbench_at_once() {
    let server = ScriptedServer::spawn(TrickledInfo::default());
    let child = spawn_against(&server, "300");
    let asked = std::time::Instant::now();
    while server.script().infos.load(Ordering::SeqCst) == 0 {
        assert!(
            asked.elapsed() < Duration::from_secs(60),
            "no INFO within 60 s"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id() as libc::pid_t;
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let (status, stderr) = exit_within(
        child,
        Duration::from_secs(120),
        "kvbench still waiting 120 s after SIGTERM (its timeout is 300 s)",
    );
    assert_eq!(status.code(), Some(143), "{status:?}: {stderr}");
    assert!(stderr.contains("signal 15"), "{stderr}");
}
