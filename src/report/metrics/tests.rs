//! The exposition read back line by line as a scraper would, and the board
//! it is written from.

use std::collections::{BTreeMap, HashSet};

use crate::engine::master::results::Phase;
use crate::engine::stats::{Stats, latency_histogram};
use crate::protocol::resp::ServerErrorKind;
use crate::report::metrics::board::{BUCKET_BOUNDS_US, Board, cumulative_buckets};
use crate::report::metrics::exposition::{Format, escape_label, render};

/// Two ops with some replies, hits, misses, errors and failures.
pub(super) fn stats(scale: u64) -> Stats {
    let mut s = Stats::new(2).unwrap();
    for i in 0..10 * scale {
        s.ops[0].record(20 + i);
        s.ops[0].bytes_tx += 40;
        s.ops[0].bytes_rx += 5;
    }
    for i in 0..30 * scale {
        s.ops[1].record(8 + 3 * i);
        if i % 3 == 0 {
            s.ops[1].hits += 1;
        } else {
            s.ops[1].misses += 1;
        }
    }
    s.ops[1].record(12_000_000);
    s.ops[1].count_error(ServerErrorKind::Oom);
    s.errors.connection = scale;
    s.errors.timeouts = 2 * scale;
    s
}

fn board() -> Board {
    Board {
        shard: Some(3),
        run_rows: vec!["SET".into(), "GET".into()],
        prefill_rows: vec!["SET".into(), "GET".into()],
        ..Board::default()
    }
}

/// One sample: name, labels, value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Reads an exposition the way a scraper does, asserting its structure on
/// the way: every sample belongs to the family whose HELP and TYPE came
/// last, no family comes twice, label values are quoted and escaped.
fn parse(text: &str, format: Format) -> Vec<Sample> {
    let mut samples = Vec::new();
    let mut seen_families = HashSet::new();
    let mut family: Option<(String, String)> = None;
    let mut help: Option<String> = None;
    let mut lines: Vec<&str> = text.lines().collect();
    if format == Format::OpenMetrics {
        assert_eq!(lines.pop(), Some("# EOF"), "OpenMetrics ends with # EOF");
    }
    assert!(text.ends_with('\n'));
    for line in lines {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, _) = rest.split_once(' ').expect("HELP name text");
            assert!(seen_families.insert(name.to_string()), "{name} twice");
            help = Some(name.to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect("TYPE name kind");
            assert_eq!(help.as_deref(), Some(name), "TYPE without HELP: {line}");
            family = Some((name.to_string(), kind.to_string()));
            continue;
        }
        if let Some(rest) = line.strip_prefix("# UNIT ") {
            assert_eq!(format, Format::OpenMetrics, "{line}");
            let (name, unit) = rest.split_once(' ').unwrap();
            assert!(name.ends_with(&format!("_{unit}")), "{line}");
            continue;
        }
        assert!(!line.starts_with('#'), "unknown comment {line}");
        let (name, kind) = family
            .clone()
            .unwrap_or_else(|| panic!("no family: {line}"));
        let sample = parse_sample(line);
        let expected: Vec<String> = match (kind.as_str(), format) {
            ("counter", Format::Prometheus) => vec![name.clone()],
            ("counter", Format::OpenMetrics) => vec![format!("{name}_total")],
            ("gauge", _) => vec![name.clone()],
            ("histogram", _) => ["_bucket", "_sum", "_count"]
                .iter()
                .map(|s| format!("{name}{s}"))
                .collect(),
            (other, _) => panic!("type {other}"),
        };
        assert!(expected.contains(&sample.name), "{line} is not in {name}");
        samples.push(sample);
    }
    samples
}

fn parse_sample(line: &str) -> Sample {
    let (series, value) = line.rsplit_once(' ').unwrap();
    let value: f64 = value.parse().unwrap_or_else(|_| panic!("value of {line}"));
    let (name, labels) = match series.split_once('{') {
        Some((name, rest)) => (name, rest.strip_suffix('}').expect("labels end with }")),
        None => (series, ""),
    };
    assert!(
        name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "{name}"
    );
    let mut map = BTreeMap::new();
    let mut rest = labels;
    while !rest.is_empty() {
        let (key, after) = rest.split_once("=\"").expect("label=\"value\"");
        // The value ends at the first quote that no backslash escapes.
        let mut end = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let end = end.expect("closing quote");
        assert!(
            map.insert(key.to_string(), after[..end].to_string())
                .is_none()
        );
        rest = after[end + 1..]
            .strip_prefix(',')
            .unwrap_or(&after[end + 1..]);
    }
    Sample {
        name: name.to_string(),
        labels: map,
        value,
    }
}

fn find<'a>(samples: &'a [Sample], name: &str, labels: &[(&str, &str)]) -> &'a Sample {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .unwrap_or_else(|| panic!("no {name} {labels:?}"))
}

#[test]
fn both_formats_parse_with_every_sample_in_a_typed_family() {
    let mut b = board();
    b.start_phase(Phase::Warmup, &Stats::new(2).unwrap());
    b.end_phase(Phase::Warmup, &stats(1));
    b.start_phase(Phase::Run(1), &Stats::new(2).unwrap());
    b.update(Phase::Run(1), &stats(2));
    for format in [Format::Prometheus, Format::OpenMetrics] {
        let samples = parse(&render(&b, format), format);
        assert!(samples.len() > 100, "{}", samples.len());
        // Each label set appears once per sample name.
        let mut keys = HashSet::new();
        for s in &samples {
            let key = format!("{}{:?}", s.name, s.labels);
            assert!(keys.insert(key.clone()), "{key} twice");
        }
    }
}

#[test]
fn buckets_are_cumulative_and_inf_is_the_count() {
    let mut b = board();
    b.start_phase(Phase::Run(1), &Stats::new(2).unwrap());
    b.end_phase(Phase::Run(1), &stats(3));
    let samples = parse(&render(&b, Format::OpenMetrics), Format::OpenMetrics);
    for op in ["SET", "GET"] {
        let buckets: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.name.ends_with("_bucket") && s.labels["op"] == op)
            .collect();
        assert_eq!(buckets.len(), BUCKET_BOUNDS_US.len() + 1);
        let les: Vec<f64> = buckets
            .iter()
            .map(|s| match s.labels["le"].as_str() {
                "+Inf" => f64::INFINITY,
                le => le.parse().unwrap(),
            })
            .collect();
        assert!(les.windows(2).all(|w| w[0] < w[1]), "{les:?}");
        assert!(
            buckets.windows(2).all(|w| w[0].value <= w[1].value),
            "{op}: {buckets:?}"
        );
        let count = find(
            &samples,
            "kvbench_request_duration_seconds_count",
            &[("op", op)],
        );
        assert_eq!(buckets.last().unwrap().value, count.value);
    }
    // GET: 90 replies + one of 12 s, which only +Inf holds; SET: 30.
    let count = |op| {
        find(
            &samples,
            "kvbench_request_duration_seconds_count",
            &[("op", op)],
        )
        .value
    };
    assert_eq!((count("SET"), count("GET")), (30.0, 91.0));
    let ten_s = find(
        &samples,
        "kvbench_request_duration_seconds_bucket",
        &[("op", "GET"), ("le", "10")],
    );
    assert_eq!(ten_s.value, 90.0);
}

#[test]
fn counters_hold_the_stats_exactly_with_their_labels() {
    let mut b = board();
    b.cell = Some("pipeline=4 \"x\"".into());
    b.start_phase(Phase::Run(2), &Stats::new(2).unwrap());
    let result = stats(5);
    b.end_phase(Phase::Run(2), &result);
    b.finished = true;
    let samples = parse(&render(&b, Format::Prometheus), Format::Prometheus);
    let run = [("phase", "run"), ("run", "2"), ("shard", "3")];
    let at = |name: &str, op: &str| {
        let mut labels = run.to_vec();
        labels.push(("op", op));
        find(&samples, name, &labels).value as u64
    };
    assert_eq!(at("kvbench_requests_total", "SET"), result.ops[0].count);
    assert_eq!(at("kvbench_requests_total", "GET"), result.ops[1].count);
    assert_eq!(at("kvbench_hits_total", "GET"), result.ops[1].hits);
    assert_eq!(at("kvbench_misses_total", "GET"), result.ops[1].misses);
    assert_eq!(at("kvbench_sent_bytes_total", "SET"), 50 * 40);
    assert_eq!(at("kvbench_received_bytes_total", "SET"), 50 * 5);
    let oom = find(
        &samples,
        "kvbench_error_replies_total",
        &[("op", "GET"), ("kind", "OOM")],
    );
    assert_eq!(oom.value, 1.0);
    let sum = find(
        &samples,
        "kvbench_request_duration_seconds_sum",
        &[("op", "SET")],
    );
    assert!((sum.value - result.ops[0].latency_sum_us as f64 / 1e6).abs() < 1e-9);
    let timeouts = find(&samples, "kvbench_errors_total", &[("kind", "timeout")]);
    assert_eq!(timeouts.value, 10.0);
    // The cell label is escaped and reads back as written.
    let cell = &samples[0].labels["cell"];
    assert_eq!(cell, &escape_label("pipeline=4 \"x\""));
    assert_eq!(find(&samples, "kvbench_finished", &[]).value, 1.0);
    assert_eq!(find(&samples, "kvbench_run", &[]).value, 0.0);
}

#[test]
fn gauges_follow_the_phase_in_progress() {
    let mut b = board();
    b.start_phase(Phase::Warmup, &Stats::new(2).unwrap());
    b.open = 7;
    let samples = parse(&render(&b, Format::Prometheus), Format::Prometheus);
    let active = |p| find(&samples, "kvbench_phase_active", &[("phase", p)]).value;
    assert_eq!(
        (active("prefill"), active("warmup"), active("run")),
        (0.0, 1.0, 0.0)
    );
    assert_eq!(find(&samples, "kvbench_connections_open", &[]).value, 7.0);
    b.end_phase(Phase::Warmup, &stats(1));
    b.start_phase(Phase::Run(3), &Stats::new(2).unwrap());
    let samples = parse(&render(&b, Format::Prometheus), Format::Prometheus);
    assert_eq!(find(&samples, "kvbench_run", &[]).value, 3.0);
    // The warm-up keeps its final counts beside the run's zeros.
    let warm = find(
        &samples,
        "kvbench_requests_total",
        &[("phase", "warmup"), ("op", "GET")],
    );
    assert_eq!(warm.value, 31.0);
    let run = find(
        &samples,
        "kvbench_requests_total",
        &[("phase", "run"), ("op", "GET")],
    );
    assert_eq!(run.value, 0.0);
}

#[test]
fn buckets_count_values_up_to_each_bound_inclusive() {
    let mut h = latency_histogram().unwrap();
    for v in [
        1, 10, 11, 25, 26, 100, 2_500, 10_000, 10_000_000, 20_000_000,
    ] {
        h.record(v).unwrap();
    }
    let b = cumulative_buckets(&h, &BUCKET_BOUNDS_US);
    let at = |bound: u64| b[BUCKET_BOUNDS_US.iter().position(|&x| x == bound).unwrap()];
    assert_eq!(at(10), 2);
    assert_eq!(at(25), 4);
    assert_eq!(at(50), 5);
    assert_eq!(at(100), 6);
    assert_eq!(at(2_500), 7);
    assert_eq!(at(10_000), 8);
    assert_eq!(at(10_000_000), 9);
    assert_eq!(h.len(), 10, "+Inf holds the 20 s one too");
}
