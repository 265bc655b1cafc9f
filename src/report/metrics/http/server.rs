//! The endpoint's event loop: one mio `Poll` on the endpoint's own thread,
//! serving every connection at once, each within the [`Limits`].
//!
//! A connection lives in a slot of a fixed table (its index is its mio
//! token), with the instant it must be gone by. The loop sleeps until a
//! socket is ready or the nearest deadline, advances the ready connections'
//! [`Exchange`]s and closes those past their deadline. Nothing here is
//! shared with the run but the published text, read under its lock.

use std::io;
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

use crate::report::metrics::http::Shared;
use crate::report::metrics::http::exchange::{Exchange, Progress};

/// What one connection may take of the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once; a new one beyond closes the oldest.
    pub max_connections: usize,
    /// The longest request head read; longer gets 431.
    pub max_head_bytes: usize,
    /// From accept to the whole answer written; then the connection is closed.
    pub deadline: Duration,
}

/// The endpoint's limits. A scrape is one request of a few hundred bytes,
/// answered from memory in milliseconds, a few times a minute per scraper:
/// 64 connections leave room for dozens of scrapers at once, 8 KiB is the
/// head limit common servers keep, and 5 s is far longer than a scrape takes
/// even over a slow link, yet short enough that a client which never finishes
/// its request is gone soon.
pub const LIMITS: Limits = Limits {
    max_connections: crate::config::metrics::MAX_METRICS_CONNECTIONS,
    max_head_bytes: 8 * 1024,
    deadline: Duration::from_secs(5),
};

/// The listener's token, at the top of the range, apart from the slots'.
const LISTENER: Token = Token(usize::MAX);

/// How long to wait before accepting again after accept failed (out of file
/// descriptors, most likely: the benchmark's connections come first).
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// One open connection.
#[derive(Debug)]
struct Connection {
    stream: TcpStream,
    exchange: Exchange,
    /// When it is closed, done or not.
    deadline: Instant,
    /// The order of accepts, to find the oldest.
    serial: u64,
}

/// The endpoint, set up and ready to run.
#[derive(Debug)]
pub struct Server {
    poll: Poll,
    listener: TcpListener,
    slots: Vec<Option<Connection>>,
    published: Shared,
    limits: Limits,
    accepted: u64,
    accept_again_at: Option<Instant>,
}

impl Server {
    /// Sets everything up, so that [`Server::run`] has nothing left that
    /// could fail: a failure here is reported before the run starts.
    pub fn new(
        listener: std::net::TcpListener,
        published: Shared,
        limits: Limits,
    ) -> io::Result<Server> {
        listener.set_nonblocking(true)?;
        let mut listener = TcpListener::from_std(listener);
        let poll = Poll::new()?;
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        Ok(Server {
            poll,
            listener,
            slots: (0..limits.max_connections.max(1)).map(|_| None).collect(),
            published,
            limits,
            accepted: 0,
            accept_again_at: None,
        })
    }

    /// Serves until the process ends.
    pub fn run(mut self) {
        let mut events = Events::with_capacity(128);
        loop {
            let timeout = self
                .next_wakeup()
                .map(|at| at.saturating_duration_since(Instant::now()));
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                // A signal; anything else would repeat, so wait a little
                // rather than spin.
                if e.kind() != io::ErrorKind::Interrupted {
                    std::thread::sleep(ACCEPT_RETRY);
                }
                continue;
            }
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.accept_all(),
                    Token(slot) => self.advance(slot),
                }
            }
            let now = Instant::now();
            if self.accept_again_at.is_some_and(|at| at <= now) {
                self.accept_again_at = None;
                self.accept_all();
            }
            self.close_expired(now);
        }
    }

    /// The nearest deadline, or the next accept to try.
    fn next_wakeup(&self) -> Option<Instant> {
        self.slots
            .iter()
            .flatten()
            .map(|c| c.deadline)
            .chain(self.accept_again_at)
            .min()
    }

    /// Accepts every connection waiting: the listener reports readiness
    /// once per change, so one left in the queue would wait for the next.
    fn accept_all(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => self.admit(stream),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                // The client gave up between its connect and the accept.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
                    ) => {}
                Err(_) => {
                    self.accept_again_at = Some(Instant::now() + ACCEPT_RETRY);
                    return;
                }
            }
        }
    }

    /// Gives a new connection a slot, and reads its request if it is there.
    fn admit(&mut self, mut stream: TcpStream) {
        let slot = match self.slots.iter().position(Option::is_none) {
            Some(free) => free,
            None => {
                let oldest = self.oldest();
                self.close(oldest);
                oldest
            }
        };
        let registered = self.poll.registry().register(
            &mut stream,
            Token(slot),
            Interest::READABLE | Interest::WRITABLE,
        );
        if registered.is_err() {
            return;
        }
        self.accepted += 1;
        self.slots[slot] = Some(Connection {
            stream,
            exchange: Exchange::new(self.limits.max_head_bytes),
            deadline: Instant::now() + self.limits.deadline,
            serial: self.accepted,
        });
        // A scraper's request usually arrives with its connection: answering
        // it now means that a burst of connections accepted after it cannot
        // push it out of the table before it was served.
        self.advance(slot);
    }

    /// The slot to free for a new connection when all are taken: the oldest
    /// one still waiting for its request head (an idle or slow client is
    /// most likely what fills the table), else the oldest of all.
    ///
    /// So a flood of idle connections cannot lock a scraper out: each new
    /// one pushes out an older one, and a scraper, which sends its request
    /// as soon as it is connected, is answered long before the table has
    /// turned over.
    fn oldest(&self) -> usize {
        let by_age = |reading: bool| {
            self.slots
                .iter()
                .enumerate()
                .filter_map(|(i, c)| c.as_ref().map(|c| (i, c)))
                .filter(|(_, c)| !reading || c.exchange.is_reading())
                .min_by_key(|(_, c)| c.serial)
                .map(|(i, _)| i)
        };
        by_age(true).or_else(|| by_age(false)).unwrap_or_default()
    }

    fn advance(&mut self, slot: usize) {
        let Some(Some(c)) = self.slots.get_mut(slot) else {
            // An event for a connection closed earlier in the same batch.
            return;
        };
        if c.exchange.advance(&mut c.stream, &self.published) == Progress::Done {
            self.close(slot);
        }
    }

    fn close(&mut self, slot: usize) {
        if let Some(mut c) = self.slots.get_mut(slot).and_then(Option::take) {
            // Closing the socket (the drop) ends it either way.
            let _ = self.poll.registry().deregister(&mut c.stream);
        }
    }

    /// Closes every connection past its deadline, whatever it was doing.
    fn close_expired(&mut self, now: Instant) {
        for slot in 0..self.slots.len() {
            if self.slots[slot].as_ref().is_some_and(|c| c.deadline <= now) {
                self.close(slot);
            }
        }
    }
}
