//! Which component limited a phase: every component whose use and capacity
//! are known becomes a [`Candidate`] (a shard's main thread against its one
//! core, a host's busy cores against its cores, an interface's bytes against
//! its speed, kvbench's CPU against its threads, the client machine's CPU),
//! and the one nearest its capacity is named when it reaches
//! [`LIMIT_PERCENT`]; below that the phase was bound by latency — the
//! connections × pipeline in flight, not any component's capacity.
//!
//! Capacity is always a known figure, never a guess: a component whose
//! capacity is unknown (a link without a speed) is no candidate, and what was
//! not watched at all is listed, so the verdict never speaks for it.
//! A run and `kvbench merge` judge through the same functions, over the
//! report model.

use crate::engine::master::server::PhaseEvidence;
use crate::report::json::round;
use crate::report::model::watched::{LIMIT_PERCENT, Limit, Watched};

/// One component's use against its capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// `shard 127.0.0.1:7001`.
    pub component: String,
    /// `main-thread CPU`.
    pub measure: String,
    /// Use, in `unit`s.
    pub used: f64,
    /// Capacity, in `unit`s.
    pub capacity: f64,
    /// Its unit.
    pub unit: Unit,
}

/// What a candidate is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// CPU cores.
    Cores,
    /// Bytes per second.
    BytesPerSec,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Cores => "cores",
            Unit::BytesPerSec => "bytes/s",
        }
    }
}

impl Candidate {
    fn utilization(&self) -> f64 {
        if self.capacity > 0.0 {
            self.used / self.capacity
        } else {
            0.0
        }
    }

    fn describe(&self) -> String {
        let (used, capacity) = match self.unit {
            Unit::Cores => (
                format!("{:.2}", self.used),
                format!("{} {}", trim(self.capacity), plural(self.capacity, "core")),
            ),
            Unit::BytesPerSec => (
                format!("{:.2}", self.used * 8.0 / 1e9),
                format!("{} Gbit/s", trim(self.capacity * 8.0 / 1e9)),
            ),
        };
        format!(
            "{}: {} at {used} of {capacity} ({:.0} %)",
            self.component,
            self.measure,
            100.0 * self.utilization()
        )
    }
}

fn trim(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn plural(n: f64, word: &str) -> String {
    if n == 1.0 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// The watched components' candidates.
pub fn watched(watched: &[Watched]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for w in watched {
        match w.role.as_str() {
            "shard" => {
                // A Redis shard runs its commands on one main thread, with
                // or without I/O threads: that core is what it saturates.
                // memcached spreads them over its worker threads.
                let (used, capacity, measure) = match (w.kind.as_str(), w.main_thread_cpu_percent) {
                    ("memcached", _) => (w.cpu_percent, w.threads.unwrap_or(1) as f64, "CPU"),
                    (_, Some(main)) => (Some(main), 1.0, "main-thread CPU"),
                    (_, None) => (w.cpu_percent, 1.0, "CPU"),
                };
                if let Some(used) = used {
                    out.push(Candidate {
                        component: format!("shard {}", w.address),
                        measure: measure.into(),
                        used: used / 100.0,
                        capacity: capacity.max(1.0),
                        unit: Unit::Cores,
                    });
                }
            }
            "host" => {
                if let (Some(busy), Some(cores)) = (w.busy_cores, w.cores) {
                    out.push(Candidate {
                        component: format!("host {}", w.address),
                        measure: "CPU".into(),
                        used: busy,
                        capacity: f64::from(cores),
                        unit: Unit::Cores,
                    });
                }
                for nic in w.interfaces.iter().flatten() {
                    if let Some(speed) = nic.speed_bytes_per_sec {
                        out.push(Candidate {
                            component: format!("host {}", w.address),
                            measure: format!("{} bandwidth", nic.device),
                            used: nic.rx_bytes_per_sec.max(nic.tx_bytes_per_sec),
                            capacity: speed,
                            unit: Unit::BytesPerSec,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A client machine's candidates: kvbench's CPU (`process_cpu_percent`,
/// of one core) against the cores its `threads` can use, and the
/// machine's CPU (`machine_cpu_percent`, of all its `cores`); `name` is
/// `client` for a run, the machine's name in a merge.
pub fn client(
    name: &str,
    process_cpu_percent: f64,
    machine_cpu_percent: f64,
    cores: u32,
    threads: usize,
) -> Vec<Candidate> {
    let cores = f64::from(cores.max(1));
    vec![
        Candidate {
            component: name.to_string(),
            measure: "kvbench CPU".into(),
            used: process_cpu_percent / 100.0,
            capacity: (threads.max(1) as f64).min(cores),
            unit: Unit::Cores,
        },
        Candidate {
            component: format!("{name} host"),
            measure: "CPU".into(),
            used: machine_cpu_percent / 100.0 * cores,
            capacity: cores,
            unit: Unit::Cores,
        },
    ]
}

/// The target's own candidate when it answered INFO (a server, not a
/// proxy): a Redis server's main thread against its one core, as a
/// shard's; `None` for memcached (its threads are its own) and a restart.
/// `seconds` is the phase's length.
pub fn target(address: &str, e: &PhaseEvidence, seconds: f64) -> Option<Candidate> {
    let (used, measure) = match e.main_thread_cpu_seconds() {
        Some(main) => (main, "main-thread CPU"),
        None if e.after.u64("threads").is_some() => return None,
        None => (e.cpu_seconds(), "CPU"),
    };
    (seconds > 0.0 && !e.restarted()).then(|| Candidate {
        component: format!("target {address}"),
        measure: measure.into(),
        used: used / seconds,
        capacity: 1.0,
        unit: Unit::Cores,
    })
}

/// The limit among `candidates`, naming what was not watched.
pub fn judge(candidates: &[Candidate], unwatched: Vec<String>) -> Limit {
    let top = candidates
        .iter()
        .max_by(|a, b| a.utilization().total_cmp(&b.utilization()));
    let Some(top) = top else {
        return Limit {
            component: None,
            measure: None,
            used: None,
            capacity: None,
            unit: None,
            utilization_percent: None,
            text: "not judged: no component's use and capacity are known".into(),
            unwatched,
        };
    };
    let percent = 100.0 * top.utilization();
    let named = percent >= LIMIT_PERCENT;
    let text = if named {
        top.describe()
    } else {
        format!(
            "no component above {LIMIT_PERCENT:.0} %: bound by latency (connections × pipeline); nearest {}",
            top.describe()
        )
    };
    Limit {
        component: named.then(|| top.component.clone()),
        measure: Some(top.measure.clone()),
        used: Some(round(top.used, 3)),
        capacity: Some(round(top.capacity, 3)),
        unit: Some(top.unit.name().to_string()),
        utilization_percent: Some(round(percent, 1)),
        text,
        unwatched,
    }
}

/// What the verdict cannot speak for: behind a target that gave no INFO
/// (a proxy), the shards and the proxy's host when not watched.
pub fn unwatched(target_answered: bool, watched: &[Watched]) -> Vec<String> {
    let mut out = Vec::new();
    if target_answered {
        return out;
    }
    if !watched.iter().any(|w| w.role == "shard") {
        out.push(
            "the servers behind the target, which gave no INFO (watch each with --watch redis://HOST:PORT)".into(),
        );
    }
    if !watched.iter().any(|w| w.role == "host") {
        out.push(
            "the target's host, a proxy's CPU and network (watch it with --watch node://HOST:9100)"
                .into(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cores(component: &str, used: f64, capacity: f64) -> Candidate {
        Candidate {
            component: component.into(),
            measure: "CPU".into(),
            used,
            capacity,
            unit: Unit::Cores,
        }
    }

    #[test]
    fn the_component_nearest_its_capacity_is_named_from_80_percent() {
        let l = judge(
            &[cores("host a", 3.9, 4.0), cores("shard b", 0.5, 1.0)],
            Vec::new(),
        );
        assert_eq!(l.component.as_deref(), Some("host a"));
        assert_eq!(l.utilization_percent, Some(97.5));
        assert_eq!(l.text, "host a: CPU at 3.90 of 4 cores (98 %)");
    }

    #[test]
    fn below_80_percent_the_phase_is_bound_by_latency() {
        let l = judge(&[cores("shard b", 0.79, 1.0)], Vec::new());
        assert_eq!(l.component, None);
        assert!(l.text.starts_with("no component above 80 %"), "{}", l.text);
        assert!(l.text.contains("shard b"), "{}", l.text);
    }

    #[test]
    fn a_link_is_judged_in_bits() {
        let c = Candidate {
            component: "host h".into(),
            measure: "eth0 bandwidth".into(),
            used: 9.4e9 / 8.0,
            capacity: 1.25e9,
            unit: Unit::BytesPerSec,
        };
        let l = judge(&[c], Vec::new());
        assert_eq!(l.text, "host h: eth0 bandwidth at 9.40 of 10 Gbit/s (94 %)");
    }

    #[test]
    fn nothing_known_is_not_judged() {
        let l = judge(&[], vec!["x".into()]);
        assert_eq!(l.component, None);
        assert!(l.text.starts_with("not judged"));
        assert_eq!(l.unwatched, ["x"]);
    }
}
