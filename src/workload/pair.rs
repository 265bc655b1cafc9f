//! memtier's options on its SET/GET pair, as data the op table carries: the
//! SETs' expiry (`--expiry-range`), WAIT between writes (`--wait-ratio`,
//! `--num-slaves`, `--wait-timeout`), MGET in place of GET
//! (`--multi-key-get`) and values written at an offset (`--data-offset`).
//!
//! The draws here take only the connection's RNG and a few integers, so the
//! hot path stays free of allocation.

use std::fmt;

use rand::Rng;
use rand_distr::StandardNormal;

use crate::protocol::resp::ExpiryCommand;
use crate::workload::parse_decimal;

/// An inclusive range of whole numbers, as memtier's `MIN-MAX` flags give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Smallest value, inclusive.
    pub min: u32,
    /// Largest value, inclusive.
    pub max: u32,
}

/// Why a `MIN-MAX` or `A:B` value could not be read; `config` adds the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpanError {
    /// Not two whole numbers around the separator.
    #[error("expected {shape}, got '{given}'")]
    Shape {
        /// The form expected, with an example.
        shape: &'static str,
        /// What was given.
        given: String,
    },
    /// A range whose minimum is above its maximum.
    #[error("the minimum {min} is above the maximum {max}; swap them")]
    Inverted {
        /// The minimum given.
        min: u32,
        /// The maximum given.
        max: u32,
    },
}

impl Span {
    /// memtier's `MIN-MAX` form, such as `10-100`.
    pub fn parse(s: &str) -> Result<Span, SpanError> {
        let (min, max) = s
            .split_once('-')
            .and_then(|(a, b)| Some((parse_decimal(a)?, parse_decimal(b)?)))
            .ok_or_else(|| SpanError::Shape {
                shape: "MIN-MAX such as 10-100",
                given: s.to_string(),
            })?;
        if min > max {
            return Err(SpanError::Inverted { min, max });
        }
        Ok(Span { min, max })
    }

    /// A uniform draw in the range, as memtier's `random_range`.
    #[inline]
    pub fn uniform<R: Rng + ?Sized>(self, rng: &mut R) -> u32 {
        rng.random_range(self.min..=self.max)
    }

    /// memtier's draw for `--wait-timeout`: normal around the middle of the
    /// range with a sixth of its width as standard deviation, redrawn until it
    /// lands in `min..max + 1`, then truncated.
    #[inline]
    pub fn gaussian<R: Rng + ?Sized>(self, rng: &mut R) -> u32 {
        if self.min == self.max {
            return self.min;
        }
        let (lo, hi) = (f64::from(self.min), f64::from(self.max));
        let median = lo + (hi - lo) / 2.0;
        let stddev = (hi - lo) / 6.0;
        // Six standard deviations fit the range, so a redraw is rare
        // (about one in 370); the bound keeps a broken RNG from looping.
        for _ in 0..64 {
            let z: f64 = rng.sample(StandardNormal);
            let value = median + z * stddev;
            if value >= lo && value < hi + 1.0 {
                return (value as u32).min(self.max);
            }
        }
        median as u32
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.min, self.max)
    }
}

/// When a connection sends its WAITs: after how many SETs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitRule {
    /// Exactly `waits` WAITs for every `sets` SETs: the ratio as written.
    Exact,
    /// memtier's rule (`--memtier-compat`): a WAIT first, then another
    /// whenever SETs / WAITs (integer division) exceeds sets / waits, which
    /// sends one SET more per WAIT than the ratio says (1:1 gives 2 SETs per WAIT).
    Memtier,
}

/// `--wait-ratio` with `--num-slaves` and `--wait-timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitPlan {
    /// SETs of the ratio.
    pub sets: u32,
    /// WAITs of the ratio (at least 1).
    pub waits: u32,
    /// The replicas each WAIT asks for, drawn uniformly.
    pub replicas: Span,
    /// Each WAIT's timeout in milliseconds, drawn as memtier does.
    pub timeout_ms: Span,
    /// When the WAITs fall.
    pub rule: WaitRule,
}

impl WaitPlan {
    /// memtier's `SET:WAIT` form, such as `10:1`.
    pub fn parse_ratio(s: &str) -> Result<(u32, u32), SpanError> {
        s.split_once(':')
            .and_then(|(a, b)| Some((parse_decimal(a)?, parse_decimal(b)?)))
            .ok_or_else(|| SpanError::Shape {
                shape: "SET:WAIT such as 10:1",
                given: s.to_string(),
            })
    }
}

/// One connection's count of SETs and WAITs, which decides when a WAIT is due.
#[derive(Debug, Clone, Copy, Default)]
pub struct WaitGate {
    sets: u64,
    waits: u64,
}

impl WaitGate {
    /// True when the next request should be a WAIT under `plan`.
    #[inline]
    pub fn due(&self, plan: &WaitPlan) -> bool {
        let (a, b) = (u64::from(plan.sets), u64::from(plan.waits));
        match plan.rule {
            // After every `a` SETs, `b` WAITs: the next WAIT is due once the
            // SETs reach its share, (waits + 1) × a / b.
            WaitRule::Exact => (self.waits + 1) * a <= self.sets * b,
            WaitRule::Memtier => self.waits == 0 || self.sets / self.waits > a / b.max(1),
        }
    }

    /// Counts a SET sent.
    #[inline]
    pub fn count_set(&mut self) {
        self.sets += 1;
    }

    /// Counts a WAIT sent.
    #[inline]
    pub fn count_wait(&mut self) {
        self.waits += 1;
    }
}

/// Everything memtier's flags add to the SET/GET pair; the default adds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PairOptions {
    /// `--expiry-range`: each SET's expiry in seconds (0 drawn: none).
    pub expiry: Option<(Span, ExpiryCommand)>,
    /// `--wait-ratio` and its ranges.
    pub wait: Option<WaitPlan>,
    /// `--multi-key-get N`: GETs become MGETs of up to N keys.
    pub multi_get: Option<u32>,
    /// `--data-offset`: SETRANGE / GETRANGE at this byte offset (0: SET / GET).
    pub data_offset: u32,
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    use super::{Span, SpanError, WaitGate, WaitPlan, WaitRule};

    fn plan(sets: u32, waits: u32, rule: WaitRule) -> WaitPlan {
        let span = Span { min: 0, max: 0 };
        WaitPlan {
            sets,
            waits,
            replicas: span,
            timeout_ms: span,
            rule,
        }
    }

    /// The letters of `n` requests: W for a WAIT, S for a SET (a SET-only run).
    fn sequence(plan: &WaitPlan, n: usize) -> String {
        let mut gate = WaitGate::default();
        (0..n)
            .map(|_| {
                if gate.due(plan) {
                    gate.count_wait();
                    'W'
                } else {
                    gate.count_set();
                    'S'
                }
            })
            .collect()
    }

    #[test]
    fn the_exact_rule_sends_the_ratio_as_written() {
        assert_eq!(sequence(&plan(3, 1, WaitRule::Exact), 8), "SSSWSSSW");
        assert_eq!(sequence(&plan(1, 2, WaitRule::Exact), 6), "SWWSWW");
    }

    #[test]
    fn memtiers_rule_starts_with_a_wait_and_sends_one_set_more_per_wait() {
        assert_eq!(sequence(&plan(1, 1, WaitRule::Memtier), 7), "WSSWSSW");
        assert_eq!(sequence(&plan(3, 1, WaitRule::Memtier), 10), "WSSSSWSSSS");
    }

    #[test]
    fn spans_parse_memtiers_form_and_refuse_the_rest() {
        assert_eq!(Span::parse("10-100"), Ok(Span { min: 10, max: 100 }));
        assert_eq!(Span::parse("5-5"), Ok(Span { min: 5, max: 5 }));
        assert!(matches!(
            Span::parse("9-1"),
            Err(SpanError::Inverted { .. })
        ));
        assert!(matches!(Span::parse("10"), Err(SpanError::Shape { .. })));
        assert!(matches!(Span::parse("-1-5"), Err(SpanError::Shape { .. })));
        assert_eq!(WaitPlan::parse_ratio("10:1"), Ok((10, 1)));
        assert!(WaitPlan::parse_ratio("10").is_err());
    }

    #[test]
    fn the_gaussian_draw_stays_in_the_range_and_centres_on_its_middle() {
        let span = Span { min: 100, max: 200 };
        let mut rng = SmallRng::seed_from_u64(7);
        let draws: Vec<u32> = (0..20_000).map(|_| span.gaussian(&mut rng)).collect();
        assert!(draws.iter().all(|&d| (100..=200).contains(&d)));
        let mean = draws.iter().map(|&d| f64::from(d)).sum::<f64>() / draws.len() as f64;
        assert!((148.0..152.0).contains(&mean), "{mean}");
        assert_eq!(Span { min: 4, max: 4 }.gaussian(&mut rng), 4);
    }
}
