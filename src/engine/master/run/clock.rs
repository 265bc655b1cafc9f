//! How far this machine's clock is from the server's: several `TIME`
//! round trips on the control connection, the one with the lowest round-trip
//! time kept, and the offset taken against the middle of that round trip
//! (Cristian's method, "Probabilistic clock synchronization", 1989). The
//! server is the one clock every shard can see, so shards' phase starts
//! corrected by their offsets compare on one time line.
//!
//! memcached's `stats time` has whole seconds only, too coarse to align
//! phases by; a memcached target records no offset.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::config::Config;
use crate::engine::master::run::start::Timing;
use crate::engine::master::server::Control;
use crate::protocol::value::Value;

/// How many round trips one measurement makes.
pub const CLOCK_SAMPLES: u32 = 8;

/// One measurement of the offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockSample {
    /// Server time minus this machine's time, ms (positive: the server is ahead).
    pub offset_ms: f64,
    /// The round-trip time of the sample kept, ms: the offset is within half of it.
    pub rtt_ms: f64,
}

/// The clock a shard measures its offsets against, the same for every
/// shard of a set: `--barrier-server` when one is named (behind a balancer
/// the target is a different backend per machine), else the target; a
/// target that refuses `TIME` (a proxy) falls back to the first watched
/// backend (`Config::clock_source`), so the set's starts still compare.
pub struct Reference {
    /// The barrier's server, or the fallback once the target refused.
    other: Option<Control>,
    /// `other` is the barrier's server, measured instead of the target.
    named: bool,
}

impl Reference {
    /// Connects to `--barrier-server`, where one is named.
    pub fn open(config: &Config) -> Reference {
        let other = config
            .barrier_server
            .as_ref()
            .and_then(|t| Control::open(t).ok());
        Reference {
            named: other.is_some(),
            other,
        }
    }

    /// The run's timing with its first offset, measured against the
    /// reference (`target` is the target's control connection).
    pub fn begin(&mut self, config: &Config, target: Option<&mut Control>) -> Option<Timing> {
        let mut timing = match self.other.as_mut() {
            Some(c) => Timing::begin(config, Some(c)),
            None => Timing::begin(config, target),
        }?;
        if timing.clock_start.is_none() && self.other.is_none() {
            self.other = config
                .clock_source
                .as_ref()
                .and_then(|t| Control::open(t).ok());
            timing.clock_start = self.other.as_mut().and_then(measure);
        }
        Some(timing)
    }

    /// One more offset against the same reference.
    pub fn measure(&mut self, target: Option<&mut Control>) -> Option<ClockSample> {
        match (self.named, self.other.as_mut()) {
            (true, Some(c)) => measure(c),
            (_, other) => target.and_then(measure).or_else(|| other.and_then(measure)),
        }
    }
}

/// Measures the offset with [`CLOCK_SAMPLES`] `TIME` commands; `None` when
/// the server answers none of them (memcached, a proxy without `TIME`).
pub fn measure(control: &mut Control) -> Option<ClockSample> {
    let mut best: Option<ClockSample> = None;
    for _ in 0..CLOCK_SAMPLES {
        let sent = micros_now();
        let reply = control.command(&["TIME"]).ok()?;
        let received = micros_now();
        let server = server_micros(&reply)?;
        let sample = offset(sent, received, server);
        if best.is_none_or(|b| sample.rtt_ms < b.rtt_ms) {
            best = Some(sample);
        }
    }
    best
}

/// The offset of `server` from the middle of the round trip `sent..received`
/// (all in µs since the epoch).
fn offset(sent: f64, received: f64, server: f64) -> ClockSample {
    ClockSample {
        offset_ms: (server - (sent + received) / 2.0) / 1000.0,
        rtt_ms: (received - sent).max(0.0) / 1000.0,
    }
}

fn micros_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

/// `TIME`'s reply: seconds and microseconds, as two bulk strings.
fn server_micros(reply: &Value) -> Option<f64> {
    let Value::Array(parts) = reply else {
        return None;
    };
    let number = |v: &Value| -> Option<f64> {
        match v {
            Value::Bulk(b) => std::str::from_utf8(b).ok()?.parse().ok(),
            Value::Integer(n) => Some(*n as f64),
            _ => None,
        }
    };
    match parts.as_slice() {
        [secs, micros] => Some(number(secs)? * 1e6 + number(micros)?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_is_taken_against_the_middle_of_the_round_trip() {
        let s = offset(1_000_000.0, 1_004_000.0, 1_012_000.0);
        assert!((s.offset_ms - 10.0).abs() < 1e-9, "{s:?}");
        assert!((s.rtt_ms - 4.0).abs() < 1e-9, "{s:?}");
        let behind = offset(1_000_000.0, 1_000_000.0, 999_500.0);
        assert!((behind.offset_ms + 0.5).abs() < 1e-9, "{behind:?}");
    }

    #[test]
    fn time_replies_are_read_and_others_are_not() {
        let reply = Value::Array(vec![
            Value::Bulk(b"1767225600".to_vec()),
            Value::Bulk(b"250000".to_vec()),
        ]);
        assert_eq!(server_micros(&reply), Some(1_767_225_600_250_000.0));
        assert_eq!(server_micros(&Value::Error("ERR unknown".into())), None);
        assert_eq!(server_micros(&Value::Array(vec![Value::Nil])), None);
    }
}
