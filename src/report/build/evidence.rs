//! The parts of the `kvbench` object that come from outside kvbench's own
//! counters: what the server is and its account of each phase (INFO around
//! it, the difference, the slow log), where the threads ran, which shard of
//! a multi-machine run this is and its clock. A routed phase's nodes are
//! [`crate::report::build::nodes`].

use crate::config::Config;
use crate::engine::master::placement;
use crate::engine::master::results::{self, Phase, PhaseResult, Results};
use crate::engine::master::run::clock::CLOCK_SAMPLES;
use crate::engine::master::server::PhaseEvidence;
use crate::engine::master::server::info::Software;
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
