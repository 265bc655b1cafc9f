//! Stalls ([`Warning::Stall`]): a run with a load gap (a second or more
//! with no reply at all while load was due, measured by the workers:
//! [`crate::engine::stats::gaps`]), connections that waited that long, a
//! slowest reply far above the p99.9, or a second with far fewer replies
//! than the others. Each says that something paused (the server, the
//! network or this machine) and that the averages hide it. In a closed loop
//! a gap over a tenth of the run makes the result not valid (the verdict's
//! `load_gap`); below that, and in an open loop, it is this warning.

use std::fmt;

use crate::engine::master::results::PhaseResult;
use crate::engine::stats::gaps::{GapCause, GapSpan};
use crate::engine::stats::{max_us, percentile_us};
use crate::report::warnings::Warning;

/// The slowest reply above this multiple of the p99.9 is no tail: something
/// stopped.
pub const STALL_MAX_FACTOR: f64 = 20.0;
/// ... and above this many ms, so that a 2 ms outlier on a 50 µs loopback run
/// is not reported.
pub const STALL_MIN_MS: f64 = 100.0;
/// A second with fewer replies than this share of the median second stalled.
pub const QUIET_SECOND_FRACTION: f64 = 0.2;
/// Seconds needed between the first and the last (which are partial and left
/// out) for their median to mean something.
pub const MIN_INNER_SECONDS: usize = 3;

/// A second that carried far fewer replies than the run's median second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietSecond {
    /// Seconds since the run started (0 is the first).
    pub second: u64,
    /// Replies in it.
    pub replies: u64,
    /// The median replies per second, first and last second left out.
    pub median: u64,
}

/// A stall of `run`, when its load gaps, its slowest reply or its quietest
/// second shows one.
pub fn stall(run: &PhaseResult) -> Option<Warning> {
    let latency = &run.stats.totals().latency_us;
    let max_ms = max_us(latency) as f64 / 1000.0;
    let p999_ms = percentile_us(latency, 99.9) as f64 / 1000.0;
    let slowest =
        (!latency.is_empty() && max_ms > STALL_MAX_FACTOR * p999_ms && max_ms > STALL_MIN_MS)
            .then_some((max_ms, p999_ms));
    let quiet = quiet_second(run);
    let gaps = run.load_gaps.spans.clone();
    let connection_gaps = (gaps.is_empty() && run.load_gaps.connection_gaps > 0)
        .then_some((run.load_gaps.connection_gaps, run.load_gaps.connection_secs));
    if slowest.is_none() && quiet.is_none() && gaps.is_empty() && connection_gaps.is_none() {
        return None;
    }
    Some(Warning::Stall {
        phase: run.phase.to_string(),
        slowest,
        quiet,
        gaps,
        connection_gaps,
    })
}

/// The quietest second between the first and the last, when it carried less
/// than [`QUIET_SECOND_FRACTION`] of the median of those seconds and a later
/// one carried more.
fn quiet_second(run: &PhaseResult) -> Option<QuietSecond> {
    let inner = run.series.get(1..run.series.len().saturating_sub(1))?;
    if inner.len() < MIN_INNER_SECONDS {
        return None;
    }
    let mut counts: Vec<u64> = inner.iter().map(|s| s.totals.count).collect();
    counts.sort_unstable();
    // The lower median of an even count: a stall then still has to be quiet
    // against a second that happened.
    let median = counts[(counts.len() - 1) / 2];
    let quiet = |count: u64| (count as f64) < QUIET_SECOND_FRACTION * median as f64;
    // A dip, not a wind-down: the replies came back after it. The seconds
    // before a `-n` run's end thin out as connections finish their requests.
    let quietest = inner
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            quiet(s.totals.count) && inner[i + 1..].iter().any(|l| !quiet(l.totals.count))
        })
        .map(|(_, s)| s)
        .min_by_key(|s| s.totals.count)?;
    (median > 0).then_some(QuietSecond {
        second: quietest.second,
        replies: quietest.totals.count,
        median,
    })
}

/// The gaps named one by one in the warning; the rest are counted.
const MAX_GAPS_SAID: usize = 3;

/// What a [`Warning::Stall`] says.
pub(super) fn describe(
    f: &mut fmt::Formatter<'_>,
    phase: &str,
    slowest: Option<(f64, f64)>,
    quiet: Option<&QuietSecond>,
    gaps: &[GapSpan],
    connection_gaps: Option<(u64, f64)>,
) -> fmt::Result {
    write!(f, "{phase}: the run stalled: ")?;
    for g in gaps.iter().take(MAX_GAPS_SAID) {
        write!(
            f,
            "no reply for {:.1} s from {:.1} s into the run ({}); ",
            g.length_s,
            g.start_s,
            g.cause.describe()
        )?;
    }
    if gaps.len() > MAX_GAPS_SAID {
        write!(
            f,
            "{} more such gaps (load_gap in the JSON); ",
            gaps.len() - MAX_GAPS_SAID
        )?;
    }
    if let Some((count, secs)) = connection_gaps {
        write!(
            f,
            "{count} time(s) a connection waited 1 s or more with no reply or was down with requests to send, {secs:.1} s in all; "
        )?;
    }
    if let Some((max_ms, p999_ms)) = slowest {
        write!(
            f,
            "the slowest reply took {max_ms:.1} ms, {:.0} times the p99.9 ({p999_ms:.3} ms); ",
            max_ms / p999_ms.max(0.001)
        )?;
    }
    if let Some(q) = quiet {
        write!(
            f,
            "second {} carried {} replies against a median of {} per second; ",
            q.second, q.replies, q.median
        )?;
    }
    let paused = slowest.is_some()
        || quiet.is_some()
        || connection_gaps.is_some()
        || gaps.iter().any(|g| g.cause == GapCause::Stalled);
    if !paused {
        // Connections down, not a pause: the server's log says why.
        return f.write_str(
            "the averages hide it; check the server's log for a crash or restart, and the per-second numbers in the JSON.",
        );
    }
    write!(
        f,
        "something paused the server (a fork for a save, a slow command, swapping), the network or this machine, and the averages hide it; check the server's SLOWLOG and LATENCY LATEST, and the per-second numbers in the JSON."
    )
}

#[cfg(test)]
mod tests {
    use super::{QuietSecond, stall};
    use crate::engine::master::results::PhaseResult;
    use crate::engine::stats::series::{OpSecond, Second};
    use crate::report::cluster_fixture::cluster_results;
    use crate::report::warnings::Warning;

    /// A run of 10 000 replies at 1 ms, the `slow` ones at `slow_ms`, and a
    /// series with these replies per second.
    fn run(slow: u64, slow_ms: u64, per_second: &[u64]) -> PhaseResult {
        let mut run = cluster_results([0, 0, 0], [0, 0, 0]).runs.remove(0);
        for _ in 0..10_000 - slow {
            run.stats.ops[0].record(1000);
        }
        for _ in 0..slow {
            run.stats.ops[0].record(slow_ms * 1000);
        }
        let template = run.series[0].clone();
        run.series = per_second
            .iter()
            .enumerate()
            .map(|(i, &count)| Second {
                second: i as u64,
                totals: OpSecond {
                    count,
                    ..template.totals.clone()
                },
                ..template.clone()
            })
            .collect();
        run
    }

    const STEADY: [u64; 6] = [300, 1000, 1000, 1000, 1000, 500];

    #[test]
    fn a_steady_run_does_not_stall() {
        assert_eq!(stall(&run(0, 0, &STEADY)), None);
        // A tail: ten replies at 5 ms sit inside the p99.9, well below 100 ms.
        assert_eq!(stall(&run(10, 5, &STEADY)), None);
        // Partial first and last seconds are not stalls.
        assert_eq!(stall(&run(0, 0, &[10, 1000, 1000, 1000, 5])), None);
    }

    #[test]
    fn one_reply_far_above_the_p999_is_a_stall() {
        let w = stall(&run(1, 500, &STEADY)).unwrap();
        let Warning::Stall {
            slowest: Some((max_ms, p999_ms)),
            quiet: None,
            ..
        } = &w
        else {
            panic!("{w:?}");
        };
        assert!((499.0..=505.0).contains(max_ms), "{max_ms}");
        assert!((0.9..=1.1).contains(p999_ms), "{p999_ms}");
        assert_eq!(w.kind(), "stall");
        let text = w.to_string();
        assert!(text.starts_with("RUN #1: the run stalled"), "{text}");
        assert!(text.contains("SLOWLOG"), "{text}");
        // Far above the p99.9 but under 100 ms: a tail, not a stall.
        assert_eq!(stall(&run(1, 60, &STEADY)), None);
    }

    #[test]
    fn a_quiet_second_is_a_stall_and_is_named() {
        let w = stall(&run(0, 0, &[300, 1000, 1000, 100, 1000, 500])).unwrap();
        let quiet = QuietSecond {
            second: 3,
            replies: 100,
            median: 1000,
        };
        assert!(
            matches!(&w, Warning::Stall { slowest: None, quiet: Some(q), .. } if *q == quiet),
            "{w:?}"
        );
        assert!(
            w.to_string()
                .contains("second 3 carried 100 replies against a median of 1000")
        );
        // A quarter of the median is slow, not stalled.
        assert_eq!(stall(&run(0, 0, &[300, 1000, 1000, 250, 1000, 500])), None);
        // Connections finishing a counted run one after another: no stall.
        assert_eq!(stall(&run(0, 0, &[300, 1000, 1000, 1000, 100, 5])), None);
        assert_eq!(stall(&run(0, 0, &[300, 1000, 1000, 90, 100, 5])), None);
        // Too few seconds in the middle to tell.
        assert_eq!(stall(&run(0, 0, &[300, 1000, 0, 500])), None);
    }
}
