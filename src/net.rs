//! Opening a connection and preparing it for the benchmark: connect, AUTH, SELECT,
//! PING, then hand a non-blocking stream to the event loop.
//!
//! All of this is blocking and happens before any clock starts, so a slow
//! handshake never shows up as request latency. The preflight in [`crate::run`]
//! uses the same code once, so an unreachable server or a wrong password is
//! reported as a usage error before any thread starts.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use mio::event::Source;
use mio::{Interest, Registry, Token};

use crate::protocol::resp::{self, Reply};
use crate::target::{AddressFamily, Endpoint, Target};

/// Why a connection could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The name did not resolve to a usable address.
    #[error("cannot resolve {0}")]
    Resolve(String),
    /// connect() or the handshake's I/O failed.
    #[error("cannot connect to {endpoint}: {source}")]
    Io {
        /// Where we tried to connect.
        endpoint: String,
        /// What the OS said.
        source: io::Error,
    },
    /// The server refused the credentials.
    #[error("authentication failed: {0}")]
    Auth(String),
    /// The server wants credentials and none were given.
    #[error("the server requires a password: {0}")]
    AuthRequired(String),
    /// SELECT failed.
    #[error("SELECT failed: {0}")]
    Select(String),
    /// Any other error reply during the handshake (e.g. max clients reached).
    #[error("the server refused the connection: {0}")]
    Refused(String),
    /// The server sent something that is not RESP.
    #[error("the server's handshake reply is not RESP: {0}")]
    Protocol(String),
}

/// A connected, non-blocking stream, TCP or UNIX.
#[derive(Debug)]
pub enum Stream {
    /// TCP with Nagle disabled.
    Tcp(mio::net::TcpStream),
    /// UNIX domain socket.
    Unix(mio::net::UnixStream),
}

impl Stream {
    /// Shuts both directions; errors are irrelevant because the stream is abandoned.
    pub fn shutdown(&self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Both),
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Source for Stream {
    fn register(
        &mut self,
        registry: &Registry,
        token: Token,
        interests: Interest,
    ) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.register(registry, token, interests),
            Stream::Unix(s) => s.register(registry, token, interests),
        }
    }

    fn reregister(
        &mut self,
        registry: &Registry,
        token: Token,
        interests: Interest,
    ) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.reregister(registry, token, interests),
            Stream::Unix(s) => s.reregister(registry, token, interests),
        }
    }

    fn deregister(&mut self, registry: &Registry) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.deregister(registry),
            Stream::Unix(s) => s.deregister(registry),
        }
    }
}

/// Resolves the endpoint's host to one socket address of the wanted family.
pub fn resolve(host: &str, port: u16, family: AddressFamily) -> Result<SocketAddr, ConnectError> {
    let addrs = (host, port)
        .to_socket_addrs()
        .map_err(|e| ConnectError::Resolve(format!("{host}:{port} ({e})")))?;
    let mut addrs = addrs;
    addrs
        .find(|a| match family {
            AddressFamily::Any => true,
            AddressFamily::V4 => a.is_ipv4(),
            AddressFamily::V6 => a.is_ipv6(),
        })
        .ok_or_else(|| {
            ConnectError::Resolve(format!(
                "{host}:{port} (no address of the requested family)"
            ))
        })
}

/// Connects, runs the handshake, and returns a non-blocking stream.
pub fn connect(target: &Target) -> Result<Stream, ConnectError> {
    let io_err = |source| ConnectError::Io {
        endpoint: target.endpoint.to_string(),
        source,
    };
    match connect_blocking(target)? {
        BlockingStream::Tcp(s) => {
            s.set_nonblocking(true).map_err(io_err)?;
            Ok(Stream::Tcp(mio::net::TcpStream::from_std(s)))
        }
        BlockingStream::Unix(s) => {
            s.set_nonblocking(true).map_err(io_err)?;
            Ok(Stream::Unix(mio::net::UnixStream::from_std(s)))
        }
    }
}

/// A prepared, blocking connection, for the control connection that reads server
/// evidence; its reads and writes time out after `--connection-timeout`.
#[derive(Debug)]
pub enum BlockingStream {
    /// TCP.
    Tcp(TcpStream),
    /// UNIX domain socket.
    Unix(UnixStream),
}

impl Read for BlockingStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            BlockingStream::Tcp(s) => s.read(buf),
            BlockingStream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for BlockingStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            BlockingStream::Tcp(s) => s.write(buf),
            BlockingStream::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Connects and runs the handshake, leaving the stream blocking with read and
/// write timeouts of `--connection-timeout`.
pub fn connect_blocking(target: &Target) -> Result<BlockingStream, ConnectError> {
    let deadline = Instant::now() + target.connect_timeout;
    let io_err = |source| ConnectError::Io {
        endpoint: target.endpoint.to_string(),
        source,
    };
    let mut stream = match &target.endpoint {
        Endpoint::Tcp { host, port, family } => {
            let addr = resolve(host, *port, *family)?;
            let s = TcpStream::connect_timeout(&addr, target.connect_timeout).map_err(io_err)?;
            s.set_nodelay(true).map_err(io_err)?;
            s.set_read_timeout(Some(remaining(deadline)))
                .map_err(io_err)?;
            s.set_write_timeout(Some(remaining(deadline)))
                .map_err(io_err)?;
            BlockingStream::Tcp(s)
        }
        Endpoint::Unix(path) => {
            let s = UnixStream::connect(path).map_err(io_err)?;
            s.set_read_timeout(Some(remaining(deadline)))
                .map_err(io_err)?;
            s.set_write_timeout(Some(remaining(deadline)))
                .map_err(io_err)?;
            BlockingStream::Unix(s)
        }
    };
    handshake(&mut stream, target).map_err(|e| with_endpoint(e, target))?;
    let timeout = Some(target.connect_timeout);
    let set = match &stream {
        BlockingStream::Tcp(s) => s
            .set_read_timeout(timeout)
            .and_then(|()| s.set_write_timeout(timeout)),
        BlockingStream::Unix(s) => s
            .set_read_timeout(timeout)
            .and_then(|()| s.set_write_timeout(timeout)),
    };
    set.map_err(io_err)?;
    Ok(stream)
}

fn remaining(deadline: Instant) -> Duration {
    // A zero timeout means "block forever" to the OS, so never pass one.
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

fn with_endpoint(e: ConnectError, target: &Target) -> ConnectError {
    match e {
        ConnectError::Io { source, .. } => ConnectError::Io {
            endpoint: target.endpoint.to_string(),
            source,
        },
        other => other,
    }
}

/// Which handshake step a reply answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    Auth,
    Select,
    Ping,
}

/// Sends AUTH / SELECT / PING in one write and checks each reply in order.
fn handshake<S: Read + Write>(stream: &mut S, target: &Target) -> Result<(), ConnectError> {
    let mut out = Vec::new();
    let mut steps = Vec::new();
    if let Some(auth) = &target.auth {
        let mut args: Vec<&[u8]> = vec![b"AUTH"];
        if let Some(user) = &auth.user {
            args.push(user.as_bytes());
        }
        args.push(auth.password.as_bytes());
        resp::encode_command(&mut out, &args);
        steps.push(Step::Auth);
    }
    let db = target.db.to_string();
    if target.db != 0 {
        resp::encode_command(&mut out, &[b"SELECT", db.as_bytes()]);
        steps.push(Step::Select);
    }
    resp::encode_command(&mut out, &[b"PING"]);
    steps.push(Step::Ping);
    let io_err = |source| ConnectError::Io {
        endpoint: String::new(),
        source,
    };
    stream.write_all(&out).map_err(io_err)?;
    let mut buf = Vec::with_capacity(512);
    let mut start = 0;
    for step in steps {
        let message = loop {
            match resp::decode(&buf[start..]) {
                Ok(Some((reply, used))) => {
                    let error = match reply {
                        Reply::Error(msg) => Some(String::from_utf8_lossy(msg).into_owned()),
                        _ => None,
                    };
                    start += used;
                    break error;
                }
                Ok(None) => read_more(stream, &mut buf).map_err(io_err)?,
                Err(e) => return Err(ConnectError::Protocol(e.to_string())),
            }
        };
        if let Some(message) = message {
            return Err(match step {
                Step::Auth => ConnectError::Auth(message),
                Step::Select => ConnectError::Select(message),
                Step::Ping if message.starts_with("NOAUTH") => ConnectError::AuthRequired(message),
                Step::Ping => ConnectError::Refused(message),
            });
        }
    }
    Ok(())
}

fn read_more<S: Read>(stream: &mut S, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 512];
    let n = stream.read(&mut chunk)?;
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Auth;
    use std::io::Cursor;

    /// A scripted peer: reads go to `replies`, writes are kept.
    struct Scripted {
        replies: Cursor<Vec<u8>>,
        written: Vec<u8>,
    }

    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.replies.read(buf)
        }
    }

    impl Write for Scripted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn target(auth: Option<&str>, db: u32) -> Target {
        Target {
            endpoint: Endpoint::Unix("/nonexistent".into()),
            auth: auth.and_then(Auth::parse),
            db,
            connect_timeout: Duration::from_secs(1),
        }
    }

    fn run(replies: &[u8], t: &Target) -> (Result<(), ConnectError>, Vec<u8>) {
        let mut s = Scripted {
            replies: Cursor::new(replies.to_vec()),
            written: Vec::new(),
        };
        let r = handshake(&mut s, t);
        (r, s.written)
    }

    #[test]
    fn handshake_sends_auth_select_ping_in_order() {
        let (r, written) = run(b"+OK\r\n+OK\r\n+PONG\r\n", &target(Some("u:pw"), 3));
        assert!(r.is_ok());
        let text = String::from_utf8(written).unwrap();
        let auth = text.find("AUTH").unwrap();
        let select = text.find("SELECT").unwrap();
        let ping = text.find("PING").unwrap();
        assert!(auth < select && select < ping);
    }

    #[test]
    fn wrong_password_is_an_auth_error() {
        let (r, _) = run(
            b"-WRONGPASS invalid username-password pair\r\n+PONG\r\n",
            &target(Some("pw"), 0),
        );
        assert!(matches!(r, Err(ConnectError::Auth(m)) if m.starts_with("WRONGPASS")));
    }

    #[test]
    fn missing_password_is_reported_as_required() {
        let (r, _) = run(b"-NOAUTH Authentication required.\r\n", &target(None, 0));
        assert!(matches!(r, Err(ConnectError::AuthRequired(_))));
    }

    #[test]
    fn bad_select_is_a_select_error() {
        let (r, _) = run(
            b"-ERR DB index is out of range\r\n+PONG\r\n",
            &target(None, 99),
        );
        assert!(matches!(r, Err(ConnectError::Select(_))));
    }

    #[test]
    fn a_peer_that_hangs_up_is_an_io_error() {
        let (r, _) = run(b"", &target(None, 0));
        assert!(matches!(r, Err(ConnectError::Io { .. })));
    }
}
