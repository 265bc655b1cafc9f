//! One progress line from its fields: the text of each field, and the fitting
//! of the line to a terminal's width by dropping the least important fields.
//!
//! Pure text, no I/O and no clock, so that the fitting is tested here.

use std::fmt::Write;
use std::time::Duration;

/// Between two fields.
const SEPARATOR: &str = " | ";

/// One field of the line, with its rank: 0 is kept longest, higher ranks are
/// dropped first when the line does not fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Lower is more important.
    pub rank: u8,
    /// What is printed.
    pub text: String,
}

/// The fields in display order, joined, whole (a log line has no width).
pub fn join(fields: &[Field]) -> String {
    let mut line = String::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            line.push_str(SEPARATOR);
        }
        line.push_str(&field.text);
    }
    line
}

/// The fields in display order, joined, at most `width` characters: the
/// highest-ranked fields are left out until the rest fits; a lone field that is
/// still too wide is cut. Fields are free of control characters and wide
/// characters, so characters and columns are the same count here.
pub fn fit(fields: &[Field], width: usize) -> String {
    let mut kept: Vec<&Field> = fields.iter().collect();
    while kept.len() > 1 && joined_len(&kept) > width {
        // The last of the least important: ties drop the rightmost first.
        let worst = kept
            .iter()
            .enumerate()
            .max_by_key(|(i, f)| (f.rank, *i))
            .map_or(0, |(i, _)| i);
        kept.remove(worst);
    }
    let line = join(&kept.into_iter().cloned().collect::<Vec<_>>());
    line.chars().take(width).collect()
}

fn joined_len(fields: &[&Field]) -> usize {
    let text: usize = fields.iter().map(|f| f.text.chars().count()).sum();
    text + SEPARATOR.len() * fields.len().saturating_sub(1)
}

/// A duration as a person reads it at a glance: `45s`, `12m05s`, `3h02m`;
/// `None` (not known yet) is `?`.
pub fn short_duration(d: Option<Duration>) -> String {
    let Some(d) = d else {
        return "?".to_string();
    };
    let secs = d.as_secs();
    let mut out = String::new();
    let _ = match secs {
        0..60 => write!(out, "{secs}s"),
        60..3600 => write!(out, "{}m{:02}s", secs / 60, secs % 60),
        _ => write!(out, "{}h{:02}m", secs / 3600, secs % 3600 / 60),
    };
    out
}

#[cfg(test)]
mod tests {
    use super::{Field, fit, join, short_duration};
    use std::time::Duration;

    fn fields() -> Vec<Field> {
        [
            (0, "run 1/3 10s/20s · all 10s/60s"),
            (2, "1000 ops"),
            (1, "1000 ops/s"),
            (3, "p99 0.100 ms"),
        ]
        .into_iter()
        .map(|(rank, text)| Field {
            rank,
            text: text.to_string(),
        })
        .collect()
    }

    #[test]
    fn a_wide_terminal_gets_every_field() {
        let line = fit(&fields(), 200);
        assert_eq!(line, join(&fields()));
        assert_eq!(
            line,
            "run 1/3 10s/20s · all 10s/60s | 1000 ops | 1000 ops/s | p99 0.100 ms"
        );
    }

    #[test]
    fn a_narrow_terminal_loses_the_least_important_fields_first() {
        // 68 characters in all; without the latency (rank 3) 53.
        assert_eq!(fit(&fields(), 68), join(&fields()));
        assert_eq!(
            fit(&fields(), 67),
            "run 1/3 10s/20s · all 10s/60s | 1000 ops | 1000 ops/s"
        );
        // Then the count (rank 2) goes, though it stands before ops/s.
        assert_eq!(
            fit(&fields(), 52),
            "run 1/3 10s/20s · all 10s/60s | 1000 ops/s"
        );
        assert_eq!(fit(&fields(), 41), "run 1/3 10s/20s · all 10s/60s");
    }

    #[test]
    fn the_last_field_is_cut_rather_than_wrapped() {
        assert_eq!(fit(&fields(), 5), "run 1");
        assert_eq!(fit(&fields(), 0), "");
    }

    #[test]
    fn no_fitted_line_is_wider_than_asked() {
        for width in 0..80 {
            assert!(fit(&fields(), width).chars().count() <= width, "{width}");
        }
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(short_duration(None), "?");
        assert_eq!(short_duration(Some(Duration::from_millis(59_900))), "59s");
        assert_eq!(short_duration(Some(Duration::from_secs(725))), "12m05s");
        assert_eq!(
            short_duration(Some(Duration::from_secs(3 * 3600 + 120))),
            "3h02m"
        );
    }
}
