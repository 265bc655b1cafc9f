//! Test support: private `redis-server` processes on free loopback ports, a
//! tiny RESP client to ask them what they saw (the independent witness), a
//! scripted in-process RESP server ([`scripted_server`]), runners for the kvbench
//! binary and readers of its JSON report.
//!
//! A test that needs a server and cannot start one panics with the fix; it never
//! passes silently. Compiled once for the whole suite, whose tests share one
//! process: ports are handed out once ([`ports`]) and every server holds a
//! share of the machine that the tests measuring speed take alone ([`machine`]).

pub mod balancer;
pub mod cluster;
pub mod compare;
pub mod launch;
pub mod machine;
pub mod memcached;
pub mod netns;
pub mod ports;
pub mod proxy;
pub mod scripted_server;
pub mod slurm;
pub mod tls;

pub use ports::{free_port, hand_out, listen};

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use kvbench::protocol::resp;
use kvbench::protocol::value::{self, Value as Reply};
use serde_json::Value;

/// This machine's host name, as `gethostname` gives it (what kvbench's
/// `{host}` and `kvbench.shard.host` use).
pub fn hostname() -> String {
    let out = Command::new("hostname").output().expect("run hostname");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A scratch directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        // The suite's tests run in parallel threads of one process: a counter
        // keeps two directories made in the same nanosecond apart.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("kvbench-{tag}-{}-{nanos}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A `redis-server` command for 127.0.0.1:`port` with persistence off and
/// `dir` as its working directory; the caller adds the rest and starts it.
pub fn redis_server(port: u16, dir: &Path) -> Command {
    let mut command = Command::new("redis-server");
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .args(["--dir", dir.to_str().unwrap()]);
    command
}

/// A private redis-server, stopped when dropped.
pub struct Redis {
    child: Child,
    pub port: u16,
    _dir: TempDir,
    _share: machine::Share,
}

impl Redis {
    /// Starts a server with persistence off on a free loopback port.
    pub fn start() -> Redis {
        Redis::start_with(&[])
    }

    /// Starts a server with extra `--name value` arguments.
    pub fn start_with(extra: &[&str]) -> Redis {
        let dir = TempDir::new("redis");
        for _ in 0..5 {
            let port = free_port();
            let child = redis_server(port, &dir.0)
                .args(extra)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start redis-server ({e}); install it with `apt-get install -y redis-server` or run `make test`, which does")
                });
            let mut redis = Redis {
                child,
                port,
                _dir: TempDir(PathBuf::new()),
                _share: machine::share(),
            };
            if redis.wait_ready() {
                redis._dir = dir;
                return redis;
            }
            // Someone took the port between our probe and the server's bind: try another.
            drop(redis);
        }
        panic!("redis-server did not start on any of 5 free ports");
    }

    /// Starts a server whose clients must `AUTH password`; with `user`, also
    /// `AUTH user password` for an ACL user allowed everything. The passwords
    /// are set once the server is up, since readiness is checked with an
    /// unauthenticated PING.
    pub fn start_protected(password: &str, user: Option<&str>) -> Redis {
        let redis = Redis::start();
        if let Some(user) = user {
            let secret = format!(">{password}");
            let acl = ["ACL", "SETUSER", user, "on", &secret, "~*", "+@all"];
            assert_eq!(redis.command(&acl), b"OK");
        }
        assert_eq!(
            redis.command(&["CONFIG", "SET", "requirepass", password]),
            b"OK"
        );
        redis
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if let Ok(reply) = try_command(self.port, &["PING"]) {
                // A server started with --requirepass answers NOAUTH: it is up.
                return reply == b"PONG" || reply.starts_with(b"NOAUTH");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Sends one command and returns the reply's payload (simple, bulk or error text).
    pub fn command(&self, args: &[&str]) -> Vec<u8> {
        try_command(self.port, args).unwrap_or_else(|e| panic!("{args:?} failed: {e}"))
    }

    /// Calls of one command so far (0 when never called).
    pub fn calls(&self, command: &str) -> u64 {
        let text = String::from_utf8(self.command(&["INFO", "commandstats"])).unwrap();
        parse_commandstats(&text).get(command).map_or(0, |c| c.0)
    }

    /// Keys in database 0.
    pub fn dbsize(&self) -> u64 {
        String::from_utf8(self.command(&["DBSIZE"]))
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Runs kvbench against this server with `args` (split at whitespace) and
    /// a JSON report; asserts it succeeded. See [`kvbench_json`].
    pub fn kvbench_json(&self, args: &str) -> Report {
        kvbench_json(self.port, args, &[])
    }

    /// Resets INFO commandstats.
    pub fn reset_stats(&self) {
        assert_eq!(self.command(&["CONFIG", "RESETSTAT"]), b"OK");
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------
// Asking a server by port (any server: a `Redis` or one a test runs itself).
// ---------------------------------------------------------------------------

/// Sends `commands` in one write on a fresh connection to 127.0.0.1:`port` and
/// returns their replies, read in full (arrays with their elements).
pub fn try_pipeline<C, A>(port: u16, commands: &[C]) -> io::Result<Vec<Reply>>
where
    C: AsRef<[A]>,
    A: AsRef<str>,
{
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut out = Vec::new();
    for args in commands {
        let args: Vec<&[u8]> = args
            .as_ref()
            .iter()
            .map(|a| a.as_ref().as_bytes())
            .collect();
        resp::encode_command(&mut out, &args);
    }
    s.write_all(&out)?;
    let mut buf = Vec::new();
    let mut replies = Vec::new();
    let mut chunk = [0u8; 65536];
    while replies.len() < commands.len() {
        if let Some((reply, used)) = value::parse(&buf).map_err(io::Error::other)? {
            buf.drain(..used);
            replies.push(reply);
            continue;
        }
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::other("connection closed"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(replies)
}

/// [`try_pipeline`], panicking on any failure.
pub fn pipeline<C, A>(port: u16, commands: &[C]) -> Vec<Reply>
where
    C: AsRef<[A]>,
    A: AsRef<str>,
{
    try_pipeline(port, commands).unwrap_or_else(|e| panic!("ask 127.0.0.1:{port}: {e}"))
}

/// One command's reply payload (simple, bulk or error text; an integer or an
/// array's or map's length in decimal; nothing for nil).
fn try_command(port: u16, args: &[&str]) -> io::Result<Vec<u8>> {
    let reply = try_pipeline(port, &[args])?.remove(0);
    Ok(match reply {
        Reply::Simple(s) | Reply::Error(s) => s.into_bytes(),
        Reply::Bulk(b) => b,
        Reply::Integer(i) => i.to_string().into_bytes(),
        Reply::Nil => Vec::new(),
        Reply::Array(items) => items.len().to_string().into_bytes(),
        Reply::Map(pairs) => pairs.len().to_string().into_bytes(),
    })
}

/// One command's reply as text (a bulk or simple string).
pub fn ask(port: u16, args: &[&str]) -> String {
    let reply = pipeline(port, &[args]).remove(0);
    reply
        .text()
        .unwrap_or_else(|| panic!("{args:?} answered {reply:?}"))
}

/// One field of `INFO section`, as text.
pub fn info(port: u16, section: &str, field: &str) -> String {
    let text = ask(port, &["INFO", section]);
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in INFO {section}:\n{text}"))
        .trim()
        .to_string()
}

/// One integer field of `INFO section`.
pub fn info_u64(port: u16, section: &str, field: &str) -> u64 {
    let text = info(port, section, field);
    text.parse()
        .unwrap_or_else(|_| panic!("INFO {section} {field} is {text:?}, not a count"))
}

/// `INFO commandstats` text as command name → (calls, failed_calls).
pub fn parse_commandstats(text: &str) -> HashMap<String, (u64, u64)> {
    let field = |fields: &str, name: &str| -> u64 {
        fields
            .split(',')
            .find_map(|f| f.strip_prefix(name))
            .map_or(0, |v| v.parse().unwrap())
    };
    text.lines()
        .filter_map(|line| line.strip_prefix("cmdstat_"))
        .map(|rest| {
            let (name, fields) = rest.split_once(':').unwrap();
            let calls = (field(fields, "calls="), field(fields, "failed_calls="));
            (name.to_string(), calls)
        })
        .collect()
}

/// Waits until the server at `port` has executed at least one SET or GET of
/// `kvbench` (the run is under way); panics if kvbench exits first or nothing
/// comes within 30 s.
pub fn wait_for_traffic(port: u16, kvbench: &mut Child) {
    let give_up = Instant::now() + Duration::from_secs(30);
    loop {
        let stats = parse_commandstats(&ask(port, &["INFO", "commandstats"]));
        let calls = |name: &str| stats.get(name).map_or(0, |c| c.0);
        if calls("set") + calls("get") > 0 {
            return;
        }
        if let Some(status) = kvbench.try_wait().expect("poll kvbench") {
            panic!("kvbench ended ({status}) before sending anything");
        }
        assert!(
            Instant::now() < give_up,
            "kvbench sent nothing to 127.0.0.1:{port} within 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------------------
// Running kvbench.
// ---------------------------------------------------------------------------

/// Runs the kvbench binary with these arguments (no progress noise: stderr is a pipe).
pub fn kvbench(args: &[&str]) -> Output {
    // Each run takes a CPU while it starts: a test that measures waits.
    let _share = machine::share();
    Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(args)
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run kvbench")
}

/// kvbench aimed at 127.0.0.1:`port` with `--hide-histogram` and without
/// `KVBENCH_AUTH` from the environment; the caller adds the rest and runs it.
pub fn kvbench_at(port: u16) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvbench"));
    command
        .args([
            "-s",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "--hide-histogram",
        ])
        .env_remove("KVBENCH_AUTH");
    command
}

/// Runs kvbench against `redis` with `args`, asserts that it exited 2 without
/// opening a single connection to the server (the INFO that counts them is one
/// itself), and returns its stderr for the caller to check the message.
pub fn refused_before_connecting<I, S>(redis: &Redis, args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let before = info_u64(redis.port, "stats", "total_connections_received");
    let out = kvbench_at(redis.port).args(args).output().unwrap();
    let after = info_u64(redis.port, "stats", "total_connections_received");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        after,
        before + 1,
        "kvbench connected before refusing: {stderr}"
    );
    stderr
}

/// Asserts that kvbench (run as `what` says) exited 0, showing its output if not.
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "kvbench {what} failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Runs kvbench against 127.0.0.1:`port` with these arguments and asserts it succeeded.
pub fn kvbench_ok(port: u16, args: &[&str]) -> Output {
    let out = kvbench_at(port).args(args).output().expect("run kvbench");
    assert_success(&out, &format!("{args:?}"));
    out
}

/// What one kvbench run with a JSON report left behind.
pub struct Report {
    /// The JSON report.
    pub doc: Value,
    pub stdout: String,
    pub stderr: String,
}

/// Runs kvbench against 127.0.0.1:`port` with `args` (split at whitespace),
/// then `extra` (kept whole, for paths) and a JSON report; asserts it succeeded.
pub fn kvbench_json(port: u16, args: &str, extra: &[&str]) -> Report {
    let dir = TempDir::new("report");
    let json = dir.path("r.json");
    let mut full: Vec<&str> = args.split_whitespace().collect();
    full.extend_from_slice(extra);
    full.extend(["--json-out-file", json.to_str().unwrap()]);
    let out = kvbench_ok(port, &full);
    Report {
        doc: read_json(&json),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// kvbench with these arguments under `sh -c "<limits> && exec kvbench ..."`
/// (a `ulimit` for it alone), run to its end with its stdout and stderr.
pub fn kvbench_in_sh(limits: &str, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{limits} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args(args)
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run kvbench under sh")
}

// ---------------------------------------------------------------------------
// Reading the JSON report.
// ---------------------------------------------------------------------------

/// What a terminal shows of `raw`: its ANSI control sequences (CSI: ESC `[`,
/// parameters, one final letter) dropped.
pub fn without_csi(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        text.push(c);
    }
    text
}

/// Reads a JSON report.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A JSON value that must be an unsigned integer.
/// `kvbench.totals.<op>.<field>` of a report.
pub fn total(doc: &Value, op: &str, field: &str) -> u64 {
    u(&doc["kvbench"]["totals"][op][field])
}

/// Asserts that a run lost no connection, request or reply: no connection,
/// protocol, refused or timeout errors and no lost requests.
pub fn assert_no_faults(doc: &Value, what: &str) {
    let errors = &doc["kvbench"]["errors"];
    for kind in [
        "connection",
        "protocol",
        "lost_requests",
        "refused",
        "timeouts",
    ] {
        assert_eq!(errors[kind], 0, "{what}: {kind} in {errors}");
    }
}

pub fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{v} is not an unsigned integer"))
}

/// A JSON value that must be a number.
pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// The kinds of `kvbench.warnings`, in order.
pub fn warning_kinds(doc: &Value) -> Vec<&str> {
    doc["kvbench"]["warnings"]
        .as_array()
        .expect("kvbench.warnings is an array")
        .iter()
        .map(|w| w["kind"].as_str().expect("a warning's kind is text"))
        .collect()
}

/// Decodes a compressed histogram (base64 of V2 + deflate, values in µs).
pub fn decode_histogram(base64: &str) -> Histogram<u64> {
    let bytes = STANDARD.decode(base64).expect("base64");
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .expect("a V2 + deflate HdrHistogram")
}

/// A section row's response-time histogram (its "Compressed Histogram").
pub fn row_histogram(row: &Value) -> Histogram<u64> {
    let text = &row["Percentile Latencies"]["Histogram log format"]["Compressed Histogram"];
    decode_histogram(
        text.as_str()
            .unwrap_or_else(|| panic!("Compressed Histogram {text} is not a string")),
    )
}

/// A MONITOR connection to `port`, past its `+OK`.
pub fn monitor(port: u16) -> io::BufReader<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // Generous: the machine is shared, but a capture that never ends must fail.
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    stream.write_all(b"MONITOR\r\n").unwrap();
    let mut reader = io::BufReader::new(stream);
    let mut ok = String::new();
    io::BufRead::read_line(&mut reader, &mut ok).unwrap();
    assert_eq!(ok, "+OK\r\n");
    reader
}

/// Reads `capture` (from [`monitor`]) up to the line holding `end` (the
/// test's closing `ECHO`), handing each command line's client address and
/// quoted words to `each`: `+1796221028.517712 [0 127.0.0.1:43398] "SET"
/// "memtier-870" "xxx"` gives `127.0.0.1:43398` and `["SET", "memtier-870",
/// "xxx"]`.
pub fn monitor_until(
    capture: &mut io::BufReader<TcpStream>,
    end: &str,
    mut each: impl FnMut(&str, &[&str]),
) {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            io::BufRead::read_line(capture, &mut line).unwrap() > 0,
            "MONITOR closed early"
        );
        if line.contains(end) {
            return;
        }
        let Some((addr, rest)) = line
            .split_once(" [")
            .and_then(|(_, r)| r.split_once(']'))
            .and_then(|(db_addr, rest)| Some((db_addr.split_once(' ')?.1, rest)))
        else {
            continue;
        };
        let words: Vec<&str> = rest.split('"').skip(1).step_by(2).collect();
        each(addr, &words);
    }
}
