//! One client: its request stream, its schedule, and its connections — one per
//! node it talks to (one in all for a single server). The client draws each
//! request, routes it by its key's slot ([`route`]) to that node's connection,
//! and takes back the requests a cluster redirects, to send them again
//! elsewhere (`client/bounce.rs`). A connection keeps only its socket, buffers
//! and in-flight queue; everything about what to send lives here, and what
//! a reply changes in the worker's recorder (`crate::engine::worker::recorder`).
//!
//! A single server is the one-node case of the same code: the request is
//! encoded straight into the only connection's buffer. With several nodes it is
//! encoded into the client's scratch buffer first, because its connection is
//! known only once its key is drawn, and copied from there.

mod bounce;
pub mod retry;
pub mod route;
mod routed;
mod transaction;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use crate::engine::stats::{Stats, record_into};
use crate::engine::worker::conn::{Conn, ConnState, InFlight};
use crate::engine::worker::recorder::count_closed;
use crate::engine::worker::request::{RequestSource, ScanReply};
use crate::engine::worker::schedule::Schedule;
use crate::workload::ops::OpTable;
use crate::workload::values::ValuePool;

pub use route::Router;

/// What a client's fill needs besides its connections.
pub struct Fill<'a> {
    /// Value bytes.
    pub values: &'a ValuePool,
    /// `--key-prefix`.
    pub prefix: &'a [u8],
    /// The thread's counters.
    pub stats: &'a mut Stats,
    /// False once the phase stops sending new requests.
    pub sending: bool,
    /// The pipeline window of the phase, which also bounds each node's
    /// waiting requests.
    pub window: usize,
    /// `--scan-incremental-iteration`: the cursor of its connection's last
    /// SCAN reply, taken from the worker's book.
    pub scan: Option<ScanReply>,
}

/// A request to send again (after a redirect or a retry) or not yet placed.
#[derive(Debug, Clone, Copy)]
struct Pending {
    request: InFlight,
    /// The node to send it to; `None` routes it afresh by its slot.
    node: Option<usize>,
    /// After `-ASK`: send `ASKING` first.
    asking: bool,
    /// After `-TRYAGAIN`/`-CLUSTERDOWN`, or a paced retry: not before this.
    due: Option<Instant>,
    /// A retry (`--retry-on-error`), counted against `--max-retry-queue`.
    retry: bool,
}

/// One client of a worker.
pub struct Client {
    /// Its number in the thread, which spreads replica reads.
    index: usize,
    /// The request stream of the current phase.
    pub source: Option<RequestSource>,
    /// With `--rate`: the intended send times of the current phase.
    pub schedule: Option<Schedule>,
    /// True while the worker holds a wake-up for its next due time.
    pub timer_queued: bool,
    /// The worker's wake-up for its next retry, while it holds one.
    pub retry_wake: Option<Instant>,
    /// For each node index, the worker's connection index; `None` until opened.
    links: Vec<Option<usize>>,
    /// For each node index, requests drawn for it while its connection had
    /// no room, oldest first (at most a pipeline window each, then drawing
    /// stops): the other nodes' connections keep filling meanwhile.
    waiting: Vec<routed::NodeQueue>,
    /// The most requests one node's queue holds before drawing stops.
    waiting_bound: usize,
    /// Redirected and retried requests, in the order they go out (a paced
    /// retry by its due time).
    pending: VecDeque<Pending>,
    /// How many of `pending` are retries.
    retrying: usize,
    /// The bytes of the request last drawn, before its connection is known.
    scratch: Vec<u8>,
    /// The bytes of a waiting or pending request, encoded again.
    again: Vec<u8>,
    ops: Arc<OpTable>,
    /// `--transaction` in a cluster: the rotation in progress and its node.
    pin: Option<(u64, usize)>,
}

impl Client {
    /// Client `index` of its thread, with no connection yet.
    pub fn new(index: usize, ops: Arc<OpTable>, max_request: usize) -> Client {
        Client {
            index,
            source: None,
            schedule: None,
            timer_queued: false,
            retry_wake: None,
            links: Vec::new(),
            waiting: Vec::new(),
            waiting_bound: 1,
            pending: VecDeque::new(),
            retrying: 0,
            scratch: Vec::with_capacity(max_request),
            again: Vec::with_capacity(max_request),
            ops,
            pin: None,
        }
    }

    /// Records that connection `conn` serves node `node` (0 for one server).
    pub fn link(&mut self, node: usize, conn: usize) {
        if self.links.len() <= node {
            self.links.resize(node + 1, None);
        }
        self.links[node] = Some(conn);
    }

    /// The connection serving `node`, if one was opened.
    pub fn link_of(&self, node: usize) -> Option<usize> {
        self.links.get(node).copied().flatten()
    }

    /// Its connections' indexes.
    pub fn conns(&self) -> impl Iterator<Item = usize> + '_ {
        self.links.iter().flatten().copied()
    }

    /// Starts a phase: drops what was waiting or pending (already counted).
    pub fn start_phase(&mut self) {
        self.waiting.iter_mut().for_each(routed::NodeQueue::clear);
        self.pending.clear();
        self.retrying = 0;
        self.pin = None;
        self.timer_queued = false;
        self.retry_wake = None;
    }

    /// Sends what it can: pending redirects and retries first, then (when
    /// sending) new requests while their connections have room and, with
    /// `--rate`, their time has come. Returns a node that needs a connection
    /// opened before a request can go to it.
    pub fn fill(
        &mut self,
        conns: &mut [Conn],
        router: &Router,
        cx: &mut Fill<'_>,
    ) -> Option<usize> {
        let now = Instant::now();
        if let Some(reply) = cx.scan.take() {
            self.follow_scan(reply);
        }
        let mut missing = self.place_pending(conns, router, cx, now);
        if self.links.len() == 1 && !router.is_routed() {
            if cx.sending {
                self.draw_direct(conns, cx, now);
            }
        } else {
            missing = missing.or(self.draw_routed(conns, router, cx, now));
        }
        for conn in self.links.iter().flatten() {
            if let Some(closed) = conns.get_mut(*conn).and_then(Conn::send) {
                count_closed(cx.stats, closed);
            }
        }
        missing
    }

    /// One server: encode straight into the connection's buffer.
    fn draw_direct(&mut self, conns: &mut [Conn], cx: &mut Fill<'_>, now: Instant) {
        let (Some(source), Some(Some(index))) = (self.source.as_mut(), self.links.first()) else {
            return;
        };
        let Some(conn) = conns.get_mut(*index) else {
            return;
        };
        while conn.has_room() {
            let Some(intended_at) = next_intended(&self.schedule, now) else {
                break;
            };
            let values = cx.values;
            let encode = |buf: &mut Vec<u8>, opaque| source.encode_next(buf, values, opaque);
            if conn.queue(encode, intended_at, None).is_none() {
                break;
            }
            advance(&mut self.schedule, intended_at, now, cx.stats);
        }
    }

    /// `--scan-incremental-iteration`: the cursor its connection's last
    /// reply gave (one server: `--cluster-mode` is refused) goes to the
    /// stream, which picks the next SCAN by it. Taken whether or not the
    /// phase is still sending, so that the phase's last replies stay the
    /// phase's.
    fn follow_scan(&mut self, reply: ScanReply) {
        if let Some(source) = self.source.as_mut() {
            source.follow_scan(reply);
        }
    }

    /// When the next pending request may go, for a wake-up: only the first
    /// matters, since they go out in order.
    pub fn next_retry(&self) -> Option<Instant> {
        self.pending.front().and_then(|p| p.due)
    }

    /// True when the client has nothing more to do in the phase;
    /// `reconnecting` says whether the worker holds a reconnect for a
    /// connection.
    pub fn is_done(
        &self,
        conns: &[Conn],
        sending: bool,
        reconnecting: impl Fn(usize) -> bool,
    ) -> bool {
        // Requests waiting for a node are work only while its connection may
        // still take them: one closed for good (no reconnect held) never will,
        // and waiting on it would hold a request-bound phase open for ever.
        let may_send = |node: usize| {
            self.link_of(node).is_none_or(|i| {
                conns
                    .get(i)
                    .is_some_and(|c| c.state() != ConnState::Closed || reconnecting(i))
            })
        };
        let waiting = self
            .waiting
            .iter()
            .enumerate()
            .any(|(node, w)| !w.is_empty() && may_send(node));
        if !self.pending.is_empty() || (sending && waiting) {
            return false;
        }
        let exhausted = self.source.as_ref().is_none_or(RequestSource::exhausted);
        self.conns().all(|i| {
            conns.get(i).is_none_or(|c| match c.state() {
                // A reconnect in progress has work to do while the phase is sending.
                ConnState::Closed => !(sending && reconnecting(i)),
                ConnState::Connecting | ConnState::Handshaking(_) => !sending,
                ConnState::Ready => c.is_idle() && (!sending || exhausted),
            })
        })
    }

    /// Requests waiting to be sent again after a redirect: at the end of the
    /// drain they are lost, like the requests in flight. (Requests drawn and
    /// never sent are no loss: the open loop counts them as never sent.)
    pub fn abandon(&mut self, stats: &mut Stats) {
        stats.errors.lost_requests += self.pending.len() as u64;
        self.pending.clear();
        self.retrying = 0;
    }

    /// The next intended send time to wake the client for: when its schedule
    /// has requests left, one of its connections has room, and no wake-up is
    /// already queued.
    pub fn next_timer(&self, conns: &[Conn], sending: bool) -> Option<Instant> {
        let more = self.source.as_ref().is_some_and(|s| !s.exhausted());
        let room = !self.overflowing()
            && self
                .conns()
                .any(|c| conns.get(c).is_some_and(Conn::has_room));
        match &self.schedule {
            Some(schedule) if sending && !self.timer_queued && room && more => {
                Some(schedule.next_due())
            }
            _ => None,
        }
    }

    /// Requests due by `until` and not sent (the open-loop backlog), those
    /// drawn and waiting for their connection included.
    pub fn backlog(&self, until: Instant) -> u64 {
        let more = self.source.as_ref().is_some_and(|s| !s.exhausted());
        let due = match &self.schedule {
            Some(schedule) if more => schedule.due_by(until),
            _ => 0,
        };
        let waiting: usize = self.waiting.iter().map(routed::NodeQueue::len).sum();
        due + if self.schedule.is_some() {
            waiting as u64
        } else {
            0
        }
    }

    /// Records every open-loop request intended before `deadline` and never
    /// sent (those drawn and waiting too) with deadline − intended time;
    /// returns how many.
    pub fn record_never_sent(&mut self, deadline: Instant, stats: &mut Stats) -> u64 {
        let mut never_sent = 0;
        let open_loop = self.schedule.is_some();
        for waiting in &mut self.waiting {
            for w in waiting.requests.drain(..).filter(|_| open_loop) {
                let waited = deadline.saturating_duration_since(w.request.intended_at);
                stats
                    .op_mut(usize::from(w.request.queued.row))
                    .record_never_sent(waited.as_micros() as u64);
                never_sent += 1;
            }
            waiting.clear();
        }
        let (Some(schedule), Some(source)) = (self.schedule.as_mut(), self.source.as_mut()) else {
            return never_sent;
        };
        // A cap (`--rate-limiting`) never owed what a stall made it skip.
        schedule.skip_missed(deadline);
        while schedule.next_due() < deadline {
            let Some(row) = source.skip_next() else { break };
            let waited = deadline.saturating_duration_since(schedule.next_due());
            stats
                .op_mut(row)
                .record_never_sent(waited.as_micros() as u64);
            schedule.advance(deadline);
            never_sent += 1;
        }
        never_sent
    }

    /// True when its stream has more to send (a connection due for a
    /// `--reconnect-interval` recycle is only recycled then).
    pub fn has_more(&self) -> bool {
        self.source.as_ref().is_some_and(|s| !s.exhausted())
    }
}

/// The intended time of the next request when it is due (open loop), or
/// now (closed loop); `None` while it is not yet due.
fn next_intended(schedule: &Option<Schedule>, sent_at: Instant) -> Option<Instant> {
    match schedule {
        Some(schedule) if schedule.next_due() > sent_at => None,
        Some(schedule) => Some(schedule.next_due()),
        None => Some(sent_at),
    }
}

/// Moves the schedule on past a request just drawn, recording its lag.
fn advance(
    schedule: &mut Option<Schedule>,
    intended_at: Instant,
    sent_at: Instant,
    stats: &mut Stats,
) {
    if let Some(schedule) = schedule.as_mut() {
        schedule.advance(sent_at);
        if let Some(lag) = stats.lag_us.as_mut() {
            record_into(
                lag,
                crate::engine::worker::conn::micros_between(intended_at, sent_at),
            );
        }
    }
}
