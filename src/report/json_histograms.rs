//! `kvbench.runs[i].histograms` and `histograms_per_second`: every row's
//! whole latency histogram and its histogram of each second, compressed as
//! memtier's `Compressed Histogram` is (V2 + deflate, base64, µs), so that
//! the files of several machines merge exactly (`kvbench merge`): counts add,
//! histograms add, and every percentile is recomputed from the sum.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::engine::results::PhaseResult;
use crate::report::json::compressed;
use crate::workload::ops::OpTable;

/// `(histograms, histograms_per_second)` of one phase, keyed by command
/// (`SET`, `GET`, `HSET`) as `totals` is. A second is keyed as in the rows'
/// `Time-Serie` (seconds since the phase's start); one without replies is
/// left out.
pub fn phase_json(ops: &OpTable, p: &PhaseResult) -> (Value, Value) {
    let mut whole = Map::new();
    let mut seconds = Map::new();
    for (i, (row, op)) in ops.rows.iter().zip(&p.stats.ops).enumerate() {
        whole.insert(row.name_key.clone(), json!(compressed(&op.latency_us)));
        let mut per_second = Map::new();
        for s in &p.series {
            if let Some(o) = s.ops.get(i).filter(|o| !o.compressed_histogram.is_empty()) {
                per_second.insert(
                    s.second.to_string(),
                    json!(STANDARD.encode(&o.compressed_histogram)),
                );
            }
        }
        seconds.insert(row.name_key.clone(), Value::Object(per_second));
    }
    (Value::Object(whole), Value::Object(seconds))
}
