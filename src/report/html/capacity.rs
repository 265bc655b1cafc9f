//! The capacity panel of a `kvbench capacity` file, first on the page after
//! the verdict banners since it is the answer: the answer line (what was
//! confirmed and what was not, docs/capacity.md), the confirmation run, and
//! the hockey-stick chart: each try's p50, p99 and p99.9 response time
//! against the ops/s it achieved, the SLO limits as level lines on a log
//! axis (so a 1 ms limit stays visible under a 60 ms tail), and the
//! capacity's interval shaded (from the highest rate that met the SLO to the
//! lowest that failed it).

use std::fmt::Write;

use crate::report::capacity::{answer, verdict};
use crate::report::html::charts::style;
use crate::report::html::svg::{Axis, Band, Chart, Plot, Series, escape};
use crate::report::html::{Source, of_kind};
use crate::report::model::capacity::{Capacity, CapacityOutcome, CapacityStep};
use crate::report::model::{Document, Report};

/// The curve's percentiles: their keys in `percentiles_ms` and legends.
const CURVES: [(&str, &str); 3] = [("p50", "p50"), ("p99", "p99"), ("p99.9", "p99.9")];

/// The panel: one part per capacity file among `sources`; nothing when
/// none is one.
pub fn panel(sources: &[Source]) -> String {
    let reports = of_kind(sources, |c| match c {
        Document::Report(r) => Some(r.as_ref()),
        Document::Sweep(_) | Document::Suite(_) => None,
    });
    let found: Vec<(&Source, &Capacity)> = reports
        .iter()
        .filter_map(|(_, source, r)| Some((*source, capacity_of(r)?)))
        .collect();
    if found.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("<section class=\"panel\" data-panel=\"capacity\"><h2>Capacity</h2>\n");
    for (source, c) in found {
        part(&mut out, source, c);
    }
    out.push_str("</section>\n");
    out
}

fn capacity_of(report: &Report) -> Option<&Capacity> {
    report.kvbench.as_ref()?.capacity.as_ref()
}

/// One file's answer, its confirmation and its chart.
fn part(out: &mut String, source: &Source, c: &Capacity) {
    let outcome = serde_json::to_value(c.outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let confirmed = match &c.confirmation {
        Some(conf) => conf.meets.to_string(),
        None => "none".to_string(),
    };
    let _ = writeln!(
        out,
        "<div class=\"capacity\" data-file=\"{}\" data-outcome=\"{outcome}\" data-confirmed=\"{confirmed}\"><h3>{}</h3>\n<p class=\"answer\">{}</p>",
        escape(&source.label),
        escape(&source.label),
        escape(&answer(c))
    );
    let confirmation = match &c.confirmation {
        Some(conf) => format!(
            "Confirmation run at {:.0} ops/s: achieved {:.1} ops/s, p99 {:.3} ms, {}{}.",
            conf.rate,
            conf.ops_per_sec,
            conf.percentiles_ms.get("p99").copied().unwrap_or(0.0),
            verdict(conf),
            if c.outcome == CapacityOutcome::Unconfirmed {
                ": the rate its steps met is not confirmed"
            } else {
                ""
            }
        ),
        None => "No confirmation run finished: the rate above is not confirmed.".to_string(),
    };
    let _ = writeln!(
        out,
        "<p class=\"confirmation\">{}</p>",
        escape(&confirmation)
    );
    out.push_str(&chart(&source.label, c).render());
    out.push_str("</div>\n");
}

/// Every try in the order run: the steps (a confirmation that refuted its
/// rate among them), then the confirmation that stands.
fn tries(c: &Capacity) -> Vec<&CapacityStep> {
    c.steps.iter().chain(c.confirmation.as_ref()).collect()
}

/// Each asked rate's last try, by rate; and every earlier try of a rate
/// tried again. The lines go through the last tries, which decided their
/// rates: two tries of one rate achieve about the same ops/s, and a line
/// through both would be a vertical zig-zag.
fn last_and_earlier(c: &Capacity) -> (Vec<&CapacityStep>, Vec<&CapacityStep>) {
    let all = tries(c);
    let mut last = Vec::new();
    let mut earlier = Vec::new();
    for (i, t) in all.iter().enumerate() {
        if all[i + 1..].iter().any(|later| later.rate == t.rate) {
            earlier.push(*t);
        } else {
            last.push(*t);
        }
    }
    last.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    (last, earlier)
}

/// The hockey-stick chart of one file.
pub fn chart(label: &str, c: &Capacity) -> Chart {
    let (last, earlier) = last_and_earlier(c);
    let mut series: Vec<Series> = Vec::new();
    for (k, (key, legend)) in CURVES.iter().enumerate() {
        let (colour, dash) = style(0, k, 1);
        let at = |s: &CapacityStep| Some((s.ops_per_sec, *s.percentiles_ms.get(*key)?));
        series.push(Series {
            name: (*key).to_string(),
            legend: (*legend).to_string(),
            data: Vec::new(),
            colour,
            dash,
            points: last.iter().filter_map(|s| at(s)).collect(),
        });
        // An earlier try is a lone dot: one series each, one legend entry.
        for s in &earlier {
            series.push(Series {
                name: format!("{key} earlier try"),
                legend: format!("{legend}: earlier tries of a rate (dots)"),
                data: vec![("rate", format!("{}", s.rate))],
                colour,
                dash,
                points: at(s).into_iter().collect(),
            });
        }
    }
    // Each SLO's limit, level across every try's achieved rate.
    let xs = || tries(c).into_iter().map(|s| s.ops_per_sec);
    let first = xs().reduce(f64::min).unwrap_or(0.0);
    let end = xs().reduce(f64::max).unwrap_or(0.0);
    for (i, slo) in c.slo.iter().enumerate() {
        let name = format!("SLO p{} ≤ {} ms", slo.percentile, slo.limit_ms);
        series.push(Series {
            name: "slo".to_string(),
            legend: name,
            data: vec![("percentile", slo.percentile.to_string())],
            colour: "#888888",
            dash: Some(if i == 0 { "6 3" } else { "2 3" }),
            points: vec![(first, slo.limit_ms), (end, slo.limit_ms)],
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
        // Log: the limits (often a few ms) and a saturated tail (tens or
        // hundreds of ms) both readable on one axis.
        y: Axis::log("ms (log scale)"),
        bands,
        series,
        plot: Plot::Lines,
        error_bars: Vec::new(),
    }
}
