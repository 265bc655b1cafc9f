//! The per-node view of a routed run in the text report, read from the
//! document's `cluster` object of the last section (a run's, or
//! `kvbench.aggregate`'s): the `Shards` table, one row per node that
//! answered with its rates, share, latency and the server's own calls on
//! it, and the redirect totals. The rows are found by
//! [`crate::report::build::nodes`].
//!
//! A `--read-server` run has the same table of its two nodes (the write
//! server and the read endpoint). A single-server run has no nodes and none
//! of this is printed, so its report stays byte for byte what it was.

use std::fmt::Write;
use std::time::Duration;

use crate::report::model::cluster::{PhaseCluster, Redirects};

/// The latency percentiles of the shard rows. Fixed rather than
/// `--print-percentiles`, so that the table stays one line per node however
/// many percentiles the op tables print.
const SHARD_PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// `n` per second over `duration`; 0 over no time.
fn per_second(n: u64, duration: Duration) -> f64 {
    let secs = duration.as_secs_f64();
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}

/// The `Shards` table (so `title`d for a cluster) of `cluster`'s nodes over
/// `duration`, then the redirect totals when any is non-zero.
pub fn table(out: &mut String, title: &str, cluster: &PhaseCluster, duration: Duration) {
    let nodes = &cluster.nodes;
    if nodes.is_empty() {
        return;
    }
    let node_width = nodes
        .iter()
        .map(|n| n.address.len())
        .max()
        .unwrap_or(0)
        .max(4)
        + 2;
    let width = node_width + 8 + 6 + 14 + 9 + 13 * 4 + 16 * (1 + SHARD_PERCENTILES.len()) + 14;
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "{}", "=".repeat(width));
    let _ = write!(
        out,
        "{:<node_width$}{:<8}{:>6}{:>14}{:>9}{:>13}{:>13}{:>13}{:>13}{:>16}",
        "Node",
        "Role",
        "Slots",
        "Ops/sec",
        "Share",
        "Hits/sec",
        "Misses/sec",
        "MOVED/sec",
        "ASK/sec",
        "Avg. Latency"
    );
    for p in SHARD_PERCENTILES {
        let _ = write!(out, "{:>16}", format!("p{p} Latency"));
    }
    let _ = writeln!(out, "{:>14}", "Server calls");
    let _ = writeln!(out, "{}", "-".repeat(width));
    for n in nodes {
        let slots = n.slots.map_or("?".to_string(), |v| v.to_string());
        let l = &n.latency;
        let _ = write!(
            out,
            "{:<node_width$}{:<8}{:>6}{:>14.2}{:>7.2} %{:>13.2}{:>13.2}{:>13.2}{:>13.2}{:>16.5}",
            n.address,
            n.role.as_deref().unwrap_or("?"),
            slots,
            per_second(n.count, duration),
            100.0 * n.share,
            per_second(n.hits, duration),
            per_second(n.misses, duration),
            per_second(n.moved, duration),
            per_second(n.ask, duration),
            l.avg_ms
        );
        for ms in [l.p50_ms, l.p99_ms, l.p99_9_ms] {
            let _ = write!(out, "{ms:>16.5}");
        }
        let calls = n.server_calls.as_ref().map_or("---".to_string(), |c| {
            c.iter().map(|(_, n)| n).sum::<u64>().to_string()
        });
        let _ = writeln!(out, "{calls:>14}");
    }
    redirects_line(out, &cluster.redirects);
    out.push_str("\n\n");
}

/// What routing cost: redirects followed, retries, requests not sent to a
/// node that was down, and topology refreshes; nothing when all are zero.
fn redirects_line(out: &mut String, r: &Redirects) {
    let counts = [r.moved, r.ask, r.retries, r.node_down, r.refreshes];
    if counts.iter().all(|n| *n == 0) && r.asking_refused == 0 {
        return;
    }
    // Said only when it happened: a healthy cluster answers every ASKING.
    let refused = if r.asking_refused > 0 {
        format!(" ({} ASKING answered with an error)", r.asking_refused)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "Redirects: {} MOVED and {} ASK followed{refused}, {} retries after TRYAGAIN or CLUSTERDOWN, {} requests not sent (node down), {} topology refreshes",
        r.moved, r.ask, r.retries, r.node_down, r.refreshes
    );
}
