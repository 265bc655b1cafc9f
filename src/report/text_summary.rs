//! The text report's lines after the tables: what memtier does not print
//! (hit rate, replies apart from error replies, what the latency means, the
//! prefill, warm-up and the server's account of each phase, the run-to-run
//! spread, errors, interruptions, the seed and the warnings).
//! They read the document: its headline section and `kvbench`, whose
//! figures are unrounded.

use std::fmt::Write;

use crate::config::Config;
use crate::report::model::Report;
use crate::report::model::kvbench::{
    Errors, Incomplete, InterruptCause, Kvbench, OpTotals, PhaseSummary,
};
use crate::report::model::named::Named;
use crate::report::model::section::{Section, SectionTitle, TOTALS_ROW};
use crate::report::warnings::Shown;
use crate::report::{ReportInput, evidence, open_loop, server_time};

/// The lines after the tables: hit rate, replies, latency meaning, phases,
/// run-to-run spread, errors, interruptions, seed and warnings, from the
/// document `report` (its last section, the headline, and its `kvbench`).
/// A sweep's cells leave the warnings out (`with_warnings` false): the sweep
/// shows them once, after its summary table.
pub(super) fn summary(
    out: &mut String,
    input: &ReportInput<'_>,
    report: &Report,
    with_warnings: bool,
) {
    let config = input.config;
    let Some(k) = report.kvbench.as_ref() else {
        return;
    };
    // The headline section and the runs it shows.
    let last = report.sections.last().map(|(t, s)| (s, shown_runs(k, *t)));
    if let Some((section, runs)) = &last {
        // The pair's line reads "GET hit rate" even with no GET sent; a
        // --command run names its GET-like commands, and has no line without.
        let hit_rows: Vec<usize> = config.ops.hit_rows().collect();
        if !hit_rows.is_empty() {
            let names: Vec<&str> = hit_rows
                .iter()
                .map(|&r| config.ops.rows[r].name.as_str())
                .collect();
            let sum = |f| count(runs, Some(&hit_rows), f);
            let hits = [sum(|t| t.hits), sum(|t| t.misses), sum(|t| t.count)];
            hit_rate_line(out, &names.join("+"), hits);
        }
        replies_line(out, section, runs);
        if !config.ops.default_pair {
            command_errors_line(out, config, runs);
        }
    }
    let _ = writeln!(out, "Latency: {}.", k.latency);
    for run in &k.runs {
        open_loop::schedule_line(out, run);
    }
    phase_lines(out, input, k);
    watched_lines(out, k);
    variance_line(out, k);
    super::precision_text::lines(out, k);
    super::precision_text::runs_auto(out, k);
    // The errors of the section shown, or of the prefill or warm-up that was
    // cut before any run.
    let cut = k.warmup.as_ref().or(k.prefill.as_ref());
    if let Some(phases) = last.map(|(_, runs)| runs).or(cut.map(|p| vec![p])) {
        errors(out, &phases);
    }
    interruption(out, config, k);
    for run in &k.runs {
        // An interrupted run is said by the interruption line (and its lost
        // connections, if any, by the verdict).
        let lost = run.incomplete.as_ref();
        if let Some(lost) = lost.filter(|i| i.reason == "connections_lost") {
            let _ = writeln!(out, "Incomplete: {}: {}.", run.phase, lost.message);
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
            k.runs_completed, k.runs_planned
        );
    }
    if let Some(placement) = &k.placement {
        let _ = writeln!(out, "Placement: {}", placement.summary);
    }
    let _ = writeln!(out, "Seed: {}", config.seed);
    shard_line(out, k);
    if with_warnings {
        warning_lines(
            out,
            &Shown::of_run(&input.warnings, &config.silenced_warnings),
        );
    }
    out.push('\n');
    if let Some(last) = report.last_section().filter(|_| config.rate.is_some()) {
        open_loop::service_table(out, config, &last);
    }
}

/// The runs a section shows: its run, or for the aggregate every run that
/// ran to its end.
fn shown_runs(k: &Kvbench, title: SectionTitle) -> Vec<&PhaseSummary> {
    let interrupted = |i: &Incomplete| i.reason == "interrupted";
    let cut = |r: &&PhaseSummary| r.incomplete.as_ref().is_some_and(interrupted);
    match title {
        SectionTitle::Aggregated(_) => k.runs.iter().filter(|r| !cut(r)).collect(),
        SectionTitle::Run(n) => k
            .runs
            .get((n as usize).wrapping_sub(1))
            .into_iter()
            .collect(),
        _ => k.runs.first().into_iter().collect(),
    }
}

/// `f` of the rows of `phases` summed: of every row, or of `rows` only.
fn count(phases: &[&PhaseSummary], rows: Option<&[usize]>, f: fn(&OpTotals) -> u64) -> u64 {
    let all = phases.iter().flat_map(|p| p.totals.0.iter().enumerate());
    let chosen = all.filter(|(i, _)| rows.is_none_or(|r| r.contains(i)));
    chosen.map(|(_, (_, t))| f(t)).sum()
}

/// The phase that was cut short, and by what.
fn interruption(out: &mut String, config: &Config, k: &Kvbench) {
    let Some(cut) = &k.interrupted else {
        return;
    };
    let phase = &cut.phase;
    // A cut measured run is reported on its own, never ranked nor averaged.
    let apart = if phase.starts_with("RUN #") {
        ", and it is left out of BEST, WORST and the aggregate"
    } else {
        ""
    };
    let mut phases = k.runs.iter().chain(&k.prefill).chain(&k.warmup);
    let began = phases.any(|p| p.phase == *phase);
    let signal = cut.signal.unwrap_or(0);
    let _ = match cut.cause {
        InterruptCause::MaxErrors => writeln!(
            out,
            "Stopped: more errors than --max-errors {} during {phase}; its numbers cover the time until then{apart}.",
            config.faults.max_errors.unwrap_or(0),
        ),
        // In the wait for an aligned phase's start: that phase never began.
        InterruptCause::Signal if !began => writeln!(
            out,
            "Interrupted: signal {signal} before {phase} started, while waiting for its planned start (--start-at); the phases before it are kept."
        ),
        InterruptCause::Signal => writeln!(
            out,
            "Interrupted: signal {signal} during {phase}; its numbers cover the time until then{apart}."
        ),
    };
}

/// `--watch`: each measured run's components and its limit.
fn watched_lines(out: &mut String, k: &Kvbench) {
    if k.runs.iter().all(|r| r.watched.is_empty()) {
        return;
    }
    let phases: Vec<(&str, &[_])> = k
        .runs
        .iter()
        .map(|r| (r.phase.as_str(), &r.watched[..]))
        .collect();
    crate::report::watched_text::table(out, &phases, None);
    let limits: Vec<(&str, &_)> = k
        .runs
        .iter()
        .filter_map(|r| Some((r.phase.as_str(), r.limit.as_ref()?)))
        .collect();
    crate::report::watched_text::limit_lines(out, &limits);
}

/// With two or more runs: their spread, and what it means for comparisons.
fn variance_line(out: &mut String, k: &Kvbench) {
    let Some(v) = &k.variance else {
        return;
    };
    let list: Vec<String> = v.ops_per_sec.iter().map(|r| format!("{r:.2}")).collect();
    let _ = writeln!(
        out,
        "Run-to-run ({} runs): ops/sec {}; median {:.2}, min {:.2}, max {:.2}, max/min {:.3}, CV {:.2} %, 95 % CI of the mean {:.2} ± {:.2}",
        v.ops_per_sec.len(),
        list.join(", "),
        v.median,
        v.min,
        v.max,
        v.max_over_min,
        100.0 * v.cv,
        v.mean,
        (v.ci95_high - v.ci95_low) / 2.0
    );
    if let (Some(lo), Some(hi)) = (v.median_ci95_low, v.median_ci95_high) {
        let _ = writeln!(
            out,
            "  95 % interval of the median run (order statistics): {lo:.2} to {hi:.2} ops/sec."
        );
    }
}

/// Successes apart from error replies: memtier's Ops/sec above counts both, so a
/// server answering `-OOM` to every SET would otherwise look fast. The rates
/// are the section's: its Totals row's rate over its count.
fn replies_line(out: &mut String, s: &Section, runs: &[&PhaseSummary]) {
    let errors = count(runs, None, |t| t.errors);
    let successes = count(runs, None, |t| t.count).saturating_sub(errors);
    if successes + errors == 0 {
        return;
    }
    let secs = s
        .row(TOTALS_ROW)
        .map_or(0.0, |t| t.count as f64 / t.ops_per_sec);
    let rate = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    let _ = write!(
        out,
        "Replies: {successes} successes ({:.2}/sec), {errors} error replies ({:.2}/sec",
        rate(successes),
        rate(errors)
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

/// `[hits, misses, replies]` of the GET-like rows `name`.
fn hit_rate_line(out: &mut String, name: &str, [hits, misses, replies]: [u64; 3]) {
    let _ = if hits + misses > 0 {
        let p = 100.0 * hits as f64 / (hits + misses) as f64;
        writeln!(
            out,
            "{name} hit rate: {p:.2} % ({hits} hits, {misses} misses)"
        )
    } else if replies == 0 {
        writeln!(out, "{name} hit rate: n/a (no {name}s)")
    } else {
        writeln!(
            out,
            "{name} hit rate: n/a (none of the {replies} {name} replies was a value or nil)"
        )
    };
}

/// `--command` runs: the error replies of each command, by kind, so that a
/// command the server refuses (a typo, a wrong type) is named.
fn command_errors_line(out: &mut String, config: &Config, runs: &[&PhaseSummary]) {
    let mut parts = Vec::new();
    for (i, row) in config.ops.rows.iter().enumerate() {
        fn by_kind(p: &PhaseSummary, i: usize) -> Option<&Named<u64>> {
            p.totals.0.get(i)?.1.errors_by_kind.as_ref()
        }
        for (kind, _) in runs
            .first()
            .and_then(|p| by_kind(p, i))
            .map_or(&[][..], |k| &k.0)
        {
            let n: u64 = runs.iter().filter_map(|p| by_kind(p, i)?.get(kind)).sum();
            if n > 0 {
                parts.push(format!("{} {kind} {n}", row.name));
            }
        }
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "Error replies by command: {}", parts.join(", "));
    }
}

/// The prefill and warm-up (reported apart from the runs) and the server's own
/// account of every phase.
fn phase_lines(out: &mut String, input: &ReportInput<'_>, k: &Kvbench) {
    if let Some(ctx) = &k.server {
        evidence::context_line(out, ctx);
    }
    if let Some(p) = &k.prefill {
        let keys: u64 = p.totals.iter().map(|(_, t)| t.count).sum();
        let _ = writeln!(
            out,
            "Prefill (excluded above): {keys} keys in {:.2} secs, {:.0} keys/sec",
            p.duration.as_secs_f64(),
            p.ops_per_sec
        );
    }
    if let Some(w) = &k.warmup {
        let all = w.all_stats.as_ref().and_then(|s| s.row(TOTALS_ROW));
        let _ = writeln!(
            out,
            "Warm-up (excluded above): {:.2} secs, {} ops, {:.2} ops/sec, {:.5} msec avg latency",
            w.duration.as_secs_f64(),
            all.map_or(0, |t| t.count),
            w.ops_per_sec,
            all.map_or(0.0, |t| t.average_latency_ms)
        );
        server_time::warmup_line(out, w);
    }
    for p in k.prefill.iter().chain(&k.warmup).chain(&k.runs) {
        evidence::phase_line(out, p, &input.config.ops);
    }
    server_time::lines(out, k);
}

/// The errors of `phases` together. A routed run's requests not sent to a
/// node that was down are in its `cluster`.
fn errors(out: &mut String, phases: &[&PhaseSummary]) {
    let total = |f: fn(&Errors) -> u64| phases.iter().map(|p| f(&p.errors)).sum::<u64>();
    let (pushes, attributes) = (total(|e| e.pushes), total(|e| e.attributes));
    if pushes > 0 {
        // Not an error: RESP3 out-of-band frames, kept out of every op's row.
        let _ = writeln!(out, "Pushes: {pushes} (RESP3, answering no request)");
    }
    if attributes > 0 {
        // Not an error either: RESP3 annotations, skipped with their reply.
        let _ = writeln!(out, "Attributes: {attributes} (RESP3, skipped)");
    }
    let kinds = phases.first().map_or(&[][..], |p| &p.errors.server.0[..]);
    let replies = kinds.iter().map(|(kind, _)| {
        let n: u64 = phases
            .iter()
            .filter_map(|p| p.errors.server.get(kind))
            .sum();
        (format!("{kind} replies"), n)
    });
    let clusters = phases.iter().filter_map(|p| p.cluster.as_ref());
    let down = clusters.map(|c| c.redirects.node_down).sum();
    let others = [
        ("connections lost", total(|e| e.connection)),
        ("reconnects refused", total(|e| e.refused)),
        ("request timeouts", total(|e| e.timeouts)),
        ("protocol errors", total(|e| e.protocol)),
        ("requests lost in flight", total(|e| e.lost_requests)),
        ("requests not sent to a node that was down", down),
    ];
    let others = others.map(|(name, n)| (name.to_string(), n));
    let mut parts: Vec<String> = replies
        .chain(others)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    // Reconnects alone are no error.
    if parts.is_empty() && count(phases, None, |t| t.errors) == 0 {
        let _ = writeln!(out, "Errors: none");
        return;
    }
    match total(|e| e.reconnects) {
        0 if parts.is_empty() => parts.push("none".into()),
        0 => {}
        n => parts.push(format!("reconnects {n}")),
    }
    let _ = writeln!(out, "Errors: {}", parts.join(", "));
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
fn shard_line(out: &mut String, k: &Kvbench) {
    let Some(s) = &k.shard else {
        return;
    };
    let _ = write!(out, "Shard: {} of {}", s.index, s.count);
    if let Some(source) = s.source {
        let _ = write!(out, " ({})", source.name());
    }
    if let Some(host) = &s.host {
        let _ = write!(out, ", host {host}");
    }
    if let Some(lag) = s.start_lag_ms {
        let _ = write!(out, ", start lag {lag:.1} ms");
    }
    if let Some(clock) = s.clock.as_ref().and_then(|c| c.offset_start_ms) {
        let _ = write!(out, ", clock offset {clock:+.1} ms");
    }
    out.push('\n');
}
