//! A socket driven by an io_uring ring (`--io-engine uring`): the
//! connection reads and writes it as it would a non-blocking socket, but
//! what it reads is what the ring already received, and what it writes waits
//! here until the ring takes it at the worker's next submission. The ring
//! itself, its buffers and its completions are
//! [`crate::engine::worker::reactor::uring`]'s; this holds only one socket's share.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

use crate::engine::worker::conn::WRITE_BUDGET;

/// The socket under the ring: TCP or a UNIX stream (TLS is not carried).
#[derive(Debug)]
pub enum RingInner {
    /// TCP with Nagle disabled.
    Tcp(mio::net::TcpStream),
    /// UNIX domain socket.
    Unix(mio::net::UnixStream),
}

/// How the receiving side ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingEnd {
    /// The peer closed its side: reads return 0.
    Eof,
    /// A receive or send failed: reads and writes fail.
    Failed,
}

/// One connection's socket, its received bytes not yet read and its
/// written bytes not yet taken by the ring.
#[derive(Debug)]
pub struct RingSocket {
    inner: RingInner,
    rx: Vec<u8>,
    rx_pos: usize,
    end: Option<RingEnd>,
    tx: Vec<u8>,
    /// True until the ring has seen this socket: its operations on an
    /// earlier socket of the same connection are then stale.
    pub fresh: bool,
}

impl RingSocket {
    /// Wraps a connected (or connecting) non-blocking socket.
    pub fn new(inner: RingInner) -> RingSocket {
        RingSocket {
            inner,
            rx: Vec::new(),
            rx_pos: 0,
            end: None,
            tx: Vec::new(),
            fresh: true,
        }
    }

    /// The socket under the ring.
    pub fn inner(&self) -> &RingInner {
        &self.inner
    }

    /// Its descriptor, for the ring's operations.
    pub fn fd(&self) -> RawFd {
        match &self.inner {
            RingInner::Tcp(s) => s.as_raw_fd(),
            RingInner::Unix(s) => s.as_raw_fd(),
        }
    }

    /// Bytes the ring received, for the connection's next read.
    pub fn deliver(&mut self, bytes: &[u8]) {
        self.rx.extend_from_slice(bytes);
    }

    /// The receiving side ended (the first end is kept).
    pub fn end(&mut self, end: RingEnd) {
        self.end.get_or_insert(end);
    }

    /// How the receiving side ended, if it has.
    pub fn ended(&self) -> Option<RingEnd> {
        self.end
    }

    /// True when written bytes wait for the ring.
    pub fn has_tx(&self) -> bool {
        !self.tx.is_empty()
    }

    /// Hands the written bytes to the ring in `out` (empty), taking its
    /// memory back for the next writes.
    pub fn take_tx(&mut self, out: &mut Vec<u8>) {
        std::mem::swap(&mut self.tx, out);
    }

    /// Shuts both directions, which ends the ring's receive on it.
    pub fn shutdown(&mut self) {
        let _ = match &self.inner {
            RingInner::Tcp(s) => s.shutdown(std::net::Shutdown::Both),
            RingInner::Unix(s) => s.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl Read for RingSocket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.rx_pos < self.rx.len() {
            let n = buf.len().min(self.rx.len() - self.rx_pos);
            buf[..n].copy_from_slice(&self.rx[self.rx_pos..self.rx_pos + n]);
            self.rx_pos += n;
            if self.rx_pos == self.rx.len() {
                self.rx.clear();
                self.rx_pos = 0;
            }
            return Ok(n);
        }
        match self.end {
            Some(RingEnd::Eof) => Ok(0),
            Some(RingEnd::Failed) => Err(io::ErrorKind::ConnectionReset.into()),
            None => Err(io::ErrorKind::WouldBlock.into()),
        }
    }
}

impl Write for RingSocket {
    /// Takes up to the write budget; past it the connection waits for the
    /// ring to take what is here, as it would for a full socket.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.end == Some(RingEnd::Failed) {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        let room = WRITE_BUDGET.saturating_sub(self.tx.len());
        if room == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = buf.len().min(room);
        self.tx.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn socket() -> RingSocket {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        RingSocket::new(RingInner::Tcp(mio::net::TcpStream::connect(addr).unwrap()))
    }

    #[test]
    fn reads_what_was_delivered_then_would_block_then_ends() {
        let mut s = socket();
        let mut buf = [0u8; 4];
        let e = s.read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        s.deliver(b"+OK\r\n");
        assert_eq!(s.read(&mut buf).unwrap(), 4);
        assert_eq!(&buf, b"+OK\r");
        assert_eq!(s.read(&mut buf).unwrap(), 1);
        assert_eq!(buf[0], b'\n');
        s.end(RingEnd::Eof);
        s.end(RingEnd::Failed);
        assert_eq!(s.read(&mut buf).unwrap(), 0, "the first end is kept");
    }

    #[test]
    fn writes_wait_up_to_the_budget_and_go_to_the_ring_in_one_piece() {
        let mut s = socket();
        let big = vec![7u8; WRITE_BUDGET + 10];
        assert_eq!(s.write(&big).unwrap(), WRITE_BUDGET);
        let e = s.write(b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        let mut out = Vec::new();
        s.take_tx(&mut out);
        assert_eq!(out.len(), WRITE_BUDGET);
        assert!(!s.has_tx());
        assert_eq!(s.write(b"x").unwrap(), 1);
        s.end(RingEnd::Failed);
        assert_eq!(s.write(b"x").unwrap_err().kind(), io::ErrorKind::BrokenPipe);
    }
}
