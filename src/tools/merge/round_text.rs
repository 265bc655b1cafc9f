//! The per-round tables `kvbench merge` prints for the whitepaper's
//! method: each standalone target's machines and server, and each round's
//! client machines (their rate, hit rate, CPU and network, and their sum,
//! each host's interface counted once) beside the servers they drove.

use crate::report::model::shard::{Round, RoundClient};
use crate::report::table::Table;
use crate::tools::merge::text::table;

/// A set whose shards drove several standalone servers: each round per
/// target, its machines, their rate and the server's CPU; `None` for one.
pub(super) fn target_table(rounds: &[Round]) -> Option<Table> {
    let targets = crate::tools::merge::rounds::targets(rounds);
    if targets.len() < 2 {
        return None;
    }
    let titles = ["Run", "Target", "Machines", "Ops/sec", "Server CPU"]
        .map(String::from)
        .to_vec();
    let mut rows = Vec::new();
    for r in rounds {
        for t in &targets {
            let machines: Vec<_> = r.clients.iter().filter(|c| c.target == *t).collect();
            let server = r.servers.iter().find(|s| s.target == *t);
            rows.push(vec![
                r.phase.clone(),
                t.to_string(),
                machines.len().to_string(),
                format!("{:.2}", machines.iter().map(|c| c.ops_per_sec).sum::<f64>()),
                server.map_or("-".into(), |s| format!("{:.1} %", s.cpu_percent)),
            ]);
        }
    }
    Some(table(titles, rows))
}

/// Each round's client machines and servers: CPU and network, the columns
/// the method watches; `None` when no file recorded them. Process CPU is
/// kvbench's (a client row) or the server's (a server row), percent of one
/// core; Host CPU the client machine's, percent of all its cores; MB are
/// 10^6 bytes, as the interface counters count them.
pub(super) fn resource_table(rounds: &[Round]) -> Option<Table> {
    let titles = [
        "Run",
        "Machine",
        "Ops/sec",
        "Hit rate",
        "p99 ms",
        "Process CPU",
        "Host CPU",
        "Net in MB/s",
        "Net out MB/s",
    ]
    .map(String::from)
    .to_vec();
    let percent = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} %"));
    let mb = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.2}", v / 1e6));
    let mut rows = Vec::new();
    for r in rounds {
        for c in r.clients.iter().filter(|c| c.process_cpu_percent.is_some()) {
            let name = match (c.index, &c.host) {
                (Some(i), Some(h)) => format!("{i} {h}"),
                (None, Some(h)) => h.clone(),
                _ => c.file.clone(),
            };
            rows.push(vec![
                r.phase.clone(),
                name,
                format!("{:.2}", c.ops_per_sec),
                c.hit_rate_percent
                    .map_or("-".into(), |h| format!("{h:.2} %")),
                c.p99_ms.map_or("-".into(), |p| format!("{p:.3}")),
                percent(c.process_cpu_percent),
                percent(c.machine_cpu_percent),
                mb(c.net_rx_bytes_per_sec),
                mb(c.net_tx_bytes_per_sec),
            ]);
        }
        if r.clients.len() > 1 {
            rows.push(vec![
                r.phase.clone(),
                format!("sum of {} machines", r.clients.len()),
                format!(
                    "{:.2}",
                    r.clients.iter().map(|c| c.ops_per_sec).sum::<f64>()
                ),
                r.hit_rate_percent
                    .map_or("-".into(), |h| format!("{h:.2} %")),
                r.p99_ms.map_or("-".into(), |p| format!("{p:.3}")),
                "-".into(),
                "-".into(),
                mb(once_per_host(&r.clients, |c| c.net_rx_bytes_per_sec)),
                mb(once_per_host(&r.clients, |c| c.net_tx_bytes_per_sec)),
            ]);
        }
        for s in &r.servers {
            // By the address the machines gave; the process's id too when
            // that address had two (a restart between machines' readings).
            let shared = r.servers.iter().filter(|o| o.target == s.target).count() > 1;
            let name = match shared {
                true => format!(
                    "server {} ({})",
                    s.target,
                    &s.run_id[..s.run_id.len().min(8)]
                ),
                false => format!("server {}", s.target),
            };
            rows.push(vec![
                r.phase.clone(),
                name,
                "-".into(),
                "-".into(),
                "-".into(),
                percent(Some(s.cpu_percent)),
                "-".into(),
                mb(s.net_input_bytes_per_sec),
                mb(s.net_output_bytes_per_sec),
            ]);
        }
    }
    (!rows.is_empty()).then_some(table(titles, rows))
}

/// The sum over machines of an interface's bytes per second, each host
/// once: machines sharing a host (Slurm's `--overcommit`, several pods on a
/// node) each read the whole interface, so adding them would count its
/// bytes once per machine; a machine without a host name counts alone.
fn once_per_host(
    clients: &[RoundClient],
    value: impl Fn(&RoundClient) -> Option<f64>,
) -> Option<f64> {
    let mut hosts: Vec<(Option<&str>, Option<f64>)> = Vec::new();
    for c in clients {
        let v = value(c);
        match hosts
            .iter_mut()
            .find(|(h, _)| h.is_some() && *h == c.host.as_deref())
        {
            Some((_, seen)) => {
                *seen = match (*seen, v) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                }
            }
            None => hosts.push((c.host.as_deref(), v)),
        }
    }
    sum(hosts.into_iter().map(|(_, v)| v))
}

/// The sum of the known values; `None` when none is known.
fn sum(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    values
        .flatten()
        .fold(None, |acc, v| Some(acc.unwrap_or(0.0) + v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(host: Option<&str>, rx: f64) -> RoundClient {
        RoundClient {
            target: "t".into(),
            ops_per_sec: 0.0,
            hit_rate_percent: None,
            index: None,
            host: host.map(String::from),
            file: "f".into(),
            process_cpu_percent: None,
            machine_cpu_percent: None,
            net_rx_bytes_per_sec: Some(rx),
            net_tx_bytes_per_sec: None,
            cores: None,
            p99_ms: None,
        }
    }

    #[test]
    fn machines_sharing_a_host_count_its_interface_once() {
        let clients = [
            machine(Some("a"), 100.0),
            machine(Some("a"), 110.0),
            machine(Some("b"), 50.0),
            machine(None, 7.0),
            machine(None, 3.0),
        ];
        let rx = once_per_host(&clients, |c| c.net_rx_bytes_per_sec);
        assert_eq!(rx, Some(110.0 + 50.0 + 7.0 + 3.0));
        assert_eq!(once_per_host(&clients, |c| c.net_tx_bytes_per_sec), None);
    }
}
