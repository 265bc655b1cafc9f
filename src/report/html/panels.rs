//! The page's text panels: the headline figures of each file, its warnings,
//! what the server was and said about each phase, and the configuration.
//! Every string from a file is escaped here; each panel is a
//! `<section class="panel" data-panel="…">` (docs/html.md).

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::report::html::scale::format_number;
use crate::report::html::svg::escape;
use crate::report::html::{Source, suite, verdict};
use crate::report::model::kvbench::{Kvbench, Warning};
use crate::report::model::section::SectionTitle;
use crate::report::model::{Document, Report};

/// The reports of a source with the name each goes by on the page: a single
/// report as itself, a sweep's cells by their label, a suite's steps by
/// their test.
fn reports(source: &Source) -> Vec<(Option<String>, &Report)> {
    match &source.content {
        Document::Report(r) => vec![(None, r.as_ref())],
        Document::Suite(s) => suite::entries(s)
            .into_iter()
            .map(|(test, report)| (Some(test), report))
            .collect(),
        Document::Sweep(s) => s
            .sweep
            .cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let label = cell
                    .kvbench
                    .as_ref()
                    .and_then(|k| k.cell.as_ref())
                    .map(|c| c.label.clone())
                    .unwrap_or_else(|| format!("cell {i}"));
                (Some(label), cell)
            })
            .collect(),
    }
}

fn open(out: &mut String, panel: &str, title: &str) {
    let _ = writeln!(
        out,
        "<section class=\"panel\" data-panel=\"{panel}\"><h2>{}</h2>",
        escape(title)
    );
}

fn file_heading(out: &mut String, source: &Source, cell: Option<&str>) {
    let _ = write!(out, "<h3>{}", escape(&source.label));
    if let Some(cell) = cell {
        let _ = write!(out, " — {}", escape(cell));
    }
    out.push_str("</h3>\n");
}

fn ms(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "—".into())
}

/// Each file's headline `Totals`: the aggregate of several runs, or the run;
/// a row whose report is not valid is marked.
pub fn summary(sources: &[Source]) -> String {
    let mut out = String::new();
    open(&mut out, "summary", "Summary");
    out.push_str("<table class=\"numbers\"><thead><tr><th>file</th><th>section</th><th>ops/s</th><th>avg ms</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>KB/s</th></tr></thead><tbody>\n");
    for source in sources {
        for (cell, report) in reports(source) {
            let Some(row) = report.headline().and_then(|s| s.row("Totals")) else {
                continue;
            };
            let section = headline_title(report);
            let name = match &cell {
                Some(c) => format!("{} — {c}", source.label),
                None => source.label.clone(),
            };
            // Each row by its own report's verdict: a sweep's cell, a suite's test.
            let invalid = verdict::is_invalid(verdict::of_report(report));
            let mut data = row_data(source, cell.as_deref());
            if invalid {
                data.push_str(" data-verdict=\"invalid\"");
            }
            let name = verdict::marked(&name, invalid);
            let p = &row.percentiles;
            let _ = writeln!(
                out,
                "<tr{}><td>{}</td><td class=\"name\">{}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{:.1}</td></tr>",
                data,
                escape(&name),
                escape(&section),
                format_number(row.ops_per_sec),
                row.mean_ms(),
                ms(p.at_ms(50.0)),
                ms(p.at_ms(99.0)),
                ms(p.at_ms(99.9)),
                row.max_latency_ms,
                row.kb_per_sec
            );
        }
    }
    out.push_str("</tbody></table></section>\n");
    out
}

/// A row's data attributes: the file, and for a suite the test
/// (`data-test="SET"`), so a reader finds a test's row of each file.
fn row_data(source: &Source, step: Option<&str>) -> String {
    let mut out = format!(" data-file=\"{}\"", escape(&source.label));
    if let (Document::Suite(_), Some(test)) = (&source.content, step) {
        let _ = write!(out, " data-test=\"{}\"", escape(test));
    }
    out
}

/// The title of [`Report::headline`]'s section.
fn headline_title(report: &Report) -> String {
    let find = |want: fn(&SectionTitle) -> bool| report.sections.iter().find(|(t, _)| want(t));
    find(|t| matches!(t, SectionTitle::Aggregated(_)))
        .or_else(|| find(|t| *t == SectionTitle::AllStats))
        .map(|(t, _)| t.to_string())
        .unwrap_or_default()
}

/// Every warning of every file (and cell), with its kind; silenced ones
/// (`--no-warning`) are shown, marked as such.
pub fn warnings(sources: &[Source]) -> String {
    let mut out = String::new();
    open(&mut out, "warnings", "Warnings");
    for source in sources {
        let mut listed: Vec<(&Warning, Option<String>)> = Vec::new();
        // The cells each listed warning was found in.
        let mut found_in: Vec<usize> = Vec::new();
        let is_suite = matches!(source.content, Document::Suite(_));
        let cells = reports(source).len();
        for (cell, report) in reports(source) {
            for w in report.kvbench.iter().flat_map(|k| &k.warnings) {
                // A sweep repeats a warning in every cell; it is listed once.
                // A suite says a warning about the setting (the same
                // machine, short runs) for its first test only, as on stderr.
                let repeated = listed.iter().position(|(seen, _)| {
                    *seen == w
                        || (is_suite
                            && seen.kind == w.kind
                            && crate::report::suite::said_once(&w.kind))
                });
                match repeated {
                    Some(i) => found_in[i] += 1,
                    None => {
                        listed.push((w, cell.clone()));
                        found_in.push(1);
                    }
                }
            }
        }
        file_heading(&mut out, source, None);
        if listed.is_empty() {
            out.push_str("<p class=\"none\">No warnings.</p>\n");
            continue;
        }
        out.push_str("<ul class=\"warnings\">\n");
        for ((w, cell), found) in listed.into_iter().zip(found_in) {
            // A sweep's warning found in every cell is about all of them.
            let every_cell = !is_suite && cells > 1 && found == cells;
            let cell = cell.filter(|_| !every_cell);
            let class = if w.silenced {
                "warning silenced"
            } else {
                "warning"
            };
            let _ = write!(
                out,
                "<li class=\"{class}\" data-kind=\"{kind}\"{data}><code class=\"kind\">{kind}</code> ",
                kind = escape(&w.kind),
                data = row_data(source, cell.as_deref())
            );
            match &cell {
                Some(cell) => {
                    let _ = write!(out, "<span class=\"cell\">[{}]</span> ", escape(cell));
                }
                None if every_cell => out.push_str("<span class=\"cell\">[every cell]</span> "),
                None => {}
            }
            out.push_str(&escape(&w.message));
            if w.silenced {
                out.push_str(" <em>(silenced by --no-warning)</em>");
            }
            out.push_str("</li>\n");
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
    out
}

fn table(out: &mut String, rows: &[(&str, String)]) {
    out.push_str("<table class=\"pairs\"><tbody>\n");
    for (k, v) in rows {
        let _ = writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    out.push_str("</tbody></table>\n");
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(T::to_string).unwrap_or_else(|| "—".into())
}

/// What the server is, where kvbench ran beside it, and the server's own
/// account of each phase (INFO before and after).
pub fn server(sources: &[Source]) -> String {
    let mut out = String::new();
    open(&mut out, "server", "Server evidence");
    for source in sources {
        let reports = match &source.content {
            // The server is the suite's, the same for every test.
            Document::Suite(s) => suite::first_test(s)
                .map(|t| (Some(t.test.clone()), &t.report))
                .into_iter()
                .collect(),
            _ => reports(source),
        };
        for (cell, report) in reports {
            let Some(k) = &report.kvbench else {
                continue;
            };
            file_heading(&mut out, source, cell.as_deref());
            server_of(&mut out, k);
        }
    }
    out.push_str("</section>\n");
    out
}

fn server_of(out: &mut String, k: &Kvbench) {
    let mut rows = vec![("target", k.target.clone())];
    if let Some(s) = &k.server {
        rows.extend([
            ("version", opt(&s.version)),
            ("mode", opt(&s.mode)),
            ("os", opt(&s.os)),
            ("maxmemory", opt(&s.maxmemory)),
            ("maxmemory-policy", opt(&s.maxmemory_policy)),
            ("appendonly", opt(&s.appendonly)),
            ("appendfsync", opt(&s.appendfsync)),
            ("save", opt(&s.save)),
            ("io-threads-active", opt(&s.io_threads_active)),
        ]);
    }
    if let Some(p) = &k.placement {
        rows.push(("placement", p.summary.clone()));
    }
    table(out, &rows);
    let phases: Vec<_> = k
        .warmup
        .iter()
        .chain(&k.runs)
        .filter_map(|p| p.server.as_ref().map(|s| (p, s)))
        .collect();
    if phases.is_empty() {
        out.push_str("<p class=\"none\">No per-phase server evidence (the server's INFO was not read).</p>\n");
        return;
    }
    out.push_str("<table class=\"numbers\"><thead><tr><th>phase</th><th>server CPU s</th><th>CPU s / 1000 req</th><th>commands processed</th><th>keyspace hits</th><th>keyspace misses</th><th>keys before → after</th><th>memory before → after</th><th>forks</th><th>restarted</th></tr></thead><tbody>\n");
    for (phase, s) in phases {
        let d = &s.delta;
        let _ = writeln!(
            out,
            "<tr data-phase=\"{}\"><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} → {}</td><td>{} → {}</td><td>{}</td><td>{}</td></tr>",
            escape(&phase.phase),
            escape(&phase.phase),
            d.cpu_s,
            s.cpu_s_per_1000_requests
                .map(|v| format!("{v:.4}"))
                .unwrap_or_else(|| "—".into()),
            d.total_commands_processed,
            d.keyspace_hits,
            d.keyspace_misses,
            d.keys_before,
            d.keys_after,
            d.used_memory_before
                .map_or("?".into(), |m| format_number(m as f64)),
            d.used_memory_after
                .map_or("?".into(), |m| format_number(m as f64)),
            d.total_forks,
            if d.server_restarted { "yes" } else { "no" },
        );
    }
    out.push_str("</tbody></table>\n");
}

/// A setting as text: a string as it is, anything else as compact JSON.
fn setting(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The run's identity (version, seed, runs) and every effective setting.
pub fn configuration(sources: &[Source]) -> String {
    let mut out = String::new();
    open(&mut out, "configuration", "Configuration");
    for source in sources {
        let mut out_file = String::new();
        match &source.content {
            Document::Suite(s) => {
                let tests: Vec<&str> = suite::charted(s).into_iter().map(|(t, _)| t).collect();
                let steps = &s.suite.tests;
                let prepared = steps.iter().filter(|t| t.preparation).count();
                file_heading(&mut out_file, source, None);
                let mut rows = vec![
                    ("tests", tests.join(", ")),
                    ("preparation steps", prepared.to_string()),
                ];
                if let Some(p) = &s.kvbench {
                    rows.push(("tests planned", p.tests_planned.to_string()));
                    rows.push(("tests completed", p.tests_completed.to_string()));
                    rows.push(("complete", p.complete.to_string()));
                }
                table(&mut out_file, &rows);
                // Every test has the suite's settings but its command: the first one's stand for all.
                if let Some(first) = suite::first_test(s) {
                    let _ = writeln!(
                        out_file,
                        "<p class=\"none\">Settings of {}:</p>",
                        escape(&first.test)
                    );
                    config_of(&mut out_file, &first.report);
                }
            }
            Document::Sweep(s) => {
                let parameters: Vec<String> = s
                    .sweep
                    .parameters
                    .iter()
                    .map(|p| crate::report::html::data::parameter_flag(*p).to_string())
                    .collect();
                file_heading(&mut out_file, source, None);
                table(
                    &mut out_file,
                    &[
                        ("swept", parameters.join(", ")),
                        ("cells planned", s.kvbench.cells_planned.to_string()),
                        ("cells completed", s.kvbench.cells_completed.to_string()),
                        ("complete", s.kvbench.complete.to_string()),
                    ],
                );
                // The cells differ only in the swept flags: the first one's settings stand for all.
                if let Some(first) = s.sweep.cells.first() {
                    config_of(&mut out_file, first);
                }
            }
            Document::Report(r) => {
                file_heading(&mut out_file, source, None);
                config_of(&mut out_file, r);
            }
        }
        out.push_str(&out_file);
    }
    out.push_str("</section>\n");
    out
}

fn config_of(out: &mut String, report: &Report) {
    let Some(k) = &report.kvbench else {
        // A memtier file: its own configuration object.
        if let Some(c) = &report.configuration {
            settings(out, c);
        }
        return;
    };
    table(
        out,
        &[
            ("tool version", k.tool_version.clone()),
            ("seed", k.seed.to_string()),
            (
                "runs",
                format!("{} of {}", k.runs_completed, k.runs_planned),
            ),
            ("complete", k.complete.to_string()),
            ("latency", k.latency.clone()),
        ],
    );
    settings(out, &k.config);
}

fn settings(out: &mut String, config: &Map<String, Value>) {
    out.push_str("<table class=\"pairs config\"><tbody>\n");
    for (key, value) in config {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td><code>{}</code></td></tr>",
            escape(key),
            escape(&setting(value))
        );
    }
    out.push_str("</tbody></table>\n");
}
