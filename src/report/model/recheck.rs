//! A stored verdict judged again from the file's own counts: `merge`,
//! `compare`, `report` and the HTML read a file through
//! [`crate::report::model::parse`], which calls [`recheck`], so a file whose
//! `valid` was edited (or written by a version with other rules) cannot pass
//! as valid while its counts say otherwise.
//!
//! The facts re-judged are those a run's summary carries with the rules of
//! `src/report/verdict.rs`: error replies and requests lost over
//! `max_error_share_percent` (the config's, 1 % when the file lacks it),
//! protocol faults, connections lost for good, nothing answered, and in a
//! closed loop a load gap over 10 % or open at the end. A reason found here
//! that the stored verdict lacks is added, saying so; the stored reasons stay.

use serde_json::Value;

use super::kvbench::{Kvbench, PhaseSummary};
use super::verdict::VerdictReason;
use crate::engine::stats::gaps::silent_share;
use crate::report::verdict::is_load_gap;

/// The error share a file without `max_error_share_percent` is held to.
const DEFAULT_MAX_ERROR_SHARE: f64 = 0.01;

/// Adds to `k`'s verdict every reason its counts give and it lacks.
pub fn recheck(k: &mut Kvbench) {
    let Some(verdict) = k.verdict.as_mut() else {
        return;
    };
    let limit = k
        .config
        .get("max_error_share_percent")
        .and_then(Value::as_f64)
        .map_or(DEFAULT_MAX_ERROR_SHARE, |p| p / 100.0);
    let interrupted = k.interrupted.is_some();
    for p in k.prefill.iter().chain(&k.runs) {
        for (kind, message) in findings(p, limit, interrupted) {
            let stored = verdict
                .reasons
                .iter()
                .any(|r| r.kind == kind && r.phase.as_deref().is_none_or(|ph| ph == p.phase));
            if !stored {
                verdict.reasons.push(VerdictReason {
                    kind: kind.to_string(),
                    message: format!(
                        "{message} (from the file's own counts; its stored verdict did not say so: edited, or written by another version)"
                    ),
                    phase: Some(p.phase.clone()),
                });
            }
        }
    }
    verdict.valid = verdict.reasons.is_empty();
}

/// The reasons `p`'s counts give, as (kind, message).
fn findings(p: &PhaseSummary, limit: f64, interrupted: bool) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let replies: u64 = p.totals.0.iter().map(|(_, t)| t.count).sum();
    let errors: u64 = p.totals.0.iter().map(|(_, t)| t.errors).sum();
    let lost = p.errors.lost_requests;
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    if replies == 0 && !interrupted {
        out.push((
            "nothing_measured",
            "not one request was answered".to_string(),
        ));
    }
    if share(errors, replies) > limit {
        out.push((
            "error_replies",
            format!("{errors} of {replies} replies were errors"),
        ));
    }
    if share(lost, replies + lost) > limit {
        out.push((
            "requests_lost",
            format!("{lost} requests were sent and never answered"),
        ));
    }
    if p.errors.protocol > 0 {
        out.push((
            "protocol_errors",
            format!(
                "{} connection(s) received bytes that are not replies",
                p.errors.protocol
            ),
        ));
    }
    if p.incomplete
        .as_ref()
        .is_some_and(|i| i.reason == "connections_lost")
    {
        out.push((
            "connections_lost",
            "connections closed for good: their share of the load was never offered".to_string(),
        ));
    }
    if let Some(g) = p.load_gap.as_ref().filter(|_| p.open_loop.is_none()) {
        let share = silent_share(g.gaps.iter().map(|s| s.length_s), p.duration.as_secs_f64());
        if is_load_gap(share, g.open_at_end, g.gaps.len()) {
            let percent = 100.0 * share;
            out.push((
                "load_gap",
                format!("no load was applied for {percent:.1} % of the run"),
            ));
        }
    }
    out
}
