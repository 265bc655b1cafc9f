//! The server's evidence in the text report, read from the document: what
//! the server is (`kvbench.server`), and for each phase (its `server`) the
//! server's own counts (the calls of every command sent, keys) next to
//! kvbench's, its CPU use, forks and, with `--slowlog`, its slow log.

use std::fmt::Write;

use crate::report::model::kvbench::PhaseSummary;
use crate::report::model::server::{Delta, NodeRoles, ServerContext};
use crate::workload::ops::OpTable;

/// One line saying what the server is.
pub fn context_line(out: &mut String, ctx: &ServerContext) {
    let version = ctx.version.as_deref().unwrap_or("?");
    let known = |v: Option<u64>| v.map_or("?".to_string(), |v| v.to_string());
    if let Some(m) = &ctx.memcached {
        let _ = writeln!(
            out,
            "Server: memcached {version}, limit_maxbytes {}, threads {}",
            known(m.limit_maxbytes),
            known(m.threads),
        );
        return;
    }
    let _ = writeln!(
        out,
        "Server: Redis {version} ({}), maxmemory {}, appendonly {}, appendfsync {}, save \"{}\"",
        ctx.mode.as_deref().unwrap_or("?"),
        ctx.maxmemory.map_or("?".to_string(), |m| if m == 0 {
            "unlimited".into()
        } else {
            format!("{m} bytes")
        }),
        ctx.appendonly
            .map_or("?", |on| if on { "yes" } else { "no" }),
        ctx.appendfsync.as_deref().unwrap_or("?"),
        ctx.save.as_deref().unwrap_or("?"),
    );
}

/// The server's calls of `command`, those refused before they ran, and
/// kvbench's replies, from `delta`: its `commands`, else (a SET or GET the
/// phase did not send) its SET and GET fields with no replies.
fn counts(d: &Delta, command: &str) -> (u64, u64, u64) {
    if let Some(c) = d.commands.as_ref().and_then(|c| c.get(command)) {
        return (c.calls, c.rejected_calls, c.kvbench_replies);
    }
    let (calls, rejected) = match command {
        "set" => (d.set_calls, d.set_rejected_calls),
        "get" => (d.get_calls, d.get_rejected_calls),
        _ => (None, None),
    };
    (calls.unwrap_or(0), rejected.unwrap_or(0), 0)
}

/// Whose counts a phase's evidence line gives: in `--cluster-mode` the sum
/// over the nodes, said so.
fn whose(nodes: &[NodeRoles]) -> String {
    let replicas = nodes.iter().filter(|n| !n.counted()).count();
    match (nodes.len(), replicas) {
        (0, _) => String::new(),
        (1, _) => " (1 node)".to_string(),
        (n, 0) => format!(" (the sum of {n} nodes)"),
        (n, r) => format!(
            " (the sum of {n} nodes; of the {r} replicas only their reads and refused calls)"
        ),
    }
}

/// Why the summed write counts of a phase cannot be compared with kvbench's,
/// if they cannot: a node changed role during it, so the sum holds writes
/// it copied as a replica as well as those it served as a master. Reads
/// still compare (replicas serve none without `READONLY`).
fn writes_uncomparable(nodes: &[NodeRoles]) -> Option<String> {
    let changed: Vec<String> = nodes
        .iter()
        .filter(|n| n.role_before != n.role_after)
        .map(|n| format!("{} {} -> {}", n.address, n.role_before, n.role_after))
        .collect();
    (!changed.is_empty()).then(|| {
        format!(
            "a node changed role during the phase ({}): write counts cannot be cross-checked, reads still can",
            changed.join(", ")
        )
    })
}

/// One line per phase: the server's counts beside kvbench's, and its CPU;
/// `ops` is the run's op table.
pub fn phase_line(out: &mut String, p: &PhaseSummary, ops: &OpTable) {
    let Some(e) = &p.server else {
        // A server that never answers INFO (some proxies) gives no line; a
        // failed control connection is said, so the gap is not silent.
        if let Some(reason) = &p.server_evidence_lost {
            let _ = writeln!(out, "Server {}: no evidence: {reason}", p.phase);
        }
        return;
    };
    let prefill = p.phase == "PREFILL";
    let ops = ops.of_phase(prefill);
    let mut witnesses: Vec<(String, String)> = ops
        .witnesses()
        .into_iter()
        .map(|w| (w.name, w.command))
        .collect();
    if ops.default_pair || prefill {
        // The SET/GET line keeps both commands, sent or not, as it always has.
        for (name, command) in [("SET", "set"), ("GET", "get")] {
            if !witnesses.iter().any(|(_, c)| c == command) {
                witnesses.push((name.into(), command.into()));
            }
        }
    }
    let d = &e.delta;
    let counts: Vec<String> = witnesses
        .iter()
        .map(|(name, command)| {
            let (calls, rejected, kvbench) = counts(d, command);
            let calls = match rejected {
                0 => calls.to_string(),
                // Redis 7 counts a call refused before it ran (`-OOM`) only
                // as rejected.
                rejected => format!("{calls} + {rejected} rejected"),
            };
            format!("{name} calls {calls} (kvbench {kvbench})")
        })
        .collect();
    let _ = write!(
        out,
        "Server {}{}: {}, keys {} -> {}, CPU {:.3} s",
        p.phase,
        whose(&e.nodes),
        counts.join(", "),
        d.keys_before,
        d.keys_after,
        d.cpu_s,
    );
    if let Some(per) = e.cpu_s_per_1000_requests {
        let _ = write!(out, " ({:.3} ms per 1000 requests)", per * 1000.0);
    }
    if d.total_forks > 0 {
        let _ = write!(out, ", {} fork(s) for background saves", d.total_forks);
    }
    if d.server_restarted {
        let _ = write!(
            out,
            " (the server restarted during the phase: its counts cover the new process only)"
        );
    }
    if let Some(why) = writes_uncomparable(&e.nodes) {
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

#[cfg(test)]
mod tests {
    use super::{NodeRoles, writes_uncomparable};

    fn node(address: &str, before: &str, after: &str) -> NodeRoles {
        NodeRoles {
            address: address.into(),
            role_before: before.into(),
            role_after: after.into(),
        }
    }

    #[test]
    fn only_a_role_change_makes_writes_uncomparable_and_it_names_the_nodes() {
        let steady = [
            node("a:1", "master", "master"),
            node("b:1", "replica", "replica"),
        ];
        assert_eq!(writes_uncomparable(&steady), None);
        assert_eq!(writes_uncomparable(&[]), None);
        let failover = [
            node("a:1", "master", "replica"),
            node("b:1", "replica", "master"),
            node("c:1", "master", "master"),
        ];
        let why = writes_uncomparable(&failover).unwrap();
        assert!(
            why.contains("a:1 master -> replica, b:1 replica -> master"),
            "{why}"
        );
        assert!(!why.contains("c:1"), "{why}");
        assert!(why.contains("reads still can"), "{why}");
    }
}
