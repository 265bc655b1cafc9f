//! Test support: private `redis-server` processes on free loopback ports, a tiny
//! RESP client to ask them what they saw (the independent witness), and a runner
//! for the kvbench binary.
//!
//! A test that needs a server and cannot start one panics with the fix; it never
//! passes silently.

#![allow(
    dead_code,
    reason = "each test binary uses a different part of this module"
)]

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use kvbench::protocol::resp::{self, Reply};

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral loopback port");
    listener.local_addr().unwrap().port()
}

/// A scratch directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("kvbench-{tag}-{}-{nanos}", std::process::id()));
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

/// A private redis-server, stopped when dropped.
pub struct Redis {
    child: Child,
    pub port: u16,
    _dir: TempDir,
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
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .args(["--dir", dir.0.to_str().unwrap()])
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

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if let Ok(reply) = self.try_command(&["PING"]) {
                // A server started with --requirepass answers NOAUTH: it is up.
                return reply == b"PONG" || reply.starts_with(b"NOAUTH");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Sends one command and returns the reply's payload (simple, bulk or error text).
    pub fn command(&self, args: &[&str]) -> Vec<u8> {
        self.try_command(args)
            .unwrap_or_else(|e| panic!("{args:?} failed: {e}"))
    }

    fn try_command(&self, args: &[&str]) -> std::io::Result<Vec<u8>> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port))?;
        s.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut out = Vec::new();
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        resp::encode_command(&mut out, &args);
        s.write_all(&out)?;
        let mut buf = Vec::new();
        let mut chunk = [0u8; 65536];
        loop {
            if let Ok(Some((reply, _))) = resp::decode(&buf) {
                return Ok(match reply {
                    Reply::Simple(b) | Reply::Error(b) | Reply::Bulk(b) => b.to_vec(),
                    Reply::Integer(i) => i.to_string().into_bytes(),
                    Reply::Nil => Vec::new(),
                    Reply::Array(n) => n.to_string().into_bytes(),
                });
            }
            let n = s.read(&mut chunk)?;
            if n == 0 {
                return Err(std::io::Error::other("connection closed"));
            }
            buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// `INFO commandstats` as command name → calls.
    pub fn commandstats(&self) -> HashMap<String, u64> {
        let text = String::from_utf8(self.command(&["INFO", "commandstats"])).unwrap();
        let mut calls = HashMap::new();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("cmdstat_") else {
                continue;
            };
            let (name, fields) = rest.split_once(':').unwrap();
            let n = fields
                .split(',')
                .find_map(|f| f.strip_prefix("calls="))
                .unwrap()
                .parse()
                .unwrap();
            calls.insert(name.to_string(), n);
        }
        calls
    }

    /// Calls of one command so far (0 when never called).
    pub fn calls(&self, command: &str) -> u64 {
        self.commandstats().get(command).copied().unwrap_or(0)
    }

    /// Keys in database 0.
    pub fn dbsize(&self) -> u64 {
        String::from_utf8(self.command(&["DBSIZE"]))
            .unwrap()
            .parse()
            .unwrap()
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

/// Runs the kvbench binary with these arguments (no progress noise: stderr is a pipe).
pub fn kvbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(args)
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run kvbench")
}

/// Runs kvbench against `redis` with these arguments and asserts it succeeded.
pub fn kvbench_ok(redis: &Redis, args: &[&str]) -> Output {
    let port = redis.port.to_string();
    let mut full = vec!["-s", "127.0.0.1", "-p", &port, "--hide-histogram"];
    full.extend_from_slice(args);
    let out = kvbench(&full);
    assert!(
        out.status.success(),
        "kvbench {full:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

/// Reads a JSON report.
pub fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}
