//! Opening a connection and preparing it for the benchmark: connect, the TLS
//! handshake with `--tls`, the protocol's handshake (its bytes and checks are
//! [`crate::protocol::handshake`]'s), then hand a non-blocking stream to the
//! event loop.
//!
//! All of this is blocking and happens before any clock starts, so a slow
//! handshake never shows up as request latency. The preflight in [`crate::engine::master::run`]
//! uses the same code once, so an unreachable server or a wrong password is
//! reported as a usage error before any thread starts.

mod handshake;
mod ring_socket;
mod tls_failure;
pub mod tls_session;
mod tls_stream;
#[cfg(test)]
mod tls_tests;

use handshake::handshake;
pub use handshake::handshake_for;
pub use ring_socket::{RingEnd, RingInner, RingSocket};
pub use tls_stream::TlsStream;

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use mio::event::Source;
use mio::{Interest, Registry, Token};
use rustls::{ClientConnection, StreamOwned};

use crate::config::target::{AddressFamily, Endpoint, Target};
use crate::error::ConnectError;

/// An I/O failure of the connect or its handshake, as a [`ConnectError`]: a
/// timeout becomes [`ConnectError::TimedOut`], so the message names the flag.
fn io_failure(target: &Target, source: io::Error) -> ConnectError {
    let endpoint = target.endpoint.to_string();
    if let Some(tls) = &target.tls {
        if let Some(e) = tls_failure::rustls_error(&source) {
            return ConnectError::Tls {
                endpoint,
                failure: tls_failure::explain(e, tls),
            };
        }
        if let Some(failure) = tls_failure::closed(&source) {
            return ConnectError::Tls { endpoint, failure };
        }
    }
    match source.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ConnectError::TimedOut {
            endpoint,
            secs: target.connect_timeout.as_secs_f64(),
        },
        _ => ConnectError::Io { endpoint, source },
    }
}

/// `Read` and `Write` for an enum of a TCP, a UNIX and a TLS stream, by
/// delegation (the non-blocking [`Stream`] and the [`BlockingStream`] alike).
/// Plain writes go straight to the socket, so only TLS has anything to flush.
macro_rules! delegate_read_write {
    ($stream:ident $(, $extra:ident)*) => {
        impl Read for $stream {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self {
                    $stream::Tcp(s) => s.read(buf),
                    $stream::Unix(s) => s.read(buf),
                    $stream::Tls(s) => s.read(buf),
                    $($stream::$extra(s) => s.read(buf),)*
                }
            }
        }

        impl Write for $stream {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                match self {
                    $stream::Tcp(s) => s.write(buf),
                    $stream::Unix(s) => s.write(buf),
                    $stream::Tls(s) => s.write(buf),
                    $($stream::$extra(s) => s.write(buf),)*
                }
            }

            fn flush(&mut self) -> io::Result<()> {
                match self {
                    $stream::Tcp(_) | $stream::Unix(_) => Ok(()),
                    $stream::Tls(s) => s.flush(),
                    $($stream::$extra(s) => s.flush(),)*
                }
            }
        }
    };
}

delegate_read_write!(Stream, Ring);
delegate_read_write!(BlockingStream);

/// A connected, non-blocking stream: TCP, UNIX, or TLS over TCP.
#[derive(Debug)]
pub enum Stream {
    /// TCP with Nagle disabled.
    Tcp(mio::net::TcpStream),
    /// UNIX domain socket.
    Unix(mio::net::UnixStream),
    /// `--tls`: a rustls session over TCP with Nagle disabled (boxed: the
    /// session is large, and plain connections should not pay for it).
    Tls(Box<TlsStream>),
    /// `--io-engine uring`: TCP or UNIX, its I/O done by the worker's ring.
    Ring(Box<RingSocket>),
}

impl Stream {
    /// The same socket for the ring (`--io-engine uring`): a plain stream
    /// becomes a [`RingSocket`]; TLS, which the ring does not carry
    /// (validation refuses it), and a ring socket stay as they are.
    pub fn into_ring(self) -> Stream {
        match self {
            Stream::Tcp(s) => Stream::Ring(Box::new(RingSocket::new(RingInner::Tcp(s)))),
            Stream::Unix(s) => Stream::Ring(Box::new(RingSocket::new(RingInner::Unix(s)))),
            other => other,
        }
    }

    /// Starts a non-blocking connection, for reconnecting during a run; the
    /// socket becomes writable when the connect completes (or fails), and
    /// [`Stream::connect_outcome`] tells which. TCP needs the resolved address.
    /// With `--tls` the ClientHello is queued and goes out with the first write.
    pub fn start_connect(target: &Target, tcp_addr: Option<SocketAddr>) -> io::Result<Stream> {
        match &target.endpoint {
            Endpoint::Tcp { .. } => {
                let addr = tcp_addr.ok_or_else(|| {
                    io::Error::new(io::ErrorKind::AddrNotAvailable, "no resolved address")
                })?;
                let s = mio::net::TcpStream::connect(addr)?;
                s.set_nodelay(true)?;
                match &target.tls {
                    Some(tls) => {
                        let session = tls.connection().map_err(io::Error::other)?;
                        Ok(Stream::Tls(Box::new(TlsStream::new(session, s))))
                    }
                    None => Ok(Stream::Tcp(s)),
                }
            }
            Endpoint::Unix(path) => Ok(Stream::Unix(mio::net::UnixStream::connect(path)?)),
        }
    }

    /// After a writable event on a connecting socket: `Ok(true)` connected,
    /// `Ok(false)` still in progress, `Err` the connect failed (mio's documented
    /// steps: `take_error`, then `peer_addr`).
    pub fn connect_outcome(&self) -> io::Result<bool> {
        let (error, peer) = match self {
            Stream::Tcp(s) => (s.take_error()?, s.peer_addr().map(|_| ())),
            Stream::Unix(s) => (s.take_error()?, s.peer_addr().map(|_| ())),
            Stream::Tls(s) => (s.socket().take_error()?, s.socket().peer_addr().map(|_| ())),
            Stream::Ring(s) => match s.inner() {
                RingInner::Tcp(s) => (s.take_error()?, s.peer_addr().map(|_| ())),
                RingInner::Unix(s) => (s.take_error()?, s.peer_addr().map(|_| ())),
            },
        };
        if let Some(e) = error {
            return Err(e);
        }
        match peer {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Shuts both directions; errors are irrelevant because the stream is abandoned.
    pub fn shutdown(&mut self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Both),
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Both),
            Stream::Tls(s) => {
                s.shutdown();
                Ok(())
            }
            Stream::Ring(s) => {
                s.shutdown();
                Ok(())
            }
        };
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
            Stream::Tls(s) => s.socket_mut().register(registry, token, interests),
            // The ring's sockets are never registered with epoll.
            Stream::Ring(_) => Err(io::ErrorKind::Unsupported.into()),
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
            Stream::Tls(s) => s.socket_mut().reregister(registry, token, interests),
            // The ring's sockets are never registered with epoll.
            Stream::Ring(_) => Err(io::ErrorKind::Unsupported.into()),
        }
    }

    fn deregister(&mut self, registry: &Registry) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.deregister(registry),
            Stream::Unix(s) => s.deregister(registry),
            Stream::Tls(s) => s.socket_mut().deregister(registry),
            // The ring's sockets are never registered with epoll.
            Stream::Ring(_) => Err(io::ErrorKind::Unsupported.into()),
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
/// The second value is true when the server sent bytes nobody asked for along
/// with the handshake replies.
pub fn connect(target: &Target) -> Result<(Stream, bool), ConnectError> {
    let io_err = |source| ConnectError::Io {
        endpoint: target.endpoint.to_string(),
        source,
    };
    let (stream, unsolicited) = connect_blocking(target)?;
    let stream = match stream {
        BlockingStream::Tcp(s) => {
            s.set_nonblocking(true).map_err(io_err)?;
            Stream::Tcp(mio::net::TcpStream::from_std(s))
        }
        BlockingStream::Unix(s) => {
            s.set_nonblocking(true).map_err(io_err)?;
            Stream::Unix(mio::net::UnixStream::from_std(s))
        }
        BlockingStream::Tls(s) => {
            // The session moves on with its socket: keys, sequence numbers and
            // anything already decrypted stay with it.
            let (session, socket) = (*s).into_parts();
            socket.set_nonblocking(true).map_err(io_err)?;
            let socket = mio::net::TcpStream::from_std(socket);
            Stream::Tls(Box::new(TlsStream::new(session, socket)))
        }
    };
    Ok((stream, unsolicited))
}

/// A prepared, blocking connection, for the control connection that reads server
/// evidence; its reads and writes time out after `--connection-timeout`.
#[derive(Debug)]
pub enum BlockingStream {
    /// TCP.
    Tcp(TcpStream),
    /// UNIX domain socket.
    Unix(UnixStream),
    /// `--tls`: a rustls session over TCP, its handshake complete.
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl BlockingStream {
    /// Sets how long one read may wait (never zero: that is "for ever").
    pub fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        let timeout = Some(timeout.max(Duration::from_millis(1)));
        match self {
            BlockingStream::Tcp(s) => s.set_read_timeout(timeout),
            BlockingStream::Unix(s) => s.set_read_timeout(timeout),
            BlockingStream::Tls(s) => s.get_ref().set_read_timeout(timeout),
        }
    }
}

/// Connects and runs the handshake, leaving the stream blocking with read and
/// write timeouts of `--connection-timeout`; the flag is [`connect`]'s.
pub fn connect_blocking(target: &Target) -> Result<(BlockingStream, bool), ConnectError> {
    let deadline = Instant::now() + target.connect_timeout;
    let io_err = |source| io_failure(target, source);
    let mut stream = match &target.endpoint {
        Endpoint::Tcp { host, port, family } => {
            let addr = resolve(host, *port, *family)?;
            let s = TcpStream::connect_timeout(&addr, target.connect_timeout).map_err(io_err)?;
            s.set_nodelay(true).map_err(io_err)?;
            s.set_read_timeout(Some(remaining(deadline)))
                .map_err(io_err)?;
            s.set_write_timeout(Some(remaining(deadline)))
                .map_err(io_err)?;
            match &target.tls {
                Some(tls) => BlockingStream::Tls(Box::new(tls_stream::handshake(tls, s, target)?)),
                None => BlockingStream::Tcp(s),
            }
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
    let unsolicited = handshake(&mut stream, target).map_err(|e| with_endpoint(e, target))?;
    let timeout = Some(target.connect_timeout);
    let set = match &stream {
        BlockingStream::Tcp(s) => s
            .set_read_timeout(timeout)
            .and_then(|()| s.set_write_timeout(timeout)),
        BlockingStream::Unix(s) => s
            .set_read_timeout(timeout)
            .and_then(|()| s.set_write_timeout(timeout)),
        BlockingStream::Tls(s) => s
            .get_ref()
            .set_read_timeout(timeout)
            .and_then(|()| s.get_ref().set_write_timeout(timeout)),
    };
    set.map_err(io_err)?;
    Ok((stream, unsolicited))
}

fn remaining(deadline: Instant) -> Duration {
    // A zero timeout means "block forever" to the OS, so never pass one.
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

fn with_endpoint(e: ConnectError, target: &Target) -> ConnectError {
    match e {
        ConnectError::Io { source, .. } => io_failure(target, source),
        other => other,
    }
}
