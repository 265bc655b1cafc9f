//! The open-loop (`--rate`) parts of the reports: what the latency means, the
//! service-time table beside the response-time tables, and each run's schedule
//! (target and achieved rate, schedule lag, backlog, requests never sent and
//! how long they waited, which memtier's fields leave out: they hold replies).

use std::fmt::Write;

use crate::config::{Config, Headline};
use crate::report::model::aggregate::LastSection;
use crate::report::model::kvbench::{LatencyBlock, PhaseSummary};
use crate::report::model::section::TOTALS_ROW;
use crate::report::{key_label, percentile_label};

/// One sentence saying what the headline latency measures in this run.
pub fn latency_meaning(config: &Config) -> String {
    match config.rate {
        Some(rate) if config.headline == Headline::ServiceTime => format!(
            "service time, from handing a request to the socket to reading its whole reply, as memtier measures --rate-limiting (requests paced at {:.2} per second per connection); response time from each request's intended send time is shown apart",
            rate.total_per_sec / config.connections() as f64
        ),
        Some(rate) => format!(
            "response time, from each request's intended send time on the --rate {} schedule ({} arrivals, open loop) to reading its whole reply; service time (from the actual send) is shown apart",
            rate.total_per_sec,
            rate.arrival.name()
        ),
        None => "service time, from handing a request to the socket to reading its whole reply (closed loop: a stalled server also stops the sending, so stalls are under-counted)".to_string(),
    }
}

/// The table of the measure that is not the headline (service time with
/// `--rate`, response time with `--rate-limiting`) of the last section, in
/// the layout of the main tables; `last` is that section's facts.
pub fn service_table(out: &mut String, config: &Config, last: &LastSection<'_>) {
    let percentiles = &config.output.percentiles;
    let response = config.headline == Headline::ServiceTime;
    let blocks: Vec<Option<&LatencyBlock>> = if response {
        let Some(r) = last.response_time else { return };
        r.iter().map(|(_, b)| Some(b)).collect()
    } else {
        let Some(s) = last.service_time else { return };
        s.iter().map(|(_, b)| b.as_ref()).collect()
    };
    let title = if response {
        "Response time (reply − intended send)"
    } else {
        "Service time (reply − actual send)"
    };
    let _ = writeln!(out, "{title}, {}", last.title);
    let _ = write!(out, "{:<6}{:>14}{:>16}", "Type", "Count", "Avg. Latency");
    for p in percentiles {
        let _ = write!(out, " {:>15}", format!("p{} Latency", percentile_label(*p)));
    }
    let _ = writeln!(out, "{:>16}", "Max Latency");
    let names = config.ops.rows.iter().map(|r| r.memtier.as_str());
    for (name, block) in names.chain([TOTALS_ROW]).zip(blocks) {
        let Some(b) = block else { continue };
        let _ = write!(
            out,
            "{:<6}{:>14}{:>16.5}",
            name, b.count, b.average_latency_ms
        );
        for (_, ms) in b.percentiles_ms.iter() {
            let _ = write!(out, "{ms:>16.5}");
        }
        let _ = writeln!(out, "{:>16.5}", b.max_latency_ms);
    }
    out.push('\n');
}

/// One line per run: target and achieved rate, schedule lag, backlog; from
/// the run's `open_loop`, nothing in a closed loop.
pub fn schedule_line(out: &mut String, run: &PhaseSummary) {
    let Some(o) = &run.open_loop else { return };
    let (target, achieved) = (o.target_ops_per_sec, run.ops_per_sec);
    let _ = write!(
        out,
        "Schedule {}: target {target:.2} ops/sec, achieved {achieved:.2} ops/sec ({:.2} %); lag (actual − intended send)",
        run.phase,
        100.0 * achieved / target
    );
    if let Some(lag) = &o.schedule_lag {
        for (key, ms) in lag.percentiles_ms.iter() {
            let _ = write!(out, " {} {ms:.3}", key_label(key));
        }
        let _ = write!(out, " max {:.3} ms", lag.max_latency_ms);
    }
    let backlog = o.backlog_per_second.last().copied().unwrap_or(0);
    let _ = write!(
        out,
        "; backlog at end {backlog}; never sent {}",
        o.never_sent
    );
    let waits = o.never_sent_wait.get(TOTALS_ROW).and_then(Option::as_ref);
    if let Some(waits) = waits.filter(|b| b.count > 0) {
        let _ = write!(
            out,
            " (waited until the deadline: mean {:.3}, max {:.3} ms; not in the tables)",
            waits.average_latency_ms, waits.max_latency_ms
        );
    }
    let _ = writeln!(
        out,
        "; busiest thread {:.0} % CPU",
        o.busiest_thread_cpu_percent
    );
}
