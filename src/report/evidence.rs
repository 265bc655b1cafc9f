//! The server's evidence in the text report: what the server is, and for
//! each phase its own counts (the calls of every command sent, keys, hits and
//! misses), its CPU use, forks and, with `--slowlog`, its slow log, next to
//! kvbench's numbers; and what the JSON's builder
//! ([`crate::report::build::evidence`]) shares with it.

use std::fmt::Write;

use crate::engine::master::results::cluster::writes_uncomparable;
use crate::engine::master::results::{PhaseResult, ServerContext};
use crate::engine::master::server::PhaseEvidence;
use crate::engine::master::server::info::Software;
use crate::engine::stats::Stats;
use crate::workload::ops::{OpTable, Witness};

/// The INFO sections kept in the JSON.
pub const SECTIONS: [&str; 7] = [
    "Server",
    "Memory",
    "Persistence",
    "Stats",
    "CPU",
    "Keyspace",
    "Commandstats",
];

/// Server CPU seconds per 1 000 replies, when both are known.
pub fn cpu_per_1000(evidence: &PhaseEvidence, replies: u64) -> Option<f64> {
    (replies > 0).then(|| evidence.cpu_seconds() * 1000.0 / replies as f64)
}

/// kvbench's replies counted under one witness, the error replies it
/// answered with a retry (`--retry-on-error`) included: each was a call the
/// server counted.
pub fn client_count(stats: &Stats, w: &Witness) -> u64 {
    w.rows
        .iter()
        .filter_map(|&r| stats.op(r))
        .map(|o| o.count + o.retries)
        .sum()
}

/// One line saying what the server is.
pub fn context_line(out: &mut String, ctx: &ServerContext) {
    let i = &ctx.info;
    if i.software == Software::Memcached {
        let _ = writeln!(
            out,
            "Server: memcached {}, limit_maxbytes {}, threads {}",
            i.get("version").unwrap_or("?"),
            i.get("limit_maxbytes").unwrap_or("?"),
            i.get("threads").unwrap_or("?"),
        );
        return;
    }
    let _ = writeln!(
        out,
        "Server: Redis {} ({}), maxmemory {}, appendonly {}, appendfsync {}, save \"{}\"",
        i.get("redis_version").unwrap_or("?"),
        i.get("redis_mode").unwrap_or("?"),
        i.u64("maxmemory").map_or("?".to_string(), |m| if m == 0 {
            "unlimited".into()
        } else {
            format!("{m} bytes")
        }),
        i.get("aof_enabled")
            .map_or("?", |v| if v == "1" { "yes" } else { "no" }),
        ctx.appendfsync.as_deref().unwrap_or("?"),
        ctx.save.as_deref().unwrap_or("?"),
    );
}

/// A command's calls, with the rejected ones beside them when there were any:
/// Redis 7 counts a call refused before it ran (`-OOM`) only as rejected.
fn calls_text(e: &PhaseEvidence, command: &str) -> String {
    match e.rejected_calls(command) {
        0 => e.calls(command).to_string(),
        rejected => format!("{} + {rejected} rejected", e.calls(command)),
    }
}

/// Whose counts a phase's evidence line gives: in `--cluster-mode` the sum
/// over the nodes (see [`crate::engine::master::server::cluster::sum_evidence`]), said so.
fn whose(p: &PhaseResult) -> String {
    let replicas = p
        .nodes
        .iter()
        .filter(|n| !crate::engine::master::server::cluster::counted(n))
        .count();
    match (p.nodes.len(), replicas) {
        (0, _) => String::new(),
        (1, _) => " (1 node)".to_string(),
        (n, 0) => format!(" (the sum of {n} nodes)"),
        (n, r) => format!(
            " (the sum of {n} nodes; of the {r} replicas only their reads and refused calls)"
        ),
    }
}

/// One line per phase: the server's counts beside kvbench's, and its CPU.
pub fn phase_line(out: &mut String, p: &PhaseResult, ops: &OpTable, db: u32) {
    let Some(e) = &p.server else {
        // A server that never answers INFO (some proxies) gives no line; a
        // failed control connection is said, so the gap is not silent.
        if let Some(reason) = &p.evidence_lost {
            let _ = writeln!(out, "Server {}: no evidence: {reason}", p.phase);
        }
        return;
    };
    let replies = p.stats.replies();
    let ops = p.ops(ops);
    let mut witnesses = ops.witnesses();
    if ops.default_pair || matches!(p.phase, crate::engine::master::results::Phase::Prefill) {
        // The SET/GET line keeps both commands, sent or not, as it always has.
        for (name, command) in [("SET", "set"), ("GET", "get")] {
            if !witnesses.iter().any(|w| w.command == command) {
                witnesses.push(Witness {
                    name: name.into(),
                    command: command.into(),
                    rows: Vec::new(),
                });
            }
        }
    }
    let counts: Vec<String> = witnesses
        .iter()
        .map(|w| {
            format!(
                "{} calls {} (kvbench {})",
                w.name,
                calls_text(e, &w.command),
                client_count(&p.stats, w)
            )
        })
        .collect();
    let _ = write!(
        out,
        "Server {}{}: {}, keys {} -> {}, CPU {:.3} s",
        p.phase,
        whose(p),
        counts.join(", "),
        e.before.keys(db),
        e.after.keys(db),
        e.cpu_seconds(),
    );
    if let Some(per) = cpu_per_1000(e, replies) {
        let _ = write!(out, " ({:.3} ms per 1000 requests)", per * 1000.0);
    }
    let forks = e.delta("total_forks");
    if forks > 0 {
        let _ = write!(out, ", {forks} fork(s) for background saves");
    }
    if e.restarted() {
        let _ = write!(
            out,
            " (the server restarted during the phase: its counts cover the new process only)"
        );
    }
    if let Some(why) = writes_uncomparable(&p.nodes) {
        let _ = write!(out, " ({why})");
    }
    out.push('\n');
    if let Some(entries) = &e.slowlog {
        let _ = writeln!(out, "Slowlog {}: {} entries", p.phase, entries.len());
        let mut slowest: Vec<_> = entries.iter().collect();
        slowest.sort_by_key(|s| std::cmp::Reverse(s.duration_us));
        for s in slowest.iter().take(5) {
            let _ = writeln!(out, "  {} us  {}", s.duration_us, s.command.join(" "));
        }
    }
}
