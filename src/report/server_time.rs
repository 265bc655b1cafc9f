//! The text report's lines on the server's own time: each measured run's
//! per-op table of the server's p50/p99 (`LATENCY HISTOGRAM`) and
//! `usec_per_call` beside kvbench's, with the difference (queueing, network
//! and client); and the warm-up's steadiness (how long `auto` took, or that
//! it was still trending).

use std::fmt::Write;

use crate::report::model::kvbench::{Kvbench, PhaseSummary};
use crate::report::model::warmup::WarmupMode;

/// The warm-up's steadiness line, when it had one.
pub(crate) fn warmup_line(out: &mut String, w: &PhaseSummary) {
    let Some(s) = &w.steadiness else {
        return;
    };
    let secs = w.duration.as_secs_f64();
    let window = s.window_s;
    let _ = match (s.mode, s.steady_after_s, s.steady) {
        (WarmupMode::Auto, Some(after), _) => writeln!(
            out,
            "Warm-up steady: after {after} s (--warmup-time auto; ran {secs:.2} s): no trend beyond the noise over the last {window} s"
        ),
        (WarmupMode::Auto, None, _) => writeln!(
            out,
            "Warm-up NOT steady: reached --warmup-max ({secs:.0} s) still trending over its last {window} s"
        ),
        (WarmupMode::Fixed, _, true) => writeln!(
            out,
            "Warm-up steady: no trend beyond the noise over its last {window} s"
        ),
        (WarmupMode::Fixed, _, false) if s.throughput.is_none() => writeln!(
            out,
            "Warm-up steadiness not judged: shorter than its {window} s window (--warmup-window)"
        ),
        (WarmupMode::Fixed, _, false) => writeln!(
            out,
            "Warm-up NOT steady: still trending over its last {window} s (--warmup-time auto waits until it is not)"
        ),
    };
}

/// The server-side latency of every measured run; one line when the server
/// cannot say.
pub(crate) fn lines(out: &mut String, k: &Kvbench) {
    let mut header = false;
    for run in &k.runs {
        let Some(found) = &run.server_latency else {
            continue;
        };
        if let Some(why) = &found.unavailable {
            let _ = writeln!(out, "Server-side latency: not available: {}", why.message);
            return;
        }
        if !header {
            header = true;
            // Two lines of title, so that the table fits 80 columns.
            let _ = writeln!(
                out,
                "Server-side latency, usec: the server's from LATENCY HISTOGRAM (its bucket,\n  low-high), kvbench's (kvb), and kvb minus the server's low edge (out:\n  queueing, network and client)"
            );
            let _ = writeln!(
                out,
                "{:<7} {:<6} {:>9} {:>11} {:>11} {:>7} {:>7} {:>7} {:>7}",
                "Phase",
                "Op",
                "usec/call",
                "server p50",
                "server p99",
                "kvb p50",
                "kvb p99",
                "out p50",
                "out p99"
            );
        }
        let phase = &run.phase;
        for (op, o) in found.ops.iter() {
            let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            let bucket = |low: Option<u64>, high: Option<u64>| Some(format!("{}-{}", low?, high?));
            let _ = writeln!(
                out,
                "{:<7} {:<6} {:>9} {:>11} {:>11} {:>7} {:>7} {:>7} {:>7}",
                phase,
                op,
                or_dash(o.usec_per_call.map(|u| format!("{u:.2}"))),
                or_dash(bucket(o.server_p50_us, o.server_p50_max_us)),
                or_dash(bucket(o.server_p99_us, o.server_p99_max_us)),
                o.kvbench_p50_us,
                o.kvbench_p99_us,
                or_dash(o.outside_server_p50_us.map(|u| u.to_string())),
                or_dash(o.outside_server_p99_us.map(|u| u.to_string())),
            );
        }
    }
}
