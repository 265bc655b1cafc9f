//! A TLS session over a non-blocking mio socket, with `Read` and `Write` that
//! behave like the socket's own, so a connection drives it exactly as it drives
//! plain TCP (the shape of rustls's `tlsclient-mio` example, folded into the
//! two calls the connection already makes).
//!
//! Two promises keep the edge-triggered event loop from stalling:
//! - `read` returns fewer bytes than asked only once the socket is drained
//!   (it said "would block", ended, or gave less than rustls asked for), so a
//!   short read still means "drained", as it does for TCP; records rustls has
//!   decrypted are handed out before the socket is read again, so rustls never
//!   holds plaintext the loop does not know about.
//! - Whatever TLS wants to send (the handshake's next flight, encrypted
//!   requests) is written at once from `read`, `write` and `flush`; what the
//!   socket does not take waits in rustls until the next writable edge, when
//!   the connection calls `flush`.
//!
//! The TLS handshake needs no state of its own in the connection: plaintext
//! written while it runs (the AUTH/SELECT/PING of a reconnect) is held by
//! rustls and sent encrypted as soon as the handshake completes.
//!
//! The blocking connections made before the clock (the preflight, each
//! worker's first connections, the control connection) run the handshake to
//! completion first, in [`handshake`], so that a certificate problem is
//! reported as such; their session then moves into a [`TlsStream`].

use std::io::{self, Read, Write};
use std::net::TcpStream;

use rustls::{ClientConnection, StreamOwned};

use crate::config::target::Target;
use crate::config::tls::TlsClient;
use crate::engine::worker::net::io_failure;
use crate::engine::worker::net::tls_failure;
use crate::error::ConnectError;
use crate::error::TlsFailure;

/// A client TLS session and the non-blocking socket it runs on.
#[derive(Debug)]
pub struct TlsStream {
    tls: ClientConnection,
    socket: mio::net::TcpStream,
}

impl TlsStream {
    /// Wraps a session and its socket; the session may still be handshaking.
    pub fn new(tls: ClientConnection, socket: mio::net::TcpStream) -> TlsStream {
        TlsStream { tls, socket }
    }

    /// The socket, for connect outcomes and event registration.
    pub fn socket(&self) -> &mio::net::TcpStream {
        &self.socket
    }

    /// The socket, mutably, for event registration.
    pub fn socket_mut(&mut self) -> &mut mio::net::TcpStream {
        &mut self.socket
    }

    /// Sends close_notify if the socket takes it, then shuts the socket; errors
    /// are irrelevant because the stream is abandoned.
    pub fn shutdown(&mut self) {
        self.tls.send_close_notify();
        let _ = self.write_pending();
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }

    /// Writes the TLS bytes rustls has queued until it has none or the socket
    /// would block (`Err(WouldBlock)`).
    fn write_pending(&mut self) -> io::Result<()> {
        while self.tls.wants_write() {
            match self.tls.write_tls(&mut self.socket) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// [`TlsStream::write_pending`], where a full socket is no error: the rest
    /// goes out on the next writable edge.
    fn write_pending_until_full(&mut self) -> io::Result<()> {
        match self.write_pending() {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            other => other,
        }
    }
}

impl Read for TlsStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut filled = 0;
        // True once a socket read came back short: the kernel's queue is empty.
        let mut drained = false;
        loop {
            // Hand out what rustls has decrypted before reading the socket again.
            while filled < buf.len() {
                match self.tls.reader().read(&mut buf[filled..]) {
                    // The peer's close_notify: the end of the stream, after what is here.
                    Ok(0) => return Ok(filled),
                    Ok(n) => filled += n,
                    // Nothing decrypted is waiting.
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    // Hand out what arrived; the error comes back on the next read.
                    Err(_) if filled > 0 => return Ok(filled),
                    Err(e) => return Err(e),
                }
            }
            if filled == buf.len() {
                return Ok(filled);
            }
            if drained {
                // Reading the socket again would only say "would block": save
                // that system call, as the connection does for plain TCP.
                return match filled {
                    0 => Err(io::ErrorKind::WouldBlock.into()),
                    n => Ok(n),
                };
            }
            let mut socket = DrainProbe {
                socket: &mut self.socket,
                drained: false,
            };
            match self.tls.read_tls(&mut socket) {
                // The socket ended; rustls reports a missing close_notify on the
                // next read, and the connection treats either as a close.
                Ok(0) => return Ok(filled),
                Ok(_) => {
                    drained = socket.drained;
                    let processed = self.tls.process_new_packets();
                    // The handshake's next flight, or the alert for a failure.
                    let written = self.write_pending_until_full();
                    processed.map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                    written?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && filled > 0 => {
                    return Ok(filled);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// The socket as rustls reads it, noting whether a read came back shorter
/// than the space offered: on Linux that means the receive queue is empty,
/// and data arriving later raises a new edge.
struct DrainProbe<'a> {
    socket: &'a mut mio::net::TcpStream,
    drained: bool,
}

impl Read for DrainProbe<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.socket.read(buf)?;
        self.drained = n < buf.len();
        Ok(n)
    }
}

impl Write for TlsStream {
    /// Encrypts what rustls accepts and writes it; when rustls holds as much as
    /// it buffers (the socket is full, or the handshake is not done), the
    /// answer is `WouldBlock`, as a full socket's would be.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.write_pending_until_full()?;
        let accepted = self.tls.writer().write(buf)?;
        self.write_pending_until_full()?;
        if accepted == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        Ok(accepted)
    }

    /// Writes what rustls still holds; `Err(WouldBlock)` when the socket is full.
    fn flush(&mut self) -> io::Result<()> {
        self.write_pending()
    }
}

/// Runs the TLS handshake on a connected, blocking socket (bounded by its
/// timeouts), so that a certificate problem is reported as such before any
/// Redis command is sent.
pub(super) fn handshake(
    tls: &TlsClient,
    mut socket: TcpStream,
    target: &Target,
) -> Result<StreamOwned<ClientConnection, TcpStream>, ConnectError> {
    let mut session = tls.connection().map_err(|e| ConnectError::Tls {
        endpoint: target.endpoint.to_string(),
        failure: tls_failure::explain(&e, tls),
    })?;
    while session.is_handshaking() {
        session.complete_io(&mut socket).map_err(|e| match e.kind() {
            // A plain server waits for a command line that a ClientHello never
            // completes, so a plain port shows up as a timeout here.
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ConnectError::Tls {
                endpoint: target.endpoint.to_string(),
                failure: TlsFailure {
                    flag: "--tls",
                    message: format!(
                        "no TLS handshake within --connection-timeout {} s; is this a TLS port? drop --tls for a plain one, or raise --connection-timeout",
                        target.connect_timeout.as_secs_f64()
                    ),
                },
            },
            _ => io_failure(target, e),
        })?;
    }
    Ok(StreamOwned::new(session, socket))
}
