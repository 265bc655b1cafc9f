//! The suite's share of tests/e2e/html.rs: running `kvbench suite` with
//! its JSON and HTML reports, what a page must show of a suite file (counted
//! from the JSON alone: one point per test per file, at that test's label,
//! none for a preparation; a summary row per step), and the refusal of an
//! unwritable `--html-out-file` before any connection.

use std::process::{Command, Output};

use serde_json::Value;

use super::{attr, chart};
use crate::common::{Redis, info_u64};

/// Runs `kvbench suite -p PORT` with `args`.
pub fn suite(port: u16, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &port.to_string()])
        .args(args)
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run kvbench suite")
}

/// A suite file's steps from its JSON: the tests (every entry not marked
/// `preparation`), and the preparations.
fn steps(doc: &Value) -> (Vec<String>, Vec<String>) {
    let mut tests = Vec::new();
    let mut preparations = Vec::new();
    for entry in doc["suite"]["tests"].as_array().expect("suite.tests") {
        let name = entry["test"].as_str().unwrap().to_string();
        assert!(
            entry["report"]["ALL STATS"]["Totals"].is_object(),
            "{name}: a headline in the JSON"
        );
        if entry["preparation"] == true {
            preparations.push(name);
        } else {
            tests.push(name);
        }
    }
    (tests, preparations)
}

/// The x-axis tick labels of `chart` with their x: `("SET", "166.2")`.
fn ticks(chart: &str) -> Vec<(String, String)> {
    let axis = &chart[chart.find("<g class=\"axis x\">").expect("an x axis")..];
    let axis = &axis[..axis.find("</g>").unwrap()];
    axis.split("<text class=\"tick\" x=\"")
        .skip(1)
        .map(|t| {
            let x = &t[..t.find('"').unwrap()];
            let label = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            (label.to_string(), x.to_string())
        })
        .collect()
}

/// The `cx` of every circle of the series whose tag holds each of `attrs`.
fn circle_xs(chart: &str, attrs: &[String]) -> Vec<String> {
    chart
        .split("<g class=\"series\"")
        .skip(1)
        .filter(|g| {
            let tag = &g[..g.find('>').unwrap()];
            attrs.iter().all(|a| tag.contains(a.as_str()))
        })
        .flat_map(|g| {
            g[..g.find("</g>").unwrap()]
                .split("<circle class=\"pt\" cx=\"")
                .skip(1)
                .map(|c| c[..c.find('"').unwrap()].to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Asserts that `dom`'s suite charts hold, for `file`, exactly one point
/// per test of `doc` (requests/s, p50, p99), each at its test's label,
/// and none for a preparation; and that the summary has a row per step.
pub fn assert_suite_page(dom: &str, doc: &Value, file: &str) {
    let (tests, preparations) = steps(doc);
    assert!(!tests.is_empty(), "{file}: no test in the JSON");
    let rps = chart(dom, "suite-requests-per-second", None);
    let latency = chart(dom, "suite-latency", None);
    let ticks = ticks(rps);
    let mut expected: Vec<String> = tests
        .iter()
        .map(|test| {
            let found: Vec<&(String, String)> = ticks.iter().filter(|(l, _)| l == test).collect();
            assert_eq!(found.len(), 1, "{file}: the axis labels {test} once");
            found[0].1.clone()
        })
        .collect();
    expected.sort();
    for preparation in &preparations {
        assert!(
            !ticks.iter().any(|(l, _)| l == preparation),
            "{file}: {preparation} is on the axis"
        );
    }
    // A test's bars stand side by side in its slot: each point is placed
    // at the tick whose slot holds it, nearer to it than half the spacing.
    let tick_xs: Vec<f64> = ticks.iter().map(|(_, x)| x.parse().unwrap()).collect();
    let half_slot = tick_xs
        .windows(2)
        .map(|w| (w[1] - w[0]).abs() / 2.0)
        .fold(f64::INFINITY, f64::min);
    let slot_of = |cx: &String| -> String {
        let cx: f64 = cx.parse().unwrap();
        let (i, d) = tick_xs
            .iter()
            .map(|t| (t - cx).abs())
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        assert!(
            d < half_slot,
            "{file}: a point at {cx} is in no test's slot"
        );
        ticks[i].1.clone()
    };
    for (chart, series) in [(rps, "requests/s"), (latency, "p50"), (latency, "p99")] {
        let xs = circle_xs(chart, &[attr("file", file), attr("series", series)]);
        let mut slots: Vec<String> = xs.iter().map(slot_of).collect();
        slots.sort();
        assert_eq!(slots, expected, "{file} {series}: a point per test");
    }
    let summary = &dom[dom.find("data-panel=\"summary\"").expect("a summary")..];
    let summary = &summary[..summary.find("</section>").unwrap()];
    for step in tests.iter().chain(&preparations) {
        let row = format!("{} {}", attr("file", file), attr("test", step));
        assert_eq!(
            summary.matches(&row).count(),
            1,
            "summary row {file} {step}"
        );
    }
}

/// Runs the suite with `args` against `redis`, asserts that it exited 2
/// without opening a single connection to the server (the INFO that counts
/// them is one itself), and returns its stderr.
pub fn suite_refused_before_connecting(redis: &Redis, args: &[&str]) -> String {
    let before = info_u64(redis.port, "stats", "total_connections_received");
    let out = suite(redis.port, args);
    let after = info_u64(redis.port, "stats", "total_connections_received");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        after,
        before + 1,
        "the suite connected before refusing: {stderr}"
    );
    stderr
}
