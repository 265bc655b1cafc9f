//! The hockey-stick chart of a `kvbench capacity` file: each step's p50,
//! p99 and p99.9 response time against the ops/s it achieved, the SLO
//! limits as level lines, and the capacity's interval shaded (from the
//! highest rate that met the SLO to the lowest that failed it).

use crate::report::html::Source;
use crate::report::html::charts::style;
use crate::report::html::svg::{Axis, Band, Chart, Plot, Series};
use crate::report::model::Report;
use crate::report::model::capacity::Capacity;

/// The curve's percentiles: their keys in `percentiles_ms` and legends.
const CURVES: [(&str, &str); 3] = [("p50", "p50"), ("p99", "p99"), ("p99.9", "p99.9")];

/// One chart per capacity file among `reports`.
pub fn capacity(reports: &[(usize, &Source, &Report)]) -> Vec<Chart> {
    reports
        .iter()
        .filter_map(|(_, source, r)| {
            let c = r.kvbench.as_ref()?.capacity.as_ref()?;
            Some(chart(&source.label, c))
        })
        .collect()
}

fn chart(label: &str, c: &Capacity) -> Chart {
    let mut steps: Vec<_> = c.steps.iter().collect();
    steps.sort_by(|a, b| a.ops_per_sec.total_cmp(&b.ops_per_sec));
    let mut series: Vec<Series> = CURVES
        .iter()
        .enumerate()
        .map(|(k, (key, legend))| {
            let (colour, dash) = style(0, k, 1);
            Series {
                name: (*key).to_string(),
                legend: (*legend).to_string(),
                data: Vec::new(),
                colour,
                dash,
                points: steps
                    .iter()
                    .filter_map(|s| Some((s.ops_per_sec, *s.percentiles_ms.get(*key)?)))
                    .collect(),
            }
        })
        .collect();
    // Each SLO's limit, level across every step's achieved rate.
    let (first, last) = (
        steps.first().map_or(0.0, |s| s.ops_per_sec),
        steps.last().map_or(0.0, |s| s.ops_per_sec),
    );
    for (i, slo) in c.slo.iter().enumerate() {
        let name = format!("SLO p{} ≤ {} ms", slo.percentile, slo.limit_ms);
        series.push(Series {
            name: "slo".to_string(),
            legend: name,
            data: vec![("percentile", slo.percentile.to_string())],
            colour: "#888888",
            dash: Some(if i == 0 { "6 3" } else { "2 3" }),
            points: vec![(first, slo.limit_ms), (last, slo.limit_ms)],
        });
    }
    let bands = match (c.low, c.high) {
        (Some(low), Some(high)) => vec![Band {
            from: low,
            to: high,
            label: format!("capacity {low:.0}–{high:.0}"),
            file: label.to_string(),
            colour: "#888888",
        }],
        _ => Vec::new(),
    };
    Chart {
        kind: "capacity",
        title: format!("Capacity: response time against achieved ops/s ({label})"),
        data: vec![(
            "capacity",
            c.ops_per_sec.map_or_else(String::new, |v| format!("{v}")),
        )],
        x: Axis::from_zero("achieved ops/s"),
        y: Axis::from_zero("ms"),
        bands,
        series,
        plot: Plot::Lines,
        error_bars: Vec::new(),
    }
}
