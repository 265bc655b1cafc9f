//! Charts that must not mislead, from the fixture report and variants of
//! it: every file of an overlay has its own phase bands, a legend entry
//! only for a series with points (a GET-only file has no SET entry),
//! coinciding series are drawn apart and named, a sweep has an error bar
//! per cell with the one spread definition and a spectrum per cell, and a
//! suite draws its tests as bars.

use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use serde_json::Value;

use crate::report::html::suite_tests::suite_doc;
use crate::report::html::svg::{Axis, Chart, Plot, Series};
use crate::report::html::tests::{charts, circles, report, source, sweep};
use crate::report::html::{Source, page};
use crate::report::model::{self, Document, SweepSpread};
use crate::report::spread;

const FIXTURE: &str = include_str!("fixture.json");

/// The fixture changed by `edit` on its JSON, read back through the model.
fn edited(edit: impl Fn(&mut Value)) -> Document {
    let mut json: Value = serde_json::from_str(FIXTURE).unwrap();
    edit(&mut json);
    model::parse("edited.json", &json.to_string()).unwrap()
}

/// The `<figure>` holding the chart of `kind`: its `<svg>` and its legend.
fn figure<'a>(html: &'a str, kind: &str) -> &'a str {
    let at = html
        .find(&format!("data-chart=\"{kind}\""))
        .unwrap_or_else(|| panic!("no {kind} chart"));
    let start = html[..at].rfind("<figure").unwrap();
    let end = start + html[start..].find("</figure>").unwrap();
    &html[start..end]
}

/// The `data-legend` values of a figure's legend entries.
fn legend_entries(figure: &str) -> Vec<&str> {
    let legend = &figure[figure.find("<ul class=\"legend\">").unwrap()..];
    legend
        .split("<li data-legend=\"")
        .skip(1)
        .map(|li| &li[..li.find('"').unwrap()])
        .collect()
}

/// Every legend entry of every chart of `html` names a series with points.
fn assert_every_legend_entry_has_points(html: &str) {
    for (at, _) in html.match_indices("<figure class=\"chart-box\">") {
        let figure = &html[at..at + html[at..].find("</figure>").unwrap()];
        for entry in legend_entries(figure) {
            let needle = format!("data-legend=\"{entry}\"");
            let points: usize = figure
                .split("<g class=\"series\"")
                .skip(1)
                .filter(|g| g[..g.find('>').unwrap()].contains(&needle))
                .map(|g| {
                    g[..g.find("</g>").unwrap()]
                        .matches("<circle class=\"pt\"")
                        .count()
                })
                .sum();
            assert!(points > 0, "legend entry {entry} has no point");
        }
    }
}

#[test]
fn every_file_of_an_overlay_has_its_own_phase_bands() {
    // The second file ran no warm-up: its RUN #1 starts at its own 0.
    let no_warmup = edited(|j| {
        j["kvbench"]["warmup"] = Value::Null;
    });
    let html = page(&[
        source("a.json", Document::Report(Box::new(report()))),
        source("b.json", no_warmup),
    ]);
    let ops = charts(&html, "ops-per-second")[0];
    let count = |file: &str, band: &str| {
        ops.matches(&format!("data-band=\"{band}\" data-file=\"{file}\""))
            .count()
    };
    for (file, bands) in [("a.json", 3), ("b.json", 2)] {
        let all = ops
            .matches(&format!("data-file=\"{file}\"><title>"))
            .count();
        assert_eq!(all, bands, "{file}'s own bands, and only those");
    }
    assert_eq!(count("a.json", "WARM-UP"), 1);
    assert_eq!(count("b.json", "WARM-UP"), 0);
    assert_eq!(count("b.json", "RUN #1"), 1);
    // Each band is labelled with its file and has a row of its own.
    assert!(ops.contains("<title>b.json: RUN #1</title>"), "{ops}");
    let rows: Vec<&str> = ops
        .match_indices("class=\"band-row\"")
        .map(|(at, _)| {
            let y = &ops[at..][ops[at..].find(" y=\"").unwrap() + 4..];
            &y[..y.find('"').unwrap()]
        })
        .collect();
    assert_eq!(rows.len(), 5);
    assert_ne!(rows[0], rows[4], "a.json and b.json in separate rows");
    // The latency charts carry the bands of the files that have the op.
    let latency = charts(&html, "latency-per-second")[0];
    assert!(latency.contains("data-band=\"RUN #1\" data-file=\"b.json\""));
}

/// The V2 + deflate + base64 text of a histogram with no sample.
fn empty_histogram() -> String {
    use base64::Engine;
    let h = Histogram::<u64>::new(3).unwrap();
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(&h, &mut bytes)
        .unwrap();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn a_get_only_file_has_no_set_legend_entry() {
    let get_only = edited(|j| {
        for run in j["kvbench"]["runs"].as_array_mut().unwrap() {
            run["histograms"]["SET"] = Value::String(empty_histogram());
        }
    });
    let html = page(&[source("get.json", get_only)]);
    let spectrum = figure(&html, "latency-spectrum");
    assert_eq!(legend_entries(spectrum), ["GET"]);
    assert_every_legend_entry_has_points(&html);
}

#[test]
fn a_series_without_points_has_no_legend_entry() {
    let series = |name: &str, points: Vec<(f64, f64)>| Series {
        name: name.into(),
        legend: name.into(),
        data: Vec::new(),
        colour: "#123456",
        dash: None,
        points,
    };
    let chart = Chart {
        kind: "t",
        title: "t".into(),
        data: Vec::new(),
        x: Axis::linear("x"),
        y: Axis::linear("y"),
        bands: Vec::new(),
        series: vec![series("SET", Vec::new()), series("GET", vec![(0.0, 1.0)])],
        plot: Plot::Lines,
        error_bars: Vec::new(),
    };
    assert_eq!(legend_entries(&chart.render()), ["GET"]);
}

#[test]
fn coinciding_series_are_drawn_apart_and_the_legend_says_so() {
    let points = vec![(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)];
    let series = |name: &str, colour: &'static str| Series {
        name: name.into(),
        legend: name.into(),
        data: Vec::new(),
        colour,
        dash: None,
        points: points.clone(),
    };
    let chart = Chart {
        kind: "t",
        title: "t".into(),
        data: Vec::new(),
        x: Axis::linear("x"),
        y: Axis::linear("y"),
        bands: Vec::new(),
        series: vec![series("Sets", "#111111"), series("Gets", "#222222")],
        plot: Plot::Lines,
        error_bars: Vec::new(),
    };
    let html = chart.render();
    let gets = &html[html.find("data-series=\"Gets\"").unwrap()..];
    let gets = &gets[..gets.find("</g>").unwrap()];
    assert!(gets.contains("data-coincides=\"Sets\""), "{gets}");
    assert!(gets.contains("stroke-dasharray=\"5 5\""), "{gets}");
    let sets = &html[html.find("data-series=\"Sets\"").unwrap()..];
    assert!(!sets[..sets.find("</g>").unwrap()].contains("data-coincides"));
    assert!(html.contains("(on the line of Sets, drawn dashed over it)"));
    assert_eq!(legend_entries(&html), ["Sets", "Gets"]);
}

#[test]
fn a_sweep_has_an_error_bar_per_measured_cell_and_a_spectrum_per_cell() {
    let mut doc = sweep(&[("pipeline=1", 1000.0), ("pipeline=4", 3000.0)]);
    let spreads = [(900.0, 1100.0), (2000.0, 3660.0)];
    for (row, (min, max)) in doc.sweep.summary.iter_mut().zip(spreads) {
        row.ops_per_sec_spread = Some(SweepSpread {
            min,
            max,
            max_over_min: max / min,
        });
    }
    let html = page(&[Source {
        label: "sweep.json".into(),
        content: Document::Sweep(Box::new(doc)),
    }]);
    let ops = charts(&html, "sweep-ops-per-second")[0];
    assert_eq!(ops.matches("<g class=\"error-bar\"").count(), 2, "{ops}");
    for (cell, (min, max)) in ["pipeline=1", "pipeline=4"].iter().zip(spreads) {
        let at = ops.find(&format!("data-cell=\"{cell}\"")).unwrap();
        let bar = &ops[at..at + ops[at..].find("</g>").unwrap()];
        let label = spread::label(max / min);
        assert!(bar.contains(&format!("data-spread=\"{label}\"")), "{bar}");
        assert!(!label.starts_with('-'));
    }
    // 2000 to 3660 is 83.0 %, as the sweep table and compare say.
    assert!(ops.contains("data-spread=\"83.0 %\""), "{ops}");
    let spectrum = charts(&html, "sweep-spectrum")[0];
    for cell in ["pipeline=1", "pipeline=4"] {
        let n = circles(spectrum, &[&format!("data-cell=\"{cell}\"")]);
        assert!((10..5000).contains(&n), "{cell}: {n} points");
    }
    assert_every_legend_entry_has_points(&html);
}

#[test]
fn suite_tests_are_bars_not_a_joined_line() {
    let doc = suite_doc(&[("SET", false), ("GET", false), ("INCR", false)]);
    let html = page(&[Source {
        label: "s.json".into(),
        content: Document::Suite(Box::new(doc)),
    }]);
    for kind in ["suite-requests-per-second", "suite-latency"] {
        let chart = charts(&html, kind)[0];
        assert!(!chart.contains("<polyline"), "{kind}: no line joins tests");
        let points = circles(chart, &[]);
        assert!(points >= 3, "{kind}");
        assert_eq!(
            chart.matches("<rect class=\"bar\"").count(),
            points,
            "{kind}"
        );
    }
}

#[test]
fn a_file_whose_warm_up_alone_coincides_with_another_says_so_in_its_legend() {
    let warmup = vec![(0.0, 1.0), (1.0, 2.0)];
    let series =
        |legend: &str, phase: &str, colour: &'static str, points: Vec<(f64, f64)>| Series {
            name: "Totals".into(),
            legend: legend.into(),
            data: vec![("phase", phase.into())],
            colour,
            dash: None,
            points,
        };
    let chart = Chart {
        kind: "t",
        title: "t".into(),
        data: Vec::new(),
        x: Axis::linear("x"),
        y: Axis::linear("y"),
        bands: Vec::new(),
        series: vec![
            series("a.json", "WARM-UP", "#111111", warmup.clone()),
            series("a.json", "RUN #1", "#111111", vec![(2.0, 3.0), (3.0, 3.0)]),
            // b.json's warm-up is a.json's; its run is not.
            series("b.json", "WARM-UP", "#222222", warmup),
            series("b.json", "RUN #1", "#222222", vec![(2.0, 9.0), (3.0, 9.0)]),
        ],
        plot: Plot::Lines,
        error_bars: Vec::new(),
    };
    let html = chart.render();
    assert!(
        html.contains("(in WARM-UP on the line of a.json, drawn dashed over it)"),
        "{html}"
    );
    assert!(!html.contains("(on the line of a.json"), "{html}");
}
