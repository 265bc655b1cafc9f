//! `runs[i].server_latency`: for each op, the server's p50 and p99 from the
//! phase's `LATENCY HISTOGRAM` difference and its `usec_per_call` from
//! `INFO commandstats`, beside kvbench's own p50 and p99 for the same rows.

use hdrhistogram::Histogram;

use crate::engine::master::results::PhaseResult;
use crate::engine::master::server::latency::PhaseLatency;
use crate::engine::stats::percentile_us;
use crate::report::json::round;
use crate::report::model::named::Named;
use crate::report::model::server_latency::{LatencyUnavailable, OpServerLatency, ServerLatency};
use crate::workload::ops::OpTable;

/// The phase's, or `None` when the target had no INFO to read it beside.
pub fn phase(ops: &OpTable, p: &PhaseResult) -> Option<ServerLatency> {
    let known = match p.server_latency.as_ref()? {
        PhaseLatency::Known(known) => known,
        PhaseLatency::Unavailable(why) => {
            return Some(ServerLatency {
                available: false,
                unavailable: Some(LatencyUnavailable {
                    kind: why.kind().into(),
                    message: why.message().into(),
                }),
                ops: Named::default(),
            });
        }
    };
    let mut rows = Vec::new();
    for w in ops.witnesses() {
        // Rows of one command (`GET` and `GET#2`) are one command to the server.
        let mut merged: Option<Histogram<u64>> = None;
        for op in w.rows.iter().filter_map(|&r| p.stats.op(r)) {
            match merged.as_mut() {
                Some(m) => {
                    let _ = m.add(&op.latency_us);
                }
                None => merged = Some(op.latency_us.clone()),
            }
        }
        let Some(client) = merged.filter(|h| !h.is_empty()) else {
            continue;
        };
        let server = known.get(&w.command);
        let (kvbench_p50_us, kvbench_p99_us) =
            (percentile_us(&client, 50.0), percentile_us(&client, 99.0));
        let p50 = server.and_then(|h| h.percentile_bucket_us(50.0));
        let p99 = server.and_then(|h| h.percentile_bucket_us(99.0));
        let (server_p50_us, server_p99_us) = (p50.map(|b| b.0), p99.map(|b| b.0));
        let usec_per_call = p.server.as_ref().and_then(|e| {
            let calls = e.calls(&w.command);
            (calls > 0).then(|| round(e.usec(&w.command) as f64 / calls as f64, 2))
        });
        let outside = |client: u64, server: Option<u64>| server.map(|s| client as i64 - s as i64);
        rows.push((
            w.name.clone(),
            OpServerLatency {
                command: w.command.clone(),
                server_calls: server.map_or(0, |h| h.total()),
                usec_per_call,
                server_p50_us,
                server_p50_max_us: p50.map(|b| b.1),
                server_p99_us,
                server_p99_max_us: p99.map(|b| b.1),
                kvbench_p50_us,
                kvbench_p99_us,
                outside_server_p50_us: outside(kvbench_p50_us, server_p50_us),
                outside_server_p99_us: outside(kvbench_p99_us, server_p99_us),
            },
        ));
    }
    Some(ServerLatency {
        available: true,
        unavailable: None,
        ops: Named(rows),
    })
}
