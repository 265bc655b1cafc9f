//! Load gaps: the time during which the plan asked for load and none was
//! applied — no reply while requests were outstanding, or connections down
//! while they had requests to send. A worker measures its own
//! ([`WorkerGaps`], by `engine::worker`'s gap meter); the master joins the
//! workers' into the phase's ([`LoadGaps`]).
//!
//! Two measures, because they answer two questions:
//! - the **connection time** in gaps (each connection's silences of at least
//!   [`GAP_MIN`], summed): how much of the load asked for was not applied,
//!   as a share of connections × run time;
//! - the **spans** during which no connection of the whole phase got a reply
//!   while some had load due (each at least [`GAP_MIN`]): when the load
//!   stopped, for how long, and why.

use std::time::{Duration, Instant};

/// The shortest silence that is a gap: below it a slow reply is latency.
pub const GAP_MIN: Duration = Duration::from_secs(1);

/// What the connections were doing during a gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum GapCause {
    /// Connections open, requests outstanding, no reply: the server froze
    /// (SIGSTOP, a swap storm, a long command) or the link went silent.
    Stalled,
    /// Connections closed or reconnecting: the server was gone or refused.
    ServerDown,
    /// Reconnects failed for lack of file descriptors on this machine
    /// (EMFILE, ENFILE): the fault is the client's.
    DescriptorsExhausted,
}

impl GapCause {
    /// A stable name for the JSON.
    pub fn kind(self) -> &'static str {
        match self {
            GapCause::Stalled => "stalled",
            GapCause::ServerDown => "server_down",
            GapCause::DescriptorsExhausted => "descriptors_exhausted",
        }
    }

    /// In words, for warnings and the verdict.
    pub fn describe(self) -> &'static str {
        match self {
            GapCause::Stalled => {
                "connections open and requests outstanding, no reply: the server stalled or the link went silent"
            }
            GapCause::ServerDown => {
                "connections closed or reconnecting: the server was down or refused them"
            }
            GapCause::DescriptorsExhausted => {
                "reconnects failed for lack of file descriptors on this machine (raise `ulimit -n`)"
            }
        }
    }
}

/// A span on one machine's clock during which no reply came while load was due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSpan {
    /// The last reply before it (or when load became due).
    pub start: Instant,
    /// The first reply after it, or when sending stopped.
    pub end: Instant,
    /// What the connections were doing.
    pub cause: GapCause,
}

/// One worker's gaps over a phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorkerGaps {
    /// Each connection's gaps, summed, seconds.
    pub connection_secs: f64,
    /// How many connection gaps there were.
    pub connection_gaps: u64,
    /// The longest of them.
    pub longest_connection_gap: Duration,
    /// The spans during which none of this worker's connections got a reply
    /// while some had load due.
    pub spans: Vec<ClockSpan>,
    /// A span was still open when sending stopped: load was due and unanswered
    /// at the end.
    pub open_at_end: bool,
    /// The worker's connections (one per client and node in a cluster).
    pub connections: usize,
}

/// A span of a phase, relative to its start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapSpan {
    /// Seconds from the phase's start.
    pub start_s: f64,
    /// Seconds.
    pub length_s: f64,
    /// What the connections were doing.
    pub cause: GapCause,
}

/// Spans of `lengths_s` seconds with no reply at all, summed, as a share of
/// `run_time_s` (0 to 1; 0 for a run of no time): a run's, or a stored
/// file's when `report` and `merge` judge it again.
pub fn silent_share(lengths_s: impl IntoIterator<Item = f64>, run_time_s: f64) -> f64 {
    let silent: f64 = lengths_s.into_iter().sum();
    if run_time_s > 0.0 {
        (silent / run_time_s).min(1.0)
    } else {
        0.0
    }
}

/// A phase's gaps, every worker joined.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadGaps {
    /// Each connection's gaps, summed over every connection, seconds.
    pub connection_secs: f64,
    /// How many connection gaps there were.
    pub connection_gaps: u64,
    /// The longest of them, seconds.
    pub longest_connection_gap_s: f64,
    /// Connections × run time, seconds.
    pub connection_time_s: f64,
    /// `connection_secs` as a share of `connection_time_s` (0 to 1).
    pub share: f64,
    /// The spans during which no connection got a reply while load was due.
    pub spans: Vec<GapSpan>,
    /// The last span reached the end of the run: the load was still not
    /// applied when sending stopped.
    pub open_at_end: bool,
}

impl LoadGaps {
    /// The spans with no reply at all, summed, as a share of `run_time_s`
    /// (0 to 1): the time the server applied none of the load.
    pub fn silent_share(&self, run_time_s: f64) -> f64 {
        silent_share(self.spans.iter().map(|s| s.length_s), run_time_s)
    }

    /// The phase's gaps from its workers', over `connections` connections (or
    /// as many as the workers held, when more: a cluster's per node) and
    /// `run_time` from `started_at`: connection time summed, and the spans
    /// that every worker shares (a span of one worker while another got
    /// replies is that worker's connection time only).
    pub fn join(
        workers: &[WorkerGaps],
        started_at: Instant,
        run_time: Duration,
        connections: usize,
    ) -> LoadGaps {
        let connection_secs: f64 = workers.iter().map(|w| w.connection_secs).sum();
        let held: usize = workers.iter().map(|w| w.connections).sum();
        let whole = connections.max(held) as f64 * run_time.as_secs_f64();
        let mut common: Vec<ClockSpan> = workers.first().map_or_else(Vec::new, |w| w.spans.clone());
        for w in workers.iter().skip(1) {
            common = intersect(&common, &w.spans);
        }
        let spans = common
            .iter()
            .filter(|s| s.end.saturating_duration_since(s.start) >= GAP_MIN)
            .map(|s| GapSpan {
                start_s: s.start.saturating_duration_since(started_at).as_secs_f64(),
                length_s: s.end.saturating_duration_since(s.start).as_secs_f64(),
                cause: s.cause,
            })
            .collect();
        LoadGaps {
            connection_secs,
            connection_time_s: whole,
            connection_gaps: workers.iter().map(|w| w.connection_gaps).sum(),
            longest_connection_gap_s: workers
                .iter()
                .map(|w| w.longest_connection_gap)
                .max()
                .unwrap_or_default()
                .as_secs_f64(),
            share: if whole > 0.0 {
                (connection_secs / whole).min(1.0)
            } else {
                0.0
            },
            spans,
            open_at_end: !workers.is_empty() && workers.iter().all(|w| w.open_at_end),
        }
    }

    /// The longest span, if any.
    pub fn longest(&self) -> Option<&GapSpan> {
        self.spans
            .iter()
            .max_by(|a, b| a.length_s.total_cmp(&b.length_s))
    }

    /// The cause that covered the most time.
    pub fn main_cause(&self) -> Option<GapCause> {
        let secs = |cause: GapCause| -> f64 {
            self.spans
                .iter()
                .filter(|s| s.cause == cause)
                .map(|s| s.length_s)
                .sum()
        };
        [
            GapCause::DescriptorsExhausted,
            GapCause::ServerDown,
            GapCause::Stalled,
        ]
        .into_iter()
        .filter(|c| secs(*c) > 0.0)
        .max_by(|a, b| secs(*a).total_cmp(&secs(*b)))
    }
}

/// The parts of `a`'s spans that `b`'s spans cover too (both sorted by
/// start, neither overlapping itself); the more telling cause of the two
/// (descriptors over a server down over a stall) names each part.
fn intersect(a: &[ClockSpan], b: &[ClockSpan]) -> Vec<ClockSpan> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let start = a[i].start.max(b[j].start);
        let end = a[i].end.min(b[j].end);
        if start < end {
            out.push(ClockSpan {
                start,
                end,
                cause: a[i].cause.max(b[j].cause),
            });
        }
        if a[i].end < b[j].end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(base: Instant, from_ms: u64, to_ms: u64, cause: GapCause) -> ClockSpan {
        ClockSpan {
            start: base + Duration::from_millis(from_ms),
            end: base + Duration::from_millis(to_ms),
            cause,
        }
    }

    #[test]
    fn one_worker_keeps_its_spans_and_its_share() {
        let t0 = Instant::now();
        let w = WorkerGaps {
            connection_secs: 24.0,
            connection_gaps: 4,
            longest_connection_gap: Duration::from_secs(6),
            spans: vec![span(t0, 2000, 8000, GapCause::ServerDown)],
            open_at_end: true,
            connections: 4,
        };
        let g = LoadGaps::join(std::slice::from_ref(&w), t0, Duration::from_secs(8), 4);
        assert!((g.share - 0.75).abs() < 1e-9, "{}", g.share);
        assert!((g.connection_time_s - 32.0).abs() < 1e-9);
        // A cluster's workers hold a connection per client and node: the
        // share is of those.
        let cluster = WorkerGaps {
            connections: 12,
            ..w
        };
        let c = LoadGaps::join(&[cluster], t0, Duration::from_secs(8), 4);
        assert!((c.share - 0.25).abs() < 1e-9, "{}", c.share);
        assert_eq!(g.spans.len(), 1);
        assert!((g.spans[0].start_s - 2.0).abs() < 1e-9);
        assert!((g.spans[0].length_s - 6.0).abs() < 1e-9);
        assert!(g.open_at_end);
        assert_eq!(g.main_cause(), Some(GapCause::ServerDown));
    }

    #[test]
    fn workers_share_only_the_spans_they_all_had() {
        let t0 = Instant::now();
        let a = WorkerGaps {
            spans: vec![
                span(t0, 1000, 4000, GapCause::Stalled),
                span(t0, 6000, 9000, GapCause::Stalled),
            ],
            ..WorkerGaps::default()
        };
        let b = WorkerGaps {
            spans: vec![span(t0, 2500, 7500, GapCause::ServerDown)],
            open_at_end: true,
            ..WorkerGaps::default()
        };
        let g = LoadGaps::join(&[a, b], t0, Duration::from_secs(10), 2);
        // [2.5, 4) and [6, 7.5): both 1.5 s, both a gap.
        assert_eq!(g.spans.len(), 2, "{:?}", g.spans);
        assert!((g.spans[0].start_s - 2.5).abs() < 1e-9);
        assert!((g.spans[1].length_s - 1.5).abs() < 1e-9);
        assert_eq!(g.spans[0].cause, GapCause::ServerDown);
        // One worker open at the end is not the phase's.
        assert!(!g.open_at_end);
        // Overlaps under a second are no gap.
        let c = WorkerGaps {
            spans: vec![span(t0, 3500, 6500, GapCause::Stalled)],
            ..WorkerGaps::default()
        };
        let b = WorkerGaps {
            spans: vec![span(t0, 2500, 7500, GapCause::ServerDown)],
            ..WorkerGaps::default()
        };
        let a = WorkerGaps {
            spans: vec![span(t0, 1000, 4000, GapCause::Stalled)],
            ..WorkerGaps::default()
        };
        assert!(
            LoadGaps::join(&[a, b, c], t0, Duration::from_secs(10), 3)
                .spans
                .is_empty()
        );
    }

    #[test]
    fn no_worker_no_gap() {
        let g = LoadGaps::join(&[], Instant::now(), Duration::ZERO, 0);
        assert_eq!(g, LoadGaps::default());
    }
}
