//! The tables `kvbench merge` prints: the whitepaper's table of each run
//! (total QPS, hit rate, p50/p99/p99.9, machines × threads × clients), the
//! merged per-node table of a `--cluster-mode` set, the machines' own rows,
//! and the start skew line — as aligned text or as Markdown.

use std::fmt::Write;

use crate::config::MergeFormat;
use crate::error::terminal;
use crate::report::model::kvbench::{OpTotals, PhaseSummary, Verdict};
use crate::report::model::section::TOTALS_ROW;
use crate::report::model::shard::ShardRow;
use crate::report::model::watched::{Limit, Watched};
use crate::report::table::{Format, Table};
use crate::report::verdict::{INVALID_EXIT_CODE, invalid_text};
use crate::report::watched_text;
use crate::tools::merge::check::join;
use crate::tools::merge::document::{Merge, START_SKEW_WARN_MS, hit_rate};
use crate::tools::merge::round_text;

/// The percentiles of the run table, as the whitepaper prints them.
const PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// Columns of text, aligned left; numbers align right.
const LEFT: [&str; 6] = [
    "Host",
    "File",
    "Machines × t × c",
    "Node",
    "Role",
    "Machine",
];

/// A table of the merge: the first column and the text columns ([`LEFT`])
/// left-aligned, the figures right-aligned, a rule under the text header.
pub(super) fn table(titles: Vec<String>, rows: Vec<Vec<String>>) -> Table {
    let left: Vec<bool> = titles
        .iter()
        .enumerate()
        .map(|(i, t)| i == 0 || LEFT.contains(&t.as_str()))
        .collect();
    let mut t = Table::new(titles, |i| left[i]).rule();
    t.extend(rows);
    t
}

/// One table; with a `width` (a terminal) a text table wider than it is
/// stacked to fit, the run or node column repeated.
fn render_table(out: &mut String, t: &Table, format: MergeFormat, width: Option<usize>) {
    t.write(
        out,
        match format {
            MergeFormat::Text => Format::Text(width),
            MergeFormat::Markdown => Format::Markdown,
        },
    );
}

/// The run's hits over its hits and misses, percent, every command's.
fn run_hit_rate(r: &PhaseSummary) -> Option<f64> {
    let mut all = OpTotals::default();
    for (_, t) in r.totals.iter() {
        all.hits += t.hits;
        all.misses += t.misses;
    }
    hit_rate(&all)
}

/// The merged runs, as the document holds them.
fn runs(m: &Merge) -> &[PhaseSummary] {
    m.report.kvbench.as_ref().map_or(&[], |k| &k.runs)
}

fn opt(v: Option<f64>, places: usize) -> String {
    v.map_or("---".to_string(), |v| format!("{v:.places$}"))
}

/// Everything printed on stdout; with a `width` (a terminal) the text fits
/// it: tables stacked, notes wrapped.
pub fn render(m: &Merge, format: MergeFormat, allow_invalid: bool, width: Option<usize>) -> String {
    let k = m.report.kvbench.as_ref();
    // A set that is not a measurement says so before any number.
    let reasons = k.and_then(|k| k.verdict.as_ref()).map(Verdict::lines);
    // A merge stops no run: its code is the verdict's own.
    let code = if allow_invalid { 0 } else { INVALID_EXIT_CODE };
    let mut out = invalid_text(&reasons.unwrap_or_default(), code);
    let config = k.map(|k| &k.config);
    let setting = |key: &str| {
        config
            .and_then(|c| c.get(key))
            .and_then(serde_json::Value::as_u64)
            .map_or("?".to_string(), |v| v.to_string())
    };
    let shape = format!(
        "{} × {} × {}",
        m.machines,
        setting("threads"),
        setting("clients_per_thread")
    );
    let mut titles = vec!["Run".to_string(), "Total QPS".into(), "Hit rate".into()];
    titles.extend(PERCENTILES.map(|p| format!("p{p} ms")));
    titles.push("Machines × t × c".into());
    let runs = runs(m);
    let rows = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let rate = run_hit_rate(r);
            let mut row = vec![
                r.phase.clone(),
                format!("{:.2}", r.ops_per_sec),
                opt(rate, 2) + if rate.is_some() { " %" } else { "" },
            ];
            // The percentiles of the run's whole `Totals` histogram, which
            // its section holds whatever --print-percentiles printed.
            let totals = m.report.run_section(i, runs.len());
            let h = totals.and_then(|s| s.row(TOTALS_ROW)?.recorded());
            row.extend(PERCENTILES.map(|p| {
                opt(
                    h.as_ref().map(|h| h.value_at_percentile(p) as f64 / 1000.0),
                    3,
                )
            }));
            row.push(shape.clone());
            row
        })
        .collect();
    render_table(&mut out, &table(titles, rows), format, width);
    out.push('\n');
    if let Some(nodes) = node_table(m) {
        render_table(&mut out, &nodes, format, width);
        out.push('\n');
    }
    if let Some(shards) = k.and_then(|k| k.shards.as_ref()) {
        render_table(&mut out, &shard_table(shards), format, width);
        out.push('\n');
    }
    if let Some(t) = k
        .and_then(|k| k.rounds.as_deref())
        .and_then(round_text::target_table)
    {
        render_table(&mut out, &t, format, width);
        out.push('\n');
    }
    if let Some(t) = k
        .and_then(|k| k.rounds.as_deref())
        .and_then(round_text::resource_table)
    {
        render_table(&mut out, &t, format, width);
        out.push('\n');
    }
    if let Some(rounds) = k.and_then(|k| k.rounds.as_deref()) {
        let phases: Vec<(&str, &[Watched])> = rounds
            .iter()
            .map(|r| (r.phase.as_str(), &r.watched[..]))
            .collect();
        watched_text::table(&mut out, &phases, width);
        let limits: Vec<(&str, &Limit)> = rounds
            .iter()
            .filter_map(|r| Some((r.phase.as_str(), r.limit.as_ref()?)))
            .collect();
        watched_text::limit_lines(&mut out, &limits);
        out.push('\n');
    }
    notes(&mut out, m);
    match format {
        MergeFormat::Text => terminal::fit_prose(&out, width),
        MergeFormat::Markdown => out,
    }
}

fn shard_table(shards: &[ShardRow]) -> Table {
    let titles = [
        "Shard",
        "Host",
        "Ops/sec",
        "Hit rate",
        "p99 ms",
        "Start lag ms",
        "Clock offset ms",
        "File",
    ]
    .map(String::from)
    .to_vec();
    let rows = shards
        .iter()
        .map(|s| {
            vec![
                s.index.map_or("-".into(), |i| i.to_string()),
                s.host.clone().unwrap_or_else(|| "?".into()),
                format!("{:.2}", s.ops_per_sec),
                opt(s.hit_rate, 2),
                opt(s.p99_ms, 3),
                opt(s.start_lag_ms, 1),
                opt(s.clock_offset_ms, 1),
                s.file.clone(),
            ]
        })
        .collect();
    table(titles, rows)
}

/// The merged nodes of every run that has them, one row per node; `None`
/// when no run has a merged `cluster` object.
fn node_table(m: &Merge) -> Option<Table> {
    let mut titles = ["Run", "Node", "Role", "Slots", "Ops/sec", "Share"]
        .map(String::from)
        .to_vec();
    titles.extend(PERCENTILES.map(|p| format!("p{p} ms")));
    let mut rows = Vec::new();
    for r in runs(m) {
        for n in r.cluster.iter().flat_map(|c| &c.nodes) {
            let mut row = vec![
                r.phase.clone(),
                n.address.clone(),
                n.role.clone().unwrap_or_else(|| "?".into()),
                n.slots.map_or("?".into(), |s| s.to_string()),
                format!("{:.2}", n.ops_per_sec),
                format!("{:.2} %", 100.0 * n.share),
            ];
            let l = &n.latency;
            row.extend([l.p50_ms, l.p99_ms, l.p99_9_ms].map(|v| format!("{v:.3}")));
            rows.push(row);
        }
    }
    (!rows.is_empty()).then_some(table(titles, rows))
}

/// The runs of a `--cluster-mode` set whose per-node table was not merged.
fn runs_without_nodes(m: &Merge) -> Vec<&str> {
    let cluster_mode = m
        .report
        .kvbench
        .as_ref()
        .and_then(|k| k.config.get("cluster_mode"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    if !cluster_mode {
        return Vec::new();
    }
    runs(m)
        .iter()
        .filter(|r| r.cluster.is_none())
        .map(|r| r.phase.as_str())
        .collect()
}

/// The skew line and what the reader must know about the set.
fn notes(out: &mut String, m: &Merge) {
    if let Some(s) = &m.skew {
        let how = if s.corrected {
            "corrected by each machine's clock offset"
        } else {
            "clock offsets not measured: uncorrected"
        };
        let _ = writeln!(
            out,
            "Start skew: RUN #1 started within {:.1} ms across the machines ({how})",
            s.spread_ms
        );
        if s.spread_ms > START_SKEW_WARN_MS {
            let _ = writeln!(
                out,
                "warning: the start skew is over {START_SKEW_WARN_MS:.0} ms: not every machine was sending during the first seconds; plan a common start (--start-at)"
            );
        }
    }
    let windows: Vec<String> = m
        .runs
        .iter()
        .filter_map(|r| Some(format!("{} {:.3} s", r.phase, r.window?.seconds())))
        .collect();
    if windows.is_empty() {
        let _ = writeln!(
            out,
            "Rates: every machine's replies over the longest machine's run time; percentiles from the merged histograms."
        );
    } else {
        let _ = writeln!(
            out,
            "Rates: the replies inside the common window, in which every machine was sending ({}); percentiles from the merged histograms.",
            windows.join(", ")
        );
    }
    let without = runs_without_nodes(m);
    if !without.is_empty() {
        let _ = writeln!(
            out,
            "note: {}: no merged per-node table (kvbench.runs[i].cluster is null): a file's run has no cluster object, or its nodes have no latency_histogram (written by an older kvbench)",
            without.join(", ")
        );
    }
    if m.set.partial() {
        let _ = writeln!(
            out,
            "warning: partial set: shard(s) {} of {} missing",
            join(&m.set.missing),
            m.set.count.unwrap_or(0)
        );
    }
    for s in &m.skipped {
        let _ = writeln!(out, "warning: {s}");
    }
    if m.set.ad_hoc {
        let _ = writeln!(
            out,
            "note: the files carry no shard object: merged as an ad-hoc set; kvbench cannot tell whether a machine is missing"
        );
    }
}
