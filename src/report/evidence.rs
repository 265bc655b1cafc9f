//! The server's evidence in the reports: what the server is, and for each phase
//! its own counts (SET and GET calls, keys, hits and misses), its CPU use, forks
//! and, with `--slowlog`, its slow log, next to kvbench's numbers.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::results::{PhaseResult, ServerContext};
use crate::server::PhaseEvidence;

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

/// `kvbench.server`: what the server is.
pub fn context_json(ctx: &ServerContext) -> Value {
    let i = &ctx.info;
    json!({
        "version": i.get("redis_version"),
        "mode": i.get("redis_mode"),
        "os": i.get("os"),
        "maxmemory": i.u64("maxmemory"),
        "maxmemory_policy": i.get("maxmemory_policy"),
        "appendonly": i.u64("aof_enabled").map(|v| v == 1),
        "appendfsync": ctx.appendfsync,
        "save": ctx.save,
        "io_threads_active": i.u64("io_threads_active"),
    })
}

/// `runs[i].server`: INFO before and after, the deltas and the slow log.
pub fn phase_json(p: &PhaseResult, db: u32) -> Value {
    let Some(e) = &p.server else {
        return Value::Null;
    };
    let replies = p.stats.set.count + p.stats.get.count;
    json!({
        "info_before": e.before.sections_json(&SECTIONS),
        "info_after": e.after.sections_json(&SECTIONS),
        "delta": {
            "server_restarted": e.restarted(),
            "set_calls": e.calls("set"),
            "get_calls": e.calls("get"),
            "set_rejected_calls": e.rejected_calls("set"),
            "get_rejected_calls": e.rejected_calls("get"),
            "set_failed_calls": e.failed_calls("set"),
            "get_failed_calls": e.failed_calls("get"),
            "total_commands_processed": e.delta("total_commands_processed"),
            "keyspace_hits": e.delta("keyspace_hits"),
            "keyspace_misses": e.delta("keyspace_misses"),
            "total_forks": e.delta("total_forks"),
            "cpu_s": (e.cpu_seconds() * 1e6).round() / 1e6,
            "keys_before": e.before.keys(db),
            "keys_after": e.after.keys(db),
            "used_memory_before": e.before.u64("used_memory"),
            "used_memory_after": e.after.u64("used_memory"),
        },
        "cpu_s_per_1000_requests": cpu_per_1000(e, replies).map(|v| (v * 1e6).round() / 1e6),
        "slowlog": e.slowlog.as_ref().map(|entries| entries.iter().map(|s| json!({
            "id": s.id, "timestamp": s.timestamp, "duration_us": s.duration_us, "command": s.command,
        })).collect::<Vec<_>>()),
    })
}

/// One line saying what the server is.
pub fn context_line(out: &mut String, ctx: &ServerContext) {
    let i = &ctx.info;
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

/// One line per phase: the server's counts beside kvbench's, and its CPU.
pub fn phase_line(out: &mut String, p: &PhaseResult, db: u32) {
    let Some(e) = &p.server else {
        // A server that never answers INFO (some proxies) gives no line; a
        // failed control connection is said, so the gap is not silent.
        if let Some(reason) = &p.evidence_lost {
            let _ = writeln!(out, "Server {}: no evidence: {reason}", p.phase);
        }
        return;
    };
    let replies = p.stats.set.count + p.stats.get.count;
    let _ = write!(
        out,
        "Server {}: SET calls {} (kvbench {}), GET calls {} (kvbench {}), keys {} -> {}, CPU {:.3} s",
        p.phase,
        calls_text(e, "set"),
        p.stats.set.count,
        calls_text(e, "get"),
        p.stats.get.count,
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
