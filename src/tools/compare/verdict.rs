//! Whether a difference between a file and the baseline is real: each judged
//! figure (ops/sec, p50, p99, p99.9 latency) is compared with the noise the
//! two files measured for that same figure: their run-to-run spread, or,
//! when each file is a single run, the 95 % intervals of its figures
//! (batch means, docs/precision.md).
//!
//! The rule (docs/compare.md): a figure's ratio, taken as a factor either
//! way (0.5× is as far from 1 as 2×), *moved* when it exceeds the larger of
//! the two files' max/min of that figure over their runs; between two
//! single runs, when the two figures' 95 % intervals do not overlap. A row is
//! noise only when no judged figure moved; a p99 7.9× the baseline's is never
//! noise because throughput stayed level. Without either measure of the
//! noise, the verdict says so instead of guessing.

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

    /// Half the width of the row's 95 % interval of this figure, in its
    /// unit.
    pub fn half_width(self, row: &OpRow) -> Option<f64> {
        row.half_width[self as usize]
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

/// The noise a figure's change was judged against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Noise {
    /// The larger run-to-run max/min of the two files.
    Spread(f64),
    /// Each file a single run: the half-widths of the two 95 % intervals,
    /// as fractions of their figures.
    Intervals {
        /// The baseline's.
        base: f64,
        /// The other file's.
        other: f64,
    },
}

/// A figure that moved beyond its noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Move {
    /// Which figure, by how much.
    pub change: Change,
    /// What it moved beyond.
    pub noise: Noise,
    /// How far beyond: the change over the noise (above 1).
    beyond: f64,
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
    /// Every judged figure within its noise: the largest spread among
    /// them, or overlapping intervals.
    Noise(Noise),
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
    let mut judged: Option<Noise> = None;
    for metric in Judged::ALL {
        let Some(((o, b), r)) = metric
            .of(other)
            .zip(metric.of(base))
            .and_then(|(o, b)| Some(((o, b), ratio(o, b)?)))
        else {
            continue;
        };
        let change = Change { metric, ratio: r };
        changes.push(change);
        // One file's runs are a measured spread too; with both, the larger
        // one, so no difference within either file's noise reads as real.
        let spread = metric
            .spread(base)
            .into_iter()
            .chain(metric.spread(other))
            .reduce(f64::max);
        let (noise, beyond) = if let Some(spread) = spread {
            judged = Some(match judged {
                Some(Noise::Spread(s)) => Noise::Spread(s.max(spread)),
                _ => Noise::Spread(spread),
            });
            (Noise::Spread(spread), factor(r) / spread)
        } else if let Some((ho, hb)) = metric.half_width(other).zip(metric.half_width(base)) {
            // Two single runs: the difference is real only where the two
            // intervals do not overlap.
            let noise = Noise::Intervals {
                base: relative(hb, b),
                other: relative(ho, o),
            };
            judged.get_or_insert(noise);
            let apart = if ho + hb > 0.0 {
                (o - b).abs() / (ho + hb)
            } else if o == b {
                0.0
            } else {
                f64::INFINITY
            };
            (noise, apart)
        } else {
            continue;
        };
        if beyond > 1.0 {
            moves.push(Move {
                change,
                noise,
                beyond,
            });
        }
    }
    if changes.is_empty() {
        return Verdict::NotComparable;
    }
    if !moves.is_empty() {
        // Farthest beyond its own noise first: that is the headline.
        moves.sort_by(|a, b| b.beyond.total_cmp(&a.beyond));
        return Verdict::Moved { moves };
    }
    match judged {
        Some(noise) => Verdict::Noise(noise),
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

/// `half_width` as a fraction of `value` (0 for a zero value).
fn relative(half_width: f64, value: f64) -> f64 {
    if value > 0.0 { half_width / value } else { 0.0 }
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
            Verdict::Noise(Noise::Spread(spread)) => write!(
                f,
                "noise (every figure within its runs' spread, up to {})",
                percent_spread(*spread)
            ),
            Verdict::Noise(Noise::Intervals { .. }) => {
                f.write_str("noise (every figure's 95 % interval overlaps the baseline's)")
            }
            Verdict::Moved { moves } => {
                for (i, m) in moves.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    // The rule compares factors either way, so a fall is
                    // also given as the factor it divides by (0.5× is ÷2.00):
                    // that is the number set against the spread, which is
                    // never negative.
                    let noise = match m.noise {
                        Noise::Spread(spread) => {
                            format!("beyond {} spread", percent_spread(spread))
                        }
                        Noise::Intervals { base, other } => format!(
                            "95 % intervals apart: ±{:.1} % and ±{:.1} %",
                            base * 100.0,
                            other * 100.0
                        ),
                    };
                    if m.change.ratio < 1.0 {
                        let by = 1.0 / m.change.ratio;
                        write!(f, "{} (÷{by:.2}, {noise})", m.change)?;
                    } else {
                        write!(f, "{} ({noise})", m.change)?;
                    }
                }
                Ok(())
            }
        }
    }
}
