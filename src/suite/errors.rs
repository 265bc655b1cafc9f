//! The error replies of one suite step: how many, their share of all its
//! replies and the most frequent kind. A step whose requests the server
//! refused still has a rate and latencies, but they measure the refusals;
//! its row is marked with [`StepErrors`]'s `Display` and stderr names it, and
//! [`StepResult::errors_exceed`] is the test a verdict on the whole suite
//! (an exit code) applies with its own threshold.

use std::fmt;

use crate::protocol::error_kind::ServerErrorKind;
use crate::stats::OpStats;
use crate::suite::StepResult;

/// The error replies of one step's headline figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepErrors {
    /// Error replies (`-ERR`, `-OOM`, ...).
    pub errors: u64,
    /// Every reply, errors included.
    pub replies: u64,
    /// The most frequent kind (the first in [`ServerErrorKind::ALL`] on a tie).
    pub kind: ServerErrorKind,
    /// Replies of that kind.
    pub kind_count: u64,
}

impl StepErrors {
    /// The error replies counted in `totals`; `None` when no reply was one.
    pub fn of(totals: &OpStats) -> Option<StepErrors> {
        if totals.errors == 0 {
            return None;
        }
        let mut kind = ServerErrorKind::Other;
        let mut kind_count = 0;
        for (k, n) in ServerErrorKind::ALL.iter().zip(totals.errors_by_kind) {
            // Strictly more: a tie keeps the kind declared first.
            if n > kind_count {
                (kind, kind_count) = (*k, n);
            }
        }
        Some(StepErrors {
            errors: totals.errors,
            // An error is a reply too, so `count` holds it; `max` keeps the
            // share at most 1 should the counts ever disagree.
            replies: totals.count.max(totals.errors),
            kind,
            kind_count,
        })
    }

    /// Error replies over all replies, in 0..=1.
    pub fn share(&self) -> f64 {
        self.errors as f64 / self.replies as f64
    }

    /// True when the share of errors is above `max_share` (0..=1): with `0.0`
    /// any error exceeds it, with `1.0` none does.
    pub fn exceeds(&self, max_share: f64) -> bool {
        self.share() > max_share
    }

    /// The share as a percentage for people: one decimal, and `<0.1 %` for
    /// a share that one decimal would round to nothing.
    pub fn percent(&self) -> String {
        let percent = self.share() * 100.0;
        if percent < 0.05 {
            "<0.1 %".to_string()
        } else {
            format!("{percent:.1} %")
        }
    }

    /// The stderr line about the step `name`: the count, the share and the
    /// most frequent kind, and where the messages are.
    pub fn line(&self, name: &str) -> String {
        format!(
            "[{name}] {} of {} replies ({}) were errors, most of them {} ({}): the row's figures include them; see the server's INFO errorstats and log for the messages.",
            self.errors,
            self.replies,
            self.percent(),
            self.kind.as_str(),
            self.kind_count
        )
    }
}

/// The row's marker: `(1000 of 1000 replies were errors: ERR)`, or, when
/// several kinds came, `(12 of 1000 replies were errors, most of them OOM)`.
impl fmt::Display for StepErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (errors, replies, kind) = (self.errors, self.replies, self.kind.as_str());
        if self.kind_count == self.errors {
            write!(f, "({errors} of {replies} replies were errors: {kind})")
        } else {
            write!(
                f,
                "({errors} of {replies} replies were errors, most of them {kind})"
            )
        }
    }
}

impl StepResult {
    /// The error replies of the step's headline figures (its one run, or the
    /// aggregate of `-x` runs), the ones its row prints; `None` when none.
    pub fn errors(&self) -> Option<StepErrors> {
        let section = self.results.headline()?;
        StepErrors::of(&section.stats.totals())
    }

    /// True when more than `max_share` (0..=1) of the step's replies were
    /// errors; a step without errors never exceeds it. The caller validates
    /// `max_share` (a NaN exceeds nothing).
    pub fn errors_exceed(&self, max_share: f64) -> bool {
        self.errors().is_some_and(|e| e.exceeds(max_share))
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::error_kind::ServerErrorKind;
    use crate::stats::OpStats;
    use crate::suite::StepErrors;

    fn totals(count: u64, by_kind: &[(ServerErrorKind, u64)]) -> OpStats {
        let mut s = OpStats::new().unwrap();
        s.count = count;
        for (kind, n) in by_kind {
            for _ in 0..*n {
                s.count_error(*kind);
            }
        }
        s
    }

    #[test]
    fn no_error_reply_is_no_step_errors() {
        assert_eq!(StepErrors::of(&totals(1000, &[])), None);
    }

    #[test]
    fn the_most_frequent_kind_is_named_and_a_tie_keeps_the_first_declared() {
        let e = StepErrors::of(&totals(
            100,
            &[(ServerErrorKind::Err, 2), (ServerErrorKind::Oom, 5)],
        ))
        .unwrap();
        assert_eq!(
            (e.errors, e.replies, e.kind, e.kind_count),
            (7, 100, ServerErrorKind::Oom, 5)
        );
        let tie = StepErrors::of(&totals(
            10,
            &[(ServerErrorKind::NoAuth, 3), (ServerErrorKind::Err, 3)],
        ))
        .unwrap();
        assert_eq!(tie.kind, ServerErrorKind::Err);
    }

    #[test]
    fn a_share_exceeds_the_threshold_only_when_strictly_above_it() {
        let e = StepErrors::of(&totals(1000, &[(ServerErrorKind::Err, 10)])).unwrap();
        assert_eq!(e.share(), 0.01);
        assert!(e.exceeds(0.0) && e.exceeds(0.005));
        assert!(!e.exceeds(0.01) && !e.exceeds(1.0));
        let all = StepErrors::of(&totals(1000, &[(ServerErrorKind::Err, 1000)])).unwrap();
        assert!(all.exceeds(0.99) && !all.exceeds(1.0));
        assert!(!all.exceeds(f64::NAN));
    }

    #[test]
    fn the_marker_names_one_kind_or_the_most_frequent_of_several() {
        let one = StepErrors::of(&totals(1000, &[(ServerErrorKind::Err, 1000)])).unwrap();
        assert_eq!(one.to_string(), "(1000 of 1000 replies were errors: ERR)");
        let several = StepErrors::of(&totals(
            1000,
            &[(ServerErrorKind::Oom, 10), (ServerErrorKind::Err, 2)],
        ))
        .unwrap();
        assert_eq!(
            several.to_string(),
            "(12 of 1000 replies were errors, most of them OOM)"
        );
    }

    #[test]
    fn the_stderr_line_names_the_test_count_share_and_kind() {
        let e = StepErrors::of(&totals(2000, &[(ServerErrorKind::Err, 12)])).unwrap();
        let line = e.line("INCR");
        assert!(
            line.starts_with(
                "[INCR] 12 of 2000 replies (0.6 %) were errors, most of them ERR (12)"
            ),
            "{line}"
        );
        let tiny = StepErrors::of(&totals(100_000, &[(ServerErrorKind::Err, 1)])).unwrap();
        assert_eq!(tiny.percent(), "<0.1 %");
    }
}
