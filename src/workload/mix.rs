//! The command mix: parsing memtier's `--ratio` and turning weights (the
//! ratio's, or `--command-ratio`'s) into the per-connection sequence of ops.
//!
//! memtier does not draw each command at random; every connection runs a
//! fixed cycle of `set` SETs followed by `get` GETs. [`OpCycle`] reproduces
//! that, so a ratio of 1:10 gives exactly one SET in every eleven requests
//! on every connection rather than only on average.

use std::fmt;
use std::str::FromStr;

use crate::workload::parse_decimal;

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

/// Deterministic per-connection cycle over the ops of the table: `w[0]`
/// requests of op 0, then `w[1]` of op 1, and so on, repeated (memtier's
/// behaviour for `--ratio` and `--command-ratio`).
///
/// A cycle whose weights are all zero cannot come from the parser; if one is
/// built by hand it sends only the last op, which for the default pair is GET,
/// because reads leave the server's data untouched.
#[derive(Debug, Clone)]
pub struct OpCycle {
    /// Where each op's share of the cycle ends: `ends[i]` is the sum of the
    /// weights up to and including op `i`.
    ends: Vec<u64>,
    /// Which op the position is in, so that `next` compares once per request.
    op: usize,
    position: u64,
}

impl OpCycle {
    /// Starts a cycle at its first request.
    pub fn new(weights: &[u32]) -> Self {
        // Widening to u64 keeps the sums from overflowing for huge counts.
        let mut total = 0u64;
        let ends = weights
            .iter()
            .map(|&w| {
                total += u64::from(w);
                total
            })
            .collect();
        let mut cycle = OpCycle {
            ends,
            op: 0,
            position: 0,
        };
        cycle.reset();
        cycle
    }

    /// The index of the op of the next request.
    #[expect(
        clippy::should_implement_trait,
        reason = "the cycle never ends, so Iterator's Option would only make every caller unwrap"
    )]
    #[inline]
    pub fn next(&mut self) -> usize {
        let period = self.ends.last().copied().unwrap_or(0);
        if period == 0 {
            return self.ends.len().saturating_sub(1);
        }
        let op = self.op;
        self.position += 1;
        if self.position == period {
            self.reset();
        } else {
            while self.op + 1 < self.ends.len() && self.position >= self.ends[self.op] {
                self.op += 1;
            }
        }
        op
    }

    /// True when the next request is the first of a cycle (`--transaction`
    /// starts a transaction there).
    #[inline]
    pub fn at_start(&self) -> bool {
        self.position == 0
    }

    /// Returns to the start of the cycle, as a reconnected connection does.
    pub fn reset(&mut self) {
        self.position = 0;
        // The first op with a share: leading zero weights are skipped.
        self.op = self.ends.iter().position(|&end| end > 0).unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(ratio: &str, n: usize) -> String {
        let ratio: Ratio = ratio.parse().unwrap();
        let mut cycle = OpCycle::new(&[ratio.set, ratio.get]);
        (0..n).map(|_| ['S', 'G'][cycle.next()]).collect()
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
        let mut cycle = OpCycle::new(&[1, 2]);
        assert_eq!(cycle.next(), 0);
        assert_eq!(cycle.next(), 1);
        cycle.reset();
        assert_eq!(cycle.next(), 0);
    }

    #[test]
    fn hand_built_zero_zero_cycle_sends_gets() {
        let mut cycle = OpCycle::new(&[0, 0]);
        assert_eq!(cycle.next(), 1);
        assert_eq!(cycle.next(), 1);
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let mut cycle = OpCycle::new(&[u32::MAX, u32::MAX]);
        assert_eq!(cycle.next(), 0);
    }

    #[test]
    fn three_weights_cycle_in_blocks_and_skip_zero_shares() {
        let mut cycle = OpCycle::new(&[0, 2, 0, 1]);
        let seen: Vec<usize> = (0..7).map(|_| cycle.next()).collect();
        assert_eq!(seen, [1, 1, 3, 1, 1, 3, 1]);
    }
}
