//! The search's steps as the report holds them ([`Capacity`]): each step's
//! percentiles and bounds in ms, the knee, the interval. Pure: decided steps
//! in, the model out.

use std::collections::BTreeMap;

use crate::config::capacity::Slo;
use crate::engine::stats::{max_us, percentile_us};
use crate::report::model::capacity::{
    Capacity, CapacityOutcome, CapacityStep, Knee, SloBound, SloTarget,
};
use crate::tools::capacity::search::Outcome;
use crate::tools::capacity::step::StepRecord;

/// The percentiles every step reports, beside its SLOs'.
pub const CURVE_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// A step's p99 beyond this many times the lowest-load step's marks the
/// knee: where queueing, not service, starts to make the latency.
pub const KNEE_FACTOR: f64 = 2.0;

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// `p99`, `p99.9`: a percentile's key in `percentiles_ms`.
pub fn percentile_key(p: f64) -> String {
    format!("p{p}")
}

/// A decided step as the report holds it.
pub fn step(record: &StepRecord, slos: &[Slo]) -> CapacityStep {
    let h = record.pooled.judged_histogram();
    let mut percentiles_ms = BTreeMap::new();
    let wanted = CURVE_PERCENTILES
        .iter()
        .chain(slos.iter().map(|s| &s.percentile));
    for &p in wanted {
        percentiles_ms.insert(percentile_key(p), ms(percentile_us(&h, p)));
    }
    percentiles_ms.insert("max".to_string(), ms(max_us(&h)));
    let bounds = record
        .judged
        .iter()
        .filter_map(|j| {
            j.bound.map(|b| SloBound {
                percentile: j.slo.percentile,
                // To the µs, as the estimate.
                low_ms: b.interval_us.map(|(low, _)| ms(low.round() as u64)),
                estimate_ms: ms(b.estimate_us),
                high_ms: b.interval_us.map(|(_, high)| ms(high.round() as u64)),
            })
        })
        .collect();
    CapacityStep {
        rate: record.rate,
        ops_per_sec: record.pooled.ops_per_sec(),
        percentiles_ms,
        replies: record.pooled.totals.count,
        never_sent: record.pooled.totals.never_sent,
        errors: record.pooled.errors,
        runs: record.pooled.runs,
        bounds,
        decided_by: record.decided_by,
        meets: record.meets,
    }
}

/// The knee: among the steps by asked rate, the first whose p99 exceeds
/// [`KNEE_FACTOR`] times the p99 of the step of the lowest rate. By the
/// asked rate, not the achieved: a saturated step achieves less than it was
/// asked, and would sort among the light ones.
pub fn knee(steps: &[CapacityStep]) -> Option<Knee> {
    let key = percentile_key(99.0);
    let mut by_load: Vec<&CapacityStep> = steps.iter().collect();
    by_load.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    let base = *by_load.first()?.percentiles_ms.get(&key)?;
    by_load.iter().find_map(|s| {
        let p99 = *s.percentiles_ms.get(&key)?;
        (p99 > KNEE_FACTOR * base).then_some(Knee {
            rate: s.rate,
            ops_per_sec: s.ops_per_sec,
            p99_ms: p99,
            low_load_p99_ms: base,
        })
    })
}

/// The whole result; `outcome` `None` when a stop request ended the search.
pub fn capacity(
    outcome: Option<Outcome>,
    slos: &[Slo],
    resolution: f64,
    steps: Vec<CapacityStep>,
    confirmation: Option<CapacityStep>,
) -> Capacity {
    let (kind, low, high) = match outcome {
        Some(Outcome::Found { low, high }) => (CapacityOutcome::Found, Some(low), Some(high)),
        Some(Outcome::Unfinished { low, high }) => (CapacityOutcome::Unfinished, low, high),
        Some(Outcome::NoneMeets { lowest }) => (CapacityOutcome::NoneMeets, None, Some(lowest)),
        None => (CapacityOutcome::Interrupted, None, None),
    };
    let searched = Capacity {
        ops_per_sec: low,
        low,
        high,
        outcome: kind,
        slo: slos
            .iter()
            .map(|s| SloTarget {
                percentile: s.percentile,
                limit_ms: ms(s.limit_us),
            })
            .collect(),
        resolution_percent: resolution * 100.0,
        knee: knee(&steps),
        steps,
        confirmation: None,
    };
    confirmed(searched, confirmation)
}

/// `capacity` with its confirmation run. A confirmation that missed the
/// SLOs leaves no confirmed capacity: the outcome is `unconfirmed` and
/// `ops_per_sec` is `None`, whatever the search found; `low` and `high`
/// stay the interval the steps gave, so the file still says where the
/// search ended.
pub fn confirmed(mut capacity: Capacity, confirmation: Option<CapacityStep>) -> Capacity {
    if confirmation.as_ref().is_some_and(|c| !c.meets) {
        capacity.outcome = CapacityOutcome::Unconfirmed;
        capacity.ops_per_sec = None;
    }
    capacity.confirmation = confirmation;
    capacity
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{capacity, knee, percentile_key};
    use crate::config::capacity::Slo;
    use crate::report::model::capacity::{CapacityOutcome, CapacityStep, Decision};
    use crate::tools::capacity::search::Outcome;

    fn step(ops: f64, p99_ms: f64) -> CapacityStep {
        let mut percentiles_ms = BTreeMap::new();
        percentiles_ms.insert(percentile_key(99.0), p99_ms);
        CapacityStep {
            rate: ops,
            ops_per_sec: ops,
            percentiles_ms,
            replies: 1000,
            never_sent: 0,
            errors: 0,
            runs: 1,
            bounds: Vec::new(),
            decided_by: Decision::Bound,
            meets: true,
        }
    }

    #[test]
    fn the_knee_is_the_first_step_by_load_past_twice_the_low_load_p99() {
        // Run out of order, as a bisection does.
        let steps = [
            step(800.0, 1.9),
            step(100.0, 1.0),
            step(1600.0, 30.0),
            step(1200.0, 2.5),
        ];
        let k = knee(&steps).unwrap();
        assert_eq!((k.rate, k.p99_ms, k.low_load_p99_ms), (1200.0, 2.5, 1.0));
        assert!(knee(&[step(100.0, 1.0), step(200.0, 1.5)]).is_none());
        assert!(knee(&[]).is_none());
    }

    #[test]
    fn a_missed_confirmation_leaves_no_capacity_only_the_interval() {
        let slos = [Slo {
            percentile: 99.0,
            limit_us: 1000,
        }];
        let found = Some(Outcome::Found {
            low: 800.0,
            high: 816.0,
        });
        let steps = vec![step(800.0, 0.9), step(816.0, 1.4)];
        let mut missed = step(800.0, 1.3);
        missed.meets = false;
        let c = capacity(found, &slos, 0.02, steps.clone(), Some(missed));
        assert_eq!(c.outcome, CapacityOutcome::Unconfirmed);
        assert_eq!(
            (c.ops_per_sec, c.low, c.high),
            (None, Some(800.0), Some(816.0))
        );
        assert!(c.confirmation.is_some_and(|m| !m.meets));
        let met = capacity(found, &slos, 0.02, steps, Some(step(800.0, 0.8)));
        assert_eq!(met.outcome, CapacityOutcome::Found);
        assert_eq!(met.ops_per_sec, Some(800.0));
    }
}
