//! The judging behind [`super::Verdict`]: the reasons why a set of phases,
//! taken together, does not measure the workload asked for (faults, shares
//! of errors and of requests never sent, a load gap), why a warm-up had not
//! settled, and which `--target-precision` figures missed their bound.

use super::{MAX_NEVER_SENT_SHARE, Reason, gap};
use crate::config::Config;
use crate::engine::master::results::{PhaseResult, Results};
use crate::engine::master::warmup::{P99_TOLERANCE, THROUGHPUT_TOLERANCE, Trend, WarmupEnd};
use crate::protocol::resp::ServerErrorKind;

/// `imprecise` for each `--target-precision` figure of `run` whose interval
/// is wider than its bound, or missing.
pub(super) fn imprecise(config: &Config, run: &PhaseResult) -> Vec<Reason> {
    let plan = &config.precision;
    let Some(judged) = run.precision.as_ref() else {
        return Vec::new();
    };
    // An auto run ended because its targets were met: on the seconds it
    // kept (`Batches::freeze`), so its intervals are those that met; only
    // the figures' centres moved with the run's last second.
    if plan.auto && judged.met_after_s.is_some() {
        return Vec::new();
    }
    let max_s = plan.auto.then_some(run.duration.as_secs());
    let missed = plan.targets.iter().filter_map(|target| {
        let reached = judged.of(target).map(|i| i.relative() * 100.0);
        let met = reached.is_some_and(|r| r <= target.within_percent);
        (!met).then(|| Reason::Imprecise {
            target: target.clone(),
            reached_percent: reached,
            max_s,
            runs: None,
        })
    });
    missed.collect()
}

/// `-x auto` that ran `--max-run-count` runs: `imprecise` for each target
/// the median run's interval misses.
pub(super) fn imprecise_median(config: &Config, results: &Results) -> Vec<Reason> {
    let runs = results.completed_runs() as u32;
    let missed = config.precision.targets.iter().filter_map(|target| {
        let reached = results.median_of(target).map(|m| m.relative_percent());
        let met = reached.is_some_and(|r| r <= target.within_percent);
        (!met).then(|| Reason::Imprecise {
            target: target.clone(),
            reached_percent: reached,
            max_s: None,
            runs: Some(runs),
        })
    });
    missed.collect()
}

/// `not_steady` for a warm-up still trending at its end.
pub(super) fn not_steady(warmup: &PhaseResult) -> Option<Reason> {
    let s = warmup.steadiness.as_ref().filter(|s| s.trending())?;
    let change = |t: Option<Trend>, tolerance: f64| {
        t.filter(|t| !t.steady(tolerance))
            .map(|t| 100.0 * t.relative_change())
    };
    Some(Reason::NotSteady {
        auto: s.end == WarmupEnd::Steady,
        secs: warmup.duration.as_secs_f64().round() as u64,
        window_s: s.window_s,
        throughput_change_pct: change(s.throughput, THROUGHPUT_TOLERANCE),
        p99_change_pct: change(s.p99, P99_TOLERANCE),
    })
}

/// The reasons why `phases`, judged together, do not measure what was asked.
pub(super) fn judge(config: &Config, phases: &[&PhaseResult]) -> Vec<Reason> {
    let mut stats = match phases.first() {
        Some(first) => first.stats.clone(),
        None => return Vec::new(),
    };
    for p in &phases[1..] {
        stats += &p.stats;
    }
    let limit = config.faults.max_error_share;
    let e = stats.errors;
    let replies = stats.replies();
    let never_sent: u64 = phases.iter().map(|p| p.unsent).sum();
    let sent = replies + e.lost_requests;
    let due = sent + never_sent + e.node_down;
    let mut reasons = Vec::new();
    if let Some(p) = phases.iter().find(|p| p.interrupted) {
        reasons.push(Reason::Interrupted {
            phase: p.phase,
            signal: None,
        });
    }
    let given_up = phases
        .iter()
        .map(|p| p.connections_given_up)
        .max()
        .unwrap_or(0);
    if given_up > 0 {
        reasons.push(Reason::ConnectionsLost {
            given_up,
            connections: config.connections(),
        });
    }
    let stalled = phases.iter().map(|p| p.stalled_workers).max().unwrap_or(0);
    if stalled > 0 {
        let limit = config
            .stall_limit(crate::config::Stop::Requests(1))
            .unwrap_or_default();
        reasons.push(Reason::NoProgress {
            workers: stalled,
            limit_secs: limit.as_secs_f64(),
            from_flag: config.faults.request_timeout.is_some(),
        });
    }
    if let Some(reason) = gap::load_gap(config, phases) {
        reasons.push(reason);
    }
    if replies == 0 {
        // Nothing else is worth saying about shares of nothing.
        if e.protocol > 0 {
            reasons.push(Reason::ProtocolErrors {
                count: e.protocol,
                first: e.first_protocol_fault,
            });
        }
        reasons.push(Reason::NothingMeasured { errors: e });
        return reasons;
    }
    if e.node_down > 0 && share(e.node_down, due) > MAX_NEVER_SENT_SHARE {
        reasons.push(Reason::NodesDown {
            not_sent: e.node_down,
            due,
        });
    }
    if never_sent > 0 && share(never_sent, due) > MAX_NEVER_SENT_SHARE {
        reasons.push(Reason::NeverSent { never_sent, due });
    }
    let errors = stats.error_replies();
    if errors > 0 && share(errors, replies) > limit {
        let top = ServerErrorKind::ALL
            .iter()
            .zip(e.server)
            .filter(|(_, n)| *n > 0)
            .max_by_key(|(_, n)| *n)
            .map(|(k, n)| (*k, n));
        reasons.push(Reason::ErrorReplies {
            errors,
            replies,
            top,
            limit,
        });
    }
    if e.lost_requests > 0 && share(e.lost_requests, sent) > limit {
        reasons.push(Reason::RequestsLost {
            lost: e.lost_requests,
            sent,
            errors: e,
            limit,
        });
    }
    if e.protocol > 0 {
        reasons.push(Reason::ProtocolErrors {
            count: e.protocol,
            first: e.first_protocol_fault,
        });
    }
    reasons
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
