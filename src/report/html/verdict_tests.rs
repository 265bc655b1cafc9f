//! The verdict on pages built from the fixture report: a banner and marks
//! for a file that is not valid, none for a valid one or one written
//! before the verdict, the reasons escaped, and a suite's and a sweep's
//! own verdicts.

use crate::report::html::suite_tests::suite_doc;
use crate::report::html::tests::{charts, report, source, sweep};
use crate::report::html::{Source, page};
use crate::report::model::kvbench::{Verdict, VerdictReason};
use crate::report::model::{Document, Report};

/// A verdict with `reasons` as `(kind, phase, message)`; valid without any.
fn verdict(reasons: &[(&str, Option<&str>, &str)]) -> Verdict {
    Verdict {
        valid: reasons.is_empty(),
        reasons: reasons
            .iter()
            .map(|(kind, phase, message)| VerdictReason {
                kind: kind.to_string(),
                message: message.to_string(),
                phase: phase.map(str::to_string),
            })
            .collect(),
        sections: None,
    }
}

/// The fixture report with `verdict`.
fn judged(verdict: Verdict) -> Report {
    let mut r = report();
    r.kvbench.as_mut().unwrap().verdict = Some(verdict);
    r
}

fn report_source(label: &str, report: Report) -> Source {
    source(label, Document::Report(Box::new(report)))
}

const OOM: (&str, Option<&str>, &str) = (
    "error_replies",
    Some("RUN #1"),
    "970 of 1000 replies (97.0 %) were errors, most of them OOM (970)",
);

#[test]
fn an_invalid_file_opens_the_page_with_a_banner_and_its_series_are_marked() {
    let hostile = ("protocol_errors", None, "a <script> reply & more");
    let html = page(&[
        report_source("good.json", judged(verdict(&[]))),
        report_source("bad.json", judged(verdict(&[OOM, hostile]))),
    ]);
    assert_eq!(html.matches("<section class=\"verdict-banner\"").count(), 1);
    let banner_at = html.find("<section class=\"verdict-banner\"").unwrap();
    let banner = &html[banner_at..];
    let banner = &banner[..banner.find("</section>").unwrap()];
    assert!(banner.contains("data-file=\"bad.json\""), "{banner}");
    assert!(banner.contains("INVALID RESULT: <span class=\"file\">bad.json</span>"));
    // Before the summary and the charts: the first thing read.
    assert!(banner_at < html.find("data-panel=\"summary\"").unwrap());
    assert!(banner_at < html.find("<section class=\"charts\">").unwrap());
    assert_eq!(banner.matches("<li class=\"reason\"").count(), 2);
    assert!(banner.contains(
        "<code class=\"kind\">error_replies</code> <span class=\"phase\">RUN #1</span>: 970 of 1000"
    ));
    assert!(banner.contains("a &lt;script&gt; reply &amp; more"));
    assert!(!html.contains("<script"), "a reason's text is escaped");
    // Every series of bad.json says so in its legend and carries the mark.
    let ops = charts(&html, "ops-per-second")[0];
    assert!(ops.contains("bad.json · Totals (INVALID)"));
    assert!(!ops.contains("good.json · Totals (INVALID)"));
    for g in ops.split("<g class=\"series\"").skip(1) {
        let tag = &g[..g.find('>').unwrap()];
        let bad = tag.contains("data-file=\"bad.json\"");
        assert_eq!(tag.contains("data-verdict=\"invalid\""), bad, "{tag}");
    }
    let spectrum = charts(&html, "latency-spectrum")[0];
    assert!(spectrum.contains("bad.json · SET (INVALID)"));
    let summary = &html[html.find("data-panel=\"summary\"").unwrap()..];
    assert_eq!(summary.matches("bad.json (INVALID)</td>").count(), 1);
    assert_eq!(summary.matches("good.json (INVALID)").count(), 0);
}

#[test]
fn a_valid_file_and_one_without_a_verdict_show_no_banner_and_no_mark() {
    let html = page(&[
        report_source("good.json", judged(verdict(&[]))),
        // Written before the verdict: not known, never taken as invalid.
        report_source("old.json", report()),
    ]);
    // The style sheet names the marks; the body must hold none.
    let body = &html[html.find("<body>").unwrap()..];
    assert!(!body.contains("verdict-banner"), "no banner");
    assert!(!body.contains("(INVALID)"));
    assert!(!body.contains("data-verdict="));
}

#[test]
fn a_suite_shows_its_verdict_and_marks_its_invalid_tests_on_the_axis() {
    let mut doc = suite_doc(&[("SET", false), ("GET", false)]);
    let set = ("error_replies", Some("SET RUN #1"), "most of them OOM");
    doc.kvbench.as_mut().unwrap().verdict = Some(verdict(&[set]));
    for t in &mut doc.suite.tests {
        let own = if t.test == "SET" { vec![OOM] } else { vec![] };
        t.report.kvbench.as_mut().unwrap().verdict = Some(verdict(&own));
    }
    let html = page(&[Source {
        label: "s.json".into(),
        content: Document::Suite(Box::new(doc)),
    }]);
    assert_eq!(html.matches("<section class=\"verdict-banner\"").count(), 1);
    assert!(html.contains("<span class=\"phase\">SET RUN #1</span>: most of them OOM"));
    let rps = charts(&html, "suite-requests-per-second")[0];
    assert!(rps.contains(">SET (INVALID)</text>"), "{rps}");
    assert!(rps.contains(">GET</text>"));
    assert!(rps.contains("requests/s (INVALID)"));
    // The summary marks the test by its own verdict.
    assert!(html.contains("data-test=\"SET\" data-verdict=\"invalid\""));
    assert!(!html.contains("data-test=\"GET\" data-verdict"));
}

#[test]
fn a_sweep_shows_its_verdict_and_marks_its_invalid_cells() {
    let mut sweep = sweep(&[("pipeline=1", 1000.0), ("pipeline=4", 3000.0)]);
    let cell = (
        "error_replies",
        Some("cell pipeline=4 RUN #1"),
        "most of them OOM",
    );
    sweep.kvbench.verdict = Some(verdict(&[cell]));
    sweep.sweep.cells[1].kvbench.as_mut().unwrap().verdict = Some(verdict(&[OOM]));
    let html = page(&[source("sweep.json", Document::Sweep(Box::new(sweep)))]);
    assert_eq!(html.matches("<section class=\"verdict-banner\"").count(), 1);
    assert!(html.contains("cell pipeline=4 RUN #1"));
    let ops = charts(&html, "sweep-ops-per-second")[0];
    assert!(ops.contains(">4 (INVALID)</text>") && ops.contains(">1</text>"));
}
