//! The capacity panel of a page, from the fixture report given a
//! `kvbench.capacity`: it comes first, says whether the capacity was
//! confirmed, draws a rate tried twice without a zig-zag, and keeps a 1 ms
//! SLO line clear of the axis under a 65 ms tail.

use std::collections::BTreeMap;

use crate::report::html::page;
use crate::report::html::tests::{charts, report, source};
use crate::report::model::Document;
use crate::report::model::capacity::{
    Capacity, CapacityOutcome, CapacityStep, Decision, SloTarget,
};

fn step(rate: f64, p99_ms: f64, meets: bool) -> CapacityStep {
    let mut percentiles_ms = BTreeMap::new();
    percentiles_ms.insert("p50".to_string(), p99_ms / 4.0);
    percentiles_ms.insert("p99".to_string(), p99_ms);
    percentiles_ms.insert("p99.9".to_string(), p99_ms * 1.5);
    percentiles_ms.insert("max".to_string(), p99_ms * 2.0);
    CapacityStep {
        rate,
        ops_per_sec: rate * 0.998,
        percentiles_ms,
        replies: rate as u64 * 2,
        never_sent: 0,
        errors: 0,
        runs: 1,
        bounds: Vec::new(),
        decided_by: Decision::Bound,
        meets,
    }
}

/// A search under p99 ≤ 1 ms: 1 000, 2 000 and 4 000 ops/s met, 8 000
/// failed at 65 ms, the confirmation at 4 000 refuted it (a second try of
/// 4 000), and the confirmation at 2 000 ended it as `outcome`.
fn capacity(outcome: CapacityOutcome, confirmation_meets: bool) -> Capacity {
    let steps = vec![
        step(1000.0, 0.4, true),
        step(2000.0, 0.5, true),
        step(4000.0, 0.8, true),
        step(8000.0, 65.0, false),
        step(4000.0, 3.0, false),
    ];
    let confirmation = step(
        2000.0,
        if confirmation_meets { 0.6 } else { 1.4 },
        confirmation_meets,
    );
    Capacity {
        ops_per_sec: (outcome == CapacityOutcome::Found).then_some(2000.0),
        low: Some(2000.0),
        high: Some(4000.0),
        outcome,
        slo: vec![SloTarget {
            percentile: 99.0,
            limit_ms: 1.0,
        }],
        resolution_percent: 2.0,
        knee: None,
        steps,
        confirmation: Some(confirmation),
    }
}

fn page_of(capacity: Capacity) -> String {
    let mut report = report();
    report.kvbench.as_mut().unwrap().capacity = Some(capacity);
    page(&[source("cap.json", Document::Report(Box::new(report)))])
}

/// The `(x, y)` pixels of the polyline of the series whose tag has `attr`.
fn polyline(chart: &str, attr: &str) -> Vec<(f64, f64)> {
    let g = chart
        .split("<g class=\"series\"")
        .find(|g| g[..g.find('>').unwrap()].contains(attr))
        .unwrap_or_else(|| panic!("no series {attr}"));
    let open = "<polyline class=\"line\" points=\"";
    let at = g.find(open).expect("a line") + open.len();
    g[at..at + g[at..].find('"').unwrap()]
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_capacity_panel_opens_the_page_with_the_answer() {
    let html = page_of(capacity(CapacityOutcome::Found, true));
    let panel = html
        .find("data-panel=\"capacity\"")
        .expect("a capacity panel");
    assert!(panel < html.find("data-panel=\"summary\"").unwrap());
    assert!(panel < html.find("<section class=\"charts\"").unwrap());
    let chart = charts(&html, "capacity");
    assert_eq!(chart.len(), 1);
    assert!(html.find(chart[0]).unwrap() > panel);
    assert!(html.contains("data-outcome=\"found\" data-confirmed=\"true\""));
    assert!(html.contains("capacity: 2000 ops/s (2000–4000) at p99 ≤ 1 ms</p>"));
}

#[test]
fn an_unconfirmed_capacity_is_said_so_with_the_fix() {
    let html = page_of(capacity(CapacityOutcome::Unconfirmed, false));
    assert!(html.contains("data-outcome=\"unconfirmed\" data-confirmed=\"false\""));
    assert!(html.contains(
        "capacity: unconfirmed: the steps met p99 ≤ 1 ms at 2000 ops/s (2000–4000), but the confirmation run at 2000 ops/s missed p99 ≤ 1 ms (p99 1.400 ms); the capacity sits at the edge of the noise: give a longer --step-time or a larger --resolution"
    ));
    assert!(html.contains("the rate its steps met is not confirmed"));
    assert!(!html.contains("capacity: 2000 ops/s"));
}

#[test]
fn a_rate_tried_twice_is_one_point_of_the_line_and_a_lone_dot() {
    let html = page_of(capacity(CapacityOutcome::Found, true));
    let chart = charts(&html, "capacity")[0];
    // Rates 1 000, 2 000, 4 000 and 8 000: one point each, left to right.
    let line = polyline(chart, "data-series=\"p99\"");
    assert_eq!(line.len(), 4, "{line:?}");
    assert!(line.windows(2).all(|w| w[0].0 < w[1].0), "{line:?}");
    // The earlier tries of 4 000 (its step) and 2 000 (its step) are dots.
    assert_eq!(
        chart
            .matches("<g class=\"series\" data-series=\"p99 earlier try\"")
            .count(),
        2
    );
}

#[test]
fn a_one_ms_slo_stays_clear_of_the_axis_under_a_65_ms_tail() {
    let html = page_of(capacity(CapacityOutcome::Found, true));
    let chart = charts(&html, "capacity")[0];
    let slo = polyline(chart, "data-series=\"slo\"");
    // The plot spans y 34 (top) to 278 (the x axis): the line is in the
    // plot's lower half, and over a fifth of its height above the axis.
    let (top, bottom) = (34.0, 278.0);
    assert!(
        slo[0].1 < bottom - 0.2 * (bottom - top) && slo[0].1 > top,
        "{slo:?}"
    );
}
