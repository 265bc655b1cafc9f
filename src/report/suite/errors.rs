//! The error replies of one suite step: how many, their share of all its
//! replies and the most frequent kind. A step whose requests the server
//! refused still has a rate and latencies, but they measure the refusals;
//! its row is marked with [`StepErrors`]'s `Display` and stderr names it;
//! [`StepResult::verdict`] decides whether the step is a measurement at all.

use std::fmt;

use crate::engine::stats::OpStats;
use crate::protocol::error_kind::ServerErrorKind;
use crate::report::suite::StepResult;
use crate::report::verdict::Verdict;

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

    /// Whether the step measured the test asked for: its runs judged as a
    /// benchmark's are (error replies over `--max-error-share`, nothing
    /// answered, requests lost); the suite's exit code follows every step's.
    pub fn verdict(&self) -> Verdict {
        Verdict::of_results(&self.step.config, &self.results)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::stats::OpStats;
    use crate::protocol::error_kind::ServerErrorKind;
    use crate::report::suite::StepErrors;

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
