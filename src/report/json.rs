//! The JSON report: the typed report model ([`crate::report::model`]),
//! built once per save ([`crate::report::build`]), serialized. Its layout is
//! memtier_benchmark's keys (`configuration`, `run information`, `ALL STATS`
//! or `RUN #n RESULTS` / `BEST RUN RESULTS` / `WORST RUN RESULTS` /
//! `AGGREGATED AVERAGE RESULTS (n runs)`), so dashboards that read memtier
//! read kvbench unchanged, plus a `kvbench` object with what memtier lacks;
//! docs/output.md and docs/output.schema.json describe it.
//!
//! Also here: how the report spells numbers (memtier's rounding, its
//! percentile keys, compressed histograms), which the builder and `merge`
//! share.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
use serde::Serialize;

use crate::engine::stats::ErrorCounts;

/// Version of the `kvbench` object's layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// A document as every JSON file kvbench writes it: pretty-printed, with a
/// final newline.
pub fn pretty(document: &impl Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(document).unwrap_or_default();
    bytes.push(b'\n');
    bytes
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

/// Milliseconds since the Unix epoch (0 before it).
pub fn millis(t: SystemTime) -> u64 {
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

#[cfg(test)]
mod tests;
