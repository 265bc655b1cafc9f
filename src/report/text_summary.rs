//! The text report's lines after the tables: what memtier does not print
//! (hit rate, replies apart from error replies, what the latency means, the
//! prefill, warm-up and the server's account of each phase, the run-to-run
//! spread, errors, interruptions, the seed and the warnings).

use std::fmt::Write;

use crate::config::Config;
use crate::engine::master::results::{Phase, Section, rate};
use crate::engine::stats::{ErrorCounts, OpStats};
use crate::protocol::resp::ServerErrorKind;
use crate::report::warnings::Shown;
use crate::report::{ReportInput, evidence, hit_rate_percent, hit_stats, open_loop, server_time};

/// The lines after the tables: hit rate, replies, latency meaning, phases,
/// run-to-run spread, errors, interruptions, seed and warnings.
/// A sweep's cells leave the warnings out (`with_warnings` false): the sweep
/// shows them once, after its summary table.
pub(super) fn summary(
    out: &mut String,
    input: &ReportInput<'_>,
    last: Option<&Section<'_>>,
    with_warnings: bool,
) {
    let config = input.config;
    if let Some(last) = last {
        // The pair's line reads "GET hit rate" even with no GET sent; a
        // --command run names its GET-like commands, and has no line without.
        if let Some(hits) = hit_stats(config, &last.stats) {
            let names: Vec<&str> = config
                .ops
                .hit_rows()
                .map(|r| config.ops.rows[r].name.as_str())
                .collect();
            hit_rate_line(out, &names.join("+"), &hits);
        }
        replies_line(out, last);
        if !config.ops.default_pair {
            command_errors_line(out, config, last);
        }
    }
    let _ = writeln!(out, "Latency: {}.", open_loop::latency_meaning(config));
    if config.rate.is_some() {
        for run in &input.results.runs {
            open_loop::schedule_line(out, config, run);
        }
    }
    phase_lines(out, input);
    watched_lines(out, input);
    variance_line(out, input);
    // The errors of the section shown, or of the prefill or warm-up that was
    // cut before any run.
    let results = input.results;
    let shown = last
        .map(|l| &*l.stats)
        .or(results.warmup.as_ref().map(|w| &w.stats))
        .or(results.prefill.as_ref().map(|p| &p.stats));
    if let Some(stats) = shown {
        errors(out, &stats.errors, stats.error_replies());
    }
    // A cut measured run is reported on its own, never ranked nor averaged.
    let apart = |phase: Phase| match phase {
        Phase::Run(_) => ", and it is left out of BEST, WORST and the aggregate",
        _ => "",
    };
    match input.results.interrupted {
        Some((phase, 0)) => {
            let _ = writeln!(
                out,
                "Stopped: more errors than --max-errors {} during {phase}; its numbers cover the time until then{}.",
                config.faults.max_errors.unwrap_or(0),
                apart(phase)
            );
        }
        // In the wait for an aligned phase's start: that phase never began.
        Some((phase, signal)) if !began(input.results, phase) => {
            let _ = writeln!(
                out,
                "Interrupted: signal {signal} before {phase} started, while waiting for its planned start (--start-at); the phases before it are kept."
            );
        }
        Some((phase, signal)) => {
            let _ = writeln!(
                out,
                "Interrupted: signal {signal} during {phase}; its numbers cover the time until then{}.",
                apart(phase)
            );
        }
        None => {}
    }
    for run in &input.results.runs {
        if let Some(why) = run.incomplete() {
            let _ = writeln!(out, "Incomplete: {}: {why}.", run.phase);
        }
        // A long drain says the server fell behind at the end; it is not in the
        // run time, so it is shown here.
        if run.drain >= std::time::Duration::from_millis(100) {
            let _ = writeln!(
                out,
                "Drain: {} waited {:.2} secs for the replies in flight when sending stopped (not in its run time).",
                run.phase,
                run.drain.as_secs_f64()
            );
        }
    }
    if !input.complete {
        let _ = writeln!(
            out,
            "Incomplete: {} of {} runs completed.",
            input.results.completed_runs(),
            input.results.planned_runs
        );
    }
    if let Some(placement) = &input.results.placement {
        let _ = writeln!(out, "Placement: {placement}");
    }
    let _ = writeln!(out, "Seed: {}", config.seed);
    shard_line(out, config, input.results);
    if with_warnings {
        warning_lines(
            out,
            &Shown::of_run(&input.warnings, &config.silenced_warnings),
        );
    }
    out.push('\n');
    if let Some(last) = last.filter(|_| config.rate.is_some()) {
        open_loop::service_table(out, config, last);
    }
}

/// `--watch`: each measured run's components and its limit.
fn watched_lines(out: &mut String, input: &ReportInput<'_>) {
    let runs = &input.results.runs;
    if runs.iter().all(|r| r.watched.is_empty()) {
        return;
    }
    let found: Vec<(String, Vec<_>, Option<_>)> = runs
        .iter()
        .map(|r| {
            let client = crate::report::build::host::client(r);
            let (watched, limit) =
                crate::report::build::kvbench::watched_and_limit(input.config, r, client.as_ref());
            (r.phase.to_string(), watched, limit)
        })
        .collect();
    let phases: Vec<(&str, &[_])> = found.iter().map(|(p, w, _)| (p.as_str(), &w[..])).collect();
    crate::report::watched_text::table(out, &phases, None);
    let limits: Vec<(&str, &_)> = found
        .iter()
        .filter_map(|(p, _, l)| Some((p.as_str(), l.as_ref()?)))
        .collect();
    crate::report::watched_text::limit_lines(out, &limits);
}

/// With two or more runs: their spread, and what it means for comparisons.
fn variance_line(out: &mut String, input: &ReportInput<'_>) {
    let Some(v) = input.results.variance() else {
        return;
    };
    let list: Vec<String> = v.rates.iter().map(|r| format!("{r:.2}")).collect();
    let _ = writeln!(
        out,
        "Run-to-run ({} runs): ops/sec {}; median {:.2}, min {:.2}, max {:.2}, max/min {:.3}, CV {:.2} %, 95 % CI of the mean {:.2} ± {:.2}",
        v.rates.len(),
        list.join(", "),
        v.median,
        v.min,
        v.max,
        v.max_over_min(),
        100.0 * v.cv(),
        v.mean,
        v.ci95_half_width
    );
}

/// Successes apart from error replies: memtier's Ops/sec above counts both, so a
/// server answering `-OOM` to every SET would otherwise look fast.
fn replies_line(out: &mut String, s: &Section<'_>) {
    let (successes, errors) = (s.stats.successes(), s.stats.error_replies());
    if successes + errors == 0 {
        return;
    }
    let _ = write!(
        out,
        "Replies: {successes} successes ({:.2}/sec), {errors} error replies ({:.2}/sec",
        rate(successes, s.duration),
        rate(errors, s.duration)
    );
    if errors > 0 {
        let _ = write!(
            out,
            ", {:.2} % of replies; Ops/sec counts them too, as memtier does",
            100.0 * errors as f64 / (successes + errors) as f64
        );
    }
    out.push_str(")\n");
}

fn hit_rate_line(out: &mut String, name: &str, get: &OpStats) {
    let _ = match hit_rate_percent(get) {
        Some(p) => writeln!(
            out,
            "{name} hit rate: {p:.2} % ({} hits, {} misses)",
            get.hits, get.misses
        ),
        None if get.count == 0 => writeln!(out, "{name} hit rate: n/a (no {name}s)"),
        None => writeln!(
            out,
            "{name} hit rate: n/a (none of the {} {name} replies was a value or nil)",
            get.count
        ),
    };
}

/// `--command` runs: the error replies of each command, by kind, so that a
/// command the server refuses (a typo, a wrong type) is named.
fn command_errors_line(out: &mut String, config: &Config, s: &Section<'_>) {
    let mut parts = Vec::new();
    for (row, op) in config.ops.rows.iter().zip(&s.stats.ops) {
        for (kind, n) in ServerErrorKind::ALL.iter().zip(op.errors_by_kind) {
            if n > 0 {
                parts.push(format!("{} {} {n}", row.name, kind.as_str()));
            }
        }
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "Error replies by command: {}", parts.join(", "));
    }
}

/// The prefill and warm-up (reported apart from the runs) and the server's own
/// account of every phase.
fn phase_lines(out: &mut String, input: &ReportInput<'_>) {
    let results = input.results;
    let db = input.config.target.db;
    if let Some(ctx) = &results.server {
        evidence::context_line(out, ctx);
    }
    if let Some(p) = &results.prefill {
        let keys = p.stats.totals().count;
        let _ = writeln!(
            out,
            "Prefill (excluded above): {keys} keys in {:.2} secs, {:.0} keys/sec",
            p.duration.as_secs_f64(),
            p.ops_per_sec()
        );
    }
    if let Some(w) = &results.warmup {
        let all = w.stats.totals();
        let _ = writeln!(
            out,
            "Warm-up (excluded above): {:.2} secs, {} ops, {:.2} ops/sec, {:.5} msec avg latency",
            w.duration.as_secs_f64(),
            all.count,
            w.ops_per_sec(),
            all.mean_us() / 1000.0
        );
        server_time::warmup_line(out, w);
    }
    for p in results
        .prefill
        .iter()
        .chain(&results.warmup)
        .chain(&results.runs)
    {
        evidence::phase_line(out, p, &input.config.ops, db);
    }
    server_time::lines(out, input);
}

fn errors(out: &mut String, e: &ErrorCounts, replies: u64) {
    if e.pushes > 0 {
        // Not an error: RESP3 out-of-band frames, kept out of every op's row.
        let _ = writeln!(out, "Pushes: {} (RESP3, answering no request)", e.pushes);
    }
    if e.attributes > 0 {
        // Not an error either: RESP3 annotations, skipped with their reply.
        let _ = writeln!(out, "Attributes: {} (RESP3, skipped)", e.attributes);
    }
    if e.is_clean() && replies == 0 {
        let _ = writeln!(out, "Errors: none");
        return;
    }
    let _ = writeln!(out, "Errors: {}", e.summary());
}

/// `Warning: ...` per warning shown, then how many were silenced.
pub(crate) fn warning_lines(out: &mut String, shown: &Shown) {
    for line in &shown.lines {
        let _ = writeln!(out, "Warning: {line}");
    }
    if let Some(line) = shown.silenced_line() {
        let _ = writeln!(
            out,
            "Warnings: {line} by --no-warning; the JSON lists them."
        );
    }
}

/// `Shard: 2 of 4 (slurm), host h, start lag 3.1 ms, clock offset +0.4 ms`,
/// or nothing on one machine without `--start-at`.
pub fn shard_line(out: &mut String, c: &Config, r: &crate::engine::master::results::Results) {
    if c.shard.is_none() && c.start_at.is_none() {
        return;
    }
    let index = c.shard.map_or(0, |s| s.index);
    let _ = write!(out, "Shard: {index} of {}", c.shard_count());
    if let Some(shard) = c.shard {
        let _ = write!(out, " ({})", shard.source.name());
    }
    let _ = write!(out, ", host {}", c.host);
    let timing = r.timing.as_ref();
    if let Some(lag) = timing.and_then(|t| t.first_lag_ms()) {
        let _ = write!(out, ", start lag {lag:.1} ms");
    }
    if let Some(clock) = timing.and_then(|t| t.clock_start) {
        let _ = write!(out, ", clock offset {:+.1} ms", clock.offset_ms);
    }
    out.push('\n');
}

/// Whether `phase` has results: one a signal cut in the wait for its
/// planned start has none.
fn began(results: &crate::engine::master::results::Results, phase: Phase) -> bool {
    match phase {
        Phase::Prefill => results.prefill.is_some(),
        Phase::Warmup => results.warmup.is_some(),
        Phase::Run(_) => results.runs.iter().any(|r| r.phase == phase),
    }
}
