//! Intended send times for open-loop load (`--rate`).
//!
//! Each connection owns a [`Schedule`]: the intended instant of its next request,
//! advanced by a constant gap (staggered across connections so that they do not
//! fire together) or by exponential gaps (a Poisson process; the superposition of
//! the connections' processes is again Poisson at the total rate). The schedule
//! never waits for replies: a request that cannot be sent on time keeps its
//! intended time, and its response time is measured from it. That is what keeps
//! a server stall in the percentiles (no coordinated omission).

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand_distr::{Distribution, Exp};

use crate::config::{Arrival, Rate};

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
}

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
        Schedule {
            start,
            next_ns,
            gap_ns,
            exp,
            rng,
        }
    }

    /// The intended send time of the next request.
    #[inline]
    pub fn next_due(&self) -> Instant {
        self.start + Duration::from_nanos(self.next_ns as u64)
    }

    /// Moves on to the following request.
    #[inline]
    pub fn advance(&mut self) {
        self.next_ns += match &self.exp {
            Some(exp) => exp.sample(&mut self.rng),
            None => self.gap_ns,
        };
    }

    /// How many requests were due strictly before `until` and are not sent yet
    /// (the backlog); exact for constant gaps, the expected count for Poisson gaps.
    /// A request intended exactly at a deadline is not due before it.
    pub fn due_by(&self, until: Instant) -> u64 {
        let due = self.next_due();
        if until <= due {
            return 0;
        }
        let late_ns = until.duration_since(due).as_nanos() as f64;
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
        }
    }

    #[test]
    fn constant_gaps_are_exact_and_staggered_by_slot() {
        let t0 = Instant::now();
        let mut a = Schedule::new(rate(1000.0, Arrival::Constant), 0, 4, t0, 1);
        let b = Schedule::new(rate(1000.0, Arrival::Constant), 1, 4, t0, 1);
        assert_eq!(a.next_due(), t0);
        assert_eq!(b.next_due() - t0, Duration::from_millis(1));
        a.advance();
        assert_eq!(a.next_due() - t0, Duration::from_millis(4));
    }

    #[test]
    fn poisson_gaps_average_to_the_rate() {
        let t0 = Instant::now();
        let mut s = Schedule::new(rate(1000.0, Arrival::Poisson), 0, 1, t0, 7);
        for _ in 0..20_000 {
            s.advance();
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
}
