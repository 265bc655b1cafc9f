//! The worker's load-gap meter ([`crate::engine::stats::gaps`]): for each
//! connection, and for the worker as a whole, the time since the last reply
//! while load was due.
//!
//! A reply closes what is open at its instant. Every [`GAP_TICK`] the worker
//! says what each connection is doing ([`Due`]); a connection with nothing
//! due (idle between open-loop sends, finished, dormant on the staircase, or
//! the phase no longer sending) closes its silence there, so that only time
//! with load due is counted. Silences of at least [`GAP_MIN`] are gaps. Work
//! per reply: two subtractions and two comparisons; nothing allocates but the
//! rare gap.

use std::time::{Duration, Instant};

use crate::engine::stats::gaps::{ClockSpan, GAP_MIN, GapCause, WorkerGaps};
use crate::engine::worker::client::Client;
use crate::engine::worker::conn::{Conn, ConnState};
use crate::engine::worker::{Link, Worker};

/// How often the worker looks at its connections' state.
pub const GAP_TICK: Duration = Duration::from_millis(100);

/// What one connection is doing at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Nothing is asked of it now.
    Idle,
    /// Ready, with requests outstanding.
    Waiting,
    /// Closed, connecting or handshaking, with requests to send.
    Down,
}

/// What the connections did while the worker's current silence lasted.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    waiting: u64,
    down: u64,
    no_descriptors: bool,
}

impl Tally {
    fn cause(&self) -> GapCause {
        if self.no_descriptors {
            GapCause::DescriptorsExhausted
        } else if self.down > self.waiting {
            GapCause::ServerDown
        } else {
            GapCause::Stalled
        }
    }
}

/// One worker's meter, reset for each phase.
#[derive(Debug)]
pub struct GapMeter {
    /// Each connection's last reply, or the last tick it had nothing due.
    since: Vec<Instant>,
    /// The worker's last reply, or the last tick nothing was due.
    worker_since: Instant,
    tally: Tally,
    next_tick: Instant,
    /// Sending stopped: everything is closed and nothing more counts.
    stopped: bool,
    gaps: WorkerGaps,
}

impl GapMeter {
    /// A meter for `conns` connections, started at `at`.
    pub fn new(at: Instant, conns: usize) -> GapMeter {
        GapMeter {
            since: vec![at; conns],
            worker_since: at,
            tally: Tally::default(),
            next_tick: at + GAP_TICK,
            stopped: false,
            gaps: WorkerGaps::default(),
        }
    }

    /// Starts afresh for a phase that starts at `at`.
    pub fn start(&mut self, at: Instant, conns: usize) {
        self.since.clear();
        self.since.resize(conns, at);
        self.worker_since = at;
        self.tally = Tally::default();
        self.next_tick = at + GAP_TICK;
        self.stopped = false;
        self.gaps = WorkerGaps::default();
    }

    /// When [`GapMeter::tick`] is due next (`None` once stopped).
    pub fn next_tick(&self) -> Option<Instant> {
        (!self.stopped).then_some(self.next_tick)
    }

    /// Connection `i` got a reply at `at`.
    #[inline]
    pub fn replied(&mut self, i: usize, at: Instant) {
        if self.stopped {
            return;
        }
        self.close_conn(i, at);
        self.close_worker(at);
    }

    /// A reconnect failed for lack of file descriptors.
    pub fn no_descriptors(&mut self) {
        self.tally.no_descriptors = true;
    }

    /// What each connection is doing at `now`, in the order of the worker's
    /// connections (connections opened since the phase started included).
    pub fn tick(&mut self, now: Instant, dues: impl Iterator<Item = Due>) {
        if self.stopped {
            return;
        }
        let mut any_due = false;
        for (i, due) in dues.enumerate() {
            if i >= self.since.len() {
                self.since.push(now);
            }
            match due {
                Due::Idle => self.close_conn(i, now),
                Due::Waiting => {
                    any_due = true;
                    self.tally.waiting += 1;
                }
                Due::Down => {
                    any_due = true;
                    self.tally.down += 1;
                }
            }
        }
        if !any_due {
            self.close_worker(now);
        }
        self.next_tick = now + GAP_TICK;
    }

    /// Sending stopped at `at`: whatever is open closes there (and says
    /// whether the worker was still silent), and nothing after counts.
    pub fn stop(&mut self, at: Instant, dues: impl Iterator<Item = Due>) {
        if self.stopped {
            return;
        }
        // The state at the stop decides whether the silences were due.
        let mut any_due = false;
        for (i, due) in dues.enumerate() {
            if i >= self.since.len() {
                self.since.push(at);
            }
            if due != Due::Idle {
                any_due = true;
            }
            self.close_conn(i, at);
        }
        let open = any_due && at.saturating_duration_since(self.worker_since) >= GAP_MIN;
        if any_due {
            self.close_worker(at);
        }
        self.gaps.open_at_end = open;
        self.gaps.connections = self.since.len();
        self.stopped = true;
    }

    /// The phase's gaps (the meter keeps its memory for the next phase).
    pub fn take(&mut self) -> WorkerGaps {
        std::mem::take(&mut self.gaps)
    }

    fn close_conn(&mut self, i: usize, at: Instant) {
        let Some(since) = self.since.get_mut(i) else {
            return;
        };
        let silence = at.saturating_duration_since(*since);
        *since = at;
        if silence >= GAP_MIN {
            self.gaps.connection_secs += silence.as_secs_f64();
            self.gaps.connection_gaps += 1;
            self.gaps.longest_connection_gap = self.gaps.longest_connection_gap.max(silence);
        }
    }

    fn close_worker(&mut self, at: Instant) {
        let start = self.worker_since;
        self.worker_since = at;
        if at.saturating_duration_since(start) >= GAP_MIN {
            self.gaps.spans.push(ClockSpan {
                start,
                end: at,
                cause: self.tally.cause(),
            });
        }
        self.tally = Tally::default();
    }
}

/// What connection `conn` of `link` is doing: load is due on a ready
/// connection with requests outstanding, and on one that is down while its
/// client has requests to send and is past the staircase's step.
fn due_of(conn: &Conn, link: &Link, clients: &[Client], active: usize, sending: bool) -> Due {
    if !sending || link.client >= active {
        return Due::Idle;
    }
    match conn.state() {
        ConnState::Ready if conn.in_flight() > 0 => Due::Waiting,
        ConnState::Ready => Due::Idle,
        _ if clients.get(link.client).is_some_and(Client::has_more) => Due::Down,
        _ => Due::Idle,
    }
}

impl Worker {
    /// Tells the meter what each connection is doing, when its tick is due.
    pub(super) fn tick_gaps(&mut self, now: Instant, sending: bool) {
        if self.gaps.next_tick().is_none_or(|t| now < t) {
            return;
        }
        let (clients, active) = (&self.clients, self.active);
        let dues = self
            .conns
            .iter()
            .zip(&self.links)
            .map(|(c, l)| due_of(c, l, clients, active, sending));
        self.gaps.tick(now, dues);
    }

    /// Sending stopped at `at` (or the phase ended there): the meter closes.
    pub(super) fn stop_gaps(&mut self, at: Instant) {
        let (clients, active) = (&self.clients, self.active);
        let dues = self
            .conns
            .iter()
            .zip(&self.links)
            .map(|(c, l)| due_of(c, l, clients, active, true));
        self.gaps.stop(at, dues);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    /// Ticks every 100 ms from `from` to `to` with every connection in `due`.
    fn ticks(m: &mut GapMeter, t0: Instant, from: u64, to: u64, due: &[Due]) {
        let mut t = from;
        while t <= to {
            m.tick(ms(t0, t), due.iter().copied());
            t += 100;
        }
    }

    #[test]
    fn steady_replies_make_no_gap() {
        let t0 = Instant::now();
        let mut m = GapMeter::new(t0, 2);
        for t in (0..5000).step_by(10) {
            m.replied((t / 10 % 2) as usize, ms(t0, t));
            if t % 100 == 0 {
                m.tick(ms(t0, t), [Due::Waiting, Due::Waiting].into_iter());
            }
        }
        m.stop(ms(t0, 5000), [Due::Waiting, Due::Waiting].into_iter());
        let none = WorkerGaps {
            connections: 2,
            ..WorkerGaps::default()
        };
        assert_eq!(m.take(), none);
    }

    #[test]
    fn a_server_gone_for_good_is_one_span_open_at_the_end() {
        let t0 = Instant::now();
        let mut m = GapMeter::new(t0, 4);
        for t in (0..2000).step_by(5) {
            m.replied((t / 5 % 4) as usize, ms(t0, t));
        }
        ticks(&mut m, t0, 2000, 7900, &[Due::Down; 4]);
        m.stop(ms(t0, 8000), [Due::Down; 4].into_iter());
        let g = m.take();
        assert_eq!(g.spans.len(), 1, "{g:?}");
        let s = g.spans[0];
        assert_eq!(s.cause, GapCause::ServerDown);
        let start = s.start.duration_since(t0).as_millis();
        assert!((1990..=2000).contains(&start), "{start}");
        assert_eq!(s.end, ms(t0, 8000));
        assert!(g.open_at_end);
        assert_eq!(g.connection_gaps, 4);
        assert!((23.9..=24.1).contains(&g.connection_secs), "{g:?}");
    }

    #[test]
    fn a_freeze_with_requests_outstanding_is_a_stall() {
        let t0 = Instant::now();
        let mut m = GapMeter::new(t0, 1);
        for t in (0..=1000).step_by(10) {
            m.replied(0, ms(t0, t));
        }
        ticks(&mut m, t0, 1100, 3900, &[Due::Waiting]);
        for t in (4000..5000).step_by(10) {
            m.replied(0, ms(t0, t));
        }
        m.stop(ms(t0, 5000), [Due::Waiting].into_iter());
        let g = m.take();
        assert_eq!(g.spans.len(), 1);
        assert_eq!(g.spans[0].cause, GapCause::Stalled);
        assert_eq!(g.spans[0].end, ms(t0, 4000));
        assert!(!g.open_at_end);
        assert!((2.99..=3.01).contains(&g.connection_secs));
    }

    #[test]
    fn idle_time_is_no_gap_and_short_silences_are_latency() {
        let t0 = Instant::now();
        let mut m = GapMeter::new(t0, 1);
        // Open loop: idle for 3 s between sends.
        ticks(&mut m, t0, 0, 3000, &[Due::Idle]);
        m.replied(0, ms(t0, 3050));
        // A 900 ms reply is a slow reply, not a gap.
        ticks(&mut m, t0, 3100, 3900, &[Due::Waiting]);
        m.replied(0, ms(t0, 3950));
        m.stop(ms(t0, 4000), [Due::Idle].into_iter());
        let none = WorkerGaps {
            connections: 1,
            ..WorkerGaps::default()
        };
        assert_eq!(m.take(), none);
    }

    #[test]
    fn descriptors_name_the_cause_and_nothing_counts_after_the_stop() {
        let t0 = Instant::now();
        let mut m = GapMeter::new(t0, 1);
        m.no_descriptors();
        ticks(&mut m, t0, 100, 2900, &[Due::Down]);
        m.stop(ms(t0, 3000), [Due::Down].into_iter());
        m.replied(0, ms(t0, 9000));
        ticks(&mut m, t0, 9000, 9500, &[Due::Down]);
        let g = m.take();
        assert_eq!(g.spans.len(), 1);
        assert_eq!(g.spans[0].cause, GapCause::DescriptorsExhausted);
        assert!((2.99..=3.01).contains(&g.connection_secs));
        // A connection opened mid-phase is counted from its first tick.
        let mut m = GapMeter::new(t0, 1);
        m.start(t0, 1);
        ticks(&mut m, t0, 0, 500, &[Due::Waiting, Due::Waiting]);
        m.stop(ms(t0, 500), [Due::Waiting, Due::Waiting].into_iter());
        assert_eq!(m.take().connection_gaps, 0);
    }
}
