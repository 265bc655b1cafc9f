//! The `kvbench` object built from the results: the run's identity, one
//! summary per phase (exact totals, errors by kind, the open loop's
//! schedule, the server's account, the cluster's nodes, the histograms),
//! the variance of the runs, the warnings and the verdict.

use crate::config::Config;
use crate::engine::master::results::{Phase, PhaseResult, Results, Section};
use crate::engine::stats::{ErrorCounts, Stats};
use crate::protocol::resp::ServerErrorKind;
use crate::report::ReportInput;
use crate::report::build::{evidence, open_loop, section, settings};
use crate::report::json::{SCHEMA_VERSION, compressed, millis, round};
use crate::report::model::capacity::Capacity;
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::host::ClientUse;
use crate::report::model::kvbench::{
    Errors, Incomplete, InterruptCause, Interrupted, Kvbench, OpTotals, PhaseSummary,
    SectionVerdict, Variance, Verdict, VerdictReason, Warning,
};
use crate::report::model::load_gap::LoadGap;
use crate::report::model::named::Named;
use crate::report::model::watched::{Limit, Watched};
use crate::report::verdict;
use crate::report::warnings;
use crate::workload::ops::OpTable;

/// The `kvbench` object of one report, with a capacity search's result when
/// it is one.
pub fn kvbench(input: &ReportInput<'_>, capacity: Option<&Capacity>) -> Kvbench {
    let c: &Config = input.config;
    let r = input.results;
    let all_runs = r.run_totals();
    let hit_rate = all_runs
        .as_ref()
        .and_then(|s| crate::report::hit_stats(c, s))
        .as_ref()
        .and_then(crate::report::hit_rate_percent);
    Kvbench {
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        complete: input.complete && r.runs.iter().all(|run| run.incomplete().is_none()),
        runs_planned: r.planned_runs,
        runs_completed: r.completed_runs() as u32,
        seed: c.seed,
        target: c.target.display_redacted(),
        latency: crate::report::open_loop::latency_meaning(c),
        latency_unit_of_histograms: crate::report::model::kvbench::HISTOGRAM_UNIT.into(),
        config: settings::kvbench_config(c),
        runs: r.runs.iter().map(|run| phase_summary(c, r, run)).collect(),
        server: r.server.as_ref().map(evidence::context),
        placement: r.placement.as_ref().map(evidence::placement),
        shard: evidence::shard(c, r),
        prefill: r.prefill.as_ref().map(|p| phase_summary(c, r, p)),
        variance: variance(r),
        runs_auto: super::precision::runs_auto(c, r),
        interrupted: r.interrupted.map(|(phase, signal)| Interrupted {
            phase: phase.to_string(),
            cause: if signal == 0 {
                InterruptCause::MaxErrors
            } else {
                InterruptCause::Signal
            },
            signal: (signal != 0).then_some(signal),
        }),
        warmup: r.warmup.as_ref().map(|w| PhaseSummary {
            all_stats: Some(section::section(&Section::of("WARM-UP".into(), w), c)),
            ..phase_summary(c, r, w)
        }),
        totals: all_runs
            .as_ref()
            .map(|s| integer_totals(&c.ops, s, c.retry.is_some())),
        hit_rate_percent: hit_rate.map(|p| round(p, 4)),
        errors: all_runs.as_ref().map(|s| errors(&s.errors)),
        aggregate: super::aggregate::aggregate(c, r),
        warnings: input
            .warnings
            .iter()
            .map(|w| warning(w, &c.silenced_warnings))
            .collect(),
        verdict: Some(report_verdict(input)),
        cell: None,
        shards: None,
        merged: None,
        rounds: None,
        capacity: capacity.cloned(),
    }
}

/// One warning as the reports store it.
pub fn warning(w: &warnings::Warning, silenced: &[crate::config::WarningKind]) -> Warning {
    Warning {
        kind: w.kind().into(),
        message: w.to_string(),
        silenced: silenced.contains(&w.warning_kind()),
    }
}

/// A verdict's findings, without per-section verdicts.
pub fn verdict(v: &verdict::Verdict) -> Verdict {
    let SectionVerdict { valid, reasons } = section_verdict(v);
    Verdict {
        valid,
        reasons,
        sections: None,
    }
}

fn section_verdict(v: &verdict::Verdict) -> SectionVerdict {
    let reasons = v.findings.iter().map(|f| VerdictReason {
        kind: f.reason.kind().into(),
        message: f.reason.to_string(),
        phase: f.phase.clone(),
    });
    SectionVerdict {
        valid: v.valid(),
        reasons: reasons.collect(),
    }
}

/// `kvbench.verdict`: the whole result's, with each section's own under
/// `sections` (keyed by the section's title).
fn report_verdict(input: &ReportInput<'_>) -> Verdict {
    let sections = input.results.sections();
    let sections = sections.iter().map(|s| {
        let own = verdict::Verdict::of_section(input.config, s);
        (s.title.clone(), section_verdict(&own))
    });
    Verdict {
        sections: Some(Named(sections.collect())),
        ..verdict(&input.verdict)
    }
}

/// Exact counts per row, keyed by command name (`SET`, `GET`, `HSET`); for
/// `--command` runs each row also carries its error replies by kind, and
/// with `--retry-on-error` (`retrying`) its retries.
fn integer_totals(ops: &OpTable, s: &Stats, retrying: bool) -> Named<OpTotals> {
    let rows = ops.rows.iter().zip(&s.ops).map(|(r, o)| {
        let commands = !ops.default_pair;
        let by_kind = ServerErrorKind::ALL.iter().zip(o.errors_by_kind);
        let totals = OpTotals {
            count: o.count,
            hits: o.hits,
            misses: o.misses,
            errors: o.errors,
            bytes_tx: o.bytes_tx,
            bytes_rx: o.bytes_rx,
            latency_sum_us: Some(o.latency_sum_us),
            errors_by_kind: commands
                .then(|| Named(by_kind.map(|(k, n)| (k.as_str().into(), n)).collect())),
            command: commands.then(|| r.name.clone()),
            retries: retrying.then_some(o.retries),
        };
        (r.name_key.clone(), totals)
    });
    Named(rows.collect())
}

fn errors(e: &ErrorCounts) -> Errors {
    let server = ServerErrorKind::ALL.iter().zip(e.server);
    Errors {
        server: Named(server.map(|(k, n)| (k.as_str().into(), n)).collect()),
        connection: e.connection,
        refused: e.refused,
        timeouts: e.timeouts,
        reconnects: e.reconnects,
        protocol: e.protocol,
        lost_requests: e.lost_requests,
        pushes: e.pushes,
        attributes: e.attributes,
    }
}

/// A phase summary's `incomplete`: `None` for a phase that offered its whole
/// load; otherwise its reason (`interrupted` for a phase cut short by a signal
/// or by `--max-errors`, `connections_lost`) and the same in words.
fn incomplete(c: &Config, r: &Results, p: &PhaseResult) -> Option<Incomplete> {
    if p.interrupted {
        let cause = match r.interrupted {
            Some((phase, 0)) if phase == p.phase => format!(
                "more errors than --max-errors {}",
                c.faults.max_errors.unwrap_or(0)
            ),
            Some((phase, signal)) if phase == p.phase => format!("signal {signal}"),
            _ => "an interrupt".to_string(),
        };
        let message = format!(
            "cut short by {cause} before its end: its numbers cover the time until then, and it is left out of BEST, WORST and the aggregate"
        );
        return Some(Incomplete {
            reason: "interrupted".into(),
            message,
        });
    }
    p.incomplete().map(|i| Incomplete {
        reason: i.kind().into(),
        message: i.to_string(),
    })
}

fn phase_summary(c: &Config, r: &Results, p: &PhaseResult) -> PhaseSummary {
    let ops = p.ops(&c.ops);
    let histograms = histograms(&ops, p);
    let server = evidence::phase(p, &c.ops, c.target.db);
    let client = super::host::client(p);
    let (watched, limit) = watched_and_limit(c, p, client.as_ref());
    PhaseSummary {
        phase: p.phase.to_string(),
        start_time_ms: millis(p.started_wall),
        start_lag_ms: evidence::phase_lag(r, p.phase),
        duration: p.duration,
        drain: p.drain,
        connections_down_at_end: p.connections_down as u64,
        incomplete: incomplete(c, r, p),
        ops_per_sec: p.ops_per_sec(),
        successes_per_sec: p.successes_per_sec(),
        errors_per_sec: p.errors_per_sec(),
        thread_cpu_s: p.thread_cpu.iter().map(|d| d.as_secs_f64()).collect(),
        totals: integer_totals(&ops, &p.stats, c.retry.is_some()),
        errors: errors(&p.stats.errors),
        open_loop: open_loop::open_loop(c, p),
        server,
        server_evidence_lost: p.evidence_lost.clone(),
        client,
        server_use: super::host::server_use(p, &c.target.display_redacted(), &ops),
        watched,
        limit,
        load_gap: Some(LoadGap::of(&p.load_gaps)),
        histograms: Some(histograms),
        cluster: super::nodes::cluster(c, r, p),
        server_latency: super::server_latency::phase(&ops, p),
        steadiness: super::warmup::steadiness(c, p),
        precision: super::precision::precision(c, p),
        all_stats: None,
    }
}

/// A phase's watched components and its limit, as the JSON and the text
/// show them; `client` is the phase's `client` object.
pub fn watched_and_limit(
    c: &Config,
    p: &PhaseResult,
    client: Option<&ClientUse>,
) -> (Vec<Watched>, Option<Limit>) {
    let watched = super::watched::watched(&p.watched, &c.ops.witnesses());
    let limit = limit(c, p, client, &watched);
    (watched, limit)
}

/// The phase's limit ([`crate::report::limit`]): the target when it is a
/// server (not in `--cluster-mode`, whose nodes' CPU is each node's), the
/// watched components, this client; `None` for the prefill, whose load is
/// not the one measured.
fn limit(
    c: &Config,
    p: &PhaseResult,
    client: Option<&ClientUse>,
    watched: &[Watched],
) -> Option<Limit> {
    use crate::report::limit;
    if p.phase == Phase::Prefill {
        return None;
    }
    let mut candidates = limit::watched(watched);
    // A routed run's evidence is a sum over its nodes, no one server's.
    if let (Some(e), None) = (&p.server, c.routing()) {
        let address = c.target.endpoint.to_string();
        candidates.extend(limit::target(&address, e, p.duration.as_secs_f64()));
    }
    if let Some(u) = client {
        let (process, machine) = (u.process_cpu_percent, u.machine_cpu_percent);
        candidates.extend(limit::client(
            "client", process, machine, u.cores, c.threads,
        ));
    }
    let unwatched = limit::unwatched(p.server.is_some() || c.routing().is_some(), watched);
    Some(limit::judge(&candidates, unwatched))
}

/// Every row's whole latency histogram, compressed as memtier's `Compressed
/// Histogram` is, keyed by command (`SET`, `GET`, `HSET`) as `totals` is, so
/// that the files of several machines merge exactly (`kvbench merge`). Each
/// second's histograms are not in the report: `--hdr-file-prefix` streams
/// them to the run's `.hlog` files, which merge reads.
fn histograms(ops: &OpTable, p: &PhaseResult) -> Named<CompressedHistogram> {
    Named(
        ops.rows
            .iter()
            .zip(&p.stats.ops)
            .map(|(row, op)| {
                (
                    row.name_key.clone(),
                    CompressedHistogram(compressed(&op.latency_us)),
                )
            })
            .collect(),
    )
}

/// `kvbench.variance`: the spread of the runs' ops/sec; `None` for one run.
fn variance(r: &Results) -> Option<Variance> {
    r.variance().map(|v| variance_of(&v))
}

/// The spread of the runs' ops/sec (a merged set's too), unrounded.
pub fn variance_of(v: &crate::engine::master::results::variance::Variance) -> Variance {
    Variance {
        ops_per_sec: v.rates.clone(),
        mean: v.mean,
        median: v.median,
        min: v.min,
        max: v.max,
        max_over_min: v.max_over_min(),
        cv: v.cv(),
        ci95_low: v.mean - v.ci95_half_width,
        ci95_high: v.mean + v.ci95_half_width,
        median_ci95_low: v.median_ci95.map(|(lo, _)| lo),
        median_ci95_high: v.median_ci95.map(|(_, hi)| hi),
        noisy: v.is_noisy(),
    }
}
