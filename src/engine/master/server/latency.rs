//! The server's own latency per command: Redis 7's `LATENCY HISTOGRAM`, read
//! on the control connection before and after every phase and differenced,
//! so that the user's statistics are never reset (no `CONFIG RESETSTAT`).
//!
//! Redis keeps one histogram per command of the time the command ran
//! (service time inside the server, without queueing, network or client),
//! and reports it as cumulative counts at power-of-two edges in µs (each a
//! bucket's highest value: 1, 2, 4, … 1 048, 2 113). The difference of two
//! readings is the phase's histogram; a percentile is known to lie in its
//! bucket, and is reported by both edges. The lower edge is what the
//! report compares: every request's time at the client holds its time in
//! the server, so kvbench's p99 is at least the server's, which is at least
//! the lower edge; kvbench's p99 minus the lower edge is then at most the
//! time spent outside the server's command execution.

use std::collections::BTreeMap;

use crate::engine::master::server::Control;
use crate::protocol::value::Value;

pub mod nodes;

/// Why a server's latency is not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyUnavailable {
    /// The server refused `LATENCY HISTOGRAM` (before Redis 7, or a proxy).
    NoHistogram,
    /// It answered with no command at all: `latency-tracking no`.
    TrackingOff,
    /// Not Redis (memcached), or the control connection failed (in
    /// `--cluster-mode`, any node's).
    NoControl,
}

impl LatencyUnavailable {
    /// A stable name for the JSON.
    pub fn kind(self) -> &'static str {
        match self {
            LatencyUnavailable::NoHistogram => "no_latency_histogram",
            LatencyUnavailable::TrackingOff => "latency_tracking_off",
            LatencyUnavailable::NoControl => "no_control_connection",
        }
    }

    /// In words, for the text report.
    pub fn message(self) -> &'static str {
        match self {
            LatencyUnavailable::NoHistogram => {
                "the server does not answer LATENCY HISTOGRAM (it needs Redis 7 or later)"
            }
            LatencyUnavailable::TrackingOff => {
                "the server's latency-tracking is off (CONFIG SET latency-tracking yes turns it on)"
            }
            LatencyUnavailable::NoControl => {
                "the control connection (in --cluster-mode, one node's) read no LATENCY HISTOGRAM"
            }
        }
    }
}

/// One command's cumulative histogram: `(edge µs, calls at most that long)`,
/// edges increasing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cumulative {
    /// The edges and their cumulative counts.
    pub edges: Vec<(u64, u64)>,
}

impl Cumulative {
    /// Calls at most `edge` µs long: the count at the largest edge not above
    /// it (Redis leaves out edges where nothing changed).
    fn at(&self, edge: u64) -> u64 {
        self.edges
            .iter()
            .take_while(|(e, _)| *e <= edge)
            .last()
            .map_or(0, |(_, c)| *c)
    }

    /// Every call counted.
    pub fn total(&self) -> u64 {
        self.edges.last().map_or(0, |(_, c)| *c)
    }

    /// What grew from `before` to `self`, at every edge either has.
    pub fn since(&self, before: &Cumulative) -> Cumulative {
        let mut all: Vec<u64> = self
            .edges
            .iter()
            .chain(&before.edges)
            .map(|(e, _)| *e)
            .collect();
        all.sort_unstable();
        all.dedup();
        let edges = all
            .into_iter()
            .map(|e| (e, self.at(e).saturating_sub(before.at(e))))
            .collect();
        Cumulative { edges }
    }

    /// Several histograms as one: at every edge any of them has, the sum of
    /// their cumulative counts there (each read with `at`, so an
    /// edge one histogram left out counts what it had below it).
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a Cumulative>) -> Cumulative {
        let parts: Vec<&Cumulative> = parts.into_iter().collect();
        let mut all: Vec<u64> = parts
            .iter()
            .flat_map(|h| h.edges.iter().map(|(e, _)| *e))
            .collect();
        all.sort_unstable();
        all.dedup();
        let edges = all
            .into_iter()
            .map(|e| (e, parts.iter().map(|h| h.at(e)).sum()))
            .collect();
        Cumulative { edges }
    }

    /// The edges of the bucket holding the `percentile`-th call, µs: `(lower,
    /// upper)`; `None` without calls.
    pub fn percentile_bucket_us(&self, percentile: f64) -> Option<(u64, u64)> {
        let total = self.total();
        if total == 0 {
            return None;
        }
        let rank = ((percentile / 100.0) * total as f64).ceil().max(1.0) as u64;
        let at = self.edges.iter().position(|(_, c)| *c >= rank)?;
        let upper = self.edges[at].0;
        // Redis leaves empty buckets out, so the edge listed before may be
        // several buckets lower; the bucket itself starts at half its upper
        // edge (log base 2), less the histogram's 1 % rounding.
        let listed = at.checked_sub(1).map_or(0, |i| self.edges[i].0);
        Some((listed.max(upper * 49 / 100), upper))
    }
}

/// Every command's histogram at one instant, with the process that kept it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LatencySnapshot {
    /// INFO `run_id` read with it: a restart starts every histogram again.
    pub run_id: Option<String>,
    /// By command name as the server writes it (lower case, `config|get`).
    pub commands: BTreeMap<String, Cumulative>,
}

impl LatencySnapshot {
    /// The phase's histograms: `self` minus `before` (all of `self` when the
    /// server restarted in between).
    pub fn since(&self, before: &LatencySnapshot) -> BTreeMap<String, Cumulative> {
        let empty = Cumulative::default();
        let restarted = self.run_id != before.run_id;
        self.commands
            .iter()
            .map(|(name, h)| {
                let base = match before.commands.get(name) {
                    Some(b) if !restarted => b,
                    _ => &empty,
                };
                (name.clone(), h.since(base))
            })
            .filter(|(_, h)| h.total() > 0)
            .collect()
    }
}

/// The key/value pairs of a RESP3 map or of RESP2's flat array of them.
fn pairs(v: &Value) -> Vec<(&Value, &Value)> {
    match v {
        Value::Map(m) => m.iter().map(|(k, v)| (k, v)).collect(),
        Value::Array(a) => a.chunks_exact(2).map(|p| (&p[0], &p[1])).collect(),
        _ => Vec::new(),
    }
}

/// `LATENCY HISTOGRAM`'s reply: `{command: {calls, histogram_usec: {edge:
/// cumulative}}}`; `Err` when it is not that (an error reply).
pub fn parse_histogram(reply: &Value) -> Result<BTreeMap<String, Cumulative>, LatencyUnavailable> {
    if !matches!(reply, Value::Array(_) | Value::Map(_)) {
        return Err(LatencyUnavailable::NoHistogram);
    }
    let mut out = BTreeMap::new();
    for (name, body) in pairs(reply) {
        let Some(name) = name.text() else { continue };
        let Some((_, hist)) = pairs(body)
            .into_iter()
            .find(|(k, _)| k.text().as_deref() == Some("histogram_usec"))
        else {
            continue;
        };
        let mut edges: Vec<(u64, u64)> = pairs(hist)
            .into_iter()
            .filter_map(|(e, c)| {
                Some((
                    u64::try_from(e.integer()?).ok()?,
                    u64::try_from(c.integer()?).ok()?,
                ))
            })
            .collect();
        edges.sort_unstable();
        out.insert(name.to_ascii_lowercase(), Cumulative { edges });
    }
    Ok(out)
}

/// Reads every command's histogram; `run_id` is the INFO read just before.
pub fn read(
    control: &mut Control,
    run_id: Option<&str>,
) -> Result<LatencySnapshot, LatencyUnavailable> {
    let reply = control
        .command(&["LATENCY", "HISTOGRAM"])
        .map_err(|_| LatencyUnavailable::NoControl)?;
    let commands = parse_histogram(&reply)?;
    // The control connection's own INFO is always there once tracking is on.
    if commands.is_empty() {
        return Err(LatencyUnavailable::TrackingOff);
    }
    Ok(LatencySnapshot {
        run_id: run_id.map(str::to_string),
        commands,
    })
}

/// The server's latency over one phase.
#[derive(Debug, Clone, PartialEq)]
pub enum PhaseLatency {
    /// Each command the server ran in the phase.
    Known(BTreeMap<String, Cumulative>),
    /// Why not.
    Unavailable(LatencyUnavailable),
}

impl PhaseLatency {
    /// The phase's from the readings around it.
    pub fn between(
        before: Result<LatencySnapshot, LatencyUnavailable>,
        after: Result<LatencySnapshot, LatencyUnavailable>,
    ) -> PhaseLatency {
        match (before, after) {
            (Ok(b), Ok(a)) => PhaseLatency::Known(a.since(&b)),
            (Err(e), _) | (_, Err(e)) => PhaseLatency::Unavailable(e),
        }
    }
}

#[cfg(test)]
mod tests;
