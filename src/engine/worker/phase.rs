//! The phase loop of a worker: start every connection, then dispatch readiness
//! events, open-loop wake-ups and the per-second reports until the phase ends
//! (its requests are done, its deadline passed and replies drained, or an
//! interrupt arrived).

use std::cmp::Reverse;
use std::time::{Duration, Instant};

use crate::config::Stop;
use crate::engine::interrupt::INTERRUPT_DRAIN;
use crate::engine::stats::errors::ProtocolFault;
use crate::engine::worker::client::Fill;
use crate::engine::worker::conn::{CloseReason, ConnState};
use crate::engine::worker::recorder::count_closed;
use crate::engine::worker::request::RequestSource;
use crate::engine::worker::schedule::Schedule;
use crate::engine::worker::timer::thread_cpu_time;
use crate::engine::worker::{
    Command, DRAIN_LIMIT, PREFILL_PIPELINE, PhaseEnd, Report, Wake, Worker,
};
use crate::workload::seed::derive_seed;

/// When a phase stops sending and how long its replies are awaited: at the
/// deadline (`--test-time`) with [`DRAIN_LIMIT`], or at an interrupt with
/// [`INTERRUPT_DRAIN`], whichever comes first.
#[derive(Debug, Clone, Copy)]
pub(super) struct PhaseClock {
    stop_sending_at: Option<Instant>,
    drain_until: Option<Instant>,
    /// `--test-time`: the phase lasts until its deadline even when every
    /// connection is down, so that its run time and rate are those asked for.
    timed: bool,
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
            timed: deadline.is_some(),
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

    pub(super) fn sending(&self, now: Instant) -> bool {
        self.stop_sending_at.is_none_or(|s| now < s)
    }

    /// True while a time-bound phase must go on whatever its connections do.
    fn holds(&self, now: Instant) -> bool {
        self.timed && self.sending(now)
    }

    fn drain_expired(&self, now: Instant) -> bool {
        self.drain_until.is_some_and(|d| now >= d)
    }

    /// No reply came for the stall limit: stop sending now, and wait for
    /// nothing more (what is in flight was waited for long enough).
    fn stall(&mut self, now: Instant) {
        self.stop_sending_at = Some(self.stop_sending_at.map_or(now, |s| s.min(now)));
        self.drain_until = Some(now);
    }

    /// The master ended the phase early (`--warmup-time auto`): stop
    /// sending now and drain as at a deadline.
    fn end_now(&mut self, now: Instant) {
        if self.stop_sending_at.is_none_or(|s| now < s) {
            self.stop_sending_at = Some(now);
            self.drain_until = Some(now + DRAIN_LIMIT);
        }
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
        // Every socket closes now, as the server sees it: with io_uring the
        // ring's file table and armed receives hold them, and the ring is torn
        // down only after the process has gone.
        for conn in &mut self.conns {
            conn.stream_mut().shutdown();
        }
    }

    /// Gives every client a fresh request source (and, with `--rate`, a fresh
    /// schedule) for this phase.
    fn start_phase(&mut self, index: u32, stop: Stop, started_at: Instant, prefill: bool) {
        // Numbered across every shard, so that shards take disjoint slices.
        let (base, slots) = (self.config.slot_base(), self.config.total_slots());
        let seed_base = self.config.stream_seed();
        self.pipeline = if prefill {
            // As fast as the server takes them: no schedule, a deep window.
            self.config.pipeline.max(PREFILL_PIPELINE)
        } else {
            self.config.pipeline
        };
        for (i, client) in self.clients.iter_mut().enumerate() {
            let slot = base + (self.thread * self.config.clients + i) as u64;
            let seed = derive_seed(seed_base, &[self.thread as u64, i as u64, u64::from(index)]);
            client.start_phase();
            // Config validation already accepted these patterns for this range and
            // connection count, so construction cannot fail here.
            if prefill {
                client.source =
                    RequestSource::prefill(&self.config, &self.pair, slot, slots, seed).ok();
                client.schedule = None;
            } else {
                client.source =
                    RequestSource::new(&self.config, &self.pair, stop, slot, slots, seed).ok();
                client.schedule = self.config.schedule_rate().map(|rate| {
                    let arrival_seed = derive_seed(seed, &[u64::MAX]);
                    Schedule::new(rate, slot, slots, started_at, arrival_seed)
                });
            }
        }
        for (conn, link) in self.conns.iter_mut().zip(&mut self.links) {
            if conn.state() == ConnState::Closed {
                // A connection lost in an earlier phase starts this one afresh.
                link.reconnect_queued = false;
                link.reconnect_attempts = 0;
            }
            conn.set_pipeline(self.pipeline);
            // A SCAN cursor read after the last fill of the phase before is
            // that phase's: this one's streams start at SCAN 0.
            link.book.scan_reply = None;
        }
        self.wakeups.clear();
        self.gaps.start(started_at, self.conns.len());
        self.start_ramp(started_at, prefill);
        self.stats.reset();
        self.measured_run = (index > 0 && !prefill).then_some(index);
        self.debug_phase(index, prefill);
    }

    fn run_phase(&mut self, stop: Stop, started_at: Instant) {
        let mut clock = PhaseClock::new(stop, started_at);
        let cpu_at_start = thread_cpu_time();
        let prefix = self.config.keys.prefix.clone().into_bytes();
        let mut second = 0u64;
        let mut next_tick = started_at + Duration::from_secs(1);
        let mut next_expiry = started_at;
        // A request-bound phase has no deadline: without a reply for the
        // stall limit it would wait for ever on a server that took the
        // requests and never answers.
        let stall_limit = self.config.stall_limit(stop);
        let mut progress = Progress {
            banked: 0,
            replies: 0,
            at: started_at,
        };
        let mut stalled = false;
        // Connections down (and given up) when sending stopped, taken once.
        let mut down_at_stop = None;
        for i in 0..self.conns.len() {
            if std::mem::take(&mut self.conns[i].unsolicited) {
                // A reply nobody asked for: every later match would be off by one.
                self.stats.errors.count_protocol(ProtocolFault::Unsolicited);
                if let Some(closed) = self.conns[i].close(CloseReason::Protocol) {
                    count_closed(&mut self.stats, closed);
                }
            }
        }
        // A thread that gets the phase late (a loaded machine) may find its
        // deadline passed: what it sent then would lie outside the run time
        // that every rate is computed over, so it asks the clock first.
        let now = Instant::now();
        let sending = clock.sending(now);
        for c in 0..self.clients.len() {
            self.fill(c, sending, &prefix);
        }
        for i in 0..self.conns.len() {
            // Connections that broke in an earlier phase get a reconnect queued.
            self.after_io(i, now, sending);
        }
        loop {
            let now = Instant::now();
            if now >= next_tick {
                // Nothing intended after the deadline is ever backlog.
                let backlog = self.backlog(clock.stopped_at().map_or(now, |s| s.min(now)));
                // The second's counts go to the master and start again from 0.
                progress.banked += self.stats.replies();
                self.report_second(second, now, backlog, None);
                second += 1;
                next_tick += Duration::from_secs(1);
                continue;
            }
            if self.interrupt.stop_requested() {
                clock.interrupt(now);
            } else if self.early_end.requested() {
                clock.end_now(now);
            }
            let sending = clock.sending(now);
            if !sending && down_at_stop.is_none() {
                down_at_stop = Some(self.connections_down());
                self.stop_gaps(clock.stopped_at().map_or(now, |s| s.min(now)));
            }
            self.tick_gaps(now, sending);
            // A time-bound phase whose connections all died still lasts until its
            // deadline: ending early would report a short run as a complete one.
            if self.all_done(sending) && !clock.holds(now) {
                break;
            }
            if clock.drain_expired(now) {
                self.abandon_in_flight();
                break;
            }
            if now >= next_expiry {
                self.expire_requests(now, sending);
                next_expiry = now + self.expiry_interval(stall_limit);
                if let Some(limit) = stall_limit
                    && progress.stalled(self.stats.replies(), now, limit)
                    && !stalled
                {
                    stalled = true;
                    clock.stall(now);
                    continue;
                }
            }
            if self.router.take_updates() {
                crate::engine::worker::build::sync_node_stats(&self.router, &mut self.stats);
            }
            self.fire_wakeups(now, sending, &prefix);
            self.step_up(now, sending, &prefix);
            self.arm_timer(sending);
            let mut wake = clock.next_wake(now, next_tick).min(next_expiry);
            if let Some(step) = self.next_step {
                wake = wake.min(step);
            }
            if let Some(tick) = self.gaps.next_tick() {
                wake = wake.min(tick);
            }
            self.poll_once(wake.saturating_duration_since(now), &clock, &prefix);
        }
        let stopped_at = clock.stopped_at();
        let (down, given_up) = down_at_stop.unwrap_or_else(|| self.connections_down());
        self.reactor.wake_at(None);
        let now = Instant::now();
        // A phase that ran out of requests stops its meter here.
        self.stop_gaps(stopped_at.map_or(now, |s| s.min(now)));
        // Requests intended after the deadline were never meant to be sent; the
        // backlog that counts is the one the deadline left behind.
        let backlog = self.backlog(stopped_at.map_or(now, |d| d.min(now)));
        let end = PhaseEnd {
            cpu_time: thread_cpu_time().saturating_sub(cpu_at_start),
            unsent: stopped_at.map_or(0, |d| self.record_never_sent(d)),
            stopped_sending_at: stopped_at.map(|d| d.min(now)),
            down,
            given_up,
            stalled,
            gaps: self.gaps.take(),
        };
        if let Some(log) = self.failed_keys.as_mut() {
            log.flush();
        }
        if let Some(run) = self.measured_run.take() {
            // Before the last report, so that a file not written reaches
            // the master within the phase; the last second folded first.
            self.fold_second(second);
            self.write_client_stats(run);
        }
        self.report_second(second, now, backlog, Some(end));
    }

    /// True when every client has nothing more to do.
    fn all_done(&self, sending: bool) -> bool {
        let links = &self.links;
        self.clients.iter().all(|c| {
            c.is_done(&self.conns, sending, |i| {
                links.get(i).is_some_and(|l| l.reconnect_queued)
            })
        })
    }

    /// Open-loop requests due by `until`, not yet sent, over all clients
    /// (whatever their connections' state: a client whose connection is down
    /// keeps its schedule).
    fn backlog(&self, until: Instant) -> u64 {
        self.clients.iter().map(|c| c.backlog(until)).sum()
    }

    /// Connections not ready, and those of them closed for good (no reconnect
    /// queued: `--no-reconnect` or the attempts spent).
    fn connections_down(&self) -> (usize, usize) {
        // The staircase's dormant clients are not down: they were not due yet.
        let down = self
            .conns
            .iter()
            .zip(&self.links)
            .filter(|(c, l)| c.state() != ConnState::Ready && l.client < self.active);
        let given_up = down
            .clone()
            .filter(|(c, l)| c.state() == ConnState::Closed && !l.reconnect_queued)
            .count();
        (down.count(), given_up)
    }

    /// Records every open-loop request intended before `deadline` and never
    /// sent into the response-time histogram of its op, with deadline − intended
    /// send time: the least it would have waited (wrk2's rule, carried to the end
    /// of the run). Returns how many there were.
    fn record_never_sent(&mut self, deadline: Instant) -> u64 {
        let stats = &mut self.stats;
        self.clients
            .iter_mut()
            .map(|c| c.record_never_sent(deadline, stats))
            .sum()
    }

    /// How often `--request-timeout` and the stall limit are checked: a
    /// quarter of the shorter, between 1 ms and 100 ms (once a second when
    /// there is neither).
    fn expiry_interval(&self, stall_limit: Option<Duration>) -> Duration {
        match self.config.faults.request_timeout.or(stall_limit) {
            Some(t) => (t / 4).clamp(Duration::from_millis(1), Duration::from_millis(100)),
            None => Duration::from_secs(1),
        }
    }

    /// Lets client `c` send what it can, opens a connection to a node it
    /// needs and has none for, and queues its next wake-ups.
    pub(super) fn fill(&mut self, c: usize, sending: bool, prefix: &[u8]) {
        if c >= self.active {
            // Dormant until the staircase reaches it.
            return;
        }
        let Some(client) = self.clients.get_mut(c) else {
            return;
        };
        // One server: its only connection's book holds the last SCAN cursor.
        let first = client.conns().next();
        let scan = first.and_then(|i| self.links.get_mut(i)?.book.scan_reply.take());
        let mut cx = Fill {
            values: &self.values,
            prefix,
            stats: &mut self.stats,
            sending,
            window: self.pipeline,
            scan,
        };
        let missing = client.fill(&mut self.conns, &self.router, &mut cx);
        if let Some(due) = client.next_timer(&self.conns, sending) {
            client.timer_queued = true;
            self.wakeups.push(Reverse((due, c, Wake::Send)));
        }
        // Only a retry whose time is still to come needs a wake-up: one that is
        // due and waits for room is sent when a reply makes room (queuing a
        // wake-up for it now would fire at once, again and again). A wake-up
        // already held for a later time gets an earlier one beside it.
        let now = Instant::now();
        if let Some(due) = client
            .next_retry()
            .filter(|&d| d > now && client.retry_wake.is_none_or(|w| d < w))
        {
            client.retry_wake = Some(due);
            self.wakeups.push(Reverse((due, c, Wake::Retry)));
        }
        if let Some(node) = missing {
            self.open_link(c, node);
        }
    }

    /// Past the drain limit, requests still unanswered are counted as lost and
    /// their connections closed: a late reply would otherwise be matched to a
    /// request of the next phase.
    fn abandon_in_flight(&mut self) {
        for conn in &mut self.conns {
            if conn.in_flight() > 0 {
                if let Some(closed) =
                    conn.close(crate::engine::worker::conn::CloseReason::Connection)
                {
                    count_closed(&mut self.stats, closed);
                }
            }
        }
        for client in &mut self.clients {
            client.abandon(&mut self.stats);
        }
    }

    fn report_second(&mut self, second: u64, now: Instant, backlog: u64, end: Option<PhaseEnd>) {
        self.fold_second(second);
        let stats = Box::new(self.stats.clone());
        self.stats.reset();
        let open_connections = self
            .conns
            .iter()
            .filter(|c| c.state() == ConnState::Ready)
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

/// When the phase last saw its reply count grow.
struct Progress {
    /// Replies of the seconds already reported (the worker's counts restart
    /// from 0 each second).
    banked: u64,
    /// Replies of the phase when they last grew.
    replies: u64,
    at: Instant,
}

impl Progress {
    /// Takes the current second's reply count at `now`; true once the
    /// phase's count has not grown for `limit`.
    fn stalled(&mut self, this_second: u64, now: Instant, limit: Duration) -> bool {
        let replies = self.banked + this_second;
        if replies != self.replies {
            self.replies = replies;
            self.at = now;
        }
        now.saturating_duration_since(self.at) > limit
    }
}

#[cfg(test)]
mod tests;
