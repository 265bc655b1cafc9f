//! The charts of the page, built from every file given: ops/s per second
//! across warm-up and runs, latency percentiles per second per op, the
//! latency spectrum on HdrHistogram's percentile axis, the client's CPU
//! ([`crate::report::html::resources`]), the scaling of merged sets
//! ([`crate::report::html::scaling`]); a sweep's are
//! [`crate::report::html::sweep`]'s and a suite's [`crate::report::html::suite`]'s.
//! Several files overlay: one colour per file, and within a file one dash
//! pattern per op or percentile; each file's phases are its own row of bands,
//! on its own time line (every file starts at 0).

use crate::report::html::data::{self, Phase};
use crate::report::html::svg::{Axis, Band, Chart, Plot, Series, TickFormat};
use crate::report::html::{Source, of_kind, suite, sweep, verdict};
use crate::report::model::{Document, Report};

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
        Document::Report(r) => Some(r.as_ref()),
        Document::Sweep(_) | Document::Suite(_) => None,
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
        out.extend(super::server::charts(&reports));
        out.extend(latency_per_second(&reports));
        out.push(spectrum(&reports, notes));
        out.extend(super::precision::charts(&reports));
        out.extend(super::scaling::scaling(&reports));
    }
    out.extend(sweep::charts(sources, notes));
    out.extend(suite::charts(sources));
    out
}

/// The phases of file `file` (of `files`) as bands, labelled with the file
/// and in its colour: every file has its own, since files that ran other
/// workloads (a warm-up or none, other run lengths) do not line up.
pub fn bands(source: &Source, file: usize, files: usize, phases: &[Phase<'_>]) -> Vec<Band> {
    let (colour, _) = style(file, 0, files);
    phases
        .iter()
        .map(|p| Band {
            from: p.offset_s,
            to: p.offset_s + p.duration_s,
            label: p.name.clone(),
            file: source.label.clone(),
            colour,
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
    let mut all_bands = Vec::new();
    for (i, source, report) in reports {
        let phases = data::phases(report);
        all_bands.extend(bands(source, *i, files, &phases));
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
        bands: all_bands,
        series,
        plot: Plot::Lines,
        error_bars: Vec::new(),
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
        let mut op_bands = Vec::new();
        for (i, source, report) in reports {
            let phases = data::phases(report);
            // The bands of the files that have the op: a row for a file
            // without a line here would say nothing.
            if phases
                .iter()
                .any(|p| p.section.row(&op).is_some_and(|r| r.count > 0))
            {
                op_bands.extend(bands(source, *i, files, &phases));
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
            bands: op_bands,
            series,
            plot: Plot::Lines,
            error_bars: Vec::new(),
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
        // A histogram without samples (a GET-only run's SET) is no line.
        let spectra = data::spectra(report, &mut file_notes);
        for spectrum in spectra.into_iter().filter(|s| !s.histogram.is_empty()) {
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
        plot: Plot::Lines,
        error_bars: Vec::new(),
    }
}
