//! The error replies of one suite test: how many, their share of all its
//! replies, the most frequent kind and the count of each. A test whose
//! requests the server refused still has a rate and latencies, but they
//! measure the refusals; its row is marked with [`StepErrors`]'s `Display`,
//! stderr names it and `-e` lists its kinds.

use std::fmt;

use crate::protocol::error_kind::ServerErrorKind;

/// Error replies by kind, in [`ServerErrorKind::ALL`]'s order.
pub type ByKind = [u64; ServerErrorKind::ALL.len()];

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
    /// Replies of each kind.
    pub by_kind: ByKind,
}

impl StepErrors {
    /// The error replies among `replies`, `errors` of them, `by_kind` by
    /// kind; `None` when no reply was one.
    pub fn of(replies: u64, errors: u64, by_kind: ByKind) -> Option<StepErrors> {
        if errors == 0 {
            return None;
        }
        let mut kind = ServerErrorKind::Other;
        let mut kind_count = 0;
        for (k, n) in ServerErrorKind::ALL.iter().zip(by_kind) {
            // Strictly more: a tie keeps the kind declared first.
            if n > kind_count {
                (kind, kind_count) = (*k, n);
            }
        }
        Some(StepErrors {
            errors,
            // An error is a reply too, so `replies` holds it; `max` keeps the
            // share at most 1 should the counts ever disagree.
            replies: replies.max(errors),
            kind,
            kind_count,
            by_kind,
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

#[cfg(test)]
mod tests {
    use crate::protocol::error_kind::ServerErrorKind;
    use crate::report::suite::StepErrors;
    use crate::report::suite::errors::ByKind;

    fn totals(count: u64, by_kind: &[(ServerErrorKind, u64)]) -> Option<StepErrors> {
        let mut counts: ByKind = Default::default();
        for (kind, n) in by_kind {
            let i = ServerErrorKind::ALL.iter().position(|k| k == kind).unwrap();
            counts[i] += n;
        }
        StepErrors::of(count, counts.iter().sum(), counts)
    }

    #[test]
    fn no_error_reply_is_no_step_errors() {
        assert_eq!(totals(1000, &[]), None);
    }

    #[test]
    fn the_most_frequent_kind_is_named_and_a_tie_keeps_the_first_declared() {
        let e = totals(100, &[(ServerErrorKind::Err, 2), (ServerErrorKind::Oom, 5)]).unwrap();
        assert_eq!(
            (e.errors, e.replies, e.kind, e.kind_count),
            (7, 100, ServerErrorKind::Oom, 5)
        );
        let tie = totals(
            10,
            &[(ServerErrorKind::NoAuth, 3), (ServerErrorKind::Err, 3)],
        )
        .unwrap();
        assert_eq!(tie.kind, ServerErrorKind::Err);
    }

    #[test]
    fn the_marker_names_one_kind_or_the_most_frequent_of_several() {
        let one = totals(1000, &[(ServerErrorKind::Err, 1000)]).unwrap();
        assert_eq!(one.to_string(), "(1000 of 1000 replies were errors: ERR)");
        let several = totals(
            1000,
            &[(ServerErrorKind::Oom, 10), (ServerErrorKind::Err, 2)],
        )
        .unwrap();
        assert_eq!(
            several.to_string(),
            "(12 of 1000 replies were errors, most of them OOM)"
        );
    }

    #[test]
    fn the_stderr_line_names_the_test_count_share_and_kind() {
        let e = totals(2000, &[(ServerErrorKind::Err, 12)]).unwrap();
        let line = e.line("INCR");
        assert!(
            line.starts_with(
                "[INCR] 12 of 2000 replies (0.6 %) were errors, most of them ERR (12)"
            ),
            "{line}"
        );
        let tiny = totals(100_000, &[(ServerErrorKind::Err, 1)]).unwrap();
        assert_eq!(tiny.percent(), "<0.1 %");
    }
}
