//! Whether a difference between a file and the baseline is real: each judged
//! figure (ops/sec, p50, p99, p99.9 latency) is compared with the run-to-run
//! spread the two files measured for that same figure.
//!
//! The rule (docs/compare.md): a figure's ratio, taken as a factor either
//! way (0.5× is as far from 1 as 2×), *moved* when it exceeds the larger of
//! the two files' max/min of that figure over their runs. A row is noise only
//! when no judged figure moved; a p99 7.9× the baseline's is never noise
//! because throughput stayed level. Without two runs in either file there is
//! no measured noise, and the verdict says so instead of guessing.

use std::fmt;

use crate::report::spread;
use crate::tools::compare::{OpRow, ratio};

/// A figure the verdict judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// Ops/sec.
    OpsPerSec,
    /// p50 latency.
    P50,
    /// p99 latency.
    P99,
    /// p99.9 latency.
    P999,
}

impl Judged {
    /// Every judged figure, in the order of [`OpRow::spread`].
    pub const ALL: [Judged; 4] = [Judged::OpsPerSec, Judged::P50, Judged::P99, Judged::P999];

    /// Its name in a verdict.
    pub fn name(self) -> &'static str {
        match self {
            Judged::OpsPerSec => "ops/sec",
            Judged::P50 => "p50",
            Judged::P99 => "p99",
            Judged::P999 => "p99.9",
        }
    }

    /// The figure in one row.
    pub fn of(self, row: &OpRow) -> Option<f64> {
        match self {
            Judged::OpsPerSec => Some(row.ops_per_sec),
            Judged::P50 => row.percentiles_ms[0],
            Judged::P99 => row.percentiles_ms[1],
            Judged::P999 => row.percentiles_ms[2],
        }
    }

    /// The row's run-to-run max/min of this figure.
    pub fn spread(self, row: &OpRow) -> Option<f64> {
        row.spread[self as usize]
    }
}

/// One figure's ratio to the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// Which figure.
    pub metric: Judged,
    /// Its value over the baseline's.
    pub ratio: f64,
}

/// A figure that moved beyond its spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Move {
    /// Which figure, by how much.
    pub change: Change,
    /// The larger run-to-run max/min of the two files for it.
    pub spread: f64,
}

/// What the difference between a row and the baseline's means.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The first file's own row.
    Baseline,
    /// This file or the baseline lacks the row, or has nothing to divide by.
    NotComparable,
    /// Neither file ran twice: no spread to judge against. The changes are
    /// ops/sec's and the largest latency change.
    NoSpread {
        /// The figures' ratios, ops/sec first.
        changes: Vec<Change>,
    },
    /// Every judged figure within its spread.
    Noise {
        /// The largest spread among the judged figures.
        spread: f64,
    },
    /// Figures beyond their spread, the farthest beyond first.
    Moved {
        /// What moved, never empty.
        moves: Vec<Move>,
    },
}

/// A ratio as a factor either way: 0.5 and 2 are both 2.
fn factor(r: f64) -> f64 {
    r.max(1.0 / r)
}

/// Judges `other`'s row against the baseline's `base`.
pub fn judge(base: Option<&OpRow>, other: Option<&OpRow>) -> Verdict {
    let (Some(base), Some(other)) = (base, other) else {
        return Verdict::NotComparable;
    };
    let mut changes = Vec::new();
    let mut moves = Vec::new();
    let mut judged_spread: Option<f64> = None;
    for metric in Judged::ALL {
        let Some(r) = metric
            .of(other)
            .zip(metric.of(base))
            .and_then(|(o, b)| ratio(o, b))
        else {
            continue;
        };
        let change = Change { metric, ratio: r };
        changes.push(change);
        // One file's runs are a measured spread too; with both, the larger
        // one, so no difference within either file's noise reads as real.
        let Some(spread) = metric
            .spread(base)
            .into_iter()
            .chain(metric.spread(other))
            .reduce(f64::max)
        else {
            continue;
        };
        judged_spread = Some(judged_spread.map_or(spread, |s| s.max(spread)));
        if factor(r) > spread {
            moves.push(Move { change, spread });
        }
    }
    if changes.is_empty() {
        return Verdict::NotComparable;
    }
    if !moves.is_empty() {
        // Farthest beyond its own noise first: that is the headline.
        moves.sort_by(|a, b| {
            let beyond = |m: &Move| factor(m.change.ratio) / m.spread;
            beyond(b).total_cmp(&beyond(a))
        });
        return Verdict::Moved { moves };
    }
    match judged_spread {
        Some(spread) => Verdict::Noise { spread },
        None => {
            let ops = changes
                .iter()
                .find(|c| c.metric == Judged::OpsPerSec)
                .copied();
            let latency = changes
                .iter()
                .filter(|c| c.metric != Judged::OpsPerSec)
                // The first of equally large changes: p99 before p99.9.
                .fold(None, |best: Option<Change>, c| match best {
                    Some(b) if factor(b.ratio) >= factor(c.ratio) => Some(b),
                    _ => Some(*c),
                });
            Verdict::NoSpread {
                changes: ops.into_iter().chain(latency).collect(),
            }
        }
    }
}

/// A ratio as a signed change: `+690 %`, `-12.5 %` (no decimal from 100 % on).
pub fn percent_change(r: f64) -> String {
    let c = (r - 1.0) * 100.0;
    if c.abs() >= 100.0 {
        format!("{c:+.0} %")
    } else {
        format!("{c:+.1} %")
    }
}

/// A max/min spread as a percentage: `4.0 %` ([`spread::label`], the
/// one definition every output shares).
pub fn percent_spread(max_over_min: f64) -> String {
    spread::label(max_over_min)
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.metric.name(), percent_change(self.ratio))
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Baseline => f.write_str("baseline"),
            Verdict::NotComparable => f.write_str("n/a"),
            Verdict::NoSpread { changes } => {
                f.write_str("no spread measured: run with -x 3 to judge")?;
                if !changes.is_empty() {
                    let shown: Vec<String> = changes.iter().map(Change::to_string).collect();
                    write!(f, " ({})", shown.join(", "))?;
                }
                Ok(())
            }
            Verdict::Noise { spread } => write!(
                f,
                "noise (every figure within its runs' spread, up to {})",
                percent_spread(*spread)
            ),
            Verdict::Moved { moves } => {
                for (i, m) in moves.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    // The rule compares factors either way, so a fall is
                    // also given as the factor it divides by (0.5× is ÷2.00):
                    // that is the number set against the spread, which is
                    // never negative.
                    let spread = percent_spread(m.spread);
                    if m.change.ratio < 1.0 {
                        let by = 1.0 / m.change.ratio;
                        write!(f, "{} (÷{by:.2}, beyond {spread} spread)", m.change)?;
                    } else {
                        write!(f, "{} (beyond {spread} spread)", m.change)?;
                    }
                }
                Ok(())
            }
        }
    }
}
