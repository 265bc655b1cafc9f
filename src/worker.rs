//! One worker thread: a mio `Poll`, its connections, its value bytes and its stats.
//!
//! [`WorkerBuilder::build`] does every fallible step (connect, handshake, register)
//! before any clock starts, so [`Worker::run`] cannot fail half-way. The worker
//! then waits for phase commands from the master, drives its connections until the
//! phase ends, and reports its stats once per second of the phase. The event loop
//! only dispatches: reads, writes and refills live in [`crate::conn`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use mio::{Events, Interest, Poll, Token};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::config::{Config, Stop};
use crate::conn::Conn;
use crate::net;
use crate::request::{RequestSource, derive_seed};
use crate::stats::Stats;
use crate::workload::values::ValuePool;

/// How long requests still in flight at a phase's deadline are awaited before
/// their connection is given up.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// What the master asks of a worker.
#[derive(Debug, Clone, Copy)]
pub enum Command {
    /// Run a phase: `index` is 0 for the warm-up and n for run n.
    Phase {
        /// Phase number, used to derive fresh seeds.
        index: u32,
        /// How the phase ends.
        stop: Stop,
        /// Common start instant of all threads, so per-second bins line up.
        started_at: Instant,
    },
    /// Close everything and end the thread.
    Exit,
}

/// What a worker tells the master.
#[derive(Debug)]
pub enum Report {
    /// All connections are ready.
    Ready {
        /// Worker index.
        thread: usize,
    },
    /// Setup failed; the run cannot start.
    SetupFailed {
        /// Worker index.
        thread: usize,
        /// What went wrong.
        error: net::ConnectError,
    },
    /// The stats of one second of the current phase (`last` for the final,
    /// possibly partial, second).
    Second {
        /// Worker index.
        thread: usize,
        /// Seconds since the phase started.
        second: u64,
        /// What happened in that second.
        stats: Box<Stats>,
        /// This worker finished the phase with this report.
        last: bool,
        /// When this worker finished the phase, for `last` reports.
        finished_at: Instant,
        /// Connections still open.
        open_connections: usize,
    },
}

/// Everything a worker needs, gathered on the master thread.
pub struct WorkerBuilder {
    /// Worker index, 0-based.
    pub thread: usize,
    /// The validated configuration.
    pub config: Arc<Config>,
    /// Commands from the master.
    pub commands: Receiver<Command>,
    /// Reports to the master.
    pub reports: Sender<Report>,
}

/// A worker whose connections are all open and prepared.
pub struct Worker {
    thread: usize,
    config: Arc<Config>,
    poll: Poll,
    events: Events,
    conns: Vec<Conn>,
    values: ValuePool,
    stats: Stats,
    commands: Receiver<Command>,
    reports: Sender<Report>,
}

impl WorkerBuilder {
    /// Opens and registers every connection of this thread.
    pub fn build(self) -> Result<Worker, net::ConnectError> {
        let io = |source| net::ConnectError::Io {
            endpoint: "event loop".into(),
            source,
        };
        let config = self.config;
        let poll = Poll::new().map_err(io)?;
        let hint = request_size_hint(&config);
        let mut conns = Vec::with_capacity(config.clients);
        for i in 0..config.clients {
            let mut conn = Conn::new(net::connect(&config.target)?, config.pipeline, hint);
            // Edge-triggered: registered once, never re-registered per request.
            poll.registry()
                .register(
                    conn.stream_mut(),
                    Token(i),
                    Interest::READABLE | Interest::WRITABLE,
                )
                .map_err(io)?;
            conns.push(conn);
        }
        let mut rng =
            SmallRng::seed_from_u64(derive_seed(config.seed, &[self.thread as u64, u64::MAX]));
        let values = ValuePool::new(&config.values, config.random_data, &mut rng);
        let stats = Stats::new().map_err(|e| io(std::io::Error::other(e)))?;
        Ok(Worker {
            thread: self.thread,
            events: Events::with_capacity(config.clients.max(16)),
            poll,
            conns,
            values,
            stats,
            commands: self.commands,
            reports: self.reports,
            config,
        })
    }
}

/// Typical bytes of one request or reply, to size connection buffers.
fn request_size_hint(config: &Config) -> usize {
    config.keys.prefix.len() + config.values.mean_size() as usize + 64
}

impl Worker {
    /// Serves phase commands until told to exit (or the master is gone).
    pub fn run(mut self) {
        let _ = self.reports.send(Report::Ready {
            thread: self.thread,
        });
        while let Ok(Command::Phase {
            index,
            stop,
            started_at,
        }) = self.commands.recv()
        {
            self.start_phase(index, stop);
            self.run_phase(stop, started_at);
        }
    }

    /// Gives every open connection a fresh request source for this phase.
    fn start_phase(&mut self, index: u32, stop: Stop) {
        let slots = self.config.connections() as u64;
        for (i, conn) in self.conns.iter_mut().enumerate() {
            let slot = (self.thread * self.config.clients + i) as u64;
            let seed = derive_seed(
                self.config.seed,
                &[self.thread as u64, i as u64, u64::from(index)],
            );
            // Config validation already accepted these patterns for this range and
            // connection count, so construction cannot fail here.
            conn.source = RequestSource::new(&self.config, stop, slot, slots, seed).ok();
        }
        self.stats.reset();
    }

    fn run_phase(&mut self, stop: Stop, started_at: Instant) {
        let deadline = match stop {
            Stop::Time(d) => Some(started_at + d),
            _ => None,
        };
        let prefix = self.config.keys.prefix.clone().into_bytes();
        let mut second = 0u64;
        let mut next_tick = started_at + Duration::from_secs(1);
        for conn in &mut self.conns {
            conn.refill(true, &self.values, &prefix, &mut self.stats);
        }
        loop {
            let now = Instant::now();
            if now >= next_tick {
                self.report_second(second, false, now);
                second += 1;
                next_tick += Duration::from_secs(1);
                continue;
            }
            let sending = deadline.is_none_or(|d| now < d);
            if self.conns.iter().all(|c| c.is_done(sending)) {
                break;
            }
            if let Some(d) = deadline
                && now >= d + DRAIN_LIMIT
            {
                self.abandon_in_flight();
                break;
            }
            let wake = match deadline {
                Some(d) if sending => next_tick.min(d),
                Some(d) => next_tick.min(d + DRAIN_LIMIT),
                None => next_tick,
            };
            self.poll_once(wake.saturating_duration_since(now), sending, &prefix);
        }
        self.report_second(second, true, Instant::now());
    }

    /// Waits for readiness at most `timeout` and dispatches the events.
    fn poll_once(&mut self, timeout: Duration, sending: bool, prefix: &[u8]) {
        // mio rounds the timeout down to milliseconds; rounding up avoids a
        // busy loop of zero-length polls in the last millisecond before a tick.
        let timeout = timeout.max(Duration::from_millis(1));
        if self.poll.poll(&mut self.events, Some(timeout)).is_err() {
            return;
        }
        for event in self.events.iter() {
            let Some(conn) = self.conns.get_mut(event.token().0) else {
                continue;
            };
            if event.is_writable() {
                conn.on_writable(&mut self.stats);
            }
            if event.is_readable() || event.is_read_closed() || event.is_error() {
                conn.on_readable(&mut self.stats);
                conn.refill(sending, &self.values, prefix, &mut self.stats);
            }
        }
    }

    /// Past the drain limit, requests still unanswered are counted as lost and
    /// their connections closed: a late reply would otherwise be matched to a
    /// request of the next phase.
    fn abandon_in_flight(&mut self) {
        for conn in &mut self.conns {
            if conn.in_flight() > 0 {
                conn.close(crate::conn::CloseReason::Connection, &mut self.stats);
            }
        }
    }

    fn report_second(&mut self, second: u64, last: bool, now: Instant) {
        let stats = Box::new(self.stats.clone());
        self.stats.reset();
        let open_connections = self
            .conns
            .iter()
            .filter(|c| c.state() == crate::conn::ConnState::Ready)
            .count();
        let _ = self.reports.send(Report::Second {
            thread: self.thread,
            second,
            stats,
            last,
            finished_at: now,
            open_connections,
        });
    }
}
