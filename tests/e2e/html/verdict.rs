//! The verdict's share of tests/e2e/html.rs: a run a full server mostly
//! refuses (`-OOM` at `--maxmemory 1mb`, `--allow-invalid`) and a clean run
//! each write `--json-out-file` and `--html-out-file`; the invalid page opens
//! with a banner naming the file and the reason its JSON gives, the valid
//! page has none, and `kvbench report` of both marks only the invalid
//! file's series. A suite against the full server marks its SET test and
//! not its GET. Counted in the page's text; no browser needed.

use serde_json::Value;

use super::suite::suite;
use super::{charts, run_ok, s};
use crate::common::{Redis, TempDir, assert_success, kvbench, read_json};

/// Where a banner opens.
const BANNER: &str = "<section class=\"verdict-banner\"";

/// The page's body: the style sheet names the marks too.
fn body(page: &str) -> &str {
    &page[page.find("<body>").expect("a body")..]
}

/// The one banner of `page`, up to its end.
fn banner(page: &str) -> &str {
    let found: Vec<&str> = page
        .match_indices(BANNER)
        .map(|(at, _)| &page[at..at + page[at..].find("</section>").unwrap()])
        .collect();
    assert_eq!(found.len(), 1, "one banner");
    found[0]
}

/// `s` as the page escapes it.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The reasons of a JSON report's verdict, asserted not valid.
fn reasons(doc: &Value) -> &Vec<Value> {
    let verdict = &doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    let reasons = verdict["reasons"].as_array().unwrap();
    assert!(!reasons.is_empty(), "{verdict}");
    reasons
}

/// Each reason's kind and message are in `banner`.
fn assert_lists(banner: &str, reasons: &[Value]) {
    assert_eq!(
        banner.matches("<li class=\"reason\"").count(),
        reasons.len(),
        "{banner}"
    );
    for r in reasons {
        let kind = r["kind"].as_str().unwrap();
        let message = escaped(r["message"].as_str().unwrap());
        assert!(
            banner.contains(&format!("<code class=\"kind\">{kind}</code>")),
            "{kind}"
        );
        assert!(banner.contains(&message), "{message} in {banner}");
    }
}

/// A server that refuses writes once its 1 MiB is spent.
fn full_server() -> Redis {
    Redis::start_with(&["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"])
}

#[test]
fn an_invalid_run_opens_its_page_with_a_banner_and_a_valid_one_has_none() {
    let full = full_server();
    let clean = Redis::start();
    let dir = TempDir::new("html-verdict");
    let (bad_json, bad_html) = (dir.path("bad.json"), dir.path("bad.html"));
    let (good_json, good_html) = (dir.path("good.json"), dir.path("good.html"));
    // SETs of 1 KiB over a million keys: nearly all refused.
    let fill = ["-t", "1", "-c", "2", "--test-time", "2", "--ratio", "1:0"];
    let mut args = fill.to_vec();
    args.extend(["-d", "1024", "--key-maximum", "1000000", "--allow-invalid"]);
    args.extend([
        "--json-out-file",
        s(&bad_json),
        "--html-out-file",
        s(&bad_html),
    ]);
    run_ok(full.port, &args);
    let mut args = fill.to_vec();
    args.extend([
        "--json-out-file",
        s(&good_json),
        "--html-out-file",
        s(&good_html),
    ]);
    run_ok(clean.port, &args);
    let bad_doc = read_json(&bad_json);
    let good_doc = read_json(&good_json);
    assert_eq!(good_doc["kvbench"]["verdict"]["valid"], true);
    let bad_reasons = reasons(&bad_doc);
    assert!(bad_reasons.iter().any(|r| r["kind"] == "error_replies"));

    let bad_page = std::fs::read_to_string(&bad_html).unwrap();
    let shown = banner(&bad_page);
    assert!(shown.contains("data-file=\"bad.json\""), "{shown}");
    assert_lists(shown, bad_reasons);
    // Before any number: the summary and the charts come after it.
    let at = bad_page.find(BANNER).unwrap();
    assert!(at < bad_page.find("data-panel=\"summary\"").unwrap());
    assert!(at < bad_page.find("<section class=\"charts\">").unwrap());
    // The legend (after the chart's svg) and each series' title say it.
    assert!(bad_page.contains("</svg>Totals (INVALID)"), "legend marked");
    let ops = charts(&bad_page, "ops-per-second")[0];
    assert!(ops.contains("<title>Totals (INVALID)</title>"));
    let good_page = std::fs::read_to_string(&good_html).unwrap();
    assert_eq!(body(&good_page).matches("verdict-banner").count(), 0);
    assert_eq!(body(&good_page).matches("(INVALID)").count(), 0);

    // Both on one page: one banner, for bad.json; only its series marked.
    let out = kvbench(&["report", s(&good_json), s(&bad_json)]);
    assert_success(&out, "report");
    let page = String::from_utf8(out.stdout).unwrap();
    let shown = banner(&page);
    assert!(shown.contains("data-file=\"bad.json\""), "{shown}");
    assert_lists(shown, bad_reasons);
    let ops = charts(&page, "ops-per-second")[0];
    let series: Vec<&str> = ops
        .split("<g class=\"series\"")
        .skip(1)
        .map(|g| &g[..g.find('>').unwrap()])
        .collect();
    let marked = |file: &str| {
        series
            .iter()
            .filter(|t| t.contains(&format!("data-file=\"{file}\"")))
            .map(|t| t.contains("data-verdict=\"invalid\""))
            .collect::<Vec<bool>>()
    };
    assert!(!marked("bad.json").is_empty() && marked("bad.json").iter().all(|m| *m));
    assert!(!marked("good.json").is_empty() && marked("good.json").iter().all(|m| !*m));
    let body = body(&page);
    assert_eq!(
        // An all-SET run's Totals lies on its Sets: the entry may say so.
        body.matches("<li data-legend=\"bad.json · Totals (INVALID)\">")
            .count(),
        1,
        "one legend entry in the ops/s chart"
    );
    assert_eq!(body.matches("good.json · Totals (INVALID)").count(), 0);
    assert_eq!(
        body.matches("<li data-legend=\"good.json · Totals\">")
            .count(),
        1
    );
}

#[test]
fn a_suite_page_shows_the_suite_verdict_and_marks_its_invalid_test() {
    let full = full_server();
    let dir = TempDir::new("html-suite-verdict");
    let (json, html) = (dir.path("s.json"), dir.path("s.html"));
    let args = [
        "-t",
        "set,get",
        "-c",
        "2",
        "-n",
        "2000",
        "-d",
        "1024",
        "-r",
        "1000000",
        "-q",
        "--allow-invalid",
        "--json-out-file",
        s(&json),
        "--html-out-file",
        s(&html),
    ];
    assert_success(&suite(full.port, &args), "suite");
    let doc = read_json(&json);
    let reasons = reasons(&doc);
    let tests = doc["suite"]["tests"].as_array().unwrap();
    let valid = |name: &str| {
        let t = tests.iter().find(|t| t["test"] == name).unwrap();
        t["report"]["kvbench"]["verdict"]["valid"] == true
    };
    assert!(!valid("SET") && valid("GET"), "SETs refused, GETs miss");
    let page = std::fs::read_to_string(&html).unwrap();
    let shown = banner(&page);
    assert!(shown.contains("data-file=\"s.json\""), "{shown}");
    assert_lists(shown, reasons);
    let rps = charts(&page, "suite-requests-per-second")[0];
    assert_eq!(rps.matches(">SET (INVALID)</text>").count(), 1, "{rps}");
    assert_eq!(rps.matches(">GET</text>").count(), 1, "{rps}");
    assert_eq!(rps.matches("GET (INVALID)").count(), 0);
}
