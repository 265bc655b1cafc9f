//! The JSON report: memtier_benchmark's keys and layout (`configuration`,
//! `run information`, `ALL STATS` or `RUN #n RESULTS` / `BEST RUN RESULTS` /
//! `WORST RUN RESULTS` / `AGGREGATED AVERAGE RESULTS (n runs)`), so dashboards that
//! read memtier read kvbench unchanged, plus a `kvbench` object with what memtier
//! lacks: schema version, exact integer totals, warm-up, errors by kind, the seed.
//! In `--cluster-mode` each op row gains memtier's `MOVED/sec` and `ASK/sec`
//! and each phase summary a `cluster` object ([`crate::report::json_cluster`]).
//! The layout is documented in `docs/output.md` and `docs/output.schema.json`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use serde_json::{Map, Value, json};

use crate::config::{Config, Stop};
use crate::engine::results::{PhaseResult, Section, rate};
use crate::engine::stats::series::{OpSecond, Second};
use crate::engine::stats::{ErrorCounts, OpStats, Stats, max_us, percentile_us};
use crate::protocol::resp::ServerErrorKind;
use crate::report::verdict::Verdict;
use crate::report::{ReportInput, distribution, evidence, json_cluster, json_shard, open_loop};

use crate::workload::ops::OpTable;

/// Version of the `kvbench` object's layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// The memtier-compatible JSON report's bytes.
pub fn render(input: &ReportInput<'_>) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(&document(input)).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The whole document as a JSON value.
pub fn document(input: &ReportInput<'_>) -> Value {
    let c = input.config;
    let mut doc = Map::new();
    doc.insert(
        "configuration".into(),
        crate::report::json_config::memtier_configuration(c),
    );
    doc.insert("run information".into(), run_information(c));
    for s in input.results.sections() {
        doc.insert(s.title.clone(), section(&s, c));
    }
    doc.insert("kvbench".into(), kvbench_object(input));
    Value::Object(doc)
}

/// memtier's `run information`: its third key names what bounds the runs,
/// `Requests per client` or, for timed runs, `Seconds`.
fn run_information(c: &Config) -> Value {
    let (bound, value) = match c.stop {
        Stop::Requests(n) => ("Requests per client", n),
        Stop::AllKeys => (
            "Requests per client",
            crate::report::json_config::allkeys_per_connection(c),
        ),
        Stop::Time(d) => ("Seconds", d.as_secs_f64().round() as u64),
    };
    let mut info = Map::new();
    info.insert("Threads".into(), json!(c.threads));
    info.insert("Connections per thread".into(), json!(c.clients));
    info.insert(bound.into(), json!(value));
    info.insert("Format version".into(), json!(2));
    Value::Object(info)
}

/// The longest key memtier writes: `snprintf(key, sizeof(key) - 1, "p%.2f", p)`
/// into an 8-byte buffer keeps 6 characters (7 bytes with the NUL).
const MEMTIER_PERCENTILE_KEY_CHARS: usize = 6;

/// memtier's key for a percentile, character for character: two decimals,
/// cut to six characters (`p50.00`, `p99.90`, `p99.99`, and `p100.0` for
/// 100). A percentile memtier's key would misname keeps all its digits
/// instead (`p99.999`, whose memtier key `p100.0` reads as the maximum and
/// is p100's too), so no two percentiles share a key.
pub fn percentile_key(p: f64) -> String {
    let mut memtier = format!("p{p:.2}");
    memtier.truncate(MEMTIER_PERCENTILE_KEY_CHARS);
    if memtier[1..].parse::<f64>().is_ok_and(|v| v == p) {
        memtier
    } else {
        format!("p{p}")
    }
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `v` rounded to `places` decimals.
pub fn round(v: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (v * f).round() / f
}

/// µs to ms, kept to the µs.
pub fn ms(us: f64) -> f64 {
    round(us / 1000.0, 3)
}

/// Compressed HdrHistogram (V2 + deflate, base64), as memtier's "Compressed Histogram".
pub fn compressed(h: &Histogram<u64>) -> String {
    let mut buf = Vec::new();
    match V2DeflateSerializer::new().serialize(h, &mut buf) {
        Ok(_) => STANDARD.encode(buf),
        Err(_) => String::new(),
    }
}

/// memtier's "Connection Errors": every event that broke a connection or failed
/// to bring one back (a peer close or reset, a refused reconnect, a request
/// timeout that resets its connection). memtier counts them in Totals only.
pub fn connection_errors(e: &ErrorCounts) -> u64 {
    e.connection + e.refused + e.timeouts
}

fn section(s: &Section<'_>, c: &Config) -> Value {
    let percentiles = &c.output.percentiles;
    let mut m = Map::new();
    let start = millis(s.started_wall);
    m.insert(
        "Runtime".into(),
        json!({
            "Start time": start,
            "Finish time": millis(s.finished_wall),
            "Total duration": s.duration.as_millis() as u64,
            "Time unit": "MILLISECONDS",
            "Interrupted": if s.interrupted { "true" } else { "false" },
        }),
    );
    let d = s.duration;
    let cluster = c.cluster.is_some();
    let row = |op: &OpStats, series: &[(u64, &OpSecond)], errors: u64| {
        op_section(op, (d, cluster), percentiles, series, errors)
    };
    for (i, (r, op)) in c.ops.rows.iter().zip(&s.stats.ops).enumerate() {
        let series: Vec<(u64, &OpSecond)> = s
            .series
            .iter()
            .filter_map(|x| x.ops.get(i).map(|o| (x.second, o)))
            .collect();
        m.insert(r.json_key.clone(), row(op, &series, 0));
    }
    if c.ops.default_pair
        && let Ok(waits) = OpStats::new()
    {
        // kvbench sends no WAIT; the row is kept because memtier readers expect
        // it, with memtier's empty seconds (counts only).
        let empty = OpSecond::from_stats(&waits, &[]);
        let seconds: Vec<(u64, &OpSecond)> = s.series.iter().map(|x| (x.second, &empty)).collect();
        m.insert("Waits".into(), row(&waits, &seconds, 0));
    }
    let totals = s.stats.totals();
    m.insert(
        "Totals".into(),
        row(
            &totals,
            &pick(s.series, |x| &x.totals),
            connection_errors(&s.stats.errors),
        ),
    );
    // memtier leaves the distributions out with --hide-histogram.
    if !c.output.hide_histogram {
        for (r, op) in c.ops.rows.iter().zip(&s.stats.ops) {
            let points: Vec<Value> = distribution(&op.latency_us)
                .into_iter()
                .map(|(ms, percent)| json!({"<=msec": round(ms, 3), "percent": round(percent, 3)}))
                .collect();
            m.insert(r.name_key.clone(), Value::Array(points));
        }
        if c.ops.default_pair {
            m.insert("WAIT".into(), json!([{"<=msec": 0.0, "percent": 100.0}]));
        }
    }
    Value::Object(m)
}

/// One op's column of the per-second series.
fn pick(series: &[Second], column: fn(&Second) -> &OpSecond) -> Vec<(u64, &OpSecond)> {
    series.iter().map(|sec| (sec.second, column(sec))).collect()
}

/// One op row; `(duration, cluster)`: the section's time, and whether the
/// row carries memtier's cluster-mode `MOVED/sec` and `ASK/sec`.
fn op_section(
    op: &OpStats,
    (duration, cluster): (Duration, bool),
    percentiles: &[f64],
    series: &[(u64, &OpSecond)],
    connection_errors: u64,
) -> Value {
    let h = &op.latency_us;
    let empty = h.is_empty();
    let mut pct = Map::new();
    for &p in percentiles {
        pct.insert(percentile_key(p), json!(ms(percentile_us(h, p) as f64)));
    }
    pct.insert(
        "Histogram log format".into(),
        json!({"Compressed Histogram": compressed(h)}),
    );
    let secs = duration.as_secs_f64().max(1e-9);
    let kb = |bytes: u64| round(bytes as f64 / 1024.0 / secs, 2);
    let per_sec = |n: u64| json!(round(rate(n, duration), 2));
    // Inserted in memtier's order: its readers see the keys as memtier writes them.
    let mut m = Map::new();
    m.insert("Count".into(), json!(op.count));
    m.insert("Ops/sec".into(), per_sec(op.count));
    m.insert("Hits/sec".into(), per_sec(op.hits));
    m.insert("Misses/sec".into(), per_sec(op.misses));
    if cluster {
        m.insert("MOVED/sec".into(), per_sec(op.moved));
        m.insert("ASK/sec".into(), per_sec(op.ask));
    }
    m.insert("Connection Errors/sec".into(), per_sec(connection_errors));
    m.insert("Connection Errors".into(), json!(connection_errors));
    m.insert("Latency".into(), json!(ms(op.mean_us())));
    m.insert("Average Latency".into(), json!(ms(op.mean_us())));
    m.insert(
        "Accumulated Latency".into(),
        json!((op.latency_sum_us as f64 / 1000.0).round() as u64),
    );
    let min = if empty { 0.0 } else { ms(h.min() as f64) };
    m.insert("Min Latency".into(), json!(min));
    m.insert("Max Latency".into(), json!(ms(max_us(h) as f64)));
    m.insert("KB/sec".into(), json!(kb(op.bytes_rx + op.bytes_tx)));
    m.insert("KB/sec RX/TX".into(), json!(kb(op.bytes_rx + op.bytes_tx)));
    m.insert("KB/sec RX".into(), json!(kb(op.bytes_rx)));
    m.insert("KB/sec TX".into(), json!(kb(op.bytes_tx)));
    m.insert("Time-Serie".into(), time_serie(series));
    m.insert("Percentile Latencies".into(), Value::Object(pct));
    Value::Object(m)
}

/// The per-second series. Each second's Ops/sec is its replies over the whole
/// second, the partial last one included (the end of the run and the drain):
/// scaling a few replies of a millisecond up to a second would invent a rate.
fn time_serie(series: &[(u64, &OpSecond)]) -> Value {
    let mut m = Map::new();
    for (second, s) in series {
        let mut e = Map::new();
        e.insert("Bytes RX".into(), json!(s.bytes_rx));
        e.insert("Bytes TX".into(), json!(s.bytes_tx));
        e.insert("Count".into(), json!(s.count));
        e.insert("Ops/sec".into(), json!(s.count as f64));
        if s.count == 0 {
            // memtier writes no latency for a second without replies: a 0.0
            // would read as an impossibly fast second.
            m.insert(second.to_string(), Value::Object(e));
            continue;
        }
        e.insert("Average Latency".into(), json!(ms(s.mean_us)));
        e.insert(
            "Accumulated Latency".into(),
            json!((s.accumulated_us / 1000.0).round() as u64),
        );
        e.insert("Min Latency".into(), json!(ms(s.min_us as f64)));
        e.insert("Max Latency".into(), json!(ms(s.max_us as f64)));
        for (p, v) in &s.percentiles_us {
            e.insert(percentile_key(*p), json!(ms(*v as f64)));
        }
        m.insert(second.to_string(), Value::Object(e));
    }
    Value::Object(m)
}

/// Exact counts per row, keyed by command name (`SET`, `GET`, `HSET`); for
/// `--command` runs each row also carries its error replies by kind.
fn integer_totals(ops: &OpTable, s: &Stats) -> Value {
    let mut m = Map::new();
    for (r, o) in ops.rows.iter().zip(&s.ops) {
        let mut v = json!({
            "count": o.count, "hits": o.hits, "misses": o.misses, "errors": o.errors,
            "bytes_tx": o.bytes_tx, "bytes_rx": o.bytes_rx, "latency_sum_us": o.latency_sum_us,
        });
        if !ops.default_pair
            && let Value::Object(fields) = &mut v
        {
            let mut kinds = Map::new();
            for (kind, n) in ServerErrorKind::ALL.iter().zip(o.errors_by_kind) {
                kinds.insert(kind.as_str().into(), json!(n));
            }
            fields.insert("errors_by_kind".into(), Value::Object(kinds));
            fields.insert("command".into(), json!(r.name));
        }
        m.insert(r.name_key.clone(), v);
    }
    Value::Object(m)
}

fn error_object(e: &ErrorCounts) -> Value {
    let mut server = Map::new();
    for (kind, n) in ServerErrorKind::ALL.iter().zip(e.server) {
        server.insert(kind.as_str().into(), json!(n));
    }
    json!({
        "server": server,
        "connection": e.connection,
        "refused": e.refused,
        "timeouts": e.timeouts,
        "reconnects": e.reconnects,
        "protocol": e.protocol,
        "lost_requests": e.lost_requests,
        "pushes": e.pushes,
        "attributes": e.attributes,
    })
}

/// A phase summary's `incomplete`: `null` for a phase that offered its whole
/// load; otherwise its reason (`interrupted` for a phase cut short by a signal
/// or by `--max-errors`, `connections_lost`) and the same in words.
fn incomplete_json(c: &Config, r: &crate::engine::results::Results, p: &PhaseResult) -> Value {
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
        return json!({"reason": "interrupted", "message": message});
    }
    p.incomplete().map_or(
        Value::Null,
        |i| json!({"reason": i.kind(), "message": i.to_string()}),
    )
}

fn phase_summary(c: &Config, r: &crate::engine::results::Results, p: &PhaseResult) -> Value {
    let (histograms, per_second) = crate::report::json_histograms::phase_json(&p.ops(&c.ops), p);
    let mut v = json!({
        "phase": p.phase.to_string(),
        "start_time_ms": millis(p.started_wall),
        "start_lag_ms": json_shard::phase_lag(r, p.phase),
        "duration_ms": p.duration.as_millis() as u64,
        "drain_ms": p.drain.as_millis() as u64,
        "connections_down_at_end": p.connections_down,
        "incomplete": incomplete_json(c, r, p),
        "ops_per_sec": round(p.ops_per_sec(), 2),
        "successes_per_sec": round(p.successes_per_sec(), 2),
        "errors_per_sec": round(p.errors_per_sec(), 2),
        "thread_cpu_s": p.thread_cpu.iter().map(|d| round(d.as_secs_f64(), 4)).collect::<Vec<_>>(),
        "totals": integer_totals(&p.ops(&c.ops), &p.stats),
        "errors": error_object(&p.stats.errors),
        "open_loop": open_loop::run_json(c, p),
        "server": evidence::phase_json(p, &c.ops, c.target.db),
        "histograms": histograms,
        "histograms_per_second": per_second,
    });
    if let (Some(cluster), Value::Object(m)) = (json_cluster::phase_json(c, r, p), &mut v) {
        m.insert("cluster".into(), cluster);
    }
    v
}

/// `kvbench.variance`: the spread of the runs' ops/sec; `null` for one run.
fn variance_json(r: &crate::engine::results::Results) -> Value {
    let Some(v) = r.variance() else {
        return Value::Null;
    };
    json!({
        "ops_per_sec": v.rates.iter().map(|x| round(*x, 2)).collect::<Vec<_>>(),
        "mean": round(v.mean, 2),
        "median": round(v.median, 2),
        "min": round(v.min, 2),
        "max": round(v.max, 2),
        "max_over_min": round(v.max_over_min(), 4),
        "cv": round(v.cv(), 6),
        "ci95_low": round(v.mean - v.ci95_half_width, 2),
        "ci95_high": round(v.mean + v.ci95_half_width, 2),
        "noisy": v.is_noisy(),
    })
}

fn kvbench_object(input: &ReportInput<'_>) -> Value {
    let c: &Config = input.config;
    let r = input.results;
    let all_runs = r.run_totals();
    json!({
        "schema_version": SCHEMA_VERSION,
        "tool_version": env!("CARGO_PKG_VERSION"),
        "complete": input.complete && r.runs.iter().all(|run| run.incomplete().is_none()),
        "runs_planned": r.planned_runs,
        "runs_completed": r.completed_runs(),
        "seed": c.seed,
        "target": c.target.display_redacted(),
        "latency": open_loop::latency_meaning(c),
        "latency_unit_of_histograms": "microseconds",
        "config": crate::report::json_config::kvbench_config(c),
        "runs": r.runs.iter().map(|run| phase_summary(c, r, run)).collect::<Vec<_>>(),
        "server": r.server.as_ref().map(evidence::context_json),
        "placement": r.placement.as_ref().map(crate::engine::placement::Placement::json),
        "shard": json_shard::shard_json(c, r),
        "prefill": r.prefill.as_ref().map(|p| phase_summary(c, r, p)),
        "variance": variance_json(r),
        "interrupted": r.interrupted.map(|(phase, signal)| json!({
            "phase": phase.to_string(),
            "cause": if signal == 0 { "max-errors" } else { "signal" },
            "signal": (signal != 0).then_some(signal),
        })),
        "warmup": r.warmup.as_ref().map(|w| {
            let mut v = phase_summary(c, r, w);
            if let Value::Object(m) = &mut v {
                m.insert("ALL STATS".into(), section(&Section::of("WARM-UP".into(), w), c));
            }
            v
        }),
        "totals": all_runs.as_ref().map(|s| integer_totals(&c.ops, s)),
        "hit_rate_percent": all_runs.as_ref().and_then(|s| crate::report::hit_stats(c, s)).as_ref().and_then(crate::report::hit_rate_percent).map(|p| round(p, 4)),
        "errors": all_runs.as_ref().map(|s| error_object(&s.errors)),
        "warnings": input.warnings
            .iter()
            .map(|w| w.to_json(&c.silenced_warnings))
            .collect::<Vec<_>>(),
        "verdict": verdict_json(input),
    })
}

/// `kvbench.verdict`: the whole result's, with each section's own under
/// `sections` (keyed by the section's title).
fn verdict_json(input: &ReportInput<'_>) -> Value {
    let mut v = input.verdict.to_json();
    let sections: Map<String, Value> = input
        .results
        .sections()
        .iter()
        .map(|s| {
            (
                s.title.clone(),
                Verdict::of_section(input.config, s).to_json(),
            )
        })
        .collect();
    v["sections"] = Value::Object(sections);
    v
}

#[cfg(test)]
mod tests;
