//! The runs' precision drawn: each measured run's ops/s and p99 (all ops
//! together) as a point with its 95 % interval as an error bar
//! (`runs[i].precision`, docs/precision.md); a run without an interval is a
//! point alone.

use crate::report::html::Source;
use crate::report::html::charts::{file_data, legend, style};
use crate::report::html::svg::{Axis, Chart, ErrorBar, Plot, Series, TickFormat};
use crate::report::model::Report;
use crate::report::model::precision::{Figure, Precision};
use crate::report::model::section::TOTALS_ROW;

/// The two charts, or none when no run of `reports` has intervals.
pub fn charts(reports: &[(usize, &Source, &Report)]) -> Vec<Chart> {
    let has = |r: &Report| {
        r.kvbench
            .as_ref()
            .is_some_and(|k| k.runs.iter().any(|p| p.precision.is_some()))
    };
    if !reports.iter().any(|(_, _, r)| has(r)) {
        return Vec::new();
    }
    let ops = chart(
        reports,
        ("precision-ops-per-second", "ops/s"),
        "Ops/s of each run; each bar is its 95 % interval (batch means)",
        |p| p.ops_per_sec,
    );
    let p99 = chart(
        reports,
        ("precision-p99", "p99 latency (ms)"),
        "p99 of each run, all ops; each bar is its 95 % interval (batch means)",
        |p| {
            let totals = p.latency_ms.0.iter().find(|(row, _)| row == TOTALS_ROW)?;
            totals
                .1
                .0
                .iter()
                .find(|(key, _)| key == "p99.00")
                .and_then(|(_, f)| *f)
        },
    );
    vec![ops, p99]
}

/// One chart: a series per file, a point per run, a bar per interval.
fn chart(
    reports: &[(usize, &Source, &Report)],
    (kind, y): (&'static str, &str),
    title: &str,
    pick: fn(&Precision) -> Option<Figure>,
) -> Chart {
    let files = reports.len();
    let mut labels: Vec<String> = Vec::new();
    let mut series = Vec::new();
    let mut error_bars = Vec::new();
    for (i, source, report) in reports {
        let (colour, dash) = style(*i, 0, files);
        let runs = report.kvbench.iter().flat_map(|k| &k.runs);
        let mut points = Vec::new();
        for (n, run) in runs.enumerate() {
            if labels.len() <= n {
                labels.push(run.phase.clone());
            }
            let Some(f) = run.precision.as_ref().and_then(pick) else {
                continue;
            };
            points.push((n as f64, f.value));
            let mut data = file_data(source);
            data.extend([
                ("phase", run.phase.clone()),
                ("value", format!("{:.3}", f.value)),
                ("half-width", format!("{:.3}", f.half_width)),
            ]);
            error_bars.push(ErrorBar {
                x: n as f64,
                lo: f.value - f.half_width,
                hi: f.value + f.half_width,
                colour,
                data,
                title: format!(
                    "{}: {:.3} ± {:.1} % ({} batches of {} s)",
                    run.phase, f.value, f.relative_percent, f.batches, f.batch_s
                ),
            });
        }
        series.push(Series {
            name: y.to_string(),
            legend: legend(source, y, files),
            data: file_data(source),
            colour,
            dash,
            points,
        });
    }
    Chart {
        kind,
        title: title.into(),
        data: Vec::new(),
        x: Axis {
            format: TickFormat::Labels(labels),
            ..Axis::linear("run")
        },
        y: Axis::from_zero(y),
        bands: Vec::new(),
        series,
        plot: Plot::Lines,
        error_bars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::tests::{report, source};
    use crate::report::model::Document;
    use crate::report::model::named::Named;

    fn figure(value: f64, half_width: f64) -> Figure {
        Figure {
            value,
            half_width,
            relative_percent: 100.0 * half_width / value,
            batch_s: 2,
            batches: 15,
        }
    }

    #[test]
    fn each_run_is_a_point_with_its_interval_and_a_run_without_one_a_point_alone() {
        let mut r = report();
        let k = r.kvbench.as_mut().unwrap();
        k.runs.truncate(1);
        k.runs.push(k.runs[0].clone());
        k.runs[1].phase = "RUN #2".into();
        let p99 = Named(vec![("p99.00".to_string(), Some(figure(0.8, 0.04)))]);
        k.runs[0].precision = Some(Precision {
            seconds: 30,
            ops_per_sec: Some(figure(1000.0, 50.0)),
            latency_ms: Named(vec![(TOTALS_ROW.to_string(), p99)]),
            met_after_s: None,
        });
        let s = source("a.json", Document::Report(Box::new(r.clone())));
        let charts = charts(&[(0, &s, &r)]);
        assert_eq!(charts.len(), 2);
        let [ops, p99] = [&charts[0], &charts[1]];
        assert_eq!(ops.error_bars.len(), 1);
        assert_eq!(
            (ops.error_bars[0].lo, ops.error_bars[0].hi),
            (950.0, 1050.0)
        );
        let bar = &p99.error_bars[0];
        assert!(
            (bar.lo - 0.76).abs() < 1e-9 && (bar.hi - 0.84).abs() < 1e-9,
            "{bar:?}"
        );
        assert!(
            bar.title
                .contains("RUN #1: 0.800 ± 5.0 % (15 batches of 2 s)"),
            "{}",
            bar.title
        );
        // RUN #2 has no precision: its place on the axis, no point.
        assert_eq!(p99.series[0].points, vec![(0.0, 0.8)]);
        assert_eq!(
            p99.x.format,
            TickFormat::Labels(vec!["RUN #1".into(), "RUN #2".into()])
        );
        // A page whose runs have no precision draws neither chart.
        r.kvbench.as_mut().unwrap().runs[0].precision = None;
        assert!(super::charts(&[(0, &s, &r)]).is_empty());
    }
}
