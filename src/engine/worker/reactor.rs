//! How a worker waits for its sockets (`--io-engine`): [`Epoll`], mio's
//! readiness with a timerfd for sub-millisecond wake-ups, or [`Uring`], an
//! io_uring ring that sends and receives for every connection in one system
//! call per wake-up. Either way the worker gets the same [`Readiness`] list
//! and its connections do the same reads, writes and timing: with the ring a
//! read takes what the ring already received, a write leaves bytes for its
//! next submission ([`crate::engine::worker::net::RingSocket`]).

mod epoll;
pub mod uring;

use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

pub use epoll::Epoll;
pub use uring::{Uring, uring_available};

use crate::config::io_engine::IoEngine;
use crate::config::target::Target;
use crate::engine::worker::conn::Conn;
use crate::engine::worker::net::Stream;

/// What happened to one connection during a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Readiness {
    /// The connection's index in the worker.
    pub index: usize,
    /// Its socket may take bytes, or a connect finished.
    pub writable: bool,
    /// Bytes (or the end) are there to read.
    pub readable: bool,
    /// The peer closed or the socket failed: read to the end.
    pub closed: bool,
}

/// A worker's event loop back end.
pub enum Reactor {
    /// `--io-engine epoll`.
    Epoll(Epoll),
    /// `--io-engine uring`.
    Uring(Box<Uring>),
}

impl Reactor {
    /// The back end `engine` names, for about `connections` connections.
    pub fn new(engine: IoEngine, connections: usize) -> io::Result<Reactor> {
        Ok(match engine {
            IoEngine::Epoll => Reactor::Epoll(Epoll::new(connections)?),
            IoEngine::Uring => Reactor::Uring(Box::new(Uring::new(connections)?)),
        })
    }

    /// What the system call that failed is, for an error message.
    pub fn what(&self) -> &'static str {
        match self {
            Reactor::Epoll(_) => "an event-loop registration (epoll)",
            Reactor::Uring(_) => "the io_uring ring",
        }
    }

    /// Takes a new stream of connection `index`: registered with epoll
    /// (edge-triggered, once for its life), or made a ring socket.
    pub fn attach(&self, stream: Stream, index: usize) -> io::Result<Stream> {
        match self {
            Reactor::Epoll(e) => e.attach(stream, index),
            Reactor::Uring(_) => Ok(stream.into_ring()),
        }
    }

    /// Starts a non-blocking connect to `target` ([`Stream::start_connect`])
    /// for connection `index` and attaches it: every connection opened during
    /// a run comes through here.
    pub fn start_connect(
        &self,
        target: &Target,
        addr: Option<SocketAddr>,
        index: usize,
    ) -> io::Result<Stream> {
        self.attach(Stream::start_connect(target, addr)?, index)
    }

    /// The next wake-up the worker needs apart from its sockets (an
    /// intended send time, a retry, a reconnect), or none.
    pub fn wake_at(&mut self, at: Option<Instant>) {
        match self {
            Reactor::Epoll(e) => e.wake_at(at),
            Reactor::Uring(u) => u.wake_at(at),
        }
    }

    /// Waits at most `timeout` (less when a wake-up is due sooner) and lists
    /// what happened to which connection in `out`.
    pub fn wait(
        &mut self,
        timeout: Duration,
        conns: &mut [Conn],
        out: &mut Vec<Readiness>,
    ) -> io::Result<()> {
        match self {
            Reactor::Epoll(e) => e.wait(timeout, out),
            Reactor::Uring(u) => u.wait(timeout, conns, out),
        }
    }
}
