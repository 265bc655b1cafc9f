//! `kvbench.shard` and the text report's `Shard:` line: which shard of a
//! multi-machine run this report is, when its phases were planned to start
//! and how late they did, and this machine's clock against the server's
//! (docs/scale-out.md). `kvbench merge` reads them back to line the shards'
//! reports up.

use std::fmt::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::config::Config;
use crate::engine::results::Results;
use crate::engine::run::clock::CLOCK_SAMPLES;
use crate::report::json::round;

/// `kvbench.shard`: `null` on one machine without `--start-at`.
pub fn shard_json(c: &Config, r: &Results) -> Value {
    if c.shard.is_none() && c.start_at.is_none() {
        return Value::Null;
    }
    let timing = r.timing.as_ref();
    let clock = timing
        .filter(|t| t.clock_start.is_some() || t.clock_end.is_some())
        .map(|t| {
            json!({
                "offset_start_ms": t.clock_start.map(|s| round(s.offset_ms, 3)),
                "offset_end_ms": t.clock_end.map(|s| round(s.offset_ms, 3)),
                "rtt_ms": t.clock_start.or(t.clock_end).map(|s| round(s.rtt_ms, 3)),
                "samples": CLOCK_SAMPLES,
            })
        });
    json!({
        "index": c.shard.map_or(0, |s| s.index),
        "count": c.shard_count(),
        "source": c.shard.map(|s| s.source.name()),
        "host": c.host,
        "start_at_ms": c.start_at.map(|s| epoch_ms(s.at)),
        "start_lag_ms": timing.and_then(|t| t.first_lag_ms()).map(|l| round(l, 3)),
        "late": timing.and_then(|t| t.late).map(|l| json!({
            "phase": l.phase.to_string(),
            "lag_ms": round(l.lag_ms, 3),
        })),
        "clock": clock,
    })
}

/// `Shard: 2 of 4 (slurm), host h, start lag 3.1 ms, clock offset +0.4 ms`,
/// or nothing on one machine without `--start-at`.
pub fn shard_line(out: &mut String, c: &Config, r: &Results) {
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

/// The phase's actual start minus its planned one, ms; `null` unless aligned.
pub fn phase_lag(r: &Results, phase: crate::engine::results::Phase) -> Value {
    r.timing
        .as_ref()
        .and_then(|t| t.lag_ms(phase))
        .map_or(Value::Null, |l| json!(round(l, 3)))
}

fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
