//! A sweep on the page: total ops/s per cell with the run-to-run range of
//! the cell as an error bar (its slowest to its fastest run, `-x 2` or
//! more), p99 per cell, and the latency spectrum of each cell (every op of
//! every run together) on HdrHistogram's percentile axis. The cells are
//! evenly spaced on x (sweeps are usually geometric: 1, 4, 16).
//!
//! An error bar's spread is [`crate::report::spread`]'s, the number the
//! sweep's text table and `kvbench compare` show for the same cell.

use hdrhistogram::Histogram;

use crate::report::html::charts::{file_data, legend, style};
use crate::report::html::data::{self, SweepPoints};
use crate::report::html::svg::{Axis, Chart, ErrorBar, Plot, Series, TickFormat};
use crate::report::html::{Source, of_kind};
use crate::report::model::{Document, Report, SweepDocument, SweepSpread};
use crate::report::spread;

/// The sweeps among the sources, with their index among them.
fn sweeps(sources: &[Source]) -> Vec<(usize, &Source, &SweepDocument)> {
    of_kind(sources, |c| match c {
        Document::Sweep(d) => Some(d.as_ref()),
        Document::Report(_) | Document::Suite(_) => None,
    })
}

/// The sweep charts of `sources`: none without a sweep; histograms that do
/// not decode or add up go to `notes`.
pub fn charts(sources: &[Source], notes: &mut Vec<String>) -> Vec<Chart> {
    let sweeps = sweeps(sources);
    let files = sweeps.len();
    let views: Vec<_> = sweeps
        .iter()
        .map(|(i, source, doc)| (*i, *source, *doc, data::sweep_points(doc)))
        .collect();
    let Some((_, _, _, first)) = views.first() else {
        return Vec::new();
    };
    let parameter = first.parameter.clone();
    let labels = views
        .iter()
        .map(|(_, _, _, v)| &v.labels)
        .max_by_key(|l| l.len())
        .cloned()
        .unwrap_or_default();
    let x = Axis {
        format: TickFormat::Labels(labels),
        ..Axis::linear(&parameter)
    };
    let one = |kind: &'static str, y: &str, pick: fn(&SweepPoints) -> &[(f64, f64)]| {
        let series = views
            .iter()
            .map(|(i, source, _, view)| {
                let (colour, dash) = style(*i, 0, files);
                Series {
                    name: y.to_string(),
                    legend: legend(source, y, files),
                    data: file_data(source),
                    colour,
                    dash,
                    points: pick(view).to_vec(),
                }
            })
            .collect();
        Chart {
            kind,
            title: String::new(),
            data: vec![("parameter", parameter.clone())],
            x: x.clone(),
            y: Axis::from_zero(y),
            bands: Vec::new(),
            series,
            plot: Plot::Lines,
            error_bars: Vec::new(),
        }
    };
    let mut ops = one("sweep-ops-per-second", "ops/s", |v| &v.ops_per_sec);
    ops.title = "Sweep: total ops/s per cell; each bar spans the cell's slowest to fastest run (-x 2 or more)".into();
    for (i, source, doc, _) in &views {
        ops.error_bars.extend(error_bars(source, *i, files, doc));
    }
    let mut p99 = one("sweep-p99", "p99 latency (ms)", |v| &v.p99_ms);
    p99.title = "Sweep: p99 latency per cell".into();
    vec![ops, p99, spectra(&views, files, notes)]
}

/// An error bar per cell of `doc` that ran twice or more: its summary row's
/// slowest and fastest run, at the cell's place on the axis.
fn error_bars(source: &Source, file: usize, files: usize, doc: &SweepDocument) -> Vec<ErrorBar> {
    let (colour, _) = style(file, 0, files);
    doc.sweep
        .summary
        .iter()
        .enumerate()
        .filter_map(|(cell, row)| {
            let SweepSpread { min, max, .. } = row.ops_per_sec_spread?;
            let spread = spread::label(spread::max_over_min(min, max));
            let mut data = file_data(source);
            data.extend([
                ("cell", row.cell.clone()),
                ("spread", spread.clone()),
                ("min", format!("{min:.2}")),
                ("max", format!("{max:.2}")),
            ]);
            Some(ErrorBar {
                x: cell as f64,
                lo: min,
                hi: max,
                colour,
                data,
                title: format!(
                    "{}: runs from {min:.0} to {max:.0} ops/s, a {spread} spread",
                    row.cell
                ),
            })
        })
        .collect()
}

/// Every op of every run of `cell` in one histogram (response time only
/// with `--rate`: service time is not what a client waits for).
fn cell_histogram(cell: &Report, notes: &mut Vec<String>) -> Option<Histogram<u64>> {
    let mut total: Option<Histogram<u64>> = None;
    for s in data::spectra(cell, notes) {
        if s.name.ends_with("service time") {
            continue;
        }
        match total.as_mut() {
            None => total = Some(s.histogram),
            Some(t) => {
                if let Err(e) = t.add(&s.histogram) {
                    notes.push(format!(
                        "{}: left out of the cell's spectrum ({e:?})",
                        s.name
                    ));
                }
            }
        }
    }
    total.filter(|h| !h.is_empty())
}

type View<'a> = (usize, &'a Source, &'a SweepDocument, SweepPoints);

/// The latency spectrum of each cell: with one file a colour per cell; with
/// several the file's colour and a dash per cell.
fn spectra(views: &[View<'_>], files: usize, notes: &mut Vec<String>) -> Chart {
    let mut series = Vec::new();
    for (i, source, doc, _) in views {
        for (k, cell) in doc.sweep.cells.iter().enumerate() {
            let label = cell
                .kvbench
                .as_ref()
                .and_then(|kv| kv.cell.as_ref())
                .map(|c| c.label.clone())
                .unwrap_or_else(|| format!("cell {k}"));
            let mut cell_notes = Vec::new();
            let histogram = cell_histogram(cell, &mut cell_notes);
            notes.extend(
                cell_notes
                    .into_iter()
                    .map(|n| format!("{} [{label}]: {n}", source.label)),
            );
            let Some(histogram) = histogram else {
                continue;
            };
            let (colour, dash) = style(*i, k, files);
            let mut data = file_data(source);
            data.push(("cell", label.clone()));
            series.push(Series {
                name: label.clone(),
                legend: legend(source, &label, files),
                data,
                colour,
                dash,
                points: data::spectrum_points(&histogram),
            });
        }
    }
    Chart {
        kind: "sweep-spectrum",
        title: "Sweep: latency by percentile of each cell, every op and run together".into(),
        data: Vec::new(),
        x: Axis {
            format: TickFormat::Percentile,
            ..Axis::log("percentile")
        },
        y: Axis::from_zero("latency (ms)"),
        bands: Vec::new(),
        series,
        plot: Plot::Lines,
        error_bars: Vec::new(),
    }
}
