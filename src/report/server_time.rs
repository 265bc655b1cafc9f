//! The text report's lines on the server's own time: each measured run's
//! per-op table of the server's p50/p99 (`LATENCY HISTOGRAM`) and
//! `usec_per_call` beside kvbench's, with the difference (queueing, network
//! and client); and the warm-up's steadiness (how long `auto` took, or that
//! it was still trending).

use std::fmt::Write;

use crate::engine::results::PhaseResult;
use crate::engine::warmup::WarmupEnd;
use crate::report::ReportInput;
use crate::report::build::server_latency;

/// The warm-up's steadiness line, when it had one.
pub(crate) fn warmup_line(out: &mut String, w: &PhaseResult) {
    let Some(s) = &w.steadiness else {
        return;
    };
    let secs = w.duration.as_secs_f64();
    let window = s.window_s;
    let _ = match (s.end, s.steady_after_s, s.steady) {
        (WarmupEnd::Steady, Some(after), _) => writeln!(
            out,
            "Warm-up steady: after {after} s (--warmup-time auto; ran {secs:.2} s): no trend beyond the noise over the last {window} s"
        ),
        (WarmupEnd::Steady, None, _) => writeln!(
            out,
            "Warm-up NOT steady: reached --warmup-max ({secs:.0} s) still trending over its last {window} s"
        ),
        (WarmupEnd::Fixed, _, true) => writeln!(
            out,
            "Warm-up steady: no trend beyond the noise over its last {window} s"
        ),
        (WarmupEnd::Fixed, _, false) if s.throughput.is_none() => writeln!(
            out,
            "Warm-up steadiness not judged: shorter than its {window} s window (--warmup-window)"
        ),
        (WarmupEnd::Fixed, _, false) => writeln!(
            out,
            "Warm-up NOT steady: still trending over its last {window} s (--warmup-time auto waits until it is not)"
        ),
    };
}

/// The server-side latency of every measured run; one line when the server
/// cannot say.
pub(crate) fn lines(out: &mut String, input: &ReportInput<'_>) {
    let ops = &input.config.ops;
    let mut header = false;
    for run in &input.results.runs {
        let Some(found) = server_latency::phase(ops, run) else {
            continue;
        };
        if let Some(why) = &found.unavailable {
            let _ = writeln!(out, "Server-side latency: not available: {}", why.message);
            return;
        }
        if !header {
            header = true;
            let _ = writeln!(
                out,
                "Server-side latency, usec (LATENCY HISTOGRAM; the server's are bucket upper bounds):"
            );
            let _ = writeln!(
                out,
                "{:<8} {:<8} {:>9} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8}",
                "Phase", "Op", "usec/call", "srv p50", "srv p99", "p50", "p99", "diff p50", "diff p99"
            );
        }
        let phase = run.phase.to_string();
        for (op, o) in found.ops.iter() {
            let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            let _ = writeln!(
                out,
                "{:<8} {:<8} {:>9} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8}",
                phase,
                op,
                or_dash(o.usec_per_call.map(|u| format!("{u:.2}"))),
                or_dash(o.server_p50_us.map(|u| u.to_string())),
                or_dash(o.server_p99_us.map(|u| u.to_string())),
                o.kvbench_p50_us,
                o.kvbench_p99_us,
                or_dash(o.outside_server_p50_us.map(|u| u.to_string())),
                or_dash(o.outside_server_p99_us.map(|u| u.to_string())),
            );
        }
    }
}
