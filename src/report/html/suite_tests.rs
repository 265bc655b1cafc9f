//! Suite files on the page, from a suite built here out of the fixture
//! report (every test the same 2-run report, so each has a headline):
//! a point per test with the preparation left out, the tests' names on the
//! axis in the suite's order, two files and a plain report together, and
//! the panels' rows per test.

use crate::report::html::tests::{charts, circles};
use crate::report::html::{Source, page, suite};
use crate::report::model::Document;
use crate::report::model::parse;
use crate::report::model::suite::SuiteDocument;

const FIXTURE: &str = include_str!("fixture.json");

/// LRANGE's preparation, as the suite titles it.
const PREPARATION: &str = "LPUSH (needed to benchmark LRANGE)";

/// A suite file of these steps (`(test, preparation)`), each holding the
/// fixture report, read through the page's own reader; each test's
/// `gets_mostly_miss` message names the test, so the panels can tell them
/// apart.
pub(super) fn suite_doc(steps: &[(&str, bool)]) -> SuiteDocument {
    let tests: Vec<String> = steps
        .iter()
        .map(|(test, preparation)| {
            format!(
                "{{\"test\": \"{test}\", \"title\": \"{test}\", \"preparation\": {preparation}, \"report\": {FIXTURE}}}"
            )
        })
        .collect();
    let text = format!(
        "{{\"suite\": {{\"tests\": [{}]}}, \"kvbench\": {{\"complete\": false, \"tests_planned\": {}, \"tests_completed\": {}}}}}",
        tests.join(",\n"),
        steps.len() + 1,
        steps.len()
    );
    let Document::Suite(mut doc) = parse("s.json", &text).unwrap() else {
        panic!("a file with `suite` reads as a suite");
    };
    for t in &mut doc.suite.tests {
        for w in &mut t.report.kvbench.as_mut().unwrap().warnings {
            if w.kind == "gets_mostly_miss" {
                w.message = format!("{} ({})", w.message, t.test);
            }
        }
    }
    *doc
}

fn source(label: &str, doc: SuiteDocument) -> Source {
    Source {
        label: label.into(),
        content: Document::Suite(Box::new(doc)),
    }
}

/// The one `<svg class="chart" data-chart="{kind}">…</svg>` of `html`.
fn chart<'a>(html: &'a str, kind: &str) -> &'a str {
    let found = charts(html, kind);
    assert_eq!(found.len(), 1, "{kind}");
    found[0]
}

/// The panel `name`'s section of `html`.
fn panel<'a>(html: &'a str, name: &str) -> &'a str {
    let at = html.find(&format!("data-panel=\"{name}\"")).unwrap();
    let rest = &html[at..];
    &rest[..rest.find("</section>").unwrap()]
}

#[test]
fn a_suite_has_a_point_per_test_with_the_preparation_left_out() {
    let doc = suite_doc(&[
        ("SET", false),
        ("GET", false),
        (PREPARATION, true),
        ("LRANGE_100", false),
    ]);
    assert_eq!(suite::charted(&doc).len(), 3);
    let html = page(&[source("s.json", doc)]);
    let rps = chart(&html, "suite-requests-per-second");
    assert_eq!(circles(rps, &["data-file=\"s.json\""]), 3);
    assert_eq!(circles(rps, &["data-series=\"requests/s\""]), 3);
    for label in [">SET<", ">GET<", ">LRANGE_100<"] {
        assert!(rps.contains(label), "the axis names {label}");
    }
    assert!(!rps.contains("needed to benchmark"), "no preparation point");
    let latency = chart(&html, "suite-latency");
    for p in ["p50", "p99"] {
        assert_eq!(
            circles(latency, &[&format!("data-series=\"{p}\"")]),
            3,
            "{p}"
        );
    }
    // A suite alone has no per-second or sweep charts.
    for kind in ["ops-per-second", "latency-spectrum", "sweep-ops-per-second"] {
        assert!(!html.contains(&format!("data-chart=\"{kind}\"")), "{kind}");
    }
    // The summary lists every step, the preparation too.
    let summary = panel(&html, "summary");
    assert_eq!(summary.matches("data-test=").count(), 4);
    assert!(summary.contains(&format!("data-test=\"{PREPARATION}\"")));
    // The configuration says how far the suite got: 4 of 5 tests, cut short.
    let configuration = panel(&html, "configuration");
    for row in [
        "<th>tests planned</th><td>5</td>",
        "<th>tests completed</th><td>4</td>",
        "<th>complete</th><td>false</td>",
    ] {
        assert!(configuration.contains(row), "{row} in {configuration}");
    }
}

#[test]
fn two_suites_share_one_axis_in_the_suite_order_beside_a_plain_report() {
    let a = suite_doc(&[("SET", false), ("GET", false)]);
    // Another run's tests, asked in another order, with one the suite does not know.
    let b = suite_doc(&[("LRANGE_100", false), ("GET", false), ("CUSTOM", false)]);
    let axis = suite::axis_tests(&[&a, &b]);
    assert_eq!(axis, ["SET", "GET", "LRANGE_100", "CUSTOM"]);
    let xs: Vec<f64> = suite::points(&b, &axis, |r| Some(r.ops_per_sec))
        .iter()
        .map(|p| p.0)
        .collect();
    assert_eq!(xs, [1.0, 2.0, 3.0], "b's points in x order");
    let report = crate::report::model::parse("r.json", FIXTURE).unwrap();
    let html = page(&[
        source("a.json", a),
        Source {
            label: "r.json".into(),
            content: report,
        },
        source("b.json", b),
    ]);
    let rps = chart(&html, "suite-requests-per-second");
    assert_eq!(circles(rps, &["data-file=\"a.json\""]), 2);
    assert_eq!(circles(rps, &["data-file=\"b.json\""]), 3);
    assert_eq!(circles(rps, &["data-file=\"r.json\""]), 0, "a plain report");
    assert!(html.contains("a.json · requests/s") && html.contains("b.json · p99"));
    let latency = chart(&html, "suite-latency");
    assert_eq!(circles(latency, &["data-file=\"b.json\""]), 6);
    // The plain report still has its own charts, and only its points.
    let ops = chart(&html, "ops-per-second");
    assert!(circles(ops, &["data-file=\"r.json\""]) > 0);
    assert_eq!(circles(ops, &["data-file=\"a.json\""]), 0);
}

#[test]
fn warnings_are_labelled_by_test_and_the_setting_said_once() {
    let doc = suite_doc(&[(PREPARATION, true), ("LRANGE_100", false), ("GET", false)]);
    let html = page(&[source("s.json", doc)]);
    let warnings = panel(&html, "warnings");
    for test in [PREPARATION, "LRANGE_100", "GET"] {
        let li =
            format!("data-kind=\"gets_mostly_miss\" data-file=\"s.json\" data-test=\"{test}\"");
        assert_eq!(warnings.matches(&li).count(), 1, "{test}");
    }
    assert!(warnings.contains("[LRANGE_100]"));
    // A warning about the setting is said for the first step only.
    assert_eq!(warnings.matches("data-kind=\"same_machine\"").count(), 1);
    assert_eq!(warnings.matches("data-kind=\"short_run\"").count(), 1);
    // The server and the settings are the first test's, not the preparation's.
    let server = panel(&html, "server");
    assert_eq!(server.matches("<h3>").count(), 1);
    assert!(server.contains("s.json — LRANGE_100"));
    let configuration = panel(&html, "configuration");
    assert!(
        configuration.contains("LRANGE_100, GET"),
        "the charted tests"
    );
    assert!(configuration.contains("Settings of LRANGE_100"));
}

#[test]
fn a_broken_suite_file_is_named_at_suite() {
    let e = parse("s.json", "{\"suite\": {\"tests\": [{\"test\": 1}]}}").unwrap_err();
    assert_eq!((e.file.as_str(), e.path.as_str()), ("s.json", ".suite"));
    // A report is still a report.
    assert!(matches!(
        parse("r.json", FIXTURE).unwrap(),
        Document::Report(_)
    ));
}
