//! The suite's printed forms: kvbench's table, redis-benchmark's `-q` lines
//! and its `--csv`, each written a row at a time as the tests finish, so a
//! long suite shows its progress and an interrupt loses nothing printed.
//!
//! A test whose replies include errors has them at the end of its `-q` line
//! and table row (`(1000 of 1000 replies were errors: ERR)`), since its rate
//! then counts refusals; `--csv` keeps redis-benchmark's columns exactly, for
//! the scripts that parse it, and the errors go to stderr only
//! ([`errors_line`], said in every mode). A test whose verdict is not valid
//! ends its row with `[INVALID: <reason kinds>]`; the reasons themselves go to
//! stderr and the suite's JSON, and the suite exits 3.

use std::fmt::Write;

use crate::config::suite::{OutputMode, Step};
use crate::error::terminal::{self, HANGING_INDENT};
use crate::protocol::error_kind::ServerErrorKind;
use crate::report::suite::Figures;
use crate::report::verdict::Verdict;
use crate::report::warnings::Warning;

/// redis-benchmark's CSV header, exactly.
pub const CSV_HEADER: &str = "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"";

/// The widest title, "LPUSH (needed to benchmark LRANGE)", and a margin.
const TITLE_WIDTH: usize = 36;

/// The wide table's width: narrower terminals get [`narrow`]'s.
const WIDE: usize = 115;

/// The narrow table's title column: a longer title has a line of its own.
const NARROW_TITLE: usize = 12;

/// True when the table is laid out narrow, for a terminal under [`WIDE`].
fn narrow(mode: OutputMode, width: Option<usize>) -> bool {
    mode == OutputMode::Table && width.is_some_and(|w| w < WIDE)
}

/// What comes before the first row; `width` is the terminal's
/// ([`crate::config::table_width`]): under 115 columns the table is the
/// narrow one, 80 wide (docs/output.md, "On a terminal").
pub fn header(mode: OutputMode, width: Option<usize>) -> String {
    if narrow(mode, width) {
        return format!(
            "{:<NARROW_TITLE$} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6}\n",
            "test", "req/s", "avg ms", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "hit %", "CPU µs"
        );
    }
    match mode {
        OutputMode::Csv => format!("{CSV_HEADER}\n"),
        OutputMode::Quiet => String::new(),
        OutputMode::Table => format!(
            "{:<TITLE_WIDTH$} {:>12} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}\n",
            "test",
            "requests/s",
            "avg ms",
            "p50 ms",
            "p99 ms",
            "p99.9 ms",
            "max ms",
            "hit rate",
            "CPU µs/req"
        ),
    }
}

/// One step's row, latencies with `precision` decimals (`--precision`,
/// redis-benchmark's 3 by default), fitted to `width` on a terminal; a step
/// whose verdict is not valid ends with `[INVALID: error_replies]` (not in
/// `--csv`).
pub fn row(
    mode: OutputMode,
    step: &Step,
    f: &Figures,
    verdict: &Verdict,
    width: Option<usize>,
    precision: usize,
) -> String {
    let title = step.test.title;
    if narrow(mode, width) {
        return narrow_row(title, f, verdict, width);
    }
    let p = precision;
    match mode {
        // redis-benchmark quotes every field and gives rps two decimals,
        // latencies three.
        OutputMode::Csv => format!(
            "\"{title}\",\"{:.2}\",\"{:.p$}\",\"{:.p$}\",\"{:.p$}\",\"{:.p$}\",\"{:.p$}\",\"{:.p$}\"\n",
            f.rps, f.avg_ms, f.min_ms, f.p50_ms, f.p95_ms, f.p99_ms, f.max_ms
        ),
        OutputMode::Quiet => format!(
            "{title}: {:.2} requests per second, p50={:.p$} msec{}\n",
            f.rps,
            f.p50_ms,
            marker(f, verdict)
        ),
        OutputMode::Table => {
            let hit = f
                .hit_rate_percent
                .map_or("-".to_string(), |h| format!("{h:.1} %"));
            let cpu = f
                .cpu_us_per_request
                .map_or("-".to_string(), |c| format!("{c:.2}"));
            let mut line = String::new();
            let _ = writeln!(
                line,
                "{title:<TITLE_WIDTH$} {:>12.2} {:>8.p$} {:>8.p$} {:>8.p$} {:>8.p$} {:>8.p$} {hit:>8} {cpu:>10}{}",
                f.rps,
                f.avg_ms,
                f.p50_ms,
                f.p99_ms,
                f.p999_ms,
                f.max_ms,
                marker(f, verdict)
            );
            line
        }
    }
}

/// A row of the narrow table: a title longer than its column on a line of
/// its own, and what follows the figures (errors, `[INVALID: …]`) on the
/// next line, wrapped, so that the figures stay in their columns.
fn narrow_row(title: &str, f: &Figures, verdict: &Verdict, width: Option<usize>) -> String {
    let mut out = String::new();
    let shown = if title.chars().count() > NARROW_TITLE {
        let _ = writeln!(out, "{title}");
        ""
    } else {
        title
    };
    let hit = f
        .hit_rate_percent
        .map_or("-".to_string(), |h| format!("{h:.1}"));
    let cpu = f
        .cpu_us_per_request
        .map_or("-".to_string(), |c| format!("{c:.2}"));
    let _ = writeln!(
        out,
        "{shown:<NARROW_TITLE$} {:>8.0} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {hit:>6} {cpu:>6}",
        f.rps, f.avg_ms, f.p50_ms, f.p99_ms, f.p999_ms, f.max_ms
    );
    let after = marker(f, verdict);
    if !after.is_empty() {
        let line = format!("{}{}", HANGING_INDENT, after.trim_start());
        out.push_str(&terminal::fit_prose(&line, width));
        out.push('\n');
    }
    out
}

/// What follows a row's figures: nothing, or a space and the errors, then
/// the kinds of the verdict's reasons when the step is not valid.
fn marker(f: &Figures, verdict: &Verdict) -> String {
    let mut out = f.errors.map_or(String::new(), |e| format!(" {e}"));
    if !verdict.valid() {
        let mut kinds: Vec<&str> = verdict.findings.iter().map(|f| f.reason.kind()).collect();
        kinds.dedup();
        let _ = write!(out, " [INVALID: {}]", kinds.join(", "));
    }
    out
}

/// The stderr line about a step's error replies (without `kvbench: warning: `),
/// said in every output mode; `None` when it had none, or when the step's own
/// `warnings` already hold the error-replies warning, which gives the same
/// numbers with their likely cause: one line per test with errors either way.
pub fn errors_line(step: &Step, f: &Figures, warnings: &[Warning]) -> Option<String> {
    let errors = f.errors?;
    if warnings
        .iter()
        .any(|w| matches!(w, Warning::ErrorReplies { .. }))
    {
        return None;
    }
    Some(errors.line(&step.name()))
}

/// `-e`: the server's error replies of a step, one stdout line per kind, in
/// redis-benchmark's words (`Error from server: OOM (200 of 200 replies)`).
/// kvbench counts errors by kind (the message's first word) and keeps no
/// message text on the hot path, so the kind is what it can print; empty
/// when the step had none.
pub fn server_errors(step: &Step, f: &Figures) -> String {
    let Some(e) = f.errors else {
        return String::new();
    };
    let mut out = String::new();
    for (kind, n) in ServerErrorKind::ALL.iter().zip(e.by_kind) {
        if n > 0 {
            let _ = writeln!(
                out,
                "Error from server: {} ({n} of {} replies) [{}]",
                kind.as_str(),
                e.replies,
                step.name()
            );
        }
    }
    out
}
