//! The page rendered from a fixture report (a real 2-run kvbench file whose
//! key prefix is `<script>alert(1)</script>`, its INFO maps and per-second
//! histograms emptied to keep it small): point counts, escaping, labels.

use std::path::PathBuf;

use crate::report::html::{Source, data, labels, page};
use crate::report::model::kvbench::Cell;
use crate::report::model::{
    self, Document, Report, Sweep, SweepDocument, SweepKvbench, SweepParameter, SweepRow,
};

const FIXTURE: &str = include_str!("fixture.json");

pub(super) fn report() -> Report {
    match model::parse("fixture.json", FIXTURE).unwrap() {
        Document::Report(r) => *r,
        Document::Sweep(_) | Document::Suite(_) => panic!("the fixture is a single report"),
    }
}

pub(super) fn source(label: &str, document: Document) -> Source {
    Source {
        label: label.into(),
        content: document,
    }
}

/// The `<svg class="chart" data-chart="{kind}" …>…</svg>` elements of `html`.
pub(super) fn charts<'a>(html: &'a str, kind: &str) -> Vec<&'a str> {
    let open = format!("<svg class=\"chart\" data-chart=\"{kind}\"");
    html.match_indices(&open)
        .map(|(at, _)| {
            let rest = &html[at..];
            &rest[..rest.find("</svg>").unwrap()]
        })
        .collect()
}

/// The circles of the series whose opening tag contains every one of `attrs`.
pub(super) fn circles(chart: &str, attrs: &[&str]) -> usize {
    chart
        .split("<g class=\"series\"")
        .skip(1)
        .filter(|g| {
            let tag = &g[..g.find('>').unwrap()];
            attrs.iter().all(|a| tag.contains(a))
        })
        .map(|g| {
            g[..g.find("</g>").unwrap()]
                .matches("<circle class=\"pt\"")
                .count()
        })
        .sum()
}

#[test]
fn ops_per_second_has_one_point_per_whole_second_of_each_phase() {
    let report = report();
    let html = page(&[source(
        "fixture.json",
        Document::Report(Box::new(report.clone())),
    )]);
    let chart = charts(&html, "ops-per-second");
    assert_eq!(chart.len(), 1);
    // Each 1-second phase has seconds 0 (whole) and 1 (the partial drain).
    for phase in ["WARM-UP", "RUN #1", "RUN #2"] {
        for row in ["Sets", "Gets", "Totals"] {
            let attrs = [
                &format!("data-series=\"{row}\"") as &str,
                &format!("data-phase=\"{phase}\""),
            ];
            assert_eq!(circles(chart[0], &attrs), 1, "{phase} {row}");
        }
    }
    assert_eq!(circles(chart[0], &["data-series=\"Waits\""]), 0);
    let phases = data::phases(&report);
    let names: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["WARM-UP", "RUN #1", "RUN #2"]);
    assert_eq!(phases[0].offset_s, 0.0);
    assert!(phases[1].offset_s >= 1.0 && phases[2].offset_s > phases[1].offset_s);
}

#[test]
fn latency_charts_are_one_per_op_with_four_percentiles_and_a_spectrum() {
    let html = page(&[source("fixture.json", Document::Report(Box::new(report())))]);
    let per_second = charts(&html, "latency-per-second");
    assert_eq!(per_second.len(), 2, "Sets and Gets, not Totals");
    assert!(per_second[0].contains("data-op=\"Sets\""));
    for name in ["p50", "p99", "p99.9", "max"] {
        let attrs = [
            &format!("data-series=\"{name}\"") as &str,
            "data-phase=\"RUN #2\"",
        ];
        assert_eq!(circles(per_second[1], &attrs), 1, "{name}");
    }
    let spectrum = charts(&html, "latency-spectrum");
    assert_eq!(spectrum.len(), 1);
    for op in ["SET", "GET"] {
        let n = circles(spectrum[0], &[&format!("data-series=\"{op}\"")]);
        assert!((10..2000).contains(&n), "{op}: {n} points");
    }
    assert!(spectrum[0].contains(">99%<") && spectrum[0].contains(">99.9%<"));
}

#[test]
fn spectrum_points_rise_and_stop_at_the_sample_count() {
    let report = report();
    let mut notes = Vec::new();
    let spectra = data::spectra(&report, &mut notes);
    assert!(notes.is_empty(), "{notes:?}");
    let set = spectra.iter().find(|s| s.name == "SET").unwrap();
    // Two runs added: the count is both runs' SETs.
    let runs: u64 = report
        .kvbench
        .as_ref()
        .unwrap()
        .runs
        .iter()
        .map(|r| r.totals.get("SET").unwrap().count)
        .sum();
    assert_eq!(set.histogram.len(), runs);
    let points = data::spectrum_points(&set.histogram);
    assert!(
        points
            .windows(2)
            .all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1)
    );
    assert_eq!(points.first().unwrap().0, 1.0);
    assert_eq!(points.last().unwrap().0, runs as f64);
}

#[test]
fn strings_from_the_file_are_escaped() {
    let mut report = report();
    report.kvbench.as_mut().unwrap().warnings[0].kind = "<script>kind".into();
    let html = page(&[source("<script>.json", Document::Report(Box::new(report)))]);
    // The fixture's key prefix is `<script>alert(1)</script>`.
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        !html.to_ascii_lowercase().contains("<script"),
        "a raw script tag"
    );
    assert!(html.contains("data-kind=\"&lt;script&gt;kind\""));
    assert!(!html.contains("http://") && !html.contains("https://"));
}

#[test]
fn the_warnings_panel_lists_every_kind() {
    let report = report();
    let kinds: Vec<String> = report
        .kvbench
        .as_ref()
        .unwrap()
        .warnings
        .iter()
        .map(|w| w.kind.clone())
        .collect();
    assert!(kinds.len() >= 2, "{kinds:?}");
    let html = page(&[source("fixture.json", Document::Report(Box::new(report)))]);
    let panel = &html[html.find("data-panel=\"warnings\"").unwrap()..];
    let panel = &panel[..panel.find("</section>").unwrap()];
    for kind in &kinds {
        assert!(panel.contains(&format!("data-kind=\"{kind}\"")), "{kind}");
    }
}

/// A `--pipeline` sweep of the fixture report, a cell per `(label, ops/s)`,
/// each cell's report labelled as the sweep labels it.
pub(super) fn sweep(cells: &[(&str, f64)]) -> SweepDocument {
    let row = |label: &str, ops: f64| SweepRow {
        cell: label.into(),
        ops_per_sec: ops,
        set_ops_per_sec: None,
        get_ops_per_sec: None,
        avg_latency_ms: 0.1,
        p50_latency_ms: 0.1,
        p99_latency_ms: 0.3,
        p99_9_latency_ms: 0.5,
        hit_rate_percent: None,
        ratio_to_first: ops / 1000.0,
        latency_percentiles_ms: None,
        ops_per_sec_spread: None,
        cut: false,
    };
    let reports = cells
        .iter()
        .enumerate()
        .map(|(i, (label, _))| {
            let mut cell = report();
            cell.kvbench.as_mut().unwrap().cell = Some(Cell {
                index: i as u32,
                label: label.to_string(),
                parameters: Default::default(),
            });
            cell
        })
        .collect();
    SweepDocument {
        sweep: Sweep {
            parameters: vec![SweepParameter::Pipeline],
            cells: reports,
            summary: cells.iter().map(|(l, ops)| row(l, *ops)).collect(),
        },
        kvbench: SweepKvbench {
            schema_version: 1,
            tool_version: "0".into(),
            complete: true,
            cells_planned: cells.len() as u32,
            cells_completed: cells.len() as u32,
            verdict: None,
            interrupted: None,
        },
    }
}

#[test]
fn a_sweep_has_one_point_per_cell_and_files_overlay_in_their_colours() {
    let cell = report();
    let sweep = sweep(&[
        ("pipeline=1", 1000.0),
        ("pipeline=4", 3000.0),
        ("pipeline=16", 5000.0),
    ]);
    let html = page(&[
        source("a/r.json", Document::Report(Box::new(cell.clone()))),
        source("b/r.json", Document::Report(Box::new(cell))),
        source("sweep.json", Document::Sweep(Box::new(sweep))),
    ]);
    for kind in ["sweep-ops-per-second", "sweep-p99"] {
        let chart = charts(&html, kind);
        assert_eq!(chart.len(), 1, "{kind}");
        assert_eq!(
            circles(chart[0], &["data-file=\"sweep.json\""]),
            3,
            "{kind}"
        );
        assert!(
            chart[0].contains(">16<"),
            "the cells' values label the axis"
        );
    }
    let ops = charts(&html, "ops-per-second")[0];
    let colour = |file: &str| {
        let at = ops.find(&format!("data-file=\"{file}\"")).unwrap();
        let fill = &ops[at..][ops[at..].find("fill=\"#").unwrap() + 6..];
        fill[..7].to_string()
    };
    assert_ne!(colour("a/r.json"), colour("b/r.json"));
    assert!(
        html.contains("a/r.json · Totals"),
        "the legend names the file"
    );
}

#[test]
fn labels_add_the_parent_directory_only_where_names_collide() {
    let paths: Vec<PathBuf> = ["x/a/r.json", "y/b/r.json", "s.json", "p/q.json", "r/q.json"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(
        labels(&paths),
        ["a/r.json", "b/r.json", "s.json", "p/q.json", "r/q.json"]
    );
    let same: Vec<PathBuf> = ["x/a/r.json", "y/a/r.json"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(labels(&same), ["x/a/r.json", "y/a/r.json"]);
}

#[test]
fn a_memtier_file_draws_from_its_sections() {
    let text = include_str!("../../../tests/data/memtier/smoke.json");
    let document = model::parse("smoke.json", text).unwrap();
    let html = page(&[source("smoke.json", document)]);
    let ops = charts(&html, "ops-per-second");
    assert_eq!(ops.len(), 1);
    // Its single run lasted 93 ms: a band, and no whole second to plot.
    assert!(ops[0].contains("data-band=\"RUN #1\""));
    assert_eq!(circles(ops[0], &[]), 0);
    // No kvbench.runs: the spectrum comes from the headline section's histograms.
    let spectrum = charts(&html, "latency-spectrum");
    assert!(circles(spectrum[0], &[]) > 10);
    assert!(html.contains("data-panel=\"configuration\""));
}

#[test]
fn a_sweep_warning_of_every_cell_is_tagged_every_cell_and_one_of_one_cell_that_cell() {
    let mut sweep = sweep(&[("pipeline=1", 1000.0), ("pipeline=4", 3000.0)]);
    let first = sweep.sweep.cells[0].kvbench.as_ref().unwrap().warnings[0].clone();
    // The second cell lacks the first warning: it is the first cell's alone.
    sweep.sweep.cells[1]
        .kvbench
        .as_mut()
        .unwrap()
        .warnings
        .retain(|w| *w != first);
    let html = page(&[source("sweep.json", Document::Sweep(Box::new(sweep)))]);
    let panel = &html[html.find("data-panel=\"warnings\"").unwrap()..];
    let panel = &panel[..panel.find("</section>").unwrap()];
    let item = |kind: &str| {
        let at = panel.find(&format!("data-kind=\"{kind}\"")).unwrap();
        &panel[at..at + panel[at..].find("</li>").unwrap()]
    };
    assert!(item(&first.kind).contains("[pipeline=1]"), "{panel}");
    let others: Vec<&str> = panel
        .split("<li ")
        .skip(1)
        .filter(|l| !l.contains(&format!("data-kind=\"{}\"", first.kind)))
        .collect();
    assert!(!others.is_empty(), "{panel}");
    for other in others {
        assert!(other.contains("[every cell]"), "{other}");
        assert!(!other.contains("[pipeline=1]"), "{other}");
    }
}
