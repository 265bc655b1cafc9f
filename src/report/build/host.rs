//! `runs[i].client` from the phase's readings of this machine
//! ([`crate::engine::master::host`]), and `runs[i].server_use` from those of the
//! server ([`crate::engine::master::server::sample`]), its time per op each second
//! included.

use crate::engine::master::host::HostUse;
use crate::engine::master::results::PhaseResult;
use crate::engine::master::server::sample::ServerSecondUse;
use crate::report::json::round;
use crate::report::model::host::{ClientSecond, ClientUse};
use crate::report::model::named::Named;
use crate::report::model::server::{SecondServerLatency, ServerSecond, ServerUse};
use crate::workload::ops::{OpTable, Witness};

/// `(process %, machine %, rx/s, tx/s)` of one difference of readings.
fn rates(u: &HostUse) -> (f64, f64, Option<f64>, Option<f64>) {
    let s = u.seconds.max(1e-9);
    let per_sec = |b: u64| round(b as f64 / s, 1);
    (
        round(100.0 * u.process_cpu_s / s, 1),
        round(u.machine_cpu_percent, 1),
        u.net.map(|(rx, _)| per_sec(rx)),
        u.net.map(|(_, tx)| per_sec(tx)),
    )
}

/// `client`; `None` for a phase without readings.
pub fn client(p: &PhaseResult) -> Option<ClientUse> {
    let host = p.host.as_ref()?;
    let (process, machine, rx, tx) = rates(&host.whole);
    let per_second = host
        .per_second
        .iter()
        .map(|u| {
            let (process, machine, rx, tx) = rates(u);
            ClientSecond {
                process_cpu_percent: process,
                machine_cpu_percent: machine,
                net_rx_bytes_per_sec: rx,
                net_tx_bytes_per_sec: tx,
            }
        })
        .collect();
    Some(ClientUse {
        interface: host.interface.clone(),
        cores: host.cores as u32,
        process_cpu_s: round(host.whole.process_cpu_s, 4),
        process_cpu_percent: process,
        machine_cpu_percent: machine,
        net_rx_bytes_per_sec: rx,
        net_tx_bytes_per_sec: tx,
        per_second,
    })
}

/// One second of the server's use, as rates, with the server's time per op
/// of `ops` (each op's command, by its name as `totals`).
pub fn server_second(u: &ServerSecondUse, ops: &[Witness]) -> ServerSecond {
    let s = u.seconds.max(1e-9);
    let per_sec = |b: Option<u64>| b.map(|b| round(b as f64 / s, 1));
    let latency = u.latency.as_ref().map(|commands| {
        let rows = ops.iter().filter_map(|w| {
            let h = commands.get(&w.command)?;
            let (p50, p99) = (h.percentile_bucket_us(50.0)?, h.percentile_bucket_us(99.0)?);
            Some((
                w.name.clone(),
                SecondServerLatency {
                    command: w.command.clone(),
                    calls: h.total(),
                    p50_us: p50.0,
                    p50_max_us: p50.1,
                    p99_us: p99.0,
                    p99_max_us: p99.1,
                },
            ))
        });
        Named(rows.collect())
    });
    ServerSecond {
        cpu_percent: u.cpu_s.map(|c| round(100.0 * c / s, 1)),
        net_input_bytes_per_sec: per_sec(u.net_input_bytes),
        net_output_bytes_per_sec: per_sec(u.net_output_bytes),
        ops_per_sec: per_sec(u.commands),
        latency,
    }
}

/// `server_use`: the one server's series, against `target`, or in
/// `--cluster-mode` each node's, against its address; empty without INFO, and
/// a series without the server's identity left out.
pub fn server_use(p: &PhaseResult, target: &str, ops: &OpTable) -> Vec<ServerUse> {
    let ops = ops.witnesses();
    let one = p.server_seconds.iter().map(|s| (target, s));
    let nodes = p.node_seconds.iter().map(|(a, s)| (a.as_str(), s));
    one.chain(nodes)
        .filter_map(|(target, series)| {
            Some(ServerUse {
                run_id: series.run_id.clone()?,
                target: target.to_string(),
                per_second: series
                    .per_second
                    .iter()
                    .map(|u| server_second(u, &ops))
                    .collect(),
            })
        })
        .collect()
}
