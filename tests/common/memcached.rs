//! A private memcached on a free loopback port for the tests, and its own
//! counters (`stats`), the witness of what kvbench sent.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::free_port;

/// A private memcached on a free loopback port, stopped when dropped.
pub struct Memcached {
    child: Child,
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
}

impl Memcached {
    /// Starts one with 64 MiB of memory, UDP off.
    pub fn start() -> Memcached {
        Memcached::start_with(&[])
    }

    /// Starts one with extra arguments (`-I 2m` for a larger item limit).
    pub fn start_with(extra: &[&str]) -> Memcached {
        for _ in 0..5 {
            if let Some(m) = Memcached::spawn_on(free_port(), extra) {
                return m;
            }
        }
        panic!("memcached did not start on any of 5 free ports");
    }

    /// Kills the server and starts a new one on the same port (its counters
    /// and items start from zero), as a restart during a run does.
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let give_up = Instant::now() + Duration::from_secs(5);
        while Instant::now() < give_up {
            if let Some(m) = Memcached::spawn_on(self.port, &[]) {
                *self = m;
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("memcached did not start again on port {}", self.port);
    }

    /// A memcached on `port`, once it answers; `None` if it did not start there.
    fn spawn_on(port: u16, extra: &[&str]) -> Option<Memcached> {
        let child = Command::new("memcached")
            .args(["-l", "127.0.0.1", "-p", &port.to_string(), "-U", "0", "-m", "64"])
            .args(["-u", "root"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start memcached ({e}); install it with `apt-get install -y memcached` or run `make test`, which does")
            });
        let mut m = Memcached { child, port };
        let give_up = Instant::now() + Duration::from_secs(5);
        while Instant::now() < give_up {
            // The listener must be this process: another test's memcached
            // may hold the port this one failed to bind.
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                if m.stat("pid") == u64::from(m.child.id()) {
                    return Some(m);
                }
                break;
            }
            if m.child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = m.child.kill();
        let _ = m.child.wait();
        None
    }

    /// A blocking connection with a 5 s read timeout.
    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s
    }

    /// memcached's own counter `name` from `stats`.
    pub fn stat(&self, name: &str) -> u64 {
        let mut s = self.connect();
        s.write_all(b"stats\r\n").unwrap();
        let mut reply = Vec::new();
        let mut chunk = [0; 4096];
        while !reply.ends_with(b"END\r\n") {
            let n = s.read(&mut chunk).unwrap();
            assert!(n > 0, "memcached closed the stats connection");
            reply.extend_from_slice(&chunk[..n]);
        }
        let text = String::from_utf8(reply).unwrap();
        let prefix = format!("STAT {name} ");
        text.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {name} in stats"))
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for Memcached {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
