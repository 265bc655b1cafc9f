//! The search and the step's judging together, against a simulated server
//! whose response times are a function of the rate: a queue in front of a
//! 1 ms service, saturated at 1 000 ops/s.

use crate::config::capacity::Slo;
use crate::engine::stats::precision::Batches;
use crate::engine::stats::{OpStats, Stats};
use crate::report::model::capacity::Decision;
use crate::tools::capacity::search::{Next, Outcome, Plan, Search};
use crate::tools::capacity::step::{Pooled, judge_step};

/// The service capacity of the simulated server, ops/s.
const SERVICE_RATE: f64 = 1000.0;

/// `seconds` seconds of the simulated server at `rate`: it answers at most
/// [`SERVICE_RATE`], and the response time at quantile q is the 1 ms
/// service plus an exponential wait whose mean grows as ρ/(1−ρ), as in an
/// M/M/1 queue; every second alike.
fn simulate(rate: f64, seconds: u64) -> Pooled {
    let achieved = rate.min(SERVICE_RATE);
    let rho = (rate / SERVICE_RATE).min(0.999);
    let n = achieved as u64;
    let mut totals = OpStats::new_open_loop().unwrap();
    let mut batches = Batches::new();
    for s in 0..seconds {
        let mut second = Stats::new(1).unwrap();
        for i in 0..n {
            let q = (i as f64 + 0.5) / n as f64;
            let wait_us = 1000.0 * rho / (1.0 - rho) * -(1.0 - q).ln();
            let response_us = 1000 + wait_us as u64;
            totals.record_open_loop(response_us, 1000);
            second.ops[0].record(response_us);
        }
        batches.second(s, &second);
    }
    batches.finish(seconds);
    Pooled {
        totals,
        seconds: seconds as f64,
        errors: 0,
        runs: 1,
        batches: batches.totals(),
    }
}

#[test]
fn the_search_finds_where_the_simulated_p99_crosses_its_limit() {
    // p99 = 1 ms + ρ/(1−ρ)·ln(100) ms ≤ 5 ms ⟺ ρ ≤ 0.465: 465 ops/s.
    let slos = [Slo {
        percentile: 99.0,
        limit_us: 5000,
    }];
    let mut search = Search::new(Plan {
        start_rate: 100.0,
        resolution: 0.02,
        max_steps: 30,
    });
    let mut decided = Vec::new();
    while let Next::Step(rate) = search.next() {
        // Twenty seconds: each step has its interval, and the seconds
        // agree, so the interval decides without a repeat, unless the p99
        // is within the interval's floor (half a two-significant-digit
        // bucket, 16 µs at 5 ms) of the limit: the last try then decides on
        // the estimate.
        let pooled = simulate(rate, 20);
        let h = pooled.judged_histogram();
        let (_, decision) = judge_step(&h, &slos, rate, &pooled, 0.01, false);
        let meets = match decision {
            Some((by, meets)) => {
                assert_eq!(by, Decision::Bound, "{rate}");
                meets
            }
            None => {
                let p99 = h.value_at_quantile(0.99) as f64;
                assert!((p99 - 5000.0).abs() <= 16.0, "{rate}: p99 {p99} µs");
                let (_, last) = judge_step(&h, &slos, rate, &pooled, 0.01, true);
                let (by, meets) = last.unwrap();
                assert_eq!(by, Decision::Estimate, "{rate}");
                meets
            }
        };
        decided.push((rate, meets));
        search.record(rate, meets);
    }
    let Next::Done(Outcome::Found { low, high }) = search.next() else {
        panic!("{decided:?}");
    };
    assert!((440.0..=470.0).contains(&low), "{low}..{high}: {decided:?}");
    assert!(high > low && high - low <= 0.02 * low, "{low}..{high}");
    // Past saturation the rate is not met, whatever the latency.
    let over = simulate(1600.0, 2);
    let (_, decision) = judge_step(&over.judged_histogram(), &slos, 1600.0, &over, 0.01, true);
    assert_eq!(decision, Some((Decision::RateNotMet, false)));
}

#[test]
fn a_straddling_step_asks_for_a_repeat_until_its_last_try() {
    // Two seconds have no interval: the step straddles until its last try.
    let slos = [Slo {
        percentile: 99.0,
        limit_us: 5000,
    }];
    let pooled = simulate(465.0, 2);
    let h = pooled.judged_histogram();
    let (judged, decision) = judge_step(&h, &slos, 465.0, &pooled, 0.01, false);
    assert_eq!(decision, None, "{judged:?}");
    let (_, decision) = judge_step(&h, &slos, 465.0, &pooled, 0.01, true);
    assert_eq!(decision.map(|d| d.0), Some(Decision::Estimate));
}
