//! One benchmark connection: its buffers, its queue of requests in flight, and the
//! states Ready → Closed.
//!
//! Requests are encoded into the write buffer and written in one `write` per
//! wake-up, as many as the pipeline window allows. Each request's send time is
//! taken just before that write, and its reply is timed at the `read` that
//! delivered the reply's last byte: service time = reply fully read − request
//! handed to the socket. With `--rate`, requests are sent only once their intended
//! time (from the connection's [`Schedule`]) has come, and the headline latency is
//! the response time = reply fully read − intended send time. Replies arrive in
//! order (RESP has no request ids), so the reply at the front of the read buffer
//! answers the request at the front of the queue.

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::time::Instant;

use crate::net::Stream;
use crate::protocol::resp::{self, Reply, ServerErrorKind};
use crate::request::RequestSource;
use crate::schedule::Schedule;
use crate::stats::{Stats, record_into};
use crate::workload::Op;
use crate::workload::values::ValuePool;

/// The smallest read buffer; it grows when a single reply needs more.
const MIN_READ_BUFFER: usize = 4096;

/// A request written (or about to be) and not yet answered.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    op: Op,
    /// When the schedule meant it to be sent (the send time in a closed loop).
    intended_at: Instant,
    sent_at: Instant,
}

/// Where a connection is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// Connected and prepared; sending and receiving.
    Ready,
    /// Broken or shut; never used again.
    Closed,
}

/// Why a connection was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer closed or reset it, or I/O failed.
    Connection,
    /// The peer sent something that is not a valid reply, or a reply nobody asked for.
    Protocol,
}

/// One connection of a worker.
pub struct Conn {
    stream: Stream,
    state: ConnState,
    pipeline: usize,
    inflight: VecDeque<InFlight>,
    wbuf: Vec<u8>,
    wpos: usize,
    rbuf: Vec<u8>,
    rstart: usize,
    rend: usize,
    /// The request stream of the current phase.
    pub source: Option<RequestSource>,
    /// With `--rate`: the intended send times of the current phase.
    pub schedule: Option<Schedule>,
    /// True while the worker holds a wake-up for this connection's next due time.
    pub timer_queued: bool,
}

/// Whole microseconds from `earlier` to `later`, 0 if `later` is not later.
#[inline]
fn micros_between(earlier: Instant, later: Instant) -> u64 {
    later.saturating_duration_since(earlier).as_micros() as u64
}

fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

fn interrupted(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Interrupted
}

impl Conn {
    /// Wraps a prepared stream. `request_hint` sizes the buffers so that a full
    /// pipeline window of typical requests and replies fits without growing.
    pub fn new(stream: Stream, pipeline: usize, request_hint: usize) -> Self {
        let size = (pipeline * request_hint).max(MIN_READ_BUFFER);
        Conn {
            stream,
            state: ConnState::Ready,
            pipeline,
            inflight: VecDeque::with_capacity(pipeline),
            wbuf: Vec::with_capacity(size),
            wpos: 0,
            rbuf: vec![0; size],
            rstart: 0,
            rend: 0,
            source: None,
            schedule: None,
            timer_queued: false,
        }
    }

    /// The mio source, for registration.
    pub fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }

    /// Changes the pipeline window for the next phase (the prefill uses a deeper
    /// one); requests already in flight are unaffected.
    pub fn set_pipeline(&mut self, pipeline: usize) {
        self.pipeline = pipeline.max(1);
    }

    /// Current state.
    pub fn state(&self) -> ConnState {
        self.state
    }

    /// Requests awaiting replies.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// True when this connection has nothing more to do in the phase: closed, or
    /// nothing in flight and nothing more to send (`sending` is false once the
    /// phase's deadline has passed).
    pub fn is_done(&self, sending: bool) -> bool {
        if self.state == ConnState::Closed {
            return true;
        }
        let idle = self.inflight.is_empty() && self.wpos >= self.wbuf.len();
        idle && (!sending || self.source.as_ref().is_none_or(RequestSource::exhausted))
    }

    /// Tops the pipeline window up with new requests (when `sending`) and writes
    /// whatever is pending. Errors close the connection and are counted in `stats`.
    pub fn refill(&mut self, sending: bool, values: &ValuePool, prefix: &[u8], stats: &mut Stats) {
        if self.state == ConnState::Closed {
            return;
        }
        if sending && self.inflight.len() < self.pipeline {
            self.queue_requests(values, prefix, stats);
        }
        if let Err(reason) = self.flush() {
            self.close(reason, stats);
        }
    }

    fn queue_requests(&mut self, values: &ValuePool, prefix: &[u8], stats: &mut Stats) {
        let Some(source) = self.source.as_mut() else {
            return;
        };
        if self.wpos >= self.wbuf.len() {
            self.wbuf.clear();
            self.wpos = 0;
        }
        // One timestamp for the whole batch: they are handed to the socket by the
        // same write, immediately after this.
        let sent_at = Instant::now();
        while self.inflight.len() < self.pipeline {
            // Open loop: only requests whose intended time has come; a request that
            // is late keeps its intended time.
            let intended_at = match &self.schedule {
                Some(schedule) if schedule.next_due() > sent_at => break,
                Some(schedule) => schedule.next_due(),
                None => sent_at,
            };
            let Some((op, len)) = source.encode_next(&mut self.wbuf, prefix, values) else {
                break;
            };
            if let Some(schedule) = self.schedule.as_mut() {
                schedule.advance();
                if let Some(lag) = stats.lag_us.as_mut() {
                    record_into(lag, micros_between(intended_at, sent_at));
                }
            }
            stats.op_mut(op).bytes_tx += len as u64;
            self.inflight.push_back(InFlight {
                op,
                intended_at,
                sent_at,
            });
        }
    }

    /// The next intended send time the worker should wake this connection for:
    /// only when the schedule has requests left and the pipeline window has room
    /// (otherwise a reply will wake it), and no wake-up is already queued.
    pub fn next_timer(&self, sending: bool) -> Option<Instant> {
        let ready = self.state == ConnState::Ready && sending && !self.timer_queued;
        let room = self.inflight.len() < self.pipeline;
        let more = self.source.as_ref().is_some_and(|s| !s.exhausted());
        match &self.schedule {
            Some(schedule) if ready && room && more => Some(schedule.next_due()),
            _ => None,
        }
    }

    /// Requests due by `until` and not sent (the open-loop backlog).
    pub fn backlog(&self, until: Instant) -> u64 {
        let more = self.source.as_ref().is_some_and(|s| !s.exhausted());
        match &self.schedule {
            Some(schedule) if more && self.state == ConnState::Ready => schedule.due_by(until),
            _ => 0,
        }
    }

    /// Writes pending bytes until done or the socket is full.
    fn flush(&mut self) -> Result<(), CloseReason> {
        while self.wpos < self.wbuf.len() {
            match self.stream.write(&self.wbuf[self.wpos..]) {
                Ok(0) => return Err(CloseReason::Connection),
                Ok(n) => self.wpos += n,
                Err(e) if would_block(&e) => return Ok(()),
                Err(e) if interrupted(&e) => {}
                Err(_) => return Err(CloseReason::Connection),
            }
        }
        Ok(())
    }

    /// Writes what the last refill could not (the socket became writable again).
    pub fn on_writable(&mut self, stats: &mut Stats) {
        if self.state == ConnState::Ready
            && let Err(reason) = self.flush()
        {
            self.close(reason, stats);
        }
    }

    /// Reads until the socket is drained, decoding and timing every complete reply.
    pub fn on_readable(&mut self, stats: &mut Stats) {
        while self.state == ConnState::Ready {
            if self.rend == self.rbuf.len() {
                self.make_room();
            }
            match self.stream.read(&mut self.rbuf[self.rend..]) {
                Ok(0) => return self.close(CloseReason::Connection, stats),
                Ok(n) => {
                    self.rend += n;
                    // The time at which this read delivered the last bytes of the
                    // replies it completes.
                    let now = Instant::now();
                    if let Err(reason) = self.consume_replies(now, stats) {
                        return self.close(reason, stats);
                    }
                }
                Err(e) if would_block(&e) => return,
                Err(e) if interrupted(&e) => {}
                Err(_) => return self.close(CloseReason::Connection, stats),
            }
        }
    }

    /// Moves unread bytes to the front, or grows the buffer when one reply fills it.
    fn make_room(&mut self) {
        if self.rstart > 0 {
            self.rbuf.copy_within(self.rstart..self.rend, 0);
            self.rend -= self.rstart;
            self.rstart = 0;
        } else {
            let bigger = self.rbuf.len() * 2;
            self.rbuf.resize(bigger, 0);
        }
    }

    fn consume_replies(&mut self, now: Instant, stats: &mut Stats) -> Result<(), CloseReason> {
        loop {
            let (reply, used) = match resp::decode(&self.rbuf[self.rstart..self.rend]) {
                Ok(Some(found)) => found,
                Ok(None) => break,
                Err(_) => {
                    stats.errors.protocol += 1;
                    return Err(CloseReason::Protocol);
                }
            };
            let Some(request) = self.inflight.pop_front() else {
                // A reply nobody asked for: the stream is out of step, and every
                // later match would be wrong.
                stats.errors.protocol += 1;
                return Err(CloseReason::Protocol);
            };
            let service_us = micros_between(request.sent_at, now);
            let op = stats.op_mut(request.op);
            if op.service_us.is_some() {
                op.record_open_loop(micros_between(request.intended_at, now), service_us);
            } else {
                op.record(service_us);
            }
            op.bytes_rx += used as u64;
            match reply {
                Reply::Nil if request.op == Op::Get => op.misses += 1,
                Reply::Bulk(_) if request.op == Op::Get => op.hits += 1,
                Reply::Error(message) => {
                    op.errors += 1;
                    stats
                        .errors
                        .count_server(ServerErrorKind::classify(message));
                }
                _ => {}
            }
            self.rstart += used;
        }
        if self.rstart == self.rend {
            self.rstart = 0;
            self.rend = 0;
        }
        Ok(())
    }

    /// Closes the connection for good, counting why and what was lost.
    pub fn close(&mut self, reason: CloseReason, stats: &mut Stats) {
        if self.state == ConnState::Closed {
            return;
        }
        self.state = ConnState::Closed;
        self.stream.shutdown();
        if reason == CloseReason::Connection {
            stats.errors.connection += 1;
        }
        stats.errors.lost_requests += self.inflight.len() as u64;
        self.inflight.clear();
        self.wbuf.clear();
        self.wpos = 0;
    }
}
