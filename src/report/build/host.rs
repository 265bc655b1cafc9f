//! `runs[i].client` from the phase's readings of this machine
//! ([`crate::engine::host`]).

use crate::engine::host::HostUse;
use crate::engine::results::PhaseResult;
use crate::report::json::round;
use crate::report::model::host::{ClientSecond, ClientUse};

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
