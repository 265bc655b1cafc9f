//! What each verdict reason says: the cause in the terms of what was
//! counted, and what to change.

use std::fmt;

use crate::engine::master::results::Phase;
use crate::report::verdict::Reason;

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Interrupted { phase, signal } => match signal {
                Some(signal) => write!(
                    f,
                    "interrupted by signal {signal} during {phase}: the runs planned were not all measured"
                ),
                None if *phase == Phase::Prefill => {
                    write!(f, "cut short during {phase} (a signal or --max-errors)")
                }
                None => write!(
                    f,
                    "stopped during {phase} (a signal, or more errors than --max-errors): its numbers cover part of the run"
                ),
            },
            Reason::ConnectionsLost {
                given_up,
                connections,
            } => write!(
                f,
                "{given_up} of {connections} connection(s) closed and were not reconnected by the end (--no-reconnect, or --max-reconnect-attempts spent): their share of the load was never offered"
            ),
            Reason::NodesDown { not_sent, due } => write!(
                f,
                "{not_sent} of {due} requests ({:.1} %) were never sent because their cluster node was down: the load asked for reached only the live masters; look for a failed master (CLUSTER NODES) and rerun once the cluster is whole",
                percent(*not_sent, *due)
            ),
            Reason::NeverSent { never_sent, due } => write!(
                f,
                "{never_sent} of {due} requests due ({:.1} %) were never sent, so the rate asked for was not offered (the rate_not_met warning names what held it back)",
                percent(*never_sent, *due)
            ),
            Reason::ErrorReplies {
                errors,
                replies,
                top,
                limit,
            } => {
                write!(
                    f,
                    "{errors} of {replies} replies ({:.1} %) were errors",
                    percent(*errors, *replies)
                )?;
                if let Some((kind, n)) = top {
                    write!(f, ", most of them {} ({n})", kind.as_str())?;
                }
                write!(
                    f,
                    ", above --max-error-share {}: the rate counts refusals, not work; fix the cause the warning names, or raise --max-error-share if errors are the point",
                    limit * 100.0
                )
            }
            Reason::RequestsLost {
                lost,
                sent,
                errors,
                limit,
            } => write!(
                f,
                "{lost} of {sent} requests sent ({:.1} %) were never answered ({}), above --max-error-share {}",
                percent(*lost, *sent),
                errors.summary(),
                limit * 100.0
            ),
            Reason::ProtocolErrors { count, first } => {
                write!(
                    f,
                    "{count} connection(s) received bytes that are not replies of the protocol"
                )?;
                if let Some(first) = first {
                    write!(f, " (first: {first})")?;
                }
                f.write_str(": the server is not speaking the protocol kvbench speaks (check -P/--protocol and --tls), or it is broken")
            }
            Reason::LoadGap {
                share,
                longest,
                cause,
                open_at_end,
            } => super::gap::describe(f, *share, longest.as_ref(), *cause, *open_at_end),
            Reason::NoProgress {
                workers,
                limit_secs,
                from_flag,
            } => {
                let source = if *from_flag {
                    "--request-timeout"
                } else {
                    "the default bound of request-bound runs; --request-timeout sets it"
                };
                write!(
                    f,
                    "no reply came for {limit_secs} s ({source}), so {workers} worker thread(s) stopped: the server took the requests and stopped answering"
                )
            }
            Reason::NothingMeasured { errors } => write!(
                f,
                "nothing was measured: not one request was answered (errors: {})",
                errors.summary()
            ),
            Reason::SweepCut {
                cell,
                done,
                planned,
                signal,
            } => {
                match signal {
                    Some(signal) => write!(f, "interrupted by signal {signal}")?,
                    None => f.write_str("stopped by --max-errors")?,
                }
                write!(
                    f,
                    " before cell {cell} measured anything: {done} of {planned} cells ran"
                )
            }
            Reason::LateStart { message } => f.write_str(message),
            Reason::Imprecise {
                target,
                reached_percent,
                max_s,
                runs,
            } => {
                let figure = target.label();
                let whose = match runs {
                    Some(_) => "the median run's",
                    None => "its",
                };
                match reached_percent {
                    Some(r) => write!(
                        f,
                        "imprecise: {whose} {figure} is known to ± {r:.1} % (95 % interval), wider than --target-precision {target}"
                    )?,
                    None => write!(
                        f,
                        "imprecise: {whose} {figure} has no interval (--target-precision {target}): the run was too short for ten batches whose values are not autocorrelated"
                    )?,
                }
                match (max_s, runs) {
                    (_, Some(n)) => write!(
                        f,
                        " after {n} runs, the most --max-run-count allows; raise --max-run-count, or find what makes the runs differ (docs/precision.md)"
                    ),
                    (Some(s), None) => write!(
                        f,
                        " after {s} s, the most --max-test-time allows; raise --max-test-time, or find what makes the server's figures vary (docs/precision.md)"
                    ),
                    (None, None) => f.write_str(
                        "; run longer (--test-time auto runs until it is met), or find what makes the server's figures vary (docs/precision.md)",
                    ),
                }
            }
            Reason::NotSteady {
                auto,
                secs,
                window_s,
                throughput_change_pct,
                p99_change_pct,
            } => {
                if *auto {
                    write!(f, "not steady: the warm-up reached --warmup-max ({secs} s)")?;
                } else {
                    write!(f, "not steady: at the end of the {secs} s warm-up")?;
                }
                let mut trends = Vec::new();
                if let Some(pct) = throughput_change_pct {
                    trends.push(format!("throughput changed {pct:.1} %"));
                }
                if let Some(pct) = p99_change_pct {
                    trends.push(format!("p99 changed {pct:.1} %"));
                }
                if trends.is_empty() {
                    trends.push("throughput or p99 still trended".to_string());
                }
                write!(
                    f,
                    " {} over its last {window_s} s, beyond the noise: the runs may measure a server still warming up; warm up longer (--warmup-time, or --warmup-time auto with a larger --warmup-max)",
                    trends.join(" and ")
                )
            }
        }
    }
}
