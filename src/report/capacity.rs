//! `kvbench capacity`'s text: one table of the steps (80 columns) and the
//! answer in one line, from the report's [`Capacity`].

use crate::config::capacity::limit_label;
use crate::report::model::capacity::{Capacity, CapacityOutcome, CapacityStep, Decision};

/// The steps' table, the knee, the confirmation and the answer line.
pub fn text(capacity: &Capacity) -> String {
    let mut out = String::from(
        "CAPACITY SEARCH\n\
         step     rate  achieved   p50 ms   p99 ms  p99.9 ms   max ms unsent runs verdict\n",
    );
    for (i, s) in capacity.steps.iter().enumerate() {
        out.push_str(&row(&format!("{}", i + 1), s));
    }
    if let Some(c) = &capacity.confirmation {
        out.push_str(&row("conf", c));
    }
    if let Some(k) = &capacity.knee {
        out.push_str(&format!(
            "knee: {:.0} ops/s (p99 {:.3} ms, over twice the low-load {:.3} ms)\n",
            k.ops_per_sec, k.p99_ms, k.low_load_p99_ms
        ));
    }
    out.push_str(&answer(capacity));
    out.push('\n');
    out
}

fn row(label: &str, s: &CapacityStep) -> String {
    let at = |key: &str| s.percentiles_ms.get(key).copied().unwrap_or(0.0);
    format!(
        "{label:>4} {:>8.0} {:>9.1} {:>8.3} {:>8.3} {:>9.3} {:>8.3} {:>6} {:>4} {}\n",
        s.rate,
        s.ops_per_sec,
        at("p50"),
        at("p99"),
        at("p99.9"),
        at("max"),
        s.never_sent,
        s.runs,
        verdict(s)
    )
}

/// A step's verdict in a word: `meets`, `fails`, `short` (rate not met),
/// `errors`; `~` when the point estimates decided.
pub fn verdict(s: &CapacityStep) -> String {
    let word = match (s.decided_by, s.meets) {
        (Decision::RateNotMet, _) => "short",
        (Decision::Errors, _) => "errors",
        (_, true) => "meets",
        (_, false) => "fails",
    };
    let estimated = if s.decided_by == Decision::Estimate {
        "~"
    } else {
        ""
    };
    format!("{word}{estimated}")
}

/// The SLOs in words: `p99 ≤ 5 ms, p99.9 ≤ 10 ms`.
pub fn slo_words(capacity: &Capacity) -> String {
    capacity
        .slo
        .iter()
        .map(|s| {
            format!(
                "p{} ≤ {}",
                s.percentile,
                limit_label((s.limit_ms * 1000.0).round() as u64)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What helps when a confirmation run misses the rate its steps met
/// (docs/capacity.md, exit code 5): the steps were too short to see the
/// noise the confirmation met, or the resolution asked for is finer than it.
pub const UNCONFIRMED_FIX: &str = "the capacity sits at the edge of the noise: give a longer --step-time or a larger --resolution";

/// The answer in one line: `capacity: 812 ops/s (812–828) at p99 ≤ 5 ms`.
/// A rate is the answer only once its confirmation run met the SLOs: one
/// whose confirmation missed is `unconfirmed`, with what missed and the
/// fix; one not yet confirmed says so.
pub fn answer(capacity: &Capacity) -> String {
    let slo = slo_words(capacity);
    let pending = if capacity.confirmation.is_none() {
        "; not confirmed: no confirmation run has finished"
    } else {
        ""
    };
    match (capacity.outcome, capacity.low, capacity.high) {
        (CapacityOutcome::Found, Some(low), Some(high)) => {
            format!("capacity: {low:.0} ops/s ({low:.0}–{high:.0}) at {slo}{pending}")
        }
        (CapacityOutcome::Unfinished, Some(low), Some(high)) => format!(
            "capacity: {low:.0} ops/s ({low:.0}–{high:.0}, wider than --resolution: --max-steps ended the search) at {slo}{pending}"
        ),
        (CapacityOutcome::Unfinished, Some(low), None) => format!(
            "capacity: at least {low:.0} ops/s (every step met the SLO until --max-steps) at {slo}{pending}"
        ),
        (CapacityOutcome::Unconfirmed, Some(low), high) => {
            let high = high.map_or_else(|| "?".to_string(), |h| format!("{h:.0}"));
            let missed = capacity
                .confirmation
                .as_ref()
                .map_or_else(|| "the SLO".to_string(), |c| missed_words(capacity, c));
            format!(
                "capacity: unconfirmed: the steps met {slo} at {low:.0} ops/s ({low:.0}–{high}), but the confirmation run at {low:.0} ops/s missed {missed}; {UNCONFIRMED_FIX}"
            )
        }
        (CapacityOutcome::NoneMeets, _, Some(lowest)) => {
            format!("capacity: none: even {lowest:.0} ops/s missed {slo}")
        }
        (CapacityOutcome::Interrupted, ..) => {
            format!("capacity: unknown: the search was stopped (at {slo})")
        }
        _ => format!("capacity: unknown (at {slo})"),
    }
}

/// What a confirmation that missed missed: its rate, its errors, or each
/// SLO over its limit with the value measured (`p99 ≤ 1 ms: 3.52 ms`).
fn missed_words(capacity: &Capacity, c: &CapacityStep) -> String {
    match c.decided_by {
        Decision::RateNotMet => format!("its rate (achieved {:.1} ops/s)", c.ops_per_sec),
        Decision::Errors => "--max-error-share (errors)".to_string(),
        Decision::Bound | Decision::Estimate => {
            let over: Vec<String> = capacity
                .slo
                .iter()
                .filter_map(|s| {
                    let measured = *c.percentiles_ms.get(&format!("p{}", s.percentile))?;
                    (measured > s.limit_ms).then(|| {
                        format!(
                            "p{} ≤ {} (p{} {measured:.3} ms)",
                            s.percentile,
                            limit_label((s.limit_ms * 1000.0).round() as u64),
                            s.percentile
                        )
                    })
                })
                .collect();
            if over.is_empty() {
                slo_words(capacity)
            } else {
                over.join(", ")
            }
        }
    }
}
