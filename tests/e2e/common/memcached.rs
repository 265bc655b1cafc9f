//! A private memcached on a free loopback port for the tests, and its own
//! counters (`stats`), the witness of what kvbench sent; optionally behind
//! SASL (`-S`) with a private sasldb, where `stats` is read in binary; and a
//! text-protocol stand-in whose `VALUE` blocks lie ([`LyingText`]).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{TempDir, free_port, listen, machine};

/// The credentials of a SASL memcached, and the directory of its sasldb and
/// configuration (removed when dropped).
pub struct Sasl {
    dir: TempDir,
    pub user: String,
    pub password: String,
}

/// A private memcached on a free loopback port, stopped when dropped.
pub struct Memcached {
    child: Child,
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    sasl: Option<Sasl>,
    /// Started with `-B binary`: it answers no text `stats`.
    binary_only: bool,
    _share: machine::Share,
}

/// How a memcached is started: with extra arguments, speaking the binary
/// protocol only, or with SASL.
#[derive(Clone, Copy)]
enum Mode<'a> {
    Plain(&'a [&'a str]),
    BinaryOnly,
    Sasl(&'a Sasl),
}

impl Memcached {
    /// Starts one with 64 MiB of memory, UDP off.
    pub fn start() -> Memcached {
        Memcached::start_with(&[])
    }

    /// Starts one with extra arguments (`-I 2m` for a larger item limit).
    pub fn start_with(extra: &[&str]) -> Memcached {
        for _ in 0..5 {
            if let Some(m) = Memcached::spawn(free_port(), Mode::Plain(extra)) {
                return m;
            }
        }
        panic!("memcached did not start on any of 5 free ports");
    }

    /// Starts one with `-B binary`, which speaks the binary protocol only
    /// (its counters are read in binary too).
    pub fn start_binary_only() -> Memcached {
        for _ in 0..5 {
            if let Some(m) = Memcached::spawn(free_port(), Mode::BinaryOnly) {
                return m;
            }
        }
        panic!("memcached -B binary did not start on any of 5 free ports");
    }

    /// Starts one with SASL (`-S`) that knows only `user` / `password`, from a
    /// private sasldb (`saslpasswd2`, from Debian's sasl2-bin).
    pub fn start_sasl(user: &str, password: &str) -> Memcached {
        let dir = TempDir::new("memcached-sasl");
        let db = dir.path("sasldb2");
        let mut add = Command::new("saslpasswd2")
            .args(["-a", "memcached", "-c", "-f", db.to_str().unwrap(), "-p", user])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run saslpasswd2 ({e}); install it with `apt-get install -y sasl2-bin` or run `make test`, which does")
            });
        add.stdin
            .take()
            .unwrap()
            .write_all(password.as_bytes())
            .unwrap();
        assert!(add.wait().unwrap().success(), "saslpasswd2 failed");
        let conf = format!("mech_list: plain\nsasldb_path: {}\n", db.display());
        std::fs::write(dir.path("memcached.conf"), conf).unwrap();
        let sasl = Sasl {
            dir,
            user: user.into(),
            password: password.into(),
        };
        for _ in 0..5 {
            if let Some(mut m) = Memcached::spawn(free_port(), Mode::Sasl(&sasl)) {
                m.sasl = Some(sasl);
                if m.stat("pid") == u64::from(m.child.id()) {
                    return m;
                }
                panic!("another memcached answered on {}", m.port);
            }
        }
        panic!("memcached -S did not start on any of 5 free ports");
    }

    /// Kills the server and starts a new one on the same port (its counters
    /// and items start from zero), as a restart during a run does.
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let give_up = Instant::now() + Duration::from_secs(5);
        while Instant::now() < give_up {
            if let Some(m) = Memcached::spawn(self.port, Mode::Plain(&[])) {
                *self = m;
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("memcached did not start again on port {}", self.port);
    }

    /// A memcached on `port` in `mode`, once it answers as this process
    /// (a SASL one: once it accepts connections, its pid checked by the
    /// caller with the credentials); `None` if it did not start there.
    fn spawn(port: u16, mode: Mode<'_>) -> Option<Memcached> {
        let mut command = Command::new("memcached");
        command
            .args([
                "-l",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-U",
                "0",
                "-m",
                "64",
            ])
            .args(["-u", "root"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match mode {
            Mode::Plain(extra) => command.args(extra),
            Mode::BinaryOnly => command.args(["-B", "binary"]),
            Mode::Sasl(sasl) => command.arg("-S").env("SASL_CONF_PATH", &sasl.dir.0),
        };
        let child = command.spawn().unwrap_or_else(|e| {
            panic!("cannot start memcached ({e}); install it with `apt-get install -y memcached` or run `make test`, which does")
        });
        let mut m = Memcached {
            child,
            port,
            sasl: None,
            binary_only: matches!(mode, Mode::BinaryOnly),
            _share: machine::share(),
        };
        let give_up = Instant::now() + Duration::from_secs(5);
        while Instant::now() < give_up {
            // The listener must be this process: another test's memcached
            // may hold the port this one failed to bind.
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                // A server still coming up may reset the first connection:
                // that is "not ready yet", not a failure.
                let pid = match mode {
                    Mode::Sasl(_) => return Some(m),
                    Mode::BinaryOnly => Ok(m.stat("pid")),
                    Mode::Plain(_) => m.try_stat("pid"),
                };
                match pid {
                    Ok(pid) if pid == u64::from(m.child.id()) => return Some(m),
                    Ok(_) => break,
                    Err(_) => {}
                }
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
        if self.sasl.is_some() || self.binary_only {
            return self.binary_stat(self.sasl.as_ref(), name);
        }
        self.try_stat(name)
            .unwrap_or_else(|e| panic!("stats from memcached on {}: {e}", self.port))
    }

    /// [`Memcached::stat`] over the text protocol, with I/O errors returned.
    fn try_stat(&self, name: &str) -> std::io::Result<u64> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port))?;
        s.set_read_timeout(Some(Duration::from_secs(5)))?;
        s.write_all(b"stats\r\n")?;
        let mut reply = Vec::new();
        let mut chunk = [0; 4096];
        while !reply.ends_with(b"END\r\n") {
            let n = s.read(&mut chunk)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            reply.extend_from_slice(&chunk[..n]);
        }
        let text = String::from_utf8(reply).unwrap();
        let prefix = format!("STAT {name} ");
        Ok(text
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {name} in stats"))
            .trim()
            .parse()
            .unwrap())
    }
}

/// A binary-protocol request header and body.
fn binary_request(opcode: u8, key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = vec![0x80, opcode];
    out.extend_from_slice(&(key.len() as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&((key.len() + value.len()) as u32).to_be_bytes());
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(key);
    out.extend_from_slice(value);
    out
}

/// One binary response: status, key, value.
fn binary_response(s: &mut TcpStream) -> (u16, Vec<u8>, Vec<u8>) {
    let mut header = [0; 24];
    s.read_exact(&mut header).unwrap();
    let key_len = usize::from(u16::from_be_bytes([header[2], header[3]]));
    let extras = usize::from(header[4]);
    let status = u16::from_be_bytes([header[6], header[7]]);
    let body_len = u32::from_be_bytes(header[8..12].try_into().unwrap()) as usize;
    let mut body = vec![0; body_len];
    s.read_exact(&mut body).unwrap();
    let value = body.split_off(extras + key_len);
    (status, body[extras..].to_vec(), value)
}

impl Memcached {
    /// `name` from a binary `Stat`, after SASL PLAIN.
    fn binary_stat(&self, sasl: Option<&Sasl>, name: &str) -> u64 {
        let mut s = self.connect();
        if let Some(sasl) = sasl {
            let data = format!("\0{}\0{}", sasl.user, sasl.password);
            s.write_all(&binary_request(0x21, b"PLAIN", data.as_bytes()))
                .unwrap();
            assert_eq!(
                binary_response(&mut s).0,
                0,
                "SASL refused the test's password"
            );
        }
        s.write_all(&binary_request(0x10, b"", b"")).unwrap();
        let mut found = None;
        loop {
            let (status, key, value) = binary_response(&mut s);
            assert_eq!(status, 0);
            if key.is_empty() {
                break;
            }
            if key == name.as_bytes() {
                found = Some(String::from_utf8(value).unwrap());
            }
        }
        found
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

/// How a [`LyingText`] server answers `get KEY`.
#[derive(Clone, Copy)]
pub enum Lie {
    /// `VALUE KEY-other 0 5` and 5 bytes: a block for a key nobody asked for.
    OtherKey,
    /// `VALUE KEY 0 10`, 5 bytes, then `END`: a block shorter than it says.
    Short,
}

/// A memcached text stand-in that lies to every `get` as its [`Lie`] says,
/// stores every `set` (`STORED`) and answers anything else with `END`, as a
/// server with no stats would; it counts the gets it answered.
pub struct LyingText {
    pub port: u16,
    pub gets: std::sync::Arc<std::sync::atomic::AtomicU64>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    _share: machine::Share,
}

impl LyingText {
    pub fn start(lie: Lie) -> LyingText {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        let listener = listen();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (gets, stop) = (
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (g, s) = (Arc::clone(&gets), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let g = Arc::clone(&g);
                        std::thread::spawn(move || lie_to(stream, lie, &g));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        LyingText {
            port,
            gets,
            stop,
            _share: machine::share(),
        }
    }
}

impl Drop for LyingText {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

fn lie_to(stream: TcpStream, lie: Lie, gets: &std::sync::atomic::AtomicU64) {
    use std::io::{BufRead, BufReader};
    stream.set_nonblocking(false).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let mut lines = BufReader::new(stream);
    let mut line = String::new();
    while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let reply = match words.as_slice() {
            ["get", key] => {
                gets.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                match lie {
                    Lie::OtherKey => format!("VALUE {key}-other 0 5\r\nabcde\r\nEND\r\n"),
                    Lie::Short => format!("VALUE {key} 0 10\r\nabcde\r\nEND\r\n"),
                }
            }
            ["set", _, _, _, len] => {
                let mut data = vec![0u8; len.parse::<usize>().unwrap_or(0) + 2];
                if lines.read_exact(&mut data).is_err() {
                    return;
                }
                "STORED\r\n".to_string()
            }
            _ => "END\r\n".to_string(),
        };
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
        line.clear();
    }
}
