//! The checks of tests/e2e/html.rs that a chart does not mislead, read from
//! the DOM Chromium dumped and counted against the JSON alone: each file of
//! an overlay has its own phase bands (as many as its JSON has phases),
//! every legend entry names a series with points, and a sweep has an error
//! bar per cell whose spread is the cell's max/min - 1 (never negative)
//! beside a latency spectrum per cell.

use serde_json::Value;

use super::{attr, chart, circles};

/// The phases of a kvbench JSON file as the page names them: `WARM-UP`
/// when it has one, then `RUN #n` for each `RUN #n RESULTS` (or `RUN #1`
/// for `ALL STATS` alone).
fn phases(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if doc["kvbench"]["warmup"]["ALL STATS"].is_object() {
        out.push("WARM-UP".to_string());
    }
    let runs = (1..)
        .take_while(|n| doc[format!("RUN #{n} RESULTS").as_str()].is_object())
        .count();
    out.extend((1..=runs.max(1)).map(|n| format!("RUN #{n}")));
    out
}

/// The bands of chart `kind` that belong to `file`: exactly the file's own
/// phases, each once.
pub fn assert_own_bands(dom: &str, kind: &str, file: &str, doc: &Value) {
    let chart = chart(dom, kind, None);
    let expected = phases(doc);
    let file_attr = attr("file", file);
    let bands: Vec<&str> = chart
        .split("<g class=\"band\" data-band=\"")
        .skip(1)
        .filter(|g| g[..g.find('>').unwrap()].contains(&file_attr))
        .map(|g| &g[..g.find('"').unwrap()])
        .collect();
    assert_eq!(bands, expected, "{kind}: the bands of {file}");
}

/// Every legend entry of every chart of `dom` has a series with points.
pub fn assert_every_legend_entry_has_points(dom: &str) -> usize {
    let mut entries = 0;
    for (at, _) in dom.match_indices("<figure class=\"chart-box\">") {
        let figure = &dom[at..at + dom[at..].find("</figure>").unwrap()];
        let legend = &figure[figure.find("<ul class=\"legend\">").expect("a legend")..];
        for li in legend.split("<li data-legend=\"").skip(1) {
            let entry = &li[..li.find('"').unwrap()];
            let points = circles(figure, &[attr("legend", entry)]);
            assert!(points > 0, "legend entry {entry:?} has no point");
            entries += 1;
        }
    }
    entries
}

/// The spread every output shows: max/min - 1, as a percentage.
fn spread_label(min: f64, max: f64) -> String {
    let p = (max / min - 1.0) * 100.0;
    if p >= 100.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// A sweep of several runs per cell: an error bar per cell from its
/// slowest to its fastest run, and a spectrum per cell.
pub fn assert_sweep(dom: &str, file: &str, doc: &Value) {
    let ops = chart(dom, "sweep-ops-per-second", None);
    let summary = doc["sweep"]["summary"].as_array().unwrap();
    let bars = ops.matches("<g class=\"error-bar\"").count();
    assert_eq!(bars, summary.len(), "an error bar per cell");
    for row in summary {
        let cell = row["cell"].as_str().unwrap();
        let spread = &row["ops_per_sec_spread"];
        let (min, max) = (
            spread["min"].as_f64().unwrap(),
            spread["max"].as_f64().unwrap(),
        );
        assert!(0.0 < min && min <= max, "{spread}");
        let (file_attr, cell_attr) = (attr("file", file), attr("cell", cell));
        let found: Vec<&str> = ops
            .split("<g class=\"error-bar\"")
            .skip(1)
            .map(|g| &g[..g.find("</g>").unwrap()])
            .filter(|g| {
                let tag = &g[..g.find('>').unwrap()];
                tag.contains(&file_attr) && tag.contains(&cell_attr)
            })
            .collect();
        assert_eq!(found.len(), 1, "the error bar of {cell}");
        let bar = found[0];
        let label = spread_label(min, max);
        assert!(bar.contains(&attr("spread", &label)), "{cell}: {bar}");
        assert!(!label.starts_with('-'), "{label}");
    }
    let spectrum = chart(dom, "sweep-spectrum", None);
    for row in summary {
        let cell = row["cell"].as_str().unwrap();
        let n = circles(spectrum, &[attr("file", file), attr("cell", cell)]);
        assert!(n > 10 && n < 5000, "spectrum of {cell}: {n} points");
    }
}
