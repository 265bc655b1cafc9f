//! Intended send times for open-loop load (`--rate`).
//!
//! Each connection owns a [`Schedule`]: the intended instant of its next request,
//! advanced by a constant gap (staggered across connections so that they do not
//! fire together) or by exponential gaps (a Poisson process; the superposition of
//! the connections' processes is again Poisson at the total rate). The schedule
//! never waits for replies: a request that cannot be sent on time keeps its
//! intended time, and its response time is measured from it. That is what keeps
//! a server stall in the percentiles (no coordinated omission).
//!
//! memtier's `--rate-limiting` is a cap, not a schedule ([`Missed::Skipped`]):
//! memtier gives each connection a budget of requests per 20 ms interval and
//! refills it, never adding up the intervals a stall let pass. Here a send
//! less than one such interval late still catches up (timer jitter costs no
//! rate), and a later one skips what it missed: the schedule goes on from the
//! late send. A cap also counts its sends in each second of the phase (the
//! per-second series' seconds) and holds the next one to the second after
//! when the share is spent: a connection never sends more than its share in
//! any second.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Exp};

use crate::config::{Arrival, Missed, Rate};

/// One connection's sequence of intended send times.
#[derive(Debug, Clone)]
pub struct Schedule {
    start: Instant,
    /// Offset of the next intended send time from `start`, in ns.
    next_ns: f64,
    /// Mean gap between intended send times, in ns.
    gap_ns: f64,
    exp: Option<Exp<f64>>,
    rng: SmallRng,
    /// With [`Missed::Skipped`]: how late a send may fall and still catch up,
    /// in ns (memtier's rate-limiting interval); `None` keeps every send time.
    allowance_ns: Option<f64>,
    /// With [`Missed::Skipped`]: the most sends in one second of the phase.
    share: u64,
    /// The second of the phase of the last send, and the sends in it.
    second: u64,
    sent_in_second: u64,
}

/// memtier's rate-limiting interval holds at least this many per second.
const MEMTIER_INTERVALS_PER_SEC: f64 = 50.0;

impl Schedule {
    /// The schedule of connection `slot` of `slots`, for a phase starting at `start`.
    pub fn new(rate: Rate, slot: u64, slots: u64, start: Instant, seed: u64) -> Schedule {
        let per_conn = rate.total_per_sec / slots.max(1) as f64;
        let gap_ns = 1e9 / per_conn;
        let mut rng = SmallRng::seed_from_u64(seed);
        // Exp::new fails only for a negative or NaN rate, which config rules out.
        let exp = match rate.arrival {
            Arrival::Poisson => Exp::new(1.0 / gap_ns).ok(),
            Arrival::Constant => None,
        };
        let next_ns = match &exp {
            Some(exp) => exp.sample(&mut rng),
            // Connection k starts k/total seconds in: the first request of every
            // connection falls within the first gap, evenly spread.
            None => slot as f64 * 1e9 / rate.total_per_sec,
        };
        // memtier: ceil(rate / 50) requests per interval, so the interval is
        // that many gaps (20 ms, or one gap below 50 requests a second).
        let allowance_ns = match rate.missed {
            Missed::Kept => None,
            Missed::Skipped => {
                Some((per_conn / MEMTIER_INTERVALS_PER_SEC).ceil().max(1.0) * gap_ns)
            }
        };
        Schedule {
            start,
            next_ns,
            gap_ns,
            exp,
            rng,
            allowance_ns,
            share: per_conn.ceil() as u64,
            second: 0,
            sent_in_second: 0,
        }
    }

    /// The intended send time of the next request; with a cap whose share of
    /// the current second is spent, the start of the next second.
    #[inline]
    pub fn next_due(&self) -> Instant {
        let due = self.start + Duration::from_nanos(self.next_ns as u64);
        if self.allowance_ns.is_some() && self.sent_in_second >= self.share {
            due.max(self.start + Duration::from_secs(self.second + 1))
        } else {
            due
        }
    }

    /// Moves on past a request sent at `sent_at`. With [`Missed::Skipped`], a
    /// send later than the allowance skips the send times it missed: the
    /// next one is a gap after `sent_at`.
    #[inline]
    pub fn advance(&mut self, sent_at: Instant) {
        let step = match &self.exp {
            Some(exp) => exp.sample(&mut self.rng),
            None => self.gap_ns,
        };
        self.next_ns += step;
        if let Some(allowance) = self.allowance_ns {
            let sent_ns = self.offset_ns(sent_at);
            if sent_ns - self.next_ns > allowance {
                self.next_ns = sent_ns + step;
            }
            let second = (sent_ns / 1e9) as u64;
            if second != self.second {
                self.second = second;
                self.sent_in_second = 0;
            }
            self.sent_in_second += 1;
        }
    }

    /// With [`Missed::Skipped`]: drops the send times more than the allowance
    /// before `now`, which a cap never sends (those within it stay due).
    pub fn skip_missed(&mut self, now: Instant) {
        if let Some(allowance) = self.allowance_ns {
            self.next_ns = self.next_ns.max(self.offset_ns(now) - allowance);
        }
    }

    /// `at` as an offset from the start, ns (0 before it).
    fn offset_ns(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.start).as_nanos() as f64
    }

    /// How many requests were due strictly before `until` and are not sent yet
    /// (the backlog); exact for constant gaps, the expected count for Poisson gaps.
    /// A request intended exactly at a deadline is not due before it. With
    /// [`Missed::Skipped`], only those within the allowance are due.
    pub fn due_by(&self, until: Instant) -> u64 {
        let due = self.next_due();
        if until <= due {
            return 0;
        }
        let late_ns = until.duration_since(due).as_nanos() as f64;
        let late_ns = self.allowance_ns.map_or(late_ns, |a| late_ns.min(a));
        (late_ns / self.gap_ns).ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(total: f64, arrival: Arrival) -> Rate {
        Rate {
            total_per_sec: total,
            arrival,
            missed: Missed::Kept,
        }
    }

    fn cap(total: f64) -> Rate {
        Rate {
            missed: Missed::Skipped,
            ..rate(total, Arrival::Constant)
        }
    }

    #[test]
    fn constant_gaps_are_exact_and_staggered_by_slot() {
        let t0 = Instant::now();
        let mut a = Schedule::new(rate(1000.0, Arrival::Constant), 0, 4, t0, 1);
        let b = Schedule::new(rate(1000.0, Arrival::Constant), 1, 4, t0, 1);
        assert_eq!(a.next_due(), t0);
        assert_eq!(b.next_due() - t0, Duration::from_millis(1));
        a.advance(t0);
        assert_eq!(a.next_due() - t0, Duration::from_millis(4));
    }

    #[test]
    fn poisson_gaps_average_to_the_rate() {
        let t0 = Instant::now();
        let mut s = Schedule::new(rate(1000.0, Arrival::Poisson), 0, 1, t0, 7);
        for _ in 0..20_000 {
            s.advance(t0);
        }
        let secs = (s.next_due() - t0).as_secs_f64();
        // 20 000 gaps of mean 1 ms: 20 s, with a standard deviation of about 0.14 s.
        assert!((19.3..20.7).contains(&secs), "{secs}");
    }

    #[test]
    fn backlog_counts_requests_due_but_unsent() {
        let t0 = Instant::now();
        let s = Schedule::new(rate(1000.0, Arrival::Constant), 0, 1, t0, 1);
        assert_eq!(s.due_by(t0 + Duration::from_micros(9500)), 10);
        // Due at 0, 1, ..., 9 ms: the one at exactly 10 ms is not due before 10 ms.
        assert_eq!(s.due_by(t0 + Duration::from_millis(10)), 10);
        assert_eq!(s.due_by(t0), 0);
        let later = Schedule::new(
            rate(1000.0, Arrival::Constant),
            0,
            1,
            t0 + Duration::from_secs(1),
            1,
        );
        assert_eq!(later.due_by(t0), 0);
    }

    #[test]
    fn kept_send_times_are_all_sent_after_a_stall() {
        let t0 = Instant::now();
        let mut s = Schedule::new(rate(200.0, Arrival::Constant), 0, 1, t0, 1);
        let resumed = t0 + Duration::from_secs(1);
        let mut sent = 0;
        while s.next_due() < resumed {
            s.advance(resumed);
            sent += 1;
        }
        // Due at 0, 5, ..., 995 ms: all 200 go out at once after a 1 s stall.
        assert_eq!(sent, 200);
        assert_eq!(s.next_due() - t0, Duration::from_secs(1));
    }

    #[test]
    fn a_cap_skips_what_a_stall_missed_and_paces_on_from_the_late_send() {
        let t0 = Instant::now();
        // 200/s: memtier's interval is 4 requests, 20 ms.
        let mut s = Schedule::new(cap(200.0), 0, 1, t0, 1);
        let resumed = t0 + Duration::from_secs(1);
        assert_eq!(s.due_by(resumed), 4, "a cap's backlog is one interval");
        // The request due at 0 goes out 1 s late; the 199 after it are skipped.
        s.advance(resumed);
        assert!(s.next_due() > resumed);
        assert_eq!(s.next_due() - resumed, Duration::from_millis(5));
        let mut sent = 1;
        let second_later = resumed + Duration::from_secs(1);
        while s.next_due() < second_later {
            let due = s.next_due();
            s.advance(due);
            sent += 1;
        }
        assert_eq!(sent, 200, "one second's share, not 400");
    }

    #[test]
    fn a_cap_catches_up_jitter_within_memtiers_interval() {
        let t0 = Instant::now();
        let mut s = Schedule::new(cap(200.0), 0, 1, t0, 1);
        // Sent 15 ms late (under the 20 ms interval): the schedule holds.
        s.advance(t0 + Duration::from_millis(15));
        assert_eq!(s.next_due() - t0, Duration::from_millis(5));
        // Below 50/s the interval is one gap.
        let mut slow = Schedule::new(cap(10.0), 0, 1, t0, 1);
        slow.advance(t0 + Duration::from_millis(150));
        assert_eq!(slow.next_due() - t0, Duration::from_millis(100));
        let mut slower = Schedule::new(cap(10.0), 0, 1, t0, 1);
        slower.advance(t0 + Duration::from_millis(250));
        assert_eq!(slower.next_due() - t0, Duration::from_millis(350));
        // Draining after a stall: only the last interval's send times stay due.
        let mut drained = Schedule::new(cap(200.0), 0, 1, t0, 1);
        drained.skip_missed(t0 + Duration::from_secs(1));
        assert_eq!(drained.next_due() - t0, Duration::from_millis(980));
    }

    #[test]
    fn a_cap_never_sends_more_than_its_share_in_a_second() {
        let t0 = Instant::now();
        let mut s = Schedule::new(cap(200.0), 0, 1, t0, 1);
        // A 20 ms hiccup at 0.985 s: the sends due at 985 to 1 000 ms go out
        // at 1.005 s, within the interval, so they catch up; but the second
        // from 1 s holds only 200 of them and the rest of the schedule.
        let mut sent_by_second = [0u64; 3];
        let mut now = t0;
        while s.next_due() < t0 + Duration::from_secs(3) {
            let due = s.next_due();
            now = if (985..1005).contains(&(due - t0).as_millis()) {
                t0 + Duration::from_millis(1005)
            } else {
                due.max(now)
            };
            let at = now;
            s.advance(at);
            sent_by_second[((at - t0).as_millis() / 1000) as usize] += 1;
        }
        assert_eq!(sent_by_second, [197, 200, 200]);
    }
}
