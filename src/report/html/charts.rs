//! The charts of the page, built from every file given: ops/s per second
//! across warm-up and runs, latency percentiles per second per op, the
//! latency spectrum on HdrHistogram's percentile axis, the client's CPU
//! ([`crate::report::html::resources`]), the scaling of merged sets
//! ([`crate::report::html::scaling`]), and a sweep's QPS and
//! p99 per cell; a suite's charts are [`crate::report::html::suite`]'s. Several
//! files overlay: one colour per file, and within a file one dash pattern
//! per op or percentile.

use crate::report::html::data::{self, Phase};
use crate::report::html::svg::{Axis, Band, Chart, Series, TickFormat};
use crate::report::html::{Content, Source, of_kind, suite, verdict};
use crate::report::model::{Report, SweepDocument};

/// Colours that stay apart on screen and in print (Tableau's ten, less grey).
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Dash patterns for a second dimension once colour names the file.
const DASHES: [Option<&str>; 4] = [None, Some("7 3"), Some("2 3"), Some("9 3 2 3")];

/// The colour and dash of series `kind` (an op, a percentile) of file `file`
/// among `files`: with one file colour tells the kinds apart; with several
/// it tells the files apart and the dash the kinds.
pub fn style(file: usize, kind: usize, files: usize) -> (&'static str, Option<&'static str>) {
    if files > 1 {
        (PALETTE[file % PALETTE.len()], DASHES[kind % DASHES.len()])
    } else {
        (PALETTE[kind % PALETTE.len()], None)
    }
}

/// The legend of a series: the kind, with the file's label when several,
/// and [`verdict::MARK`] when the file is not valid.
pub fn legend(source: &Source, kind: &str, files: usize) -> String {
    let name = if files > 1 {
        format!("{} · {kind}", source.label)
    } else {
        kind.to_string()
    };
    verdict::marked(&name, verdict::source_invalid(source))
}

/// The `data-*` attributes every series of `source` carries: the file, and
/// `data-verdict="invalid"` when the file is not valid.
pub fn file_data(source: &Source) -> Vec<(&'static str, String)> {
    let mut data = vec![("file", source.label.clone())];
    if verdict::source_invalid(source) {
        data.push(("verdict", "invalid".into()));
    }
    data
}

/// The index of `name` in `names`, added when new: one style per name
/// across every file.
fn index_of(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
}

/// The single reports among the sources, with their index among them.
fn reports(sources: &[Source]) -> Vec<(usize, &Source, &Report)> {
    of_kind(sources, |c| match c {
        Content::Report(r) => Some(r.as_ref()),
        Content::Sweep(_) | Content::Suite(_) => None,
    })
}

/// The sweeps among the sources, with their index among them.
fn sweeps(sources: &[Source]) -> Vec<(usize, &Source, &SweepDocument)> {
    of_kind(sources, |c| match c {
        Content::Sweep(d) => Some(d.as_ref()),
        Content::Report(_) | Content::Suite(_) => None,
    })
}

/// Every chart for `sources`, in page order; problems met on the way (a
/// histogram that does not decode) go to `notes`.
pub fn charts(sources: &[Source], notes: &mut Vec<String>) -> Vec<Chart> {
    let mut out = Vec::new();
    let reports = reports(sources);
    if !reports.is_empty() {
        out.push(ops_per_second(&reports));
        out.extend(super::resources::client_cpu(&reports));
        out.extend(latency_per_second(&reports));
        out.push(spectrum(&reports, notes));
        out.extend(super::scaling::scaling(&reports));
        out.extend(super::capacity::capacity(&reports));
    }
    let sweeps = sweeps(sources);
    if !sweeps.is_empty() {
        out.extend(sweep_charts(&sweeps));
    }
    out.extend(suite::charts(sources));
    out
}

/// The phases of the first report as bands; the other files' phases line up
/// when they ran the same workload.
fn bands(phases: &[Phase<'_>]) -> Vec<Band> {
    phases
        .iter()
        .map(|p| Band {
            from: p.offset_s,
            to: p.offset_s + p.duration_s,
            label: p.name.clone(),
        })
        .collect()
}

fn phase_data(source: &Source, phase: &Phase<'_>) -> Vec<(&'static str, String)> {
    let mut data = file_data(source);
    data.push(("phase", phase.name.clone()));
    data
}

/// Ops/s of each row with replies, second by second, warm-up and runs on one
/// time line.
fn ops_per_second(reports: &[(usize, &Source, &Report)]) -> Chart {
    let files = reports.len();
    let mut rows: Vec<String> = Vec::new();
    let mut series = Vec::new();
    let mut first_bands = Vec::new();
    for (i, source, report) in reports {
        let phases = data::phases(report);
        if *i == 0 {
            first_bands = bands(&phases);
        }
        for phase in &phases {
            for (name, row) in data::rows_with_replies(phase.section) {
                let (colour, dash) = style(*i, index_of(&mut rows, name), files);
                series.push(Series {
                    name: name.to_string(),
                    legend: legend(source, name, files),
                    data: phase_data(source, phase),
                    colour,
                    dash,
                    points: data::per_second(phase, row, data::ops_per_sec),
                });
            }
        }
    }
    Chart {
        kind: "ops-per-second",
        title: "Ops/s per second, warm-up and runs".into(),
        data: Vec::new(),
        x: Axis::from_zero("seconds since the first phase started"),
        y: Axis::from_zero("ops/s"),
        bands: first_bands,
        series,
    }
}

/// One chart per op: p50, p99, p99.9 and max of each whole second, log scale.
/// `Totals` is left out when there are ops: it is their mix.
fn latency_per_second(reports: &[(usize, &Source, &Report)]) -> Vec<Chart> {
    let files = reports.len();
    let mut ops: Vec<String> = Vec::new();
    for (_, _, report) in reports {
        for phase in data::phases(report) {
            for (name, _) in data::rows_with_replies(phase.section) {
                if !ops.iter().any(|o| o == name) {
                    ops.push(name.to_string());
                }
            }
        }
    }
    if ops.len() > 1 {
        ops.retain(|o| o != "Totals");
    }
    let mut charts = Vec::new();
    for op in ops {
        let mut series = Vec::new();
        let mut first_bands = Vec::new();
        for (i, source, report) in reports {
            let phases = data::phases(report);
            if *i == 0 {
                first_bands = bands(&phases);
            }
            for phase in &phases {
                let Some(row) = phase.section.row(&op).filter(|r| r.count > 0) else {
                    continue;
                };
                for (k, (name, value)) in data::PER_SECOND_LATENCIES.iter().enumerate() {
                    let points = data::per_second(phase, row, value);
                    if points.is_empty() {
                        continue;
                    }
                    let (colour, dash) = style(*i, k, files);
                    series.push(Series {
                        name: name.to_string(),
                        legend: legend(source, name, files),
                        data: phase_data(source, phase),
                        colour,
                        dash,
                        points,
                    });
                }
            }
        }
        charts.push(Chart {
            kind: "latency-per-second",
            title: format!("{op}: latency percentiles per second"),
            data: vec![("op", op.clone())],
            x: Axis::from_zero("seconds since the first phase started"),
            y: Axis::log("latency (ms)"),
            bands: first_bands,
            series,
        });
    }
    charts
}

/// The whole latency spectrum of each op, every run added, on HdrHistogram's
/// log-percentile axis.
fn spectrum(reports: &[(usize, &Source, &Report)], notes: &mut Vec<String>) -> Chart {
    let files = reports.len();
    let mut kinds: Vec<String> = Vec::new();
    let mut series = Vec::new();
    for (i, source, report) in reports {
        let mut file_notes = Vec::new();
        for spectrum in data::spectra(report, &mut file_notes) {
            let (colour, dash) = style(*i, index_of(&mut kinds, &spectrum.name), files);
            series.push(Series {
                legend: legend(source, &spectrum.name, files),
                data: file_data(source),
                colour,
                dash,
                points: data::spectrum_points(&spectrum.histogram),
                name: spectrum.name,
            });
        }
        notes.extend(
            file_notes
                .into_iter()
                .map(|n| format!("{}: {n}", source.label)),
        );
    }
    Chart {
        kind: "latency-spectrum",
        title: "Latency by percentile, every run together".into(),
        data: Vec::new(),
        x: Axis {
            format: TickFormat::Percentile,
            ..Axis::log("percentile")
        },
        y: Axis::from_zero("latency (ms)"),
        bands: Vec::new(),
        series,
    }
}

/// A sweep's total ops/s and p99 against the swept value, one point per cell;
/// the cells are evenly spaced (sweeps are usually geometric: 1, 4, 16).
fn sweep_charts(sweeps: &[(usize, &Source, &SweepDocument)]) -> Vec<Chart> {
    let files = sweeps.len();
    let views: Vec<_> = sweeps
        .iter()
        .map(|(i, source, doc)| (*i, *source, data::sweep_points(doc)))
        .collect();
    let Some((_, _, first)) = views.first() else {
        return Vec::new();
    };
    let labels = views
        .iter()
        .map(|(_, _, v)| &v.labels)
        .max_by_key(|l| l.len())
        .cloned()
        .unwrap_or_default();
    let x = Axis {
        format: TickFormat::Labels(labels),
        ..Axis::linear(&first.parameter)
    };
    let one = |kind: &'static str,
               title: &str,
               y: &str,
               pick: fn(&data::SweepPoints) -> &[(f64, f64)]| {
        let series = views
            .iter()
            .map(|(i, source, view)| {
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
            title: title.to_string(),
            data: vec![("parameter", first.parameter.clone())],
            x: x.clone(),
            y: Axis::from_zero(y),
            bands: Vec::new(),
            series,
        }
    };
    vec![
        one(
            "sweep-ops-per-second",
            "Sweep: total ops/s per cell",
            "ops/s",
            |v| &v.ops_per_sec,
        ),
        one(
            "sweep-p99",
            "Sweep: p99 latency per cell",
            "p99 latency (ms)",
            |v| &v.p99_ms,
        ),
    ]
}
