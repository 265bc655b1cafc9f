//! The sweep's JSON document: every cell's report as a memtier-compatible
//! document with its `kvbench.cell`, the `SWEEP SUMMARY` rows (a cut cell's
//! marked `cut`), and the sweep's own `kvbench` object, which names the cell a
//! stop cut.

use serde_json::{Value, json};

use super::{summary, verdict};
use crate::config::Config;
use crate::engine::sweep::{CellResult, SweepStop};
use crate::report::ReportInput;
use crate::report::json::{SCHEMA_VERSION, document, percentile_key};

/// The sweep's JSON: every cell's memtier-compatible document, the summary,
/// and the cell a stop cut (`kvbench.interrupted`).
pub fn json(
    config: &Config,
    cells: &[CellResult],
    inputs: &[ReportInput<'_>],
    total_cells: usize,
    stop: Option<&SweepStop>,
) -> Vec<u8> {
    let documents: Vec<Value> = cells
        .iter()
        .zip(inputs)
        .map(|(c, input)| {
            let mut doc = document(input);
            if let Some(kv) = doc.get_mut("kvbench").and_then(Value::as_object_mut) {
                let parameters: serde_json::Map<String, Value> =
                    c.cell.parameters.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
                kv.insert(
                    "cell".into(),
                    json!({"index": c.cell.index, "label": c.cell.label(), "parameters": parameters}),
                );
            }
            doc
        })
        .collect();
    let rows: Vec<Value> = summary(cells)
        .iter()
        .map(|r| {
            json!({
                "cell": r.label,
                "ops_per_sec": round2(r.ops_per_sec),
                "set_ops_per_sec": round2(r.set_ops_per_sec),
                "get_ops_per_sec": round2(r.get_ops_per_sec),
                "avg_latency_ms": round3(r.avg_ms),
                "p50_latency_ms": round3(r.fixed_ms[0]),
                "p99_latency_ms": round3(r.fixed_ms[1]),
                "p99_9_latency_ms": round3(r.fixed_ms[2]),
                "latency_percentiles_ms": r
                    .percentiles_ms
                    .iter()
                    .map(|(p, ms)| (percentile_key(*p), json!(round3(*ms))))
                    .collect::<serde_json::Map<String, Value>>(),
                "hit_rate_percent": r.hit_rate.map(round2),
                "ratio_to_first": (r.ratio * 10_000.0).round() / 10_000.0,
                "cut": r.interrupted,
                "ops_per_sec_spread": r.spread.map(|s| json!({
                    "min": round2(s.min),
                    "max": round2(s.max),
                    "max_over_min": (s.max_over_min() * 10_000.0).round() / 10_000.0,
                })),
            })
        })
        .collect();
    let complete = cells.len() == total_cells && cells.iter().all(|c| c.results.is_complete());
    let doc = json!({
        "sweep": {
            "parameters": config.sweep.swept(),
            "cells": documents,
            "summary": rows,
        },
        "kvbench": {
            "schema_version": SCHEMA_VERSION,
            "tool_version": env!("CARGO_PKG_VERSION"),
            "complete": complete,
            "cells_planned": total_cells,
            "cells_completed": cells.iter().filter(|c| c.results.is_complete()).count(),
            "interrupted": stop.map(interrupted),
            "verdict": verdict(cells, inputs, total_cells, stop).to_json(),
        },
    });
    let mut bytes = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// `kvbench.interrupted` of a sweep: the cell cut, and its phase (`null`
/// when it had measured nothing and is not among the cells).
fn interrupted(stop: &SweepStop) -> Value {
    json!({
        "index": stop.cell,
        "cell": stop.label,
        "phase": stop.phase.map(|p| p.to_string()),
        "cause": if stop.signal == 0 { "max-errors" } else { "signal" },
        "signal": (stop.signal != 0).then_some(stop.signal),
    })
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}
