//! One worker thread: a mio `Poll`, its connections, its value bytes and its stats.
//!
//! [`WorkerBuilder::build`] does every fallible step (connect, handshake, register)
//! before any clock starts, so [`Worker::run`] cannot fail half-way. The worker
//! then waits for phase commands from the master, drives its connections until the
//! phase ends, and reports its stats once per second of the phase. The event loop
//! only dispatches: reads, writes and refills live in [`crate::conn`].
//!
//! With `--rate`, each connection also has a schedule of intended send times. The
//! worker keeps a min-heap of the connections waiting for their next due time and
//! arms a timerfd for the earliest, so it sleeps until exactly then; a connection
//! whose pipeline window is full needs no wake-up, because a reply will come first.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use mio::{Events, Interest, Poll, Token};
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::config::{Config, Stop};
use crate::conn::Conn;
use crate::interrupt::{INTERRUPT_DRAIN, Interrupt};
use crate::net;
use crate::request::{RequestSource, derive_seed};
use crate::schedule::Schedule;
use crate::stats::Stats;
use crate::timer::{Timer, thread_cpu_time};
use crate::workload::values::ValuePool;

/// How long requests still in flight at a phase's deadline are awaited before
/// their connection is given up.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// Requests in flight per connection while prefilling: deep enough to keep the
/// server busy without a round trip per key.
pub const PREFILL_PIPELINE: usize = 64;

/// The timerfd's token, at the top of the token range, apart from connections.
const TIMER: Token = Token(usize::MAX);

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
        /// `--prefill`: SET every key of this connection's slice once, pipelined.
        prefill: bool,
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
        /// With `--rate`: requests due by the end of this second and not yet sent.
        backlog: u64,
        /// In `last` reports: this thread's CPU time over the phase, and the
        /// requests due before the deadline that were never sent.
        end: Option<PhaseEnd>,
    },
}

/// When a phase stops sending and how long its replies are awaited: at the
/// deadline (`--test-time`) with [`DRAIN_LIMIT`], or at an interrupt with
/// [`INTERRUPT_DRAIN`], whichever comes first.
#[derive(Debug, Clone, Copy)]
struct PhaseClock {
    stop_sending_at: Option<Instant>,
    drain_until: Option<Instant>,
}

impl PhaseClock {
    fn new(stop: Stop, started_at: Instant) -> Self {
        let deadline = match stop {
            Stop::Time(d) => Some(started_at + d),
            _ => None,
        };
        PhaseClock {
            stop_sending_at: deadline,
            drain_until: deadline.map(|d| d + DRAIN_LIMIT),
        }
    }

    /// An interrupt at `now`: stop sending now, drain briefly.
    fn interrupt(&mut self, now: Instant) {
        if self.stop_sending_at.is_none_or(|s| now < s) {
            self.stop_sending_at = Some(now);
        }
        let drain = now + INTERRUPT_DRAIN;
        if self.drain_until.is_none_or(|d| drain < d) {
            self.drain_until = Some(drain);
        }
    }

    fn sending(&self, now: Instant) -> bool {
        self.stop_sending_at.is_none_or(|s| now < s)
    }

    fn drain_expired(&self, now: Instant) -> bool {
        self.drain_until.is_some_and(|d| now >= d)
    }

    /// The next instant the loop must look at the clock again.
    fn next_wake(&self, now: Instant, next_tick: Instant) -> Instant {
        let mut wake = next_tick;
        if let Some(s) = self.stop_sending_at.filter(|s| now < *s) {
            wake = wake.min(s);
        }
        if let Some(d) = self.drain_until {
            wake = wake.min(d);
        }
        wake
    }

    /// When sending stopped (deadline or interrupt), if it did.
    fn stopped_at(&self) -> Option<Instant> {
        self.stop_sending_at
    }
}

/// What a worker knows only at the end of a phase.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseEnd {
    /// CPU time (user + system) this thread used during the phase.
    pub cpu_time: Duration,
    /// Open loop: requests whose intended time fell before the deadline but that
    /// were never sent because the pipeline window stayed full.
    pub unsent: u64,
}

/// Everything a worker needs, gathered on the master thread.
pub struct WorkerBuilder {
    /// Worker index, 0-based.
    pub thread: usize,
    /// The validated configuration.
    pub config: Arc<Config>,
    /// Commands from the master.
    pub commands: Receiver<Command>,
    /// Set when SIGINT or SIGTERM arrives.
    pub interrupt: Interrupt,
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
    /// Open loop: connections waiting for their next intended send time.
    wakeups: BinaryHeap<Reverse<(Instant, usize)>>,
    timer: Timer,
    interrupt: Interrupt,
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
        let stats =
            Stats::for_run(config.rate.is_some()).map_err(|e| io(std::io::Error::other(e)))?;
        let mut timer = Timer::new().map_err(io)?;
        poll.registry()
            .register(&mut timer, TIMER, Interest::READABLE)
            .map_err(io)?;
        Ok(Worker {
            interrupt: self.interrupt,
            wakeups: BinaryHeap::new(),
            timer,
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
            prefill,
        }) = self.commands.recv()
        {
            self.start_phase(index, stop, started_at, prefill);
            self.run_phase(stop, started_at);
        }
    }

    /// Gives every open connection a fresh request source (and, with `--rate`, a
    /// fresh schedule) for this phase.
    fn start_phase(&mut self, index: u32, stop: Stop, started_at: Instant, prefill: bool) {
        let slots = self.config.connections() as u64;
        for (i, conn) in self.conns.iter_mut().enumerate() {
            let slot = (self.thread * self.config.clients + i) as u64;
            let seed = derive_seed(
                self.config.seed,
                &[self.thread as u64, i as u64, u64::from(index)],
            );
            // Config validation already accepted these patterns for this range and
            // connection count, so construction cannot fail here.
            if prefill {
                // As fast as the server takes them: no schedule, a deep window.
                conn.source = RequestSource::prefill(&self.config, slot, slots, seed).ok();
                conn.schedule = None;
                conn.set_pipeline(self.config.pipeline.max(PREFILL_PIPELINE));
                conn.timer_queued = false;
                continue;
            }
            conn.source = RequestSource::new(&self.config, stop, slot, slots, seed).ok();
            conn.schedule = self.config.rate.map(|rate| {
                let arrival_seed = derive_seed(seed, &[u64::MAX]);
                Schedule::new(rate, slot, slots, started_at, arrival_seed)
            });
            conn.set_pipeline(self.config.pipeline);
            conn.timer_queued = false;
        }
        self.wakeups.clear();
        self.stats.reset();
    }

    fn run_phase(&mut self, stop: Stop, started_at: Instant) {
        let mut clock = PhaseClock::new(stop, started_at);
        let cpu_at_start = thread_cpu_time();
        let prefix = self.config.keys.prefix.clone().into_bytes();
        let mut second = 0u64;
        let mut next_tick = started_at + Duration::from_secs(1);
        for i in 0..self.conns.len() {
            self.refill(i, true, &prefix);
        }
        loop {
            let now = Instant::now();
            if now >= next_tick {
                self.report_second(second, now, now, None);
                second += 1;
                next_tick += Duration::from_secs(1);
                continue;
            }
            if self.interrupt.signal().is_some() {
                clock.interrupt(now);
            }
            let sending = clock.sending(now);
            if self.conns.iter().all(|c| c.is_done(sending)) {
                break;
            }
            if clock.drain_expired(now) {
                self.abandon_in_flight();
                break;
            }
            self.fire_wakeups(now, sending, &prefix);
            self.arm_timer(sending);
            let wake = clock.next_wake(now, next_tick);
            self.poll_once(wake.saturating_duration_since(now), sending, &prefix);
        }
        let stopped_at = clock.stopped_at();
        let end = PhaseEnd {
            cpu_time: thread_cpu_time().saturating_sub(cpu_at_start),
            unsent: stopped_at.map_or(0, |d| self.conns.iter().map(|c| c.backlog(d)).sum()),
        };
        let _ = self.timer.disarm();
        let now = Instant::now();
        // Requests intended after the deadline were never meant to be sent; the
        // backlog that counts is the one the deadline left behind.
        let backlog_at = stopped_at.map_or(now, |d| d.min(now));
        self.report_second(second, now, backlog_at, Some(end));
    }

    /// Tops up connection `i` and, in an open loop, queues its next wake-up.
    fn refill(&mut self, i: usize, sending: bool, prefix: &[u8]) {
        let Some(conn) = self.conns.get_mut(i) else {
            return;
        };
        conn.refill(sending, &self.values, prefix, &mut self.stats);
        if let Some(due) = conn.next_timer(sending) {
            conn.timer_queued = true;
            self.wakeups.push(Reverse((due, i)));
        }
    }

    /// Sends for every connection whose next intended time has come.
    fn fire_wakeups(&mut self, now: Instant, sending: bool, prefix: &[u8]) {
        while let Some(&Reverse((due, i))) = self.wakeups.peek() {
            if due > now {
                break;
            }
            self.wakeups.pop();
            if let Some(conn) = self.conns.get_mut(i) {
                conn.timer_queued = false;
            }
            self.refill(i, sending, prefix);
        }
    }

    /// Arms the timerfd for the earliest queued wake-up (no system call when it is
    /// already armed for that instant, or when there is none and it is idle).
    fn arm_timer(&mut self, sending: bool) {
        match self.wakeups.peek() {
            Some(&Reverse((due, _))) if sending => {
                let _ = self.timer.arm(due);
            }
            _ if self.timer.armed_for().is_some() => {
                let _ = self.timer.disarm();
            }
            _ => {}
        }
    }

    /// Waits for readiness at most `timeout` and dispatches the events.
    fn poll_once(&mut self, timeout: Duration, sending: bool, prefix: &[u8]) {
        // mio rounds the timeout up to whole milliseconds; sub-millisecond
        // wake-ups come from the timerfd instead.
        let timeout = timeout.max(Duration::from_millis(1));
        if self.poll.poll(&mut self.events, Some(timeout)).is_err() {
            return;
        }
        for event in self.events.iter() {
            let token = event.token();
            if token == TIMER {
                self.timer.clear();
                continue;
            }
            let Some(conn) = self.conns.get_mut(token.0) else {
                continue;
            };
            if event.is_writable() {
                conn.on_writable(&mut self.stats);
            }
            if event.is_readable() || event.is_read_closed() || event.is_error() {
                conn.on_readable(&mut self.stats);
                conn.refill(sending, &self.values, prefix, &mut self.stats);
                if let Some(due) = conn.next_timer(sending) {
                    conn.timer_queued = true;
                    self.wakeups.push(Reverse((due, token.0)));
                }
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

    fn report_second(
        &mut self,
        second: u64,
        now: Instant,
        backlog_at: Instant,
        end: Option<PhaseEnd>,
    ) {
        let backlog = self.conns.iter().map(|c| c.backlog(backlog_at)).sum();
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
            last: end.is_some(),
            finished_at: now,
            open_connections,
            backlog,
            end,
        });
    }
}
