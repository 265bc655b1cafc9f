//! The `load_gap` reason: in a closed loop, the time during which load was
//! due and nothing at all came back ([`crate::engine::stats::gaps`]'s
//! spans) makes a result not valid when it covers more than
//! [`super::MAX_LOAD_GAP_SHARE`] of the run, or when it lasted until sending
//! stopped (a server gone or frozen at the end). A connection that waits a
//! second or more while others are answered is queueing behind them (a
//! server at saturation, large values, deep pipelines): the per-connection
//! share reports it, the verdict does not count it. In an open loop the gap
//! is in the latencies already (each request is timed from its intended
//! send), and the `stall` warning says it.

use std::fmt;

use crate::config::Config;
use crate::engine::master::results::PhaseResult;
use crate::engine::stats::gaps::{GapCause, GapSpan};
use crate::report::verdict::{Reason, is_load_gap};

/// The `load_gap` reason of `phases` judged together: the worst of them.
pub(super) fn load_gap(config: &Config, phases: &[&PhaseResult]) -> Option<Reason> {
    if config.rate.is_some() {
        return None;
    }
    phases
        .iter()
        .map(|p| {
            let g = &p.load_gaps;
            (g, g.silent_share(p.duration.as_secs_f64()))
        })
        .filter(|(g, share)| is_load_gap(*share, g.open_at_end, g.spans.len()))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(g, share)| Reason::LoadGap {
            share,
            longest: g.longest().copied(),
            cause: g.main_cause(),
            open_at_end: g.open_at_end,
        })
}

/// What a [`Reason::LoadGap`] says.
pub(super) fn describe(
    f: &mut fmt::Formatter<'_>,
    share: f64,
    longest: Option<&GapSpan>,
    cause: Option<GapCause>,
    open_at_end: bool,
) -> fmt::Result {
    write!(
        f,
        "no load was applied for {:.1} % of the run (nothing at all came back, while requests were due)",
        100.0 * share
    )?;
    if let Some(s) = longest {
        write!(
            f,
            "; the longest silence: {:.1} s from {:.1} s into the run",
            s.length_s, s.start_s
        )?;
    }
    if open_at_end {
        f.write_str(", still at its end")?;
    }
    if let Some(cause) = cause {
        write!(f, " ({})", cause.describe())?;
    }
    f.write_str(": the rate averages the work of part of the run over all of it; see the load_gap of each phase in the JSON")
}
