//! The board written as text: Prometheus' text format 0.0.4, or OpenMetrics
//! 1.0 for a scraper that asks for it (Prometheus itself does).
//!
//! The two differ in three places only: a counter's `# TYPE` and `# HELP`
//! name the family without `_total` in OpenMetrics and the sample name in
//! Prometheus' format; OpenMetrics has `# UNIT` lines; and it ends with
//! `# EOF`. Every family's samples are written together, each label set's
//! buckets, `_sum` and `_count` one after another, as both formats require.
//! A family without samples is left out.

use std::fmt::{Display, Write};

use crate::engine::master::results::Phase;
use crate::engine::stats::ErrorCounts;
use crate::protocol::resp::ServerErrorKind;
use crate::report::metrics::board::{Board, OpSeries, PhaseSeries, phase_label};

/// Which text format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `text/plain; version=0.0.4`.
    Prometheus,
    /// `application/openmetrics-text; version=1.0.0`.
    OpenMetrics,
}

impl Format {
    /// The `Content-Type` of the text.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

/// What a family is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// One metric family: its name without `_total`, its type, unit and help.
struct Family {
    name: &'static str,
    kind: Kind,
    unit: Option<&'static str>,
    help: &'static str,
}

const fn family(name: &'static str, kind: Kind, help: &'static str) -> Family {
    Family {
        name,
        kind,
        unit: None,
        help,
    }
}

/// A counter of one op, read from its series.
type OpCounter = (Family, fn(&OpSeries) -> u64);

const OP_COUNTERS: [OpCounter; 5] = [
    (
        family(
            "kvbench_requests",
            Kind::Counter,
            "Replies received, error replies included (the JSON's count)",
        ),
        |o| o.count,
    ),
    (
        family(
            "kvbench_hits",
            Kind::Counter,
            "Replies of GET-like commands that carried a value",
        ),
        |o| o.hits,
    ),
    (
        family(
            "kvbench_misses",
            Kind::Counter,
            "Nil replies of GET-like commands",
        ),
        |o| o.misses,
    ),
    (
        Family {
            unit: Some("bytes"),
            ..family(
                "kvbench_sent_bytes",
                Kind::Counter,
                "Request bytes of the replies received",
            )
        },
        |o| o.bytes_tx,
    ),
    (
        Family {
            unit: Some("bytes"),
            ..family("kvbench_received_bytes", Kind::Counter, "Reply bytes read")
        },
        |o| o.bytes_rx,
    ),
];

const ERROR_REPLIES: Family = family(
    "kvbench_error_replies",
    Kind::Counter,
    "Server error replies by kind (the reply's first word, OTHER for the rest)",
);

const LATENCY: Family = Family {
    unit: Some("seconds"),
    ..family(
        "kvbench_request_duration_seconds",
        Kind::Histogram,
        "Latency of the replies: service time, or response time with --rate (docs/latency.md)",
    )
};

const FAILURES: Family = family(
    "kvbench_errors",
    Kind::Counter,
    "Failures that are not replies: connections lost or refused, timeouts, protocol errors, requests lost in flight, nodes down",
);

/// A failure kind: its `kind` label and where its count is.
type FailureKind = (&'static str, fn(&ErrorCounts) -> u64);

/// The failure kinds of `kvbench_errors`, as its `kind` label names them.
const FAILURE_KINDS: [FailureKind; 6] = [
    ("connection", |e| e.connection),
    ("refused", |e| e.refused),
    ("timeout", |e| e.timeouts),
    ("protocol", |e| e.protocol),
    ("lost_request", |e| e.lost_requests),
    ("node_down", |e| e.node_down),
];

const RECONNECTS: Family = family(
    "kvbench_reconnects",
    Kind::Counter,
    "Reconnects started, after a fault or planned by --reconnect-interval",
);

const PHASE_ACTIVE: Family = family(
    "kvbench_phase_active",
    Kind::Gauge,
    "1 for the phase in progress, 0 for the others",
);

const RUN: Family = family(
    "kvbench_run",
    Kind::Gauge,
    "The measured run in progress (1..n); 0 outside a measured run",
);

const CONNECTIONS: Family = family(
    "kvbench_connections_open",
    Kind::Gauge,
    "Benchmark connections open at the last per-second report",
);

const FINISHED: Family = family(
    "kvbench_finished",
    Kind::Gauge,
    "1 once every phase has ended: the counters hold their final values",
);

/// Writes families into one text.
struct Writer {
    format: Format,
    text: String,
    /// The family whose header was written last.
    open: Option<&'static str>,
}

impl Writer {
    /// Writes `family`'s header before its first sample.
    fn header(&mut self, f: &Family) {
        if self.open == Some(f.name) {
            return;
        }
        self.open = Some(f.name);
        let name = match (self.format, f.kind) {
            (Format::Prometheus, Kind::Counter) => format!("{}_total", f.name),
            _ => f.name.to_string(),
        };
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(f.help));
        let _ = writeln!(self.text, "# TYPE {name} {}", f.kind.name());
        if let (Format::OpenMetrics, Some(unit)) = (self.format, f.unit) {
            let _ = writeln!(self.text, "# UNIT {name} {unit}");
        }
    }

    /// One sample: `family` + `suffix`, `labels` (already written as
    /// `a="x",b="y"`, possibly empty) and the value.
    fn sample(&mut self, f: &Family, suffix: &str, labels: &str, value: impl Display) {
        self.header(f);
        let _ = if labels.is_empty() {
            writeln!(self.text, "{}{suffix} {value}", f.name)
        } else {
            writeln!(self.text, "{}{suffix}{{{labels}}} {value}", f.name)
        };
    }

    fn counter(&mut self, f: &Family, labels: &str, value: u64) {
        self.sample(f, "_total", labels, value);
    }
}

/// The whole board as text in `format`.
pub fn render(board: &Board, format: Format) -> String {
    let mut w = Writer {
        format,
        text: String::new(),
        open: None,
    };
    let base: Vec<String> = board
        .series
        .iter()
        .map(|s| series_labels(board, s))
        .collect();
    let with = |base: &str, extra: &str| -> String {
        if base.is_empty() {
            extra.to_string()
        } else {
            format!("{base},{extra}")
        }
    };
    for (f, read) in &OP_COUNTERS {
        for (s, base) in board.series.iter().zip(&base) {
            for op in &s.ops {
                w.counter(f, &with(base, &op_label(op)), read(op));
            }
        }
    }
    for (s, base) in board.series.iter().zip(&base) {
        for op in &s.ops {
            for (kind, n) in ServerErrorKind::ALL.iter().zip(op.errors_by_kind) {
                let labels = format!("{},kind=\"{}\"", op_label(op), kind.as_str());
                w.counter(&ERROR_REPLIES, &with(base, &labels), n);
            }
        }
    }
    for (s, base) in board.series.iter().zip(&base) {
        for op in &s.ops {
            let labels = with(base, &op_label(op));
            for (bound, &n) in board.bounds_us().iter().zip(&op.buckets) {
                let le = format!("{labels},le=\"{}\"", seconds(*bound));
                w.sample(&LATENCY, "_bucket", &le, n);
            }
            w.sample(
                &LATENCY,
                "_bucket",
                &format!("{labels},le=\"+Inf\""),
                op.recorded,
            );
            w.sample(&LATENCY, "_sum", &labels, seconds(op.latency_sum_us));
            w.sample(&LATENCY, "_count", &labels, op.recorded);
        }
    }
    for (kind, read) in FAILURE_KINDS {
        for (s, base) in board.series.iter().zip(&base) {
            let labels = with(base, &format!("kind=\"{kind}\""));
            w.counter(&FAILURES, &labels, read(&s.failures));
        }
    }
    for (s, base) in board.series.iter().zip(&base) {
        w.counter(&RECONNECTS, base, s.failures.reconnects);
    }
    gauges(&mut w, board);
    if format == Format::OpenMetrics {
        w.text.push_str("# EOF\n");
    }
    w.text
}

/// The gauges of the phase in progress, with the shard and cell labels.
fn gauges(w: &mut Writer, board: &Board) {
    let mut base = constant_labels(board);
    if let Some(cell) = &board.cell {
        base.push(format!("cell=\"{}\"", escape_label(cell)));
    }
    let base = base.join(",");
    for phase in [Phase::Prefill, Phase::Warmup, Phase::Run(0)] {
        let active = board
            .current
            .is_some_and(|c| phase_label(c) == phase_label(phase));
        let label = format!("phase=\"{}\"", phase_label(phase));
        let labels = if base.is_empty() {
            label
        } else {
            format!("{base},{label}")
        };
        w.sample(&PHASE_ACTIVE, "", &labels, u8::from(active));
    }
    let run = match board.current {
        Some(Phase::Run(n)) => n,
        _ => 0,
    };
    w.sample(&RUN, "", &base, run);
    w.sample(&CONNECTIONS, "", &base, board.open);
    w.sample(&FINISHED, "", &base, u8::from(board.finished));
}

/// The labels of every sample: `--prometheus-run-label`'s, then `shard`.
fn constant_labels(board: &Board) -> Vec<String> {
    let mut labels: Vec<String> = board
        .run_labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
        .collect();
    if let Some(shard) = board.shard {
        labels.push(format!("shard=\"{shard}\""));
    }
    labels
}

/// The run labels, `shard`, `cell`, `phase` and `run` of one series.
fn series_labels(board: &Board, s: &PhaseSeries) -> String {
    let mut labels = constant_labels(board);
    if let Some(cell) = &s.cell {
        labels.push(format!("cell=\"{}\"", escape_label(cell)));
    }
    labels.push(format!("phase=\"{}\"", s.phase_label()));
    labels.push(format!("run=\"{}\"", s.run_label()));
    labels.join(",")
}

fn op_label(op: &OpSeries) -> String {
    format!("op=\"{}\"", escape_label(&op.name))
}

/// µs as seconds, written the shortest way that reads back exactly.
fn seconds(us: u64) -> f64 {
    us as f64 / 1e6
}

/// A label value: backslash, double quote and line feed escaped (both formats).
pub fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Help text: backslash and line feed escaped.
fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}
