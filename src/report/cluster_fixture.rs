//! Synthetic `--cluster-mode` results for the report and warning tests:
//! three masters with chosen reply counts and latencies, the INFO of two of
//! them, and redirects in the op rows, so that every column has a known value.

use std::time::{Duration, SystemTime};

use clap::Parser;

use crate::cli::Cli;
use crate::config::{ClusterOptions, Config};
use crate::engine::master::results::{
    ClusterContext, ClusterNode, NodeEvidence, NodeRole, Phase, PhaseResult, Results,
};
use crate::engine::master::server::PhaseEvidence;
use crate::engine::master::server::info::Info;
use crate::engine::stats::series::{OpSecond, Second};
use crate::engine::stats::{NodeStats, Stats};

/// The nodes, out of address order on purpose (the reports sort them).
pub const NODES: [&str; 3] = ["127.0.0.1:7002", "127.0.0.1:7000", "127.0.0.1:7001"];
/// Each node's latency, µs: node `i` answers in `(i + 1)` ms.
pub const LATENCY_US: [u64; 3] = [3000, 1000, 2000];
/// The run's length.
pub const SECS: u64 = 10;
/// `-MOVED` followed by the SET row, `-ASK` by the GET row.
pub const MOVED: u64 = 30;
/// See [`MOVED`].
pub const ASK: u64 = 10;

/// A validated configuration from `args` (after `kvbench`), in cluster mode.
pub fn cluster_config(args: &[&str]) -> Config {
    let mut c = standalone_config(args);
    c.cluster = Some(ClusterOptions::default());
    c
}

/// The same without `--cluster-mode`.
pub fn standalone_config(args: &[&str]) -> Config {
    let mut full = vec!["kvbench"];
    full.extend(args);
    Config::from_args(Cli::try_parse_from(full).unwrap().run).unwrap()
}

fn info(sets: u64, gets: u64) -> Info {
    let text = format!(
        "# Server\r\nrun_id:abc\r\n# Commandstats\r\ncmdstat_set:calls={sets},usec=1\r\ncmdstat_get:calls={gets},usec=1\r\n"
    );
    Info::parse(&text, SystemTime::UNIX_EPOCH)
}

/// One 10-second run in which `NODES[i]` answered `counts[i]` replies, half
/// SETs and half GETs (half of those hits); the first two nodes' INFO says
/// they ran as many calls; `slots[i]` at discovery.
pub fn cluster_results(counts: [u64; 3], slots: [usize; 3]) -> Results {
    let mut stats = Stats::new(2).unwrap();
    let mut evidence = Vec::new();
    for (i, &count) in counts.iter().enumerate() {
        let mut node = NodeStats::new(NODES[i].to_string()).unwrap();
        let (sets, gets) = (count / 2, count - count / 2);
        for _ in 0..count {
            node.record(LATENCY_US[i]);
        }
        for _ in 0..sets {
            stats.ops[0].record(LATENCY_US[i]);
        }
        for _ in 0..gets {
            stats.ops[1].record(LATENCY_US[i]);
        }
        node.hits = gets / 2;
        node.misses = gets - gets / 2;
        stats.ops[1].hits += node.hits;
        stats.ops[1].misses += node.misses;
        stats.nodes.push(node);
        if i < 2 {
            evidence.push(NodeEvidence {
                address: NODES[i].to_string(),
                role_before: NodeRole::Master,
                role_after: NodeRole::Master,
                evidence: PhaseEvidence {
                    before: info(0, 0),
                    after: info(sets, gets),
                    slowlog: None,
                },
            });
        }
    }
    stats.ops[0].moved = MOVED;
    stats.ops[1].ask = ASK;
    stats.nodes[1].moved = MOVED;
    stats.nodes[2].ask = ASK;
    stats.errors.retries = 5;
    stats.errors.refreshes = 2;
    let second = |n: u64, moved: u64| Second {
        second: n,
        ops: stats
            .ops
            .iter()
            .map(|o| OpSecond::from_stats(o, &[50.0]))
            .collect(),
        totals: OpSecond::from_stats(&stats.totals(), &[50.0]),
        backlog: 0,
        moved,
        ask: 0,
        retries: 0,
    };
    let series = vec![second(0, MOVED - 5), second(1, 5)];
    let run = PhaseResult {
        phase: Phase::Run(1),
        started_wall: SystemTime::UNIX_EPOCH,
        duration: Duration::from_secs(SECS),
        drain: Duration::ZERO,
        connections_down: 0,
        connections_given_up: 0,
        stalled_workers: 0,
        load_gaps: Default::default(),
        stats,
        series,
        thread_cpu: vec![Duration::from_secs(1)],
        unsent: 0,
        server: None,
        interrupted: false,
        evidence_lost: None,
        nodes: evidence,
        host: None,
        server_seconds: None,
        node_seconds: Vec::new(),
        steadiness: None,
        precision: None,
        batches: None,
        server_latency: None,
        watched: Vec::new(),
    };
    let nodes = NODES
        .iter()
        .zip(slots)
        .map(|(a, slots)| ClusterNode {
            address: a.to_string(),
            role: NodeRole::Master,
            slots,
            master: None,
        })
        .collect();
    Results {
        runs: vec![run],
        planned_runs: 1,
        cluster: Some(ClusterContext {
            nodes,
            options: ClusterOptions::default(),
        }),
        ..Results::default()
    }
}

/// An even split of the 16 384 slots over the three nodes.
pub const EVEN_SLOTS: [usize; 3] = [5461, 5462, 5461];
