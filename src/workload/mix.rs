//! The SET:GET command mix: parsing memtier's `--ratio` and turning it into
//! the per-connection sequence of operations.
//!
//! memtier does not draw each command at random; every connection runs a
//! fixed cycle of `set` SETs followed by `get` GETs. [`OpCycle`] reproduces
//! that, so a ratio of 1:10 gives exactly one SET in every eleven requests
//! on every connection rather than only on average.

use std::fmt;
use std::str::FromStr;

use crate::workload::{Op, parse_decimal};

/// How many SETs and GETs make up one cycle of a connection's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    /// SETs per cycle.
    pub set: u32,
    /// GETs per cycle.
    pub get: u32,
}

impl FromStr for Ratio {
    type Err = String;

    /// Parses memtier's `SET:GET` form, such as `1:10`.
    ///
    /// Both counts are plain decimal numbers without signs or spaces. `0:0` is
    /// rejected because it would send no commands at all.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let shape_error = || format!("expected SET:GET such as 1:10, got '{s}'");
        let (set, get) = s.split_once(':').ok_or_else(shape_error)?;
        let set = parse_decimal(set).ok_or_else(shape_error)?;
        let get = parse_decimal(get).ok_or_else(shape_error)?;
        if set == 0 && get == 0 {
            return Err("0:0 sends nothing; use 1:0 for SET-only or 0:1 for GET-only".to_owned());
        }
        Ok(Ratio { set, get })
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.set, self.get)
    }
}

/// Deterministic per-connection cycle: `set` SETs then `get` GETs, repeated
/// (memtier's behaviour).
///
/// A `0:0` ratio cannot come from the parser; if one is built by hand the
/// cycle sends only GETs, because reads leave the server's data untouched.
#[derive(Debug, Clone)]
pub struct OpCycle {
    set: u64,
    period: u64,
    position: u64,
}

impl OpCycle {
    /// Starts a cycle at its first request.
    pub fn new(ratio: Ratio) -> Self {
        // Widening to u64 keeps `set + get` from overflowing for huge counts.
        let set = u64::from(ratio.set);
        OpCycle {
            set,
            period: set + u64::from(ratio.get),
            position: 0,
        }
    }

    /// The operation for the next request.
    #[expect(
        clippy::should_implement_trait,
        reason = "the cycle never ends, so Iterator's Option would only make every caller unwrap"
    )]
    pub fn next(&mut self) -> Op {
        if self.period == 0 {
            return Op::Get;
        }
        let op = if self.position < self.set {
            Op::Set
        } else {
            Op::Get
        };
        self.position += 1;
        if self.position == self.period {
            self.position = 0;
        }
        op
    }

    /// Returns to the start of the cycle, as a reconnected connection does.
    pub fn reset(&mut self) {
        self.position = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(ratio: &str, n: usize) -> String {
        let ratio: Ratio = ratio.parse().unwrap();
        let mut cycle = OpCycle::new(ratio);
        (0..n)
            .map(|_| match cycle.next() {
                Op::Set => 'S',
                Op::Get => 'G',
            })
            .collect()
    }

    #[test]
    fn ratio_parses_set_and_get_counts() {
        assert_eq!("1:10".parse(), Ok(Ratio { set: 1, get: 10 }));
        assert_eq!("1:0".parse(), Ok(Ratio { set: 1, get: 0 }));
        assert_eq!("0:1".parse(), Ok(Ratio { set: 0, get: 1 }));
    }

    #[test]
    fn ratio_display_round_trips() {
        let ratio: Ratio = "2:3".parse().unwrap();
        assert_eq!(ratio.to_string(), "2:3");
    }

    #[test]
    fn ratio_zero_zero_is_rejected_with_advice() {
        let err = "0:0".parse::<Ratio>().unwrap_err();
        assert!(err.contains("1:0") && err.contains("0:1"), "{err}");
    }

    #[test]
    fn ratio_malformed_input_is_rejected() {
        for bad in [
            "1", "a:b", "1:2:3", " 1:1", "1:1 ", "", ":", "1:", "-1:1", "+1:1",
        ] {
            let err = bad.parse::<Ratio>().unwrap_err();
            assert!(
                err.contains("expected SET:GET such as 1:10"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn cycle_one_to_ten_sends_one_set_then_ten_gets() {
        assert_eq!(take("1:10", 22), "SGGGGGGGGGGSGGGGGGGGGG");
    }

    #[test]
    fn cycle_set_only_and_get_only() {
        assert_eq!(take("1:0", 4), "SSSS");
        assert_eq!(take("0:1", 4), "GGGG");
    }

    #[test]
    fn cycle_two_to_three_interleaves_in_blocks() {
        assert_eq!(take("2:3", 12), "SSGGGSSGGGSS");
    }

    #[test]
    fn reset_restarts_the_cycle() {
        let mut cycle = OpCycle::new(Ratio { set: 1, get: 2 });
        assert_eq!(cycle.next(), Op::Set);
        assert_eq!(cycle.next(), Op::Get);
        cycle.reset();
        assert_eq!(cycle.next(), Op::Set);
    }

    #[test]
    fn hand_built_zero_zero_cycle_sends_gets() {
        let mut cycle = OpCycle::new(Ratio { set: 0, get: 0 });
        assert_eq!(cycle.next(), Op::Get);
        assert_eq!(cycle.next(), Op::Get);
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let mut cycle = OpCycle::new(Ratio {
            set: u32::MAX,
            get: u32::MAX,
        });
        assert_eq!(cycle.next(), Op::Set);
    }
}
