//! The worker side of the engine: this module is one worker thread, with its
//! own parts (its phase loop, faults, ramp-up, gap meter and the [`recorder`]
//! that counts what its connections report), and its other submodules are
//! what runs on that thread: [`reactor`] and [`timer`] (waiting), [`net`]
//! (opening and preparing a connection; the master opens its preflight and
//! control connections with it too), [`conn`] (one connection), [`client`]
//! (one client and its connections), [`request`] and [`schedule`] (what to
//! send next, and when), [`retry`] (`--retry-on-error`) and [`client_stats`]
//! (`--client-stats`). The thread owns its reactor, its clients and their
//! connections, its router, its value bytes and its stats.
//!
//! [`WorkerBuilder::build`] does every fallible step (connect, handshake, register)
//! before any clock starts, so [`Worker::run`] cannot fail half-way. The worker
//! then waits for phase commands from the master, drives its connections until the
//! phase ends, and reports its stats once per second of the phase. The event loop
//! only dispatches: reads, writes and refills live in [`crate::engine::worker::conn`],
//! and what each reply changes in [`recorder`].
//!
//! With `--rate`, each connection also has a schedule of intended send times. The
//! worker keeps a min-heap of the connections waiting for their next due time and
//! wakes for the earliest (a timerfd with epoll, the ring's own timeout with
//! io_uring), so it sleeps until exactly then; a connection
//! whose pipeline window is full needs no wake-up, because a reply will come first.
//!
//! Building lives in `worker/build.rs`; the phase loop in `worker/phase.rs`;
//! reconnecting, request timeouts and `--reconnect-interval` in
//! `worker/faults.rs`; the staircase ramp-up, connection jitter,
//! `--client-stats` and `-D` in `worker/ramp.rs`.

mod build;
pub mod client;
pub mod client_stats;
pub mod conn;
mod events;
mod faults;
pub mod gaps;
pub mod net;
mod phase;
mod ramp;
pub mod reactor;
pub mod recorder;
pub mod request;
pub mod retry;
pub mod schedule;
pub mod timer;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};

use crate::config::{Config, Stop};
use crate::engine::cluster::topology::WorkerCluster;
use crate::engine::interrupt::Interrupt;
use crate::engine::master::warmup::EarlyEnd;
use crate::engine::stats::Stats;
use crate::engine::worker::client::{Client, Router};
use crate::engine::worker::conn::Conn;
use crate::engine::worker::reactor::{Reactor, Readiness};
use crate::engine::worker::recorder::{Book, Rules};
use crate::engine::worker::retry::FailedKeysLog;
use crate::error::ConnectError;
use crate::protocol::handshake::Handshake;
use crate::protocol::wire::PairEncoder;
use crate::workload::values::ValuePool;

/// How long requests still in flight at a phase's deadline are awaited before
/// their connection is given up.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// Requests in flight per connection while prefilling: deep enough to keep the
/// server busy without a round trip per key.
pub const PREFILL_PIPELINE: usize = 64;

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
        error: ConnectError,
    },
    /// `--client-stats`: a client's file could not be written (sent
    /// before the phase's last second, so the phase's results carry it).
    Unwritten(crate::engine::worker::client_stats::Unwritten),
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

/// What a worker knows only at the end of a phase.
#[derive(Debug, Clone, Default)]
pub struct PhaseEnd {
    /// CPU time (user + system) this thread used during the phase.
    pub cpu_time: Duration,
    /// Open loop: requests whose intended time fell before the deadline but that
    /// were never sent (the pipeline window stayed full, or their connection was
    /// down); each is in the response-time histogram.
    pub unsent: u64,
    /// When this worker stopped sending (the deadline or an interrupt); `None`
    /// when it ran out of requests instead. The run time ends here: the replies
    /// awaited afterwards are the drain, reported apart.
    pub stopped_sending_at: Option<Instant>,
    /// Connections that were not ready when sending stopped (closed or still
    /// reconnecting).
    pub down: usize,
    /// Of those, connections closed for good: `--no-reconnect`, or
    /// `--max-reconnect-attempts` spent. Their share of the load was not offered.
    pub given_up: usize,
    /// No reply came for the stall limit ([`crate::config::Config::stall_limit`]),
    /// so this worker stopped its phase early.
    pub stalled: bool,
    /// The time load was due and none was applied ([`gaps`]).
    pub gaps: crate::engine::stats::gaps::WorkerGaps,
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
    /// Set when the master ends the phase before its deadline.
    pub early_end: EarlyEnd,
    /// Reports to the master.
    pub reports: Sender<Report>,
    /// `--cluster-mode`: the topology and the refresher.
    pub cluster: Option<WorkerCluster>,
    /// `--failed-keys-file`, opened for appending by the master.
    pub failed_keys: Option<Arc<std::fs::File>>,
}

/// AUTH / SELECT / PING for a connection that reconnects or opens mid-run,
/// and the same followed by `READONLY` for a cluster replica that serves
/// reads (`--read-from replica|any`).
struct Handshakes {
    plain: Handshake,
    readonly: Handshake,
}

impl Handshakes {
    /// The handshake of a connection to a reading replica, or of any other.
    fn pick(&self, readonly: bool) -> &Handshake {
        if readonly {
            &self.readonly
        } else {
            &self.plain
        }
    }
}

/// A worker whose connections are all open and prepared.
pub struct Worker {
    thread: usize,
    config: Arc<Config>,
    /// epoll or the ring.
    reactor: Reactor,
    /// What the last wait found (kept to reuse its memory).
    ready: Vec<Readiness>,
    /// Every connection of every client; a connection's index is its token.
    conns: Vec<Conn>,
    /// What the worker keeps about each connection, indexed like `conns`.
    links: Vec<Link>,
    clients: Vec<Client>,
    router: Router,
    values: ValuePool,
    /// The SET/GET pair's encoder, shared by every connection's request source.
    pair: Arc<PairEncoder>,
    /// How every connection's replies are read and counted.
    rules: Rules,
    stats: Stats,
    commands: Receiver<Command>,
    reports: Sender<Report>,
    /// Clients waiting for their next intended send time or retry, and
    /// connections waiting for their next reconnect attempt.
    wakeups: BinaryHeap<Reverse<(Instant, usize, Wake)>>,
    interrupt: Interrupt,
    early_end: EarlyEnd,
    /// The handshakes of connections that reconnect or open mid-run.
    handshakes: Handshakes,
    /// The pipeline window of the current phase, for connections opened in it.
    pipeline: usize,
    /// Scratch lists of the connections and clients an event touched (kept
    /// to reuse their memory).
    touched: Vec<usize>,
    touched_clients: Vec<usize>,
    /// Clients that may send: all of them, or the staircase's current step.
    active: usize,
    /// The staircase's next step, while it climbs.
    next_step: Option<Instant>,
    /// The current phase's common start.
    phase_started: Instant,
    /// `--client-stats`: each client's seconds of the phase (empty when off).
    series: Vec<crate::engine::worker::client_stats::ClientSeries>,
    /// The measured run the current phase is (`None` for the warm-up and
    /// the prefill), taken when its client stats are written.
    measured_run: Option<u32>,
    /// `--failed-keys-file`: this thread's lines.
    failed_keys: Option<FailedKeysLog>,
    /// The load gaps of the current phase.
    gaps: gaps::GapMeter,
}

/// A connection's owner, reconnect state and book.
#[derive(Debug, Clone)]
struct Link {
    /// The client it belongs to.
    client: usize,
    /// Its server's address, resolved once (TCP only).
    addr: Option<SocketAddr>,
    /// Reconnect attempts since the connection was last ready.
    reconnect_attempts: u32,
    /// True while the worker holds a reconnect for this connection.
    reconnect_queued: bool,
    /// A connection to a cluster replica, prepared with `READONLY`.
    readonly: bool,
    /// What its replies leave for the worker and the client.
    book: Book,
}

/// Why the worker wakes a client or a connection at a given instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Wake {
    /// A client's next intended send time (`--rate`).
    Send,
    /// A client's next retry after `-TRYAGAIN`/`-CLUSTERDOWN`.
    Retry,
    /// A connection's next reconnect attempt.
    Reconnect,
}
