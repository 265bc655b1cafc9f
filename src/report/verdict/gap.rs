//! The `load_gap` reason: in a closed loop, the time during which load was
//! due and none was applied ([`crate::engine::stats::gaps`]) makes a result
//! not valid when it covers more than [`MAX_LOAD_GAP_SHARE`] of the
//! connection time, or when it lasted until sending stopped (a server gone
//! or frozen at the end). In an open loop the gap is in the latencies
//! already (each request is timed from its intended send), and the
//! `load_gap` warning says it.

use std::fmt;

use crate::config::Config;
use crate::engine::results::PhaseResult;
use crate::engine::stats::gaps::{GapCause, GapSpan};
use crate::report::verdict::{MAX_LOAD_GAP_SHARE, Reason};

/// The `load_gap` reason of `phases` judged together: the worst of them.
pub(super) fn load_gap(config: &Config, phases: &[&PhaseResult]) -> Option<Reason> {
    if config.rate.is_some() {
        return None;
    }
    phases
        .iter()
        .map(|p| &p.load_gaps)
        .filter(|g| g.share > MAX_LOAD_GAP_SHARE || (g.open_at_end && !g.spans.is_empty()))
        .max_by(|a, b| a.share.total_cmp(&b.share))
        .map(|g| Reason::LoadGap {
            share: g.share,
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
        "no load was applied for {:.1} % of the connection time (connections waiting 1 s or more for a reply, or down)",
        100.0 * share
    )?;
    if let Some(s) = longest {
        write!(
            f,
            "; nothing at all came back for {:.1} s from {:.1} s into the run",
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
