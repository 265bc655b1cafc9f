//! `--read-from nearest` (memtier 2.4's `--read-preference nearest`): how
//! fast each node answers, measured once before the run, and which node of
//! a shard that makes the nearest.
//!
//! memtier keeps a moving average of each endpoint's latency during the run
//! and steers reads by it; kvbench measures before the run instead, so that
//! the routing does not chase the load it creates itself (a node slowed by
//! the reads sent to it would lose them, then win them back) and the same
//! shard's reads stay on one node for the whole run, which the per-node
//! evidence can then be checked against.

use std::time::{Duration, Instant};

use crate::config::target::Target;
use crate::engine::cluster::discover::node_target;
use crate::engine::cluster::map::Node;
use crate::engine::master::server::Control;

/// PINGs timed per node; the fastest counts, since the slower ones measure
/// this machine's scheduling rather than the path to the node.
pub const PINGS_PER_NODE: usize = 5;

/// What a node that could not be measured counts as: slower than any other.
const UNMEASURED: Duration = Duration::MAX;

/// Each node's fastest PING round trip at the start, by `host:port`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeLatency {
    by_address: Vec<(String, Duration)>,
}

impl NodeLatency {
    /// Times [`PINGS_PER_NODE`] PINGs on a control connection to each node.
    /// A node that cannot be reached or does not answer counts as slowest:
    /// its benchmark connections report the fault when the run starts.
    pub fn measure(target: &Target, nodes: &[Node]) -> NodeLatency {
        let by_address = nodes
            .iter()
            .map(|node| (node.address(), fastest_ping(&node_target(target, node))))
            .collect();
        NodeLatency { by_address }
    }

    /// Round trips given, for tests and replays.
    pub fn from_pairs(by_address: Vec<(String, Duration)>) -> NodeLatency {
        NodeLatency { by_address }
    }

    /// The round trip of the node at `address`; unknown nodes are slowest.
    pub fn of(&self, address: &str) -> Duration {
        self.by_address
            .iter()
            .find(|(a, _)| a == address)
            .map_or(UNMEASURED, |(_, d)| *d)
    }

    /// Every node measured, with its round trip (`None`: no answer).
    pub fn measured(&self) -> impl Iterator<Item = (&str, Option<Duration>)> {
        self.by_address
            .iter()
            .map(|(a, d)| (a.as_str(), (*d != UNMEASURED).then_some(*d)))
    }
}

fn fastest_ping(target: &Target) -> Duration {
    let Ok(mut control) = Control::open(target) else {
        return UNMEASURED;
    };
    let mut best = UNMEASURED;
    for _ in 0..PINGS_PER_NODE {
        let sent = Instant::now();
        if control.command(&["PING"]).is_err() {
            break;
        }
        best = best.min(sent.elapsed());
    }
    best
}

/// The nearest of a shard's nodes: the lowest round trip, the master on a
/// tie (reads there need no `READONLY` and see every write at once).
pub fn pick(master: usize, replicas: &[usize], rtt: impl Fn(usize) -> Duration) -> usize {
    replicas
        .iter()
        .copied()
        .fold((master, rtt(master)), |(best, best_rtt), r| {
            let d = rtt(r);
            if d < best_rtt {
                (r, d)
            } else {
                (best, best_rtt)
            }
        })
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_fastest_node_of_a_shard_is_nearest_and_a_tie_keeps_the_master() {
        let rtt = [ms(3), ms(1), ms(2)];
        assert_eq!(pick(0, &[1, 2], |n| rtt[n]), 1);
        assert_eq!(pick(2, &[0], |n| rtt[n]), 2);
        let even = [ms(1), ms(1)];
        assert_eq!(pick(0, &[1], |n| even[n]), 0);
        assert_eq!(pick(0, &[], |n| rtt[n]), 0);
    }

    #[test]
    fn an_unmeasured_node_is_never_nearest_while_another_answered() {
        let latency =
            NodeLatency::from_pairs(vec![("a:1".into(), UNMEASURED), ("b:2".into(), ms(9))]);
        let address = ["a:1", "b:2", "c:3"];
        assert_eq!(pick(0, &[1], |n| latency.of(address[n])), 1);
        assert_eq!(latency.of("c:3"), UNMEASURED);
        let shown: Vec<_> = latency.measured().collect();
        assert_eq!(shown, [("a:1", None), ("b:2", Some(ms(9)))]);
    }
}
