//! The parts of the `kvbench` object that come from outside kvbench's own
//! counters: what the server is and its account of each phase (INFO around
//! it, the difference, the slow log), where the threads ran, which shard of
//! a multi-machine run this is and its clock, and in `--cluster-mode` each
//! node's share of the phase.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::config::Config;
use crate::engine::master::placement;
use crate::engine::master::results::{self, Phase, PhaseResult, Results};
use crate::engine::master::run::clock::CLOCK_SAMPLES;
use crate::engine::master::server::PhaseEvidence;
use crate::engine::master::server::info::Software;
use crate::engine::stats::{Stats, percentile_us};
use crate::report::build::nodes::{self, Shard};
use crate::report::json::{compressed, ms};
use crate::report::model::cluster::{NodeLatency, NodeSummary, PerSecond, PhaseCluster, Redirects};
use crate::report::model::histogram::CompressedHistogram;
use crate::report::model::named::Named;
use crate::report::model::server::{
    CommandDelta, Delta, MemcachedContext, NodeRoles, Placement, ServerContext, ServerEvidence,
    SlowlogEntry,
};
use crate::report::model::shard::{ShardBarrier, ShardClock, ShardInfo, ShardLate};
use crate::workload::ops::OpTable;

/// The INFO sections kept in the JSON.
const SECTIONS: [&str; 7] = [
    "Server",
    "Memory",
    "Persistence",
    "Stats",
    "CPU",
    "Keyspace",
    "Commandstats",
];

/// `kvbench.server`: what the server is.
pub fn context(ctx: &results::ServerContext) -> ServerContext {
    let i = &ctx.info;
    let memcached = (i.software == Software::Memcached).then(|| MemcachedContext {
        limit_maxbytes: i.u64("limit_maxbytes"),
        threads: i.u64("threads"),
    });
    ServerContext {
        // memcached's `stats` names its version `version`.
        version: i
            .get("redis_version")
            .or_else(|| i.get("version"))
            .map(String::from),
        mode: i.get("redis_mode").map(String::from),
        os: i.get("os").map(String::from),
        maxmemory: i.u64("maxmemory"),
        maxmemory_policy: i.get("maxmemory_policy").map(String::from),
        appendonly: i.u64("aof_enabled").map(|v| v == 1),
        appendfsync: ctx.appendfsync.clone(),
        save: ctx.save.clone(),
        io_threads_active: i.u64("io_threads_active"),
        memcached,
    }
}

/// `runs[i].server`: INFO before and after, the deltas and the slow log,
/// and in `--cluster-mode` the nodes summed; `None` without the server's
/// evidence.
pub fn phase(p: &PhaseResult, ops: &OpTable, db: u32) -> Option<ServerEvidence> {
    let e = p.server.as_ref()?;
    let replies = p
        .ops(ops)
        .witnesses()
        .into_iter()
        .map(|w| {
            let n = p.stats.witnessed(&w);
            (w.command, n)
        })
        .collect();
    let nodes = p.nodes.iter().map(|n| NodeRoles {
        address: n.address.clone(),
        role_before: n.role_before.as_str().into(),
        role_after: n.role_after.as_str().into(),
    });
    Some(ServerEvidence {
        nodes: nodes.collect(),
        ..server_evidence(e, replies, db, p.stats.replies())
    })
}

/// The `server` object of INFO around a phase: `replies` is kvbench's count
/// of each witnessed command (lower case), `all_replies` every reply.
/// `kvbench merge` builds a set's object with it too.
pub fn server_evidence(
    e: &PhaseEvidence,
    replies: Vec<(String, u64)>,
    db: u32,
    all_replies: u64,
) -> ServerEvidence {
    let object = |v: serde_json::Value| match v {
        serde_json::Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    let commands = replies.into_iter().map(|(command, kvbench_replies)| {
        let counts = CommandDelta {
            calls: e.calls(&command),
            rejected_calls: e.rejected_calls(&command),
            failed_calls: e.failed_calls(&command),
            kvbench_replies,
        };
        (command, counts)
    });
    let delta = Delta {
        server_restarted: e.restarted(),
        set_calls: Some(e.calls("set")),
        get_calls: Some(e.calls("get")),
        set_rejected_calls: Some(e.rejected_calls("set")),
        get_rejected_calls: Some(e.rejected_calls("get")),
        set_failed_calls: Some(e.failed_calls("set")),
        get_failed_calls: Some(e.failed_calls("get")),
        commands: Some(Named(commands.collect())),
        total_commands_processed: e.delta("total_commands_processed"),
        keyspace_hits: e.delta("keyspace_hits"),
        keyspace_misses: e.delta("keyspace_misses"),
        total_forks: e.delta("total_forks"),
        cpu_s: e.cpu_seconds(),
        net_input_bytes: e
            .after
            .get("total_net_input_bytes")
            .map(|_| e.delta("total_net_input_bytes")),
        net_output_bytes: e
            .after
            .get("total_net_output_bytes")
            .map(|_| e.delta("total_net_output_bytes")),
        keys_before: e.before.keys(db),
        keys_after: e.after.keys(db),
        used_memory_before: e.before.u64("used_memory"),
        used_memory_after: e.after.u64("used_memory"),
    };
    let slowlog = e.slowlog.as_ref().map(|entries| {
        let entry = |s: &crate::engine::master::server::SlowlogEntry| SlowlogEntry {
            id: s.id,
            timestamp: s.timestamp,
            duration_us: s.duration_us,
            command: s.command.clone(),
        };
        entries.iter().map(entry).collect()
    });
    ServerEvidence {
        info_before: object(e.before.sections_json(&SECTIONS)),
        info_after: object(e.after.sections_json(&SECTIONS)),
        delta,
        cpu_s_per_1000_requests: e.cpu_per_1000(all_replies),
        slowlog,
        nodes: Vec::new(),
    }
}

/// `kvbench.placement`: where the worker threads run, and why.
pub fn placement(p: &placement::Placement) -> Placement {
    let cpus = |v: &[usize]| v.iter().map(|&c| c as u32).collect();
    Placement {
        thread_cpus: p.threads.iter().map(|t| t.map(|c| c as u32)).collect(),
        available_cpus: cpus(&p.available),
        server_local: p.local_server,
        server_pid: p.server.as_ref().map(|s| s.pid),
        server_cpus: p.server.as_ref().map(|s| cpus(&s.cpus)),
        server_threads: p.server.as_ref().map(|s| s.threads as u32),
        reason: p.reason,
        summary: p.to_string(),
    }
}

/// `kvbench.shard`: `None` on one machine without `--start-at`.
pub fn shard(c: &Config, r: &Results) -> Option<ShardInfo> {
    if c.shard.is_none() && c.start_at.is_none() {
        return None;
    }
    let timing = r.timing.as_ref();
    let clock = timing
        .filter(|t| t.clock_start.is_some() || t.clock_end.is_some())
        .map(|t| ShardClock {
            offset_start_ms: t.clock_start.map(|s| s.offset_ms),
            offset_end_ms: t.clock_end.map(|s| s.offset_ms),
            rtt_ms: t.clock_start.or(t.clock_end).map(|s| s.rtt_ms),
            samples: Some(u64::from(CLOCK_SAMPLES)),
        });
    Some(ShardInfo {
        index: c.shard.map_or(0, |s| s.index),
        count: c.shard_count(),
        source: c.shard.map(|s| s.source),
        host: Some(c.host.clone()),
        start_at_ms: timing
            .and_then(|t| t.start_at)
            .or_else(|| c.start_at.as_ref().and_then(|s| s.given()))
            .map(crate::report::json::millis),
        start_lag_ms: timing.and_then(|t| t.first_lag_ms()),
        late: timing.and_then(|t| t.late).map(|l| ShardLate {
            phase: l.phase.to_string(),
            lag_ms: l.lag_ms,
        }),
        clock,
        barrier: timing
            .and_then(|t| t.barrier.as_ref())
            .map(|b| ShardBarrier {
                run_id: b.run_id.clone(),
                arrival: b.arrival,
                waited_ms: b.waited.as_secs_f64() * 1e3,
            }),
    })
}

/// The phase's actual start minus its planned one, ms; `None` unless aligned.
pub fn phase_lag(r: &Results, phase: Phase) -> Option<f64> {
    r.timing.as_ref()?.lag_ms(phase)
}

/// The phase's `cluster` object; `None` without `--cluster-mode` or
/// `--read-server` (whose two nodes, the write server as `master` and the
/// read endpoint as `replica`, it lists the same way).
pub fn cluster(c: &Config, results: &Results, p: &PhaseResult) -> Option<PhaseCluster> {
    let ops = p.ops(&c.ops);
    let mut one = nodes(c, results, &p.stats, &ops, &[p], p.duration)?;
    one.per_second = PerSecond {
        moved: p.series.iter().map(|s| s.moved).collect(),
        ask: p.series.iter().map(|s| s.ask).collect(),
        retries: p.series.iter().map(|s| s.retries).collect(),
    };
    Some(one)
}

/// The `cluster` object of `stats` over `duration`, the server's calls
/// summed over `phases`, with no seconds: a phase's, or the aggregate's
/// (`kvbench.aggregate`); `None` unrouted.
pub fn nodes(
    c: &Config,
    results: &Results,
    stats: &Stats,
    ops: &OpTable,
    phases: &[&PhaseResult],
    duration: Duration,
) -> Option<PhaseCluster> {
    let options = c.routing()?;
    let rows = nodes::shards(results, stats, ops, phases);
    Some(PhaseCluster {
        max_redirects: options.max_redirects,
        read_from: options.read_from.as_str().into(),
        nodes: rows.iter().map(|s| node(s, duration)).collect(),
        redirects: redirects(stats),
        per_second: PerSecond {
            moved: Vec::new(),
            ask: Vec::new(),
            retries: Vec::new(),
        },
    })
}

/// One node: exact counts, its rate and share, latency from its histogram
/// (and the histogram itself, for `kvbench merge`), and the server's calls
/// on it when its evidence exists.
fn node(s: &Shard<'_>, duration: Duration) -> NodeSummary {
    let n = s.stats;
    let row = NodeSummary {
        address: n.address.to_string(),
        role: s.role.map(|r| r.as_str().into()),
        slots: s.slots.map(|n| n as u64),
        count: n.count,
        hits: n.hits,
        misses: n.misses,
        errors: n.errors,
        moved: n.moved,
        ask: n.ask,
        replica_reads: n.replica_reads,
        server_calls: s.server_calls.clone().map(Named),
        ..NodeSummary::default()
    };
    let sums = NodeSums {
        over_s: duration.as_secs_f64(),
        share: s.share,
        latency_sum_us: n.latency_sum_us as f64,
        histogram: &n.latency_us,
    };
    node_row(row, &sums)
}

/// What a node's figures are made of, beside its counts: a run's node
/// counters, or `kvbench merge`'s sums over the machines.
pub struct NodeSums<'a> {
    /// The time its rate is over, s.
    pub over_s: f64,
    /// Its replies over every node's, 0 to 1.
    pub share: f64,
    /// The sum of its latencies, µs.
    pub latency_sum_us: f64,
    /// Its latencies, µs.
    pub histogram: &'a Histogram<u64>,
}

/// `row` (its identity and counts) with its rate, share and latency from
/// `sums`: one node's row, of a run or of a merge.
pub fn node_row(row: NodeSummary, sums: &NodeSums<'_>) -> NodeSummary {
    let h = sums.histogram;
    let mean_us = if row.count == 0 {
        0.0
    } else {
        sums.latency_sum_us / row.count as f64
    };
    let rate = if sums.over_s > 0.0 {
        row.count as f64 / sums.over_s
    } else {
        0.0
    };
    NodeSummary {
        ops_per_sec: rate,
        share: sums.share,
        latency: NodeLatency {
            avg_ms: mean_us / 1000.0,
            p50_ms: ms(percentile_us(h, 50.0) as f64),
            p99_ms: ms(percentile_us(h, 99.0) as f64),
            p99_9_ms: ms(percentile_us(h, 99.9) as f64),
        },
        latency_histogram: Some(CompressedHistogram(compressed(h))),
        ..row
    }
}

/// What routing cost over the phase.
fn redirects(stats: &Stats) -> Redirects {
    let totals = stats.totals();
    let e = &stats.errors;
    Redirects {
        moved: totals.moved,
        ask: totals.ask,
        retries: e.retries,
        node_down: e.node_down,
        refreshes: e.refreshes,
        asking_refused: stats.nodes.iter().map(|n| n.asking_refused).sum(),
    }
}
