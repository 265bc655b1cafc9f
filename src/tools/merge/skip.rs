//! The files `--allow-partial` leaves out of a set: a shard that missed the
//! start (it reached a planned start later than `--start-tolerance`, so its
//! `kvbench.shard.late` is set and its runs stop there) and, with
//! `--max-skew`, the shards whose RUN #1 started too far from the others'.
//! Without `--allow-partial` each of these refuses the whole merge; with it
//! the file is skipped with a warning that names it, its index counts as
//! missing, and the others merge as a partial set.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use crate::error::UsageError;
use crate::report::model::kvbench::Kvbench;
use crate::tools::merge::check::{self, Read};

/// A file left out of the merge, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The path as given.
    pub path: String,
    /// Its shard index.
    pub index: Option<u32>,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// Why a file was left out.
#[derive(Debug, Clone, PartialEq)]
pub enum SkipReason {
    /// It reached `phase`'s planned start `lag_ms` late and ran nothing
    /// from there on (`kvbench.shard.late`).
    Late {
        /// `RUN #1`, `WARM-UP`.
        phase: String,
        /// How late, ms.
        lag_ms: f64,
    },
    /// Its RUN #1 started `off_ms` from the median of the set's starts,
    /// which left the set wider than `--max-skew`.
    Skewed {
        /// Its distance from the median start, ms.
        off_ms: f64,
        /// `--max-skew`.
        max: Duration,
    },
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shard = self
            .index
            .map_or(String::new(), |i| format!(" (shard {i})"));
        match &self.reason {
            SkipReason::Late { phase, lag_ms } => write!(
                f,
                "{}{shard} skipped (--allow-partial): it reached the planned start of {phase} {lag_ms:.1} ms late and did not run it, so its runs do not cover the set's windows",
                self.path
            ),
            SkipReason::Skewed { off_ms, max } => write!(
                f,
                "{}{shard} skipped (--allow-partial): its RUN #1 started {off_ms:.1} ms from the median of the set's starts, which leaves the set wider than --max-skew {}",
                self.path,
                max.as_secs_f64()
            ),
        }
    }
}

/// The reason a shard's report says it missed the start, if it does.
pub fn late(kvbench: &Kvbench) -> Option<SkipReason> {
    let late = kvbench.shard.as_ref()?.late.as_ref()?;
    Some(SkipReason::Late {
        phase: late.phase.clone(),
        lag_ms: late.lag_ms,
    })
}

/// The refusal of a late shard's file without `--allow-partial`.
pub fn refuse_late(path: &str, phase: &str, lag_ms: f64) -> UsageError {
    UsageError::new(
        path,
        format!(
            "this shard reached the planned start of {phase} {lag_ms:.1} ms late (kvbench.shard.late) and did not run it; leave its file out, or pass --allow-partial to merge the others without it"
        ),
    )
}

/// One shard's RUN #1 start on the reference clock, for the skew pre-pass.
#[derive(Debug, Clone)]
struct Start {
    path: String,
    index: u32,
    start_ms: f64,
    offset_ms: Option<f64>,
}

/// The shards to leave out so that the others' RUN #1 starts are within
/// `max`: the start farthest from the median goes first, until the rest fit.
/// Reads every file once (only their starts are kept); late shards and plain
/// files (whose starts were never planned together) are left to the merge.
pub fn outside_skew(paths: &[&Path], max: Duration) -> Result<Vec<Skipped>, UsageError> {
    let mut starts = Vec::new();
    for path in paths {
        let Read::File(f) = check::read_any(path)? else {
            continue;
        };
        let (Some(shard), Some(first)) = (f.shard(), f.kvbench.runs.first()) else {
            return Ok(Vec::new());
        };
        starts.push(Start {
            path: f.path.clone(),
            index: shard.index,
            start_ms: first.start_time_ms as f64,
            offset_ms: shard.clock.as_ref().and_then(|c| c.offset_start_ms),
        });
    }
    Ok(farthest_first(starts, max.as_secs_f64() * 1000.0)
        .into_iter()
        .map(|(s, off_ms)| Skipped {
            path: s.path,
            index: Some(s.index),
            reason: SkipReason::Skewed { off_ms, max },
        })
        .collect())
}

/// Removes the start farthest from the median until the spread is within
/// `max_ms`; the removed, each with its distance from the median then.
fn farthest_first(mut starts: Vec<Start>, max_ms: f64) -> Vec<(Start, f64)> {
    // The same rule as the merge's skew: offsets correct the starts only
    // when every shard measured one.
    let corrected = starts.iter().all(|s| s.offset_ms.is_some());
    let at = |s: &Start| {
        s.start_ms
            + if corrected {
                s.offset_ms.unwrap_or(0.0)
            } else {
                0.0
            }
    };
    let mut removed = Vec::new();
    // One start is always within any skew; keep at least that one.
    while starts.len() > 1 {
        let mut times: Vec<f64> = starts.iter().map(at).collect();
        times.sort_by(f64::total_cmp);
        if times[times.len() - 1] - times[0] <= max_ms {
            break;
        }
        let median = times[(times.len() - 1) / 2];
        let (worst, off) = starts
            .iter()
            .enumerate()
            .map(|(i, s)| (i, (at(s) - median).abs()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, 0.0));
        removed.push((starts.remove(worst), off));
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::{Start, farthest_first};

    fn start(index: u32, start_ms: f64, offset_ms: Option<f64>) -> Start {
        Start {
            path: format!("s{index}.json"),
            index,
            start_ms,
            offset_ms,
        }
    }

    #[test]
    fn the_start_farthest_from_the_median_is_left_out_until_the_rest_fit() {
        let starts = vec![
            start(0, 1000.0, None),
            start(1, 1002.0, None),
            start(2, 1900.0, None),
            start(3, 1001.0, None),
        ];
        let removed = farthest_first(starts, 50.0);
        assert_eq!(removed.len(), 1);
        assert_eq!(removed[0].0.index, 2);
        assert_eq!(removed[0].1, 899.0);
    }

    #[test]
    fn a_set_within_the_skew_loses_nothing() {
        let starts = vec![start(0, 1000.0, None), start(1, 1040.0, None)];
        assert!(farthest_first(starts, 50.0).is_empty());
    }

    #[test]
    fn offsets_correct_the_starts_before_they_are_judged() {
        // Shard 1's clock is 500 ms behind: on the reference clock it
        // started with the others.
        let starts = vec![
            start(0, 1000.0, Some(0.0)),
            start(1, 500.0, Some(500.0)),
            start(2, 1001.0, Some(0.0)),
        ];
        assert!(farthest_first(starts, 10.0).is_empty());
    }
}
