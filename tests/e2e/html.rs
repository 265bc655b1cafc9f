//! The HTML report in a real headless Chromium: a short benchmark against a
//! private redis-server writes `--html-out-file` and `--json-out-file`;
//! `kvbench report` renders a rate-mode run beside it (same file name, other
//! directory), a small sweep and two `kvbench suite` files (one written
//! with its own `--html-out-file`). Chromium dumps the DOM of each page and
//! screenshots the first; the DOM's point counts are checked against counts
//! taken from the JSON independently, the console must stay clean, and the
//! screenshot must not be blank. Three Chromium launches in all. The
//! verdict's banner and marks are [`verdict`]'s, read from the page's text;
//! the per-file bands, legend entries and a sweep's error bars
//! [`overlay`]'s.

mod chromium;
mod overlay;
mod suite;
mod verdict;

use std::path::Path;

use crate::common;
use crate::common::{Redis, TempDir, assert_success, kvbench, kvbench_at, read_json};
use chromium::{headless, ink, page_problems};
use serde_json::Value;

/// The `<svg class="chart" data-chart="{kind}" …>…</svg>` elements of `dom`.
fn charts<'a>(dom: &'a str, kind: &str) -> Vec<&'a str> {
    let open = format!("<svg class=\"chart\" data-chart=\"{kind}\"");
    dom.match_indices(&open)
        .map(|(at, _)| {
            let rest = &dom[at..];
            &rest[..rest.find("</svg>").expect("a closed svg")]
        })
        .collect()
}

/// The one chart of `kind` whose tag holds `attr` (or the only one).
fn chart<'a>(dom: &'a str, kind: &str, attr: Option<&str>) -> &'a str {
    let found: Vec<&str> = charts(dom, kind)
        .into_iter()
        .filter(|c| attr.is_none_or(|a| c[..c.find('>').unwrap()].contains(a)))
        .collect();
    assert_eq!(found.len(), 1, "chart {kind} {attr:?} in the DOM");
    found[0]
}

/// The circles of every series whose opening tag holds each of `attrs`.
fn circles(chart: &str, attrs: &[String]) -> usize {
    chart
        .split("<g class=\"series\"")
        .skip(1)
        .filter(|g| {
            let tag = &g[..g.find('>').unwrap()];
            attrs.iter().all(|a| tag.contains(a.as_str()))
        })
        .map(|g| {
            g[..g.find("</g>").unwrap()]
                .matches("<circle class=\"pt\"")
                .count()
        })
        .sum()
}

fn attr(name: &str, value: &str) -> String {
    format!("data-{name}=\"{value}\"")
}

/// The whole seconds of a section's row that have `key` (`None`: every
/// second), counted from the JSON alone: second `k` is whole when `k + 1`
/// seconds fit in `Total duration`.
fn whole_seconds(section: &Value, row: &str, key: Option<&str>) -> usize {
    let whole = section["Runtime"]["Total duration"].as_u64().unwrap() / 1000;
    section[row]["Time-Serie"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, second)| {
            k.parse::<u64>().unwrap() < whole && key.is_none_or(|key| second.get(key).is_some())
        })
        .count()
}

/// Every chart of a run's page holds as many points as its JSON has seconds.
fn assert_run_page(dom: &str, doc: &Value, file: &str) {
    let ops = chart(dom, "ops-per-second", None);
    let file_attr = attr("file", file);
    let mut phases: Vec<(String, &Value)> =
        vec![("WARM-UP".into(), &doc["kvbench"]["warmup"]["ALL STATS"])];
    for n in 1..=2 {
        phases.push((
            format!("RUN #{n}"),
            &doc[format!("RUN #{n} RESULTS").as_str()],
        ));
    }
    for (phase, section) in &phases {
        assert!(section.is_object(), "{phase} in the JSON");
        assert!(
            ops.contains(&format!("data-band=\"{phase}\"")),
            "band {phase}"
        );
        for row in ["Sets", "Gets", "Totals"] {
            let expected = whole_seconds(section, row, None);
            assert!(expected >= 1, "{phase} {row}: no whole second in the JSON");
            let attrs = [file_attr.clone(), attr("phase", phase), attr("series", row)];
            assert_eq!(circles(ops, &attrs), expected, "ops/s {phase} {row}");
        }
        for row in ["Sets", "Gets"] {
            let latency = chart(dom, "latency-per-second", Some(&attr("op", row)));
            for (series, key) in [
                ("p50", "p50.00"),
                ("p99", "p99.00"),
                ("p99.9", "p99.90"),
                ("max", "Max Latency"),
            ] {
                let expected = whole_seconds(section, row, Some(key));
                let attrs = [
                    file_attr.clone(),
                    attr("phase", phase),
                    attr("series", series),
                ];
                assert_eq!(circles(latency, &attrs), expected, "{row} {series} {phase}");
            }
        }
    }
    // The client's CPU: a point per second the JSON read, per phase.
    let cpu = chart(dom, "client-cpu", None);
    for (phase, summary) in [
        ("WARM-UP", &doc["kvbench"]["warmup"]),
        ("RUN #1", &doc["kvbench"]["runs"][0]),
        ("RUN #2", &doc["kvbench"]["runs"][1]),
    ] {
        let seconds = summary["client"]["per_second"].as_array().unwrap();
        assert!(!seconds.is_empty(), "{phase}: no client second in the JSON");
        for series in ["kvbench CPU %", "host CPU %"] {
            let attrs = [
                file_attr.clone(),
                attr("phase", phase),
                attr("series", series),
            ];
            assert_eq!(circles(cpu, &attrs), seconds.len(), "{phase} {series}");
        }
    }
    // Waits has no replies: no series.
    assert_eq!(circles(ops, &[attr("series", "Waits")]), 0);
    let spectrum = chart(dom, "latency-spectrum", None);
    for op in ["SET", "GET"] {
        let n = circles(spectrum, &[file_attr.clone(), attr("series", op)]);
        assert!(n > 10 && n < 5000, "spectrum {op}: {n} points");
    }
    let warnings = &dom[dom
        .find("data-panel=\"warnings\"")
        .expect("a warnings panel")..];
    let warnings = &warnings[..warnings.find("</section>").unwrap()];
    let kinds = doc["kvbench"]["warnings"].as_array().unwrap();
    assert!(!kinds.is_empty(), "a 4 s run warns of short_run at least");
    for w in kinds {
        let kind = w["kind"].as_str().unwrap();
        assert!(
            warnings.contains(&attr("kind", kind)) && warnings.contains(&format!(">{kind}<")),
            "warning {kind} not shown"
        );
    }
    for panel in ["server", "configuration", "summary"] {
        assert!(dom.contains(&attr("panel", panel)), "panel {panel}");
    }
}

/// The page's own bytes reach nothing outside it.
fn assert_self_contained(html: &str) {
    for needle in ["http:", "https:", "<script", " src=", "url(", "@import"] {
        assert!(!html.contains(needle), "the page holds {needle:?}");
    }
}

fn run_ok(port: u16, args: &[&str]) {
    let out = kvbench_at(port).args(args).output().expect("run kvbench");
    assert_success(&out, &format!("{args:?}"));
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn pages_render_in_chromium_with_every_point_and_no_console_error() {
    let chromium = chromium::chromium();
    let redis = Redis::start();
    let dir = TempDir::new("html");
    std::fs::create_dir_all(dir.path("a")).unwrap();
    std::fs::create_dir_all(dir.path("b")).unwrap();
    let (run_json, run_html) = (dir.path("a/r.json"), dir.path("run.html"));
    let common = ["-t", "1", "-c", "2", "--key-prefix", "<script>k:"];
    let mut args = vec!["--test-time", "4", "--warmup-time", "2", "-x", "2"];
    args.extend(common);
    args.extend([
        "--html-out-file",
        s(&run_html),
        "--json-out-file",
        s(&run_json),
    ]);
    run_ok(redis.port, &args);
    let rate_json = dir.path("b/r.json");
    // A busy machine may not offer the whole rate: the page is drawn all the same.
    // GET-only, so that no SET legend entry may appear for it.
    let mut args = vec![
        "--test-time",
        "2",
        "--rate",
        "2000",
        "--allow-invalid",
        "--ratio",
        "0:1",
    ];
    args.extend(common);
    args.extend(["--json-out-file", s(&rate_json)]);
    run_ok(redis.port, &args);
    let sweep_json = dir.path("sweep.json");
    // Two runs a cell: each has a run-to-run range for its error bar.
    let mut args = vec!["--test-time", "2", "--pipeline", "1,4", "-x", "2"];
    args.extend(common);
    args.extend(["--json-out-file", s(&sweep_json)]);
    run_ok(redis.port, &args);
    // Two suites: the second with other tests, LRANGE's preparation among them.
    let (suite_json, suite_html) = (dir.path("s.json"), dir.path("s.html"));
    let suite_args = ["-c", "5", "-n", "2000", "-r", "1000", "-q"];
    let mut args = vec!["-t", "set,get,lpush"];
    args.extend(suite_args);
    args.extend([
        "--json-out-file",
        s(&suite_json),
        "--html-out-file",
        s(&suite_html),
    ]);
    assert_success(&suite::suite(redis.port, &args), "suite");
    let suite2_json = dir.path("s2.json");
    let mut args = vec!["-t", "get,lpush,lrange_100"];
    args.extend(suite_args);
    args.extend(["--json-out-file", s(&suite2_json)]);
    assert_success(&suite::suite(redis.port, &args), "suite");
    let overlay = dir.path("overlay.html");
    let out = kvbench(&[
        "report",
        s(&run_json),
        s(&rate_json),
        s(&sweep_json),
        s(&suite_json),
        s(&suite2_json),
        "-o",
        s(&overlay),
    ]);
    assert_success(&out, "report");
    assert!(out.stdout.is_empty(), "-o: nothing on stdout");
    // The suite's own page is the page `kvbench report` draws of its JSON.
    let suite_doc = read_json(&suite_json);
    let suite_page = std::fs::read_to_string(&suite_html).unwrap();
    let out = kvbench(&["report", s(&suite_json)]);
    assert_success(&out, "report s.json");
    assert!(
        out.stdout == suite_page.as_bytes(),
        "--html-out-file of the suite differs from kvbench report of its JSON"
    );
    assert_self_contained(&suite_page);
    suite::assert_suite_page(&suite_page, &suite_doc, "s.json");
    assert!(overlay::assert_every_legend_entry_has_points(&suite_page) >= 3);

    let run_doc = read_json(&run_json);
    let run_page = std::fs::read_to_string(&run_html).unwrap();
    // So is a run's: drawn from the document its JSON file serializes.
    let out = kvbench(&["report", s(&run_json)]);
    assert_success(&out, "report a/r.json");
    assert!(
        out.stdout == run_page.as_bytes(),
        "--html-out-file of the run differs from kvbench report of its JSON"
    );
    let overlay_page = std::fs::read_to_string(&overlay).unwrap();
    assert_self_contained(&run_page);
    assert_self_contained(&overlay_page);
    // The key prefix reached the configuration panel, escaped.
    assert!(run_page.contains("&lt;script&gt;k:"));
    println!("chromium: {}", chromium.display());

    // Launch 1: the run's page, its DOM and its console.
    let profile = TempDir::new("chromium-profile");
    let out = headless(&profile.0, &run_html, &["--dump-dom"]);
    let dom = String::from_utf8(out.stdout).unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(dom.contains("</html>"), "no DOM dumped:\n{log}");
    assert_eq!(
        page_problems(&log),
        Vec::<&str>::new(),
        "console of run.html"
    );
    assert_run_page(&dom, &run_doc, "r.json");
    overlay::assert_own_bands(&dom, "ops-per-second", "r.json", &run_doc);
    assert!(overlay::assert_every_legend_entry_has_points(&dom) > 5);

    // Launch 2: the same page as pixels.
    let png = dir.path("run.png");
    headless(
        &profile.0,
        &run_html,
        &[
            &format!("--screenshot={}", s(&png)),
            "--window-size=1280,2000",
        ],
    );
    let (share, colours) = ink(&png);
    assert!(
        share > 0.01,
        "the screenshot is nearly blank: {share:.4} inked"
    );
    assert!(colours > 2, "the screenshot has {colours} colours");

    // Launch 3: two files overlaid and a sweep.
    let out = headless(&profile.0, &overlay, &["--dump-dom"]);
    let dom = String::from_utf8(out.stdout).unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        page_problems(&log),
        Vec::<&str>::new(),
        "console of overlay.html"
    );
    // Same-named files are told apart by their directory.
    assert_run_page(&dom, &run_doc, "a/r.json");
    let ops = chart(&dom, "ops-per-second", None);
    let rate_doc = read_json(&rate_json);
    let rate_run = &rate_doc["ALL STATS"];
    let attrs = [
        attr("file", "b/r.json"),
        attr("phase", "RUN #1"),
        attr("series", "Totals"),
    ];
    assert_eq!(
        circles(ops, &attrs),
        whole_seconds(rate_run, "Totals", None)
    );
    assert!(dom.contains("a/r.json · Totals") && dom.contains("b/r.json · Totals"));
    // Each file its own phases: the GET-only rate run has no warm-up, and
    // its RUN #1 is its own band, not a stretch of a/r.json's.
    overlay::assert_own_bands(&dom, "ops-per-second", "a/r.json", &run_doc);
    overlay::assert_own_bands(&dom, "ops-per-second", "b/r.json", &rate_doc);
    assert!(overlay::assert_every_legend_entry_has_points(&dom) > 10);
    assert!(
        !dom.contains("data-legend=\"b/r.json · Sets"),
        "the GET-only file has a SET legend entry"
    );
    let spectrum = chart(&dom, "latency-spectrum", None);
    for series in ["Gets response time", "Gets service time"] {
        let n = circles(
            spectrum,
            &[attr("file", "b/r.json"), attr("series", series)],
        );
        assert!(n > 10, "rate-mode spectrum {series}: {n} points");
    }
    let sweep_doc = read_json(&sweep_json);
    let cells = sweep_doc["sweep"]["summary"].as_array().unwrap().len();
    assert_eq!(cells, 2);
    for kind in ["sweep-ops-per-second", "sweep-p99"] {
        let chart = chart(&dom, kind, None);
        assert_eq!(
            circles(chart, &[attr("file", "sweep.json")]),
            cells,
            "{kind}"
        );
    }
    overlay::assert_sweep(&dom, "sweep.json", &sweep_doc);
    // The two suites on one axis, a point per test each; nothing of the others.
    let suite2_doc = read_json(&suite2_json);
    let prepared = suite2_doc["suite"]["tests"].as_array().unwrap();
    assert!(
        prepared.iter().any(|t| t["preparation"] == true),
        "LRANGE_100's preparation in s2.json"
    );
    suite::assert_suite_page(&dom, &suite_doc, "s.json");
    suite::assert_suite_page(&dom, &suite2_doc, "s2.json");
    let rps = chart(&dom, "suite-requests-per-second", None);
    assert_eq!(circles(rps, &[attr("file", "a/r.json")]), 0);
    // Separate tests are bars, never a line from one test to the next.
    assert!(!rps.contains("<polyline") && rps.contains("<rect class=\"bar\""));
    assert!(dom.contains("s.json · requests/s") && dom.contains("s2.json · requests/s"));
}

#[test]
fn report_refuses_bad_input_with_exit_2_naming_the_file() {
    let dir = TempDir::new("html-errors");
    let missing = dir.path("missing.json");
    let out = kvbench(&["report", s(&missing)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("missing.json") && stderr.lines().count() == 1,
        "{stderr}"
    );
    let junk = dir.path("junk.json");
    std::fs::write(&junk, "{\"hello\": 1}").unwrap();
    let out = kvbench(&["report", s(&junk)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("junk.json") && stderr.contains("--json-out-file"),
        "{stderr}"
    );
    let out = kvbench(&["report", s(&junk), "-o", "/nonexistent-kvbench-dir/r.html"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("-o") && stderr.contains("writable"),
        "{stderr}"
    );
}

#[test]
fn an_unwritable_html_out_file_is_refused_before_connecting() {
    let redis = Redis::start();
    let stderr = common::refused_before_connecting(
        &redis,
        [
            "--test-time",
            "1",
            "--html-out-file",
            "/nonexistent-kvbench-dir/r.html",
        ],
    );
    assert!(stderr.contains("--html-out-file"), "{stderr}");
    let dir = TempDir::new("html-same");
    let same = dir.path("r.out");
    let stderr = common::refused_before_connecting(
        &redis,
        [
            "--test-time",
            "1",
            "--html-out-file",
            s(&same),
            "--json-out-file",
            s(&same),
        ],
    );
    assert!(stderr.contains("same file"), "{stderr}");
}

#[test]
fn a_suite_html_out_file_that_cannot_be_written_is_refused_before_connecting() {
    let redis = Redis::start();
    let test = ["-n", "100", "-t", "set"];
    let mut args = test.to_vec();
    args.extend(["--html-out-file", "/nonexistent-kvbench-dir/s.html"]);
    let stderr = suite::suite_refused_before_connecting(&redis, &args);
    assert!(
        stderr.contains("--html-out-file") && stderr.contains("writable"),
        "{stderr}"
    );
    let dir = TempDir::new("html-suite-same");
    let same = dir.path("s.out");
    let mut args = test.to_vec();
    args.extend(["--html-out-file", s(&same), "--json-out-file", s(&same)]);
    let stderr = suite::suite_refused_before_connecting(&redis, &args);
    assert!(stderr.contains("same file"), "{stderr}");
    assert!(!same.exists(), "nothing written");
}
