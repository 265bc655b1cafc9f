//! The verdict: whether a result is a measurement of the workload asked for.
//!
//! Warnings are things to know; the verdict is the decision. A result is not
//! valid when its numbers do not describe the workload that was asked for:
//! part of the load was never offered (connections lost, nodes down, an
//! interrupt, a missed start, requests never sent), the replies were mostly
//! refusals (error replies above `--max-error-share`), the server's bytes were
//! not replies (protocol errors), or nothing was measured at all. The exit
//! code follows the verdict (3 when not valid, unless `--allow-invalid`).
//!
//! Each reason carries its numbers, and its `Display` names the cause in the
//! terms of what was counted and what to change, the way [`crate::report::warnings`]
//! do; [`Reason::kind`] is the stable name the JSON carries.

mod display;
mod exit;
mod gap;
mod judge;

use judge::{imprecise, imprecise_median, judge, not_steady};

pub use exit::MAX_ERRORS_EXIT_CODE;

use crate::config::Config;
use crate::config::precision::Target;
use crate::engine::master::results::{Phase, Results, Section};
use crate::engine::stats::errors::{ErrorCounts, ProtocolFault};
use crate::engine::stats::gaps::{GapCause, GapSpan};
use crate::protocol::resp::ServerErrorKind;

/// Requests due but never sent (open loop) or not sent because their cluster
/// node was down, as a share of the requests due, above which the result does
/// not describe the load asked for.
pub const MAX_NEVER_SENT_SHARE: f64 = 0.01;

/// Closed loop: the spans with no reply on any connection, as a share of the
/// run time, above which the result does not describe the load asked for.
pub const MAX_LOAD_GAP_SHARE: f64 = 0.10;

/// Whether a closed loop's spans with no reply make it a `load_gap`: more
/// than [`MAX_LOAD_GAP_SHARE`] of the run, or a span (of `spans`) still
/// open when sending stopped. A run and a stored file are judged alike.
pub fn is_load_gap(silent_share: f64, open_at_end: bool, spans: usize) -> bool {
    silent_share > MAX_LOAD_GAP_SHARE || (open_at_end && spans > 0)
}

/// The exit code of a benchmark that ran but whose verdict is not valid.
pub const INVALID_EXIT_CODE: u8 = 3;

/// Why a result is not a measurement of the workload asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// A signal or `--max-errors` cut the benchmark short.
    Interrupted {
        /// The phase that was cut.
        phase: Phase,
        /// The signal, or `None` for the `--max-errors` stop.
        signal: Option<i32>,
    },
    /// Connections closed for good: their share of the load was never offered.
    ConnectionsLost {
        /// Connections given up when sending stopped.
        given_up: usize,
        /// Connections of the run.
        connections: usize,
    },
    /// `--cluster-mode`: requests not sent because their node was down.
    NodesDown {
        /// Requests not sent.
        not_sent: u64,
        /// Requests due (sent or not).
        due: u64,
    },
    /// Open loop: requests due before the deadline that were never sent.
    NeverSent {
        /// Requests never sent.
        never_sent: u64,
        /// Requests due.
        due: u64,
    },
    /// Too many replies were errors: the rate counts refusals.
    ErrorReplies {
        /// Error replies.
        errors: u64,
        /// All replies.
        replies: u64,
        /// The most frequent kind, and how many.
        top: Option<(ServerErrorKind, u64)>,
        /// `--max-error-share`, a fraction.
        limit: f64,
    },
    /// Requests sent and never answered: lost with their connection, or
    /// timed out.
    RequestsLost {
        /// Requests lost in flight.
        lost: u64,
        /// Requests sent.
        sent: u64,
        /// The failures that lost them.
        errors: ErrorCounts,
        /// `--max-error-share`, a fraction.
        limit: f64,
    },
    /// The server sent bytes that are not replies.
    ProtocolErrors {
        /// Connections closed for it.
        count: u64,
        /// The first fault's cause.
        first: Option<ProtocolFault>,
    },
    /// No reply came for the stall limit: the phase stopped early.
    NoProgress {
        /// Worker threads that stopped.
        workers: usize,
        /// The limit, seconds.
        limit_secs: f64,
        /// `--request-timeout` set it (else the default of request-bound runs).
        from_flag: bool,
    },
    /// Not one request was answered.
    NothingMeasured {
        /// The failures counted instead.
        errors: ErrorCounts,
    },
    /// A signal or `--max-errors` stopped a sweep before a cell measured
    /// anything: the cells after it never ran.
    SweepCut {
        /// The cell that was to run, `pipeline=4`.
        cell: String,
        /// Cells measured.
        done: usize,
        /// Cells planned.
        planned: usize,
        /// The signal, or `None` for the `--max-errors` stop.
        signal: Option<i32>,
    },
    /// A sharded or `--start-at` run reached its planned start too late.
    LateStart {
        /// What was late, by how much.
        message: String,
    },
    /// Closed loop: load was due and nothing came back for more than
    /// [`MAX_LOAD_GAP_SHARE`] of the run, or still at the end: the rate
    /// averages work done in part of the run over all of it.
    LoadGap {
        /// The spans with no reply at all, as a share of the run time.
        share: f64,
        /// The longest span with no reply at all, if there was one.
        longest: Option<GapSpan>,
        /// What the connections were doing for most of the gaps.
        cause: Option<GapCause>,
        /// The load was still not applied when sending stopped.
        open_at_end: bool,
    },
    /// The warm-up's throughput or p99 was still trending at its end, so
    /// the runs after it may measure a server still filling its caches.
    NotSteady {
        /// `auto` that reached `--warmup-max`, or a fixed `--warmup-time`.
        auto: bool,
        /// The warm-up's length, seconds.
        secs: u64,
        /// The window judged, seconds.
        window_s: u64,
        /// Throughput's change over the window, % of its mean, when it trended.
        throughput_change_pct: Option<f64>,
        /// p99's, when it trended.
        p99_change_pct: Option<f64>,
    },
    /// A figure `--target-precision` names is not known that well: its
    /// 95 % interval is wider than the bound, or the run was too short for
    /// one.
    Imprecise {
        /// The figure and its bound.
        target: Target,
        /// The interval's half-width reached, % of the figure; `None` when
        /// the run had none.
        reached_percent: Option<f64>,
        /// `--test-time auto`: the run's length, s, when it reached
        /// `--max-test-time`.
        max_s: Option<u64>,
        /// `-x auto`: the interval is the median run's over this many runs,
        /// the most `--max-run-count` allows; `None` for one run's.
        runs: Option<u32>,
    },
}

impl Reason {
    /// A short stable name for the JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Reason::Interrupted { .. } | Reason::SweepCut { .. } => "interrupted",
            Reason::ConnectionsLost { .. } => "connections_lost",
            Reason::NodesDown { .. } => "nodes_down",
            Reason::NeverSent { .. } => "never_sent",
            Reason::ErrorReplies { .. } => "error_replies",
            Reason::RequestsLost { .. } => "requests_lost",
            Reason::ProtocolErrors { .. } => "protocol_errors",
            Reason::NoProgress { .. } => "no_progress",
            Reason::NothingMeasured { .. } => "nothing_measured",
            Reason::LateStart { .. } => "late_start",
            Reason::NotSteady { .. } => "not_steady",
            Reason::LoadGap { .. } => "load_gap",
            Reason::Imprecise { .. } => "imprecise",
        }
    }
}

/// One reason, and the part of the result it was found in (`RUN #2`,
/// `PREFILL`; `None` for the whole result).
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Where: a phase's name.
    pub phase: Option<String>,
    /// Why.
    pub reason: Reason,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.phase {
            Some(phase) => write!(f, "{phase}: {}", self.reason),
            None => write!(f, "{}", self.reason),
        }
    }
}

/// Whether a result (a run, an aggregate, a whole file) can be trusted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Why not; empty when the result is valid.
    pub findings: Vec<Finding>,
}

impl Verdict {
    /// True when nothing makes the result invalid.
    pub fn valid(&self) -> bool {
        self.findings.is_empty()
    }

    /// The verdict of a section of the report: the runs it merges, judged
    /// together.
    pub fn of_section(config: &Config, section: &Section<'_>) -> Verdict {
        Verdict {
            findings: judge(config, &section.runs)
                .into_iter()
                .map(|reason| Finding {
                    phase: None,
                    reason,
                })
                .collect(),
        }
    }

    /// The verdict of a whole benchmark: each measured run and the prefill
    /// judged on its own (a run that is not valid makes the file not valid,
    /// whatever the others did), then what concerns the whole: an interrupt,
    /// a late start, a benchmark that ended before any run.
    pub fn of_results(config: &Config, results: &Results) -> Verdict {
        let mut findings = Vec::new();
        let phases = results.prefill.iter().chain(&results.runs);
        for phase in phases {
            for reason in judge(config, &[phase]) {
                // An interrupt is said once, for the whole result, below.
                if !matches!(reason, Reason::Interrupted { .. }) {
                    findings.push(Finding {
                        phase: Some(phase.phase.to_string()),
                        reason,
                    });
                }
            }
        }
        let each = config.precision.judges_each_run();
        for run in results.runs.iter().filter(|r| each && !r.interrupted) {
            for reason in imprecise(config, run) {
                findings.push(Finding {
                    phase: Some(run.phase.to_string()),
                    reason,
                });
            }
        }
        if config.precision.runs_auto && results.runs_met_after.is_none() {
            for reason in imprecise_median(config, results) {
                findings.push(Finding {
                    phase: None,
                    reason,
                });
            }
        }
        if let Some((phase, signal)) = results.interrupted {
            findings.push(Finding {
                phase: None,
                reason: Reason::Interrupted {
                    phase,
                    signal: (signal != 0).then_some(signal),
                },
            });
        }
        if let Some(reason) = results.warmup.as_ref().and_then(not_steady) {
            findings.push(Finding {
                phase: Some(Phase::Warmup.to_string()),
                reason,
            });
        }
        if let Some(message) = results.timing.as_ref().and_then(|t| t.late_message()) {
            findings.push(Finding {
                phase: None,
                reason: Reason::LateStart { message },
            });
        }
        if results.runs.is_empty() && results.interrupted.is_none() {
            // Ended before its first run (a prefill that stalled, say): the
            // prefill's findings say why, and nothing was measured.
            findings.push(Finding {
                phase: None,
                reason: Reason::NothingMeasured {
                    errors: results
                        .prefill
                        .as_ref()
                        .map(|p| p.stats.errors)
                        .unwrap_or_default(),
                },
            });
        }
        Verdict { findings }
    }

    /// The verdict of several results judged as one (a sweep's cells, a
    /// suite's tests): every finding of each, prefixed with its label.
    pub fn of_parts<'a>(parts: impl IntoIterator<Item = (String, &'a Verdict)>) -> Verdict {
        let mut findings = Vec::new();
        for (label, verdict) in parts {
            for f in &verdict.findings {
                findings.push(Finding {
                    phase: Some(match &f.phase {
                        Some(phase) => format!("{label} {phase}"),
                        None => label.clone(),
                    }),
                    reason: f.reason.clone(),
                });
            }
        }
        Verdict { findings }
    }

    /// Each finding as a line: `RUN #1: 970 of 1000 replies …`.
    pub fn lines(&self) -> Vec<String> {
        self.findings.iter().map(Finding::to_string).collect()
    }

    /// The lines that open the text report of a result that is not valid;
    /// empty when it is valid, so a clean run's report is memtier's layout.
    pub fn text(&self, allow_invalid: bool) -> String {
        invalid_text(&self.lines(), self.exit_code(allow_invalid))
    }
}

/// The opening of a text report whose result is not valid, one `  - ` line
/// per reason (`reasons`, as [`Verdict::lines`] gives them), naming the exit
/// `code` ([`Verdict::exit_code`]); empty when there is none. Shared by every
/// report that carries a verdict (a run, a sweep, a merged set).
pub fn invalid_text(reasons: &[String], code: u8) -> String {
    if reasons.is_empty() {
        return String::new();
    }
    let code = exit::code_text(code);
    let mut out =
        format!("INVALID RESULT: these numbers do not measure the workload asked for ({code})\n");
    for reason in reasons {
        out.push_str("  - ");
        out.push_str(reason);
        out.push('\n');
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
