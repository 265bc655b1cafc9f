//! The text report, in memtier_benchmark's layout so that scripts which read
//! memtier's tables read these: a header, one table per section (rows Sets, Gets,
//! Waits, Totals; for `--command` runs a row per command, `Hsets`, and Totals),
//! and the request latency distribution, drawn from the save's document
//! ([`crate::report::model::Report`], the value the JSON serializes), which
//! holds the rates, KB/sec and means unrounded: the tables print them with
//! memtier's precision (a mean to five places), the JSON rounds them as
//! memtier writes them. What memtier does not
//! print (hit rate, warm-up, errors, what the latency means) follows the tables
//! ([`crate::report::text_summary`]).
//! In `--cluster-mode` the op tables gain memtier's `MOVED/sec` and `ASK/sec`
//! columns and a `Shards` table follows them ([`crate::report::shards`]).
//! On a terminal the same report is laid out for it ([`Layout::Terminal`],
//! [`crate::report::text_screen`]).

use std::fmt::Write;

use crate::config::{Config, Stop};
use crate::report::json::percentile_key;
use crate::report::model::Report;
use crate::report::model::section::{OpRow, Section, TOTALS_ROW};
use crate::report::text_summary::summary;
use crate::report::{ReportInput, percentile_label, shards, text_screen};

/// How the text report is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// memtier_benchmark's, byte for byte: a file, a pipe, `--memtier-layout`
    /// or `--memtier-compat`.
    Memtier,
    /// A terminal this many columns wide: memtier's tables stacked to fit
    /// it, no latency distribution, and the verdict, the headline figures
    /// and the warnings last.
    Terminal(usize),
}

/// The text report of `input`, whose document is `report`, laid out as
/// `layout`: memtier's tables are drawn from the document's sections.
pub fn render(input: &ReportInput<'_>, report: &Report, layout: Layout) -> Vec<u8> {
    render_with(input, report, true, layout)
}

/// A sweep cell's report: memtier's layout, without the warnings, which the
/// sweep shows once for all cells.
pub fn render_cell(input: &ReportInput<'_>, report: &Report) -> Vec<u8> {
    render_with(input, report, false, Layout::Memtier)
}

fn render_with(
    input: &ReportInput<'_>,
    report: &Report,
    with_warnings: bool,
    layout: Layout,
) -> Vec<u8> {
    let width = match layout {
        Layout::Memtier => None,
        Layout::Terminal(width) => Some(width),
    };
    // A result that is not a measurement says so before any number (on a
    // terminal, last, where it is read).
    let mut out = match width {
        None => input.verdict.text(input.config.faults.allow_invalid),
        Some(_) => String::new(),
    };
    header(&mut out, input.config);
    for (title, section) in &report.sections {
        let mut one = String::new();
        let _ = writeln!(one, "{title}");
        let columns = if input.config.ops.default_pair {
            table(&mut one, input.config, section)
        } else {
            command_table(&mut one, input.config, section)
        };
        match width {
            Some(width) => out.push_str(&text_screen::stack(&one, &columns, width)),
            None => out.push_str(&one),
        }
    }
    // --read-server: the same per-node table, its two rows the write
    // server (master) and the read endpoint (replica).
    let last = report.last_section();
    if let Some((cluster, last)) = last.as_ref().and_then(|l| Some((l.cluster?, l))) {
        let title = match &input.config.read_server {
            Some(read) => format!(
                "Nodes (writes to --server, reads to --read-server {})",
                read.address()
            ),
            None => "Shards".to_string(),
        };
        shards::table(&mut out, &title, cluster, last.duration);
    }
    // Without a measured run (a cut prefill or warm-up), the summary still
    // says what was measured and why it stopped.
    summary(&mut out, input, report, with_warnings && width.is_none());
    let headline = report.sections.last();
    let histogram = headline.is_some() && !input.config.output.hide_histogram;
    match (width, headline) {
        (None, Some((_, last))) if histogram => latency_distribution(&mut out, input.config, last),
        (Some(width), _) => {
            if histogram {
                text_screen::distribution_note(&mut out);
            }
            text_screen::ending(&mut out, input, headline, width);
        }
        _ => {}
    }
    out.into_bytes()
}

/// The widths of memtier's columns after the row names: rate (and hits and
/// misses for the pair), MOVED and ASK in `--cluster-mode`, the mean, each
/// percentile, and KB/sec with its trailing space.
fn column_widths(names: usize, hits: bool, cluster: bool, percentiles: usize) -> Vec<usize> {
    let mut columns = vec![names, 14];
    if hits {
        columns.extend([13, 13]);
    }
    if cluster {
        columns.extend([13, 13]);
    }
    columns.push(16);
    columns.extend(std::iter::repeat_n(16, percentiles));
    columns.push(14);
    columns
}

fn header(out: &mut String, config: &Config) {
    let _ = writeln!(out, "{:<10}Threads", config.threads);
    let _ = writeln!(out, "{:<10}Connections per thread", config.clients);
    let _ = match config.stop {
        Stop::Requests(n) => writeln!(out, "{n:<10}Requests per client"),
        Stop::AllKeys => writeln!(out, "{:<10}Requests per client", "allkeys"),
        Stop::Time(d) => writeln!(out, "{:<10}Seconds", d.as_secs_f64()),
    };
    out.push_str("\n\n");
}

/// memtier's SET/GET table, after its title; returns its column widths.
fn table(out: &mut String, config: &Config, s: &Section) -> Vec<usize> {
    let percentiles = &config.output.percentiles;
    let cluster = config.cluster.is_some();
    heading(out, 6, true, config);
    let shape = (percentiles.as_slice(), cluster);
    let mut rows = s.rows.0.iter().map(|(_, r)| r);
    if let Some(set) = rows.next() {
        row(out, "Sets", set, shape, (false, true));
    }
    if let Some(get) = rows.next() {
        row(out, "Gets", get, shape, (true, true));
    }
    // --wait-ratio's WAITs are the pair's third row; without it the row is
    // memtier's empty one.
    match rows.next().filter(|_| config.ops.pair.wait.is_some()) {
        Some(wait) => row(out, "Waits", wait, shape, (false, true)),
        None => empty_waits(out, percentiles, cluster),
    }
    if let Some(totals) = s.row(TOTALS_ROW) {
        row(out, "Totals", totals, shape, (true, false));
    }
    out.push_str("\n\n");
    column_widths(6, true, cluster, percentiles.len())
}

/// memtier's Waits row of a run that sent no WAIT: zero and dashes.
fn empty_waits(out: &mut String, percentiles: &[f64], cluster: bool) {
    let _ = write!(out, "{:<6}{:>14.2}{:>13}{:>13}", "Waits", 0.0, "---", "---");
    if cluster {
        let _ = write!(out, "{:>13}{:>13}", "---", "---");
    }
    let _ = write!(out, "{:>16}", "---");
    for _ in percentiles {
        let _ = write!(out, "{:>16}", "---");
    }
    let _ = writeln!(out, "{:>13} ", "---");
}

/// An op table's column titles between its rules: `Type` `type_width`
/// wide, `Ops/sec`, `Hits/sec` and `Misses/sec` when `hits` (the SET/GET
/// pair), `MOVED/sec` and `ASK/sec` in cluster mode, the mean, each
/// percentile and `KB/sec`.
fn heading(out: &mut String, type_width: usize, hits: bool, config: &Config) {
    let percentiles = &config.output.percentiles;
    let cluster = config.cluster.is_some();
    let hit_columns = if hits { 2 * 13 } else { 0 };
    let redirects = if cluster { 2 * 13 } else { 0 };
    let width = type_width + 14 + hit_columns + redirects + 16 * (1 + percentiles.len()) + 14;
    let _ = writeln!(out, "{}", "=".repeat(width));
    let _ = write!(out, "{:<type_width$}{:>14}", "Type", "Ops/sec");
    if hits {
        let _ = write!(out, "{:>13}{:>13}", "Hits/sec", "Misses/sec");
    }
    if cluster {
        let _ = write!(out, "{:>13}{:>13}", "MOVED/sec", "ASK/sec");
    }
    let _ = write!(out, "{:>16}", "Avg. Latency");
    for p in percentiles {
        // A space first, so that long titles (p99.9999 Latency) stay apart.
        let _ = write!(out, " {:>15}", format!("p{} Latency", percentile_label(*p)));
    }
    let _ = writeln!(out, "{:>13} ", "KB/sec");
    let _ = writeln!(out, "{}", "-".repeat(width));
}

/// memtier's table for `--command` runs, after its title: a row per command
/// (or per line), named as memtier names it (`Hsets`), without the
/// Hits/Misses columns and the Waits row, which memtier prints only for its
/// SET/GET pair; returns its column widths.
fn command_table(out: &mut String, config: &Config, s: &Section) -> Vec<usize> {
    let percentiles = &config.output.percentiles;
    let cluster = config.cluster.is_some();
    // memtier widens the Type column to the longest row name
    // (`Scan <cursor>s`); six characters otherwise.
    let names = config.ops.rows.iter().map(|r| r.memtier.len());
    let type_width = names.max().unwrap_or(0).max(6);
    heading(out, type_width, false, config);
    let names = config.ops.rows.iter().map(|r| r.memtier.as_str());
    let rows = names.zip(s.rows.0.iter().map(|(_, r)| r));
    let totals = s.row(TOTALS_ROW).map(|t| ("Totals", t));
    for (name, r) in rows.chain(totals) {
        let _ = write!(out, "{name:<type_width$}");
        cells(out, r, (percentiles, cluster), (None, false));
    }
    out.push_str("\n\n");
    column_widths(type_width, false, cluster, percentiles.len())
}

/// One row of the SET/GET table; `(hits, dashes)` say whether it has the
/// Hits/Misses cells (`---` for Sets) and whether an empty row prints
/// memtier's `---` for its latencies (every row but Totals).
fn row(
    out: &mut String,
    name: &str,
    r: &OpRow,
    shape: (&[f64], bool),
    (hits, dashes): (bool, bool),
) {
    let _ = write!(out, "{name:<6}");
    cells(out, r, shape, (Some(hits), dashes));
}

/// A row's cells after its name: the rate, the Hits/Misses cells when
/// `hits` says so (`Some(false)`: memtier's `---`), MOVED/ASK in cluster
/// mode, the mean, the percentiles and KB/sec, with memtier's precision.
fn cells(
    out: &mut String,
    r: &OpRow,
    (percentiles, cluster): (&[f64], bool),
    (hits, dashes): (Option<bool>, bool),
) {
    let _ = write!(out, "{:>14.2}", r.ops_per_sec);
    match hits {
        Some(true) => {
            let _ = write!(out, "{:>13.2}{:>13.2}", r.hits_per_sec, r.misses_per_sec);
        }
        Some(false) => {
            let _ = write!(out, "{:>13}{:>13}", "---", "---");
        }
        None => {}
    }
    if cluster {
        let moved = r.moved_per_sec.unwrap_or(0.0);
        let ask = r.ask_per_sec.unwrap_or(0.0);
        let _ = write!(out, "{moved:>13.2}{ask:>13.2}");
    }
    // memtier's run_stats prints `---` for the average and every percentile
    // of a Sets, Gets or Waits row without replies (its `has_set_ops`);
    // Totals and the `--command` rows print 0.00000.
    if dashes && r.count == 0 {
        for _ in 0..=percentiles.len() {
            let _ = write!(out, "{:>16}", "---");
        }
    } else {
        let _ = write!(out, "{:>16.5}", r.average_latency_ms);
        for &p in percentiles {
            let v = r.percentiles.values_ms.get(&percentile_key(p)).copied();
            let _ = write!(out, "{:>16.5}", v.unwrap_or(0.0));
        }
    }
    let _ = writeln!(out, "{:>13.2} ", r.kb_per_sec);
}

fn latency_distribution(out: &mut String, config: &Config, s: &Section) {
    let _ = writeln!(out, "Request Latency Distribution");
    let _ = writeln!(out, "{:<8} {:<8} {:>14}", "Type", "<= msec", "Percent");
    let _ = writeln!(out, "{}", "-".repeat(72));
    let names = config.ops.rows.iter().map(|r| r.name.as_str());
    for (name, (_, points)) in names.zip(s.distributions.iter()) {
        for p in points {
            let _ = writeln!(out, "{name:<6}{:>9.3}{:>13.3}", p.at_most_ms, p.percent);
        }
        if !points.is_empty() {
            let _ = writeln!(out, "---");
        }
    }
    // memtier prints its WAIT line only for the SET/GET pair.
    if config.ops.default_pair {
        let _ = writeln!(out, "{:<6}{:>9.3}{:>13.3}", "WAIT", 0.0, 100.0);
    }
}
