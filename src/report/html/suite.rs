//! A `kvbench suite` file on the page: its tests on one evenly spaced axis
//! in redis-benchmark's order, labelled by the test's name (as a sweep's
//! cells are), with requests/s per test and p50 and p99 per test. One
//! series per file (and percentile), a bar per test the file has (with its
//! `<circle class="pt">` on top): the tests are separate benchmarks, and a
//! line from SET to GET would read as a trend between them.
//!
//! Preparation steps (LRANGE's "LPUSH (needed to benchmark LRANGE)") are
//! left out of the charts: they fill a list for the tests after them and
//! are not a test themselves; the summary panel still lists them. The
//! panels read a suite through [`entries`] and [`first_test`]. A test
//! whose own verdict is not valid in one of the files has its axis label
//! marked (`SET (INVALID)`).

use crate::protocol::command::suite::TESTS;
use crate::report::html::charts::{file_data, legend, style};
use crate::report::html::svg::{Axis, Chart, Plot, Series, TickFormat};
use crate::report::html::{Source, of_kind, verdict};
use crate::report::model::section::OpRow;
use crate::report::model::suite::{SuiteDocument, SuiteEntry};
use crate::report::model::{Document, Report};

/// Reads one latency of a test's `Totals`, ms.
type TestLatency = fn(&OpRow) -> Option<f64>;

/// The latencies per test: p50 and p99 on one log axis, so a test's tail
/// reads against its median and the files' medians against each other.
pub const LATENCIES: [(&str, TestLatency); 2] = [
    ("p50", |r| r.percentiles.at_ms(50.0)),
    ("p99", |r| r.percentiles.at_ms(99.0)),
];

/// The suites among the sources, with their index among them.
fn suites(sources: &[Source]) -> Vec<(usize, &Source, &SuiteDocument)> {
    of_kind(sources, |c| match c {
        Document::Suite(d) => Some(d.as_ref()),
        Document::Report(_) | Document::Sweep(_) => None,
    })
}

/// The tests of `doc` that are charted, in the file's order: every entry
/// but a preparation, with its headline `Totals` (a test stopped before
/// its headline was written has none, and no point).
pub fn charted(doc: &SuiteDocument) -> Vec<(&str, &OpRow)> {
    doc.suite
        .tests
        .iter()
        .filter(|t| !t.preparation)
        .filter_map(|t| {
            let totals = t.report.headline()?.row("Totals")?;
            Some((t.test.as_str(), totals))
        })
        .collect()
}

/// The x axis: every charted test of `docs`, in redis-benchmark's order;
/// a name the suite does not know comes after those it knows, in the order
/// first met.
pub fn axis_tests(docs: &[&SuiteDocument]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for doc in docs {
        for (name, _) in charted(doc) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    let place = |name: &String| {
        TESTS
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(name))
            .unwrap_or(usize::MAX)
    };
    // Stable: unknown names keep the order they were met in.
    names.sort_by_key(place);
    names
}

/// True when test `name` is not valid in one of `docs`, by that test's own
/// verdict (the banner says which file, and why).
pub fn invalid_test(docs: &[&SuiteDocument], name: &str) -> bool {
    docs.iter()
        .flat_map(|d| &d.suite.tests)
        .filter(|t| !t.preparation && t.test == name)
        .any(|t| verdict::is_invalid(verdict::of_report(&t.report)))
}

/// `(x, y)` of `doc`'s charted tests: x is the test's place on `axis`, y
/// what `value` reads off its `Totals`; in x order.
pub fn points(
    doc: &SuiteDocument,
    axis: &[String],
    value: impl Fn(&OpRow) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = charted(doc)
        .into_iter()
        .filter_map(|(name, totals)| {
            let x = axis.iter().position(|n| n == name)?;
            value(totals).map(|y| (x as f64, y))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// The suite charts of `sources`: none without a suite file.
pub fn charts(sources: &[Source]) -> Vec<Chart> {
    let suites = suites(sources);
    if suites.is_empty() {
        return Vec::new();
    }
    let files = suites.len();
    let docs: Vec<&SuiteDocument> = suites.iter().map(|(_, _, d)| *d).collect();
    let axis = axis_tests(&docs);
    // The points are placed by the test's name; only the label is marked.
    let labels = axis
        .iter()
        .map(|name| verdict::marked(name, invalid_test(&docs, name)))
        .collect();
    let x = Axis {
        format: TickFormat::Labels(labels),
        ..Axis::linear("test, in the suite's order")
    };
    let rps = suites
        .iter()
        .map(|(i, source, doc)| {
            let (colour, dash) = style(*i, 0, files);
            Series {
                name: "requests/s".into(),
                legend: legend(source, "requests/s", files),
                data: file_data(source),
                colour,
                dash,
                points: points(doc, &axis, |r| Some(r.ops_per_sec)),
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let mut latency = Vec::new();
    for (i, source, doc) in &suites {
        for (k, (name, value)) in LATENCIES.iter().enumerate() {
            let points = points(doc, &axis, value);
            if points.is_empty() {
                continue;
            }
            let (colour, dash) = style(*i, k, files);
            latency.push(Series {
                name: name.to_string(),
                legend: legend(source, name, files),
                data: file_data(source),
                colour,
                dash,
                points,
            });
        }
    }
    vec![
        Chart {
            kind: "suite-requests-per-second",
            title: "Suite: requests/s per test".into(),
            data: Vec::new(),
            x: x.clone(),
            y: Axis::from_zero("requests/s"),
            bands: Vec::new(),
            series: rps,
            plot: Plot::Bars,
            error_bars: Vec::new(),
        },
        Chart {
            kind: "suite-latency",
            title: "Suite: p50 and p99 latency per test".into(),
            data: Vec::new(),
            x,
            y: Axis::log("latency (ms)"),
            bands: Vec::new(),
            series: latency,
            plot: Plot::Bars,
            error_bars: Vec::new(),
        },
    ]
}

/// Every step of `doc` with the name the panels give it: the test's name,
/// or the preparation's title.
pub fn entries(doc: &SuiteDocument) -> Vec<(String, &Report)> {
    doc.suite
        .tests
        .iter()
        .map(|t| (t.test.clone(), &t.report))
        .collect()
}

/// The test whose report stands for the suite in the server and
/// configuration panels (every test shares the suite's settings but the
/// command): the first that is not a preparation, or the first step.
pub fn first_test(doc: &SuiteDocument) -> Option<&SuiteEntry> {
    let tests = &doc.suite.tests;
    tests.iter().find(|t| !t.preparation).or(tests.first())
}
