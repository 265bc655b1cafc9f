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
use crate::protocol::error_kind::ServerErrorKind;
use crate::report::suite::{Figures, StepResult};
use crate::report::verdict::Verdict;
use crate::report::warnings::Warning;

/// redis-benchmark's CSV header, exactly.
pub const CSV_HEADER: &str = "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"";

/// The widest title, "LPUSH (needed to benchmark LRANGE)", and a margin.
const TITLE_WIDTH: usize = 36;

/// What comes before the first row.
pub fn header(mode: OutputMode) -> String {
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
/// redis-benchmark's 3 by default); a step whose verdict is not valid ends
/// with `[INVALID: error_replies]` (not in `--csv`).
pub fn row(
    mode: OutputMode,
    step: &Step,
    f: &Figures,
    verdict: &Verdict,
    precision: usize,
) -> String {
    let title = step.test.title;
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
pub fn errors_line(r: &StepResult, warnings: &[Warning]) -> Option<String> {
    let errors = r.errors()?;
    if warnings
        .iter()
        .any(|w| matches!(w, Warning::ErrorReplies { .. }))
    {
        return None;
    }
    Some(errors.line(&r.step.name()))
}

/// `-e`: the server's error replies of a step, one stdout line per kind, in
/// redis-benchmark's words (`Error from server: OOM (200 of 200 replies)`).
/// kvbench counts errors by kind (the message's first word) and keeps no
/// message text on the hot path, so the kind is what it can print; empty
/// when the step had none.
pub fn server_errors(r: &StepResult) -> String {
    let Some(section) = r.results.headline() else {
        return String::new();
    };
    let totals = section.stats.totals();
    let mut out = String::new();
    for (kind, n) in ServerErrorKind::ALL.iter().zip(totals.errors_by_kind) {
        if n > 0 {
            let _ = writeln!(
                out,
                "Error from server: {} ({n} of {} replies) [{}]",
                kind.as_str(),
                totals.count.max(totals.errors),
                r.step.name()
            );
        }
    }
    out
}
