//! compare's verdicts, labels, settings block and rendering on hand-made entries.

use crate::tools::compare::differs::{self, differing_keys};
use crate::tools::compare::labels::distinct;
use crate::tools::compare::read::spread;
use crate::tools::compare::rows::{self, CSV_HEADER};
use crate::tools::compare::verdict::{Judged, Noise, Verdict, judge};
use crate::tools::compare::{Entry, Format, OpRow, Section, columns, row_names};

/// A row doing `ops` ops/sec with a p99 of `p99_ms`, and the same run-to-run
/// spread `spread` (max/min) for every judged figure.
fn row_with(ops: f64, p99_ms: f64, spread: Option<f64>) -> OpRow {
    OpRow {
        count: 10,
        ops_per_sec: ops,
        avg_ms: 1000.0 / ops,
        percentiles_ms: [Some(0.1), Some(p99_ms), Some(2.0 * p99_ms)],
        spread: [spread; 4],
        half_width: [None; 4],
    }
}

fn row(ops: f64) -> OpRow {
    row_with(ops, 1.0, None)
}

pub(super) fn entry(label: &str, ops: f64, spread: Option<f64>) -> Entry {
    let rows = ["Sets", "Gets", "Totals"].map(|n| (n.to_string(), row_with(ops, 1.0, spread)));
    Entry {
        label: label.into(),
        rows: rows.to_vec(),
        ..Entry::default()
    }
}

#[test]
fn a_p99_eight_times_worse_at_equal_throughput_is_not_noise() {
    // The row that was once called noise: same ops/sec, p99 7.9×.
    let base = row_with(1000.0, 1.0, Some(1.04));
    let other = row_with(1000.0, 7.9, Some(1.02));
    let v = judge(Some(&base), Some(&other));
    let Verdict::Moved { moves } = &v else {
        panic!("{v:?}")
    };
    assert_eq!(moves[0].change.metric, Judged::P99);
    assert_eq!(moves[0].noise, Noise::Spread(1.04));
    // p99.9 moved as much; ops/sec and p50 did not.
    assert!(moves.iter().all(|m| m.change.metric != Judged::OpsPerSec));
    assert!(moves.iter().all(|m| m.change.metric != Judged::P50));
    assert!(
        v.to_string()
            .starts_with("p99 +690 % (beyond 4.0 % spread)"),
        "{v}"
    );
}

#[test]
fn differences_inside_every_figures_spread_are_noise() {
    let base = row_with(1000.0, 1.0, Some(1.10));
    let other = row_with(1050.0, 1.08, None);
    let v = judge(Some(&base), Some(&other));
    assert_eq!(v, Verdict::Noise(Noise::Spread(1.10)));
    assert!(v.to_string().starts_with("noise"), "{v}");
    // The larger of the two files' spreads judges.
    let wide = row_with(1300.0, 1.0, Some(1.5));
    assert_eq!(
        judge(Some(&base), Some(&wide)),
        Verdict::Noise(Noise::Spread(1.5))
    );
}

/// A single run's row: `ops` ops/sec and p99 `p99_ms`, each known to ±`percent` %.
fn single_run(ops: f64, p99_ms: f64, percent: f64) -> OpRow {
    let mut row = row_with(ops, p99_ms, None);
    let values = [Some(ops), Some(0.1), Some(p99_ms), Some(2.0 * p99_ms)];
    row.half_width = values.map(|v| v.map(|v| v * percent / 100.0));
    row
}

#[test]
fn two_single_runs_differ_only_where_their_intervals_are_apart() {
    // ±2 % each: 1000 and 1030 ops/s overlap (980-1020 and 1009-1051).
    let base = single_run(1000.0, 1.0, 2.0);
    let v = judge(Some(&base), Some(&single_run(1030.0, 1.0, 2.0)));
    assert!(
        matches!(v, Verdict::Noise(Noise::Intervals { .. })),
        "{v:?}"
    );
    assert_eq!(
        v.to_string(),
        "noise (every figure's 95 % interval overlaps the baseline's)"
    );
    // 1050 is apart (1029-1071), and so is a p99 10 % higher; the p99,
    // farther beyond its intervals' reach, comes first.
    let v = judge(Some(&base), Some(&single_run(1050.0, 1.1, 2.0)));
    let Verdict::Moved { moves } = &v else {
        panic!("{v:?}")
    };
    assert_eq!(moves.len(), 3, "{v}");
    assert_eq!(moves[0].change.metric, Judged::P99);
    assert_eq!(
        v.to_string(),
        "p99 +10.0 % (95 % intervals apart: ±2.0 % and ±2.0 %); \
         p99.9 +10.0 % (95 % intervals apart: ±2.0 % and ±2.0 %); \
         ops/sec +5.0 % (95 % intervals apart: ±2.0 % and ±2.0 %)"
    );
    // Wide intervals excuse even a large change.
    let v = judge(
        Some(&single_run(1000.0, 1.0, 30.0)),
        Some(&single_run(1400.0, 1.0, 30.0)),
    );
    assert!(matches!(v, Verdict::Noise(_)), "{v:?}");
    // A run-to-run spread, where a file has one, judges instead.
    let v = judge(
        Some(&row_with(1000.0, 1.0, Some(1.01))),
        Some(&single_run(1030.0, 1.0, 2.0)),
    );
    assert!(
        v.to_string()
            .starts_with("ops/sec +3.0 % (beyond 1.0 % spread)"),
        "{v}"
    );
    // One side without intervals: nothing measured the noise.
    let v = judge(Some(&row(1000.0)), Some(&single_run(1300.0, 1.0, 2.0)));
    assert!(matches!(v, Verdict::NoSpread { .. }), "{v:?}");
}

#[test]
fn a_spread_is_a_factor_either_way() {
    // Half the throughput is a factor of 2, beyond a 1.5× spread; 0.7× is not.
    let base = row_with(100.0, 1.0, Some(1.5));
    let v = judge(Some(&base), Some(&row(50.0)));
    // Never a negative spread: the fall is given as the factor it divides by.
    assert_eq!(
        v.to_string(),
        "ops/sec -50.0 % (÷2.00, beyond 50.0 % spread)"
    );
    assert_eq!(
        judge(Some(&base), Some(&row(70.0))),
        Verdict::Noise(Noise::Spread(1.5))
    );
}

#[test]
fn single_runs_measure_no_spread_and_say_so() {
    let v = judge(Some(&row(100.0)), Some(&row_with(150.0, 3.0, None)));
    assert!(matches!(v, Verdict::NoSpread { .. }), "{v:?}");
    assert_eq!(
        v.to_string(),
        "no spread measured: run with -x 3 to judge (ops/sec +50.0 %, p99 +200 %)"
    );
    // Even an equal row is not called noise without a measured spread.
    let same = judge(Some(&row(100.0)), Some(&row(100.0)));
    assert!(same.to_string().starts_with("no spread measured"), "{same}");
}

#[test]
fn a_row_one_file_lacks_is_not_comparable() {
    assert_eq!(judge(None, Some(&row(1.0))), Verdict::NotComparable);
    assert_eq!(judge(Some(&row(1.0)), None), Verdict::NotComparable);
    assert_eq!(Verdict::NotComparable.to_string(), "n/a");
}

#[test]
fn spreads_are_max_over_min_of_two_runs_or_more() {
    assert_eq!(spread([Some(100.0), Some(110.0)].into_iter()), Some(1.1));
    assert_eq!(spread([Some(100.0)].into_iter()), None);
    assert_eq!(spread([Some(1.0), None].into_iter()), None);
    assert_eq!(spread([Some(0.0), Some(0.0)].into_iter()), Some(1.0));
    assert_eq!(
        spread([Some(0.0), Some(2.0)].into_iter()),
        Some(f64::INFINITY)
    );
}

#[test]
fn files_are_labelled_by_the_shortest_distinguishing_suffix() {
    assert_eq!(
        distinct(&["a/run.json", "b/run.json"]),
        ["a/run.json", "b/run.json"]
    );
    assert_eq!(distinct(&["x/a.json", "y/b.json"]), ["a.json", "b.json"]);
    assert_eq!(
        distinct(&["/r/p/a/run.json", "/r/q/a/run.json", "c.json"]),
        ["p/a/run.json", "q/a/run.json", "c.json"]
    );
    assert_eq!(
        distinct(&["run.json", "x/run.json"]),
        ["run.json", "x/run.json"]
    );
    assert_eq!(
        distinct(&["./a/run.json", "b/run.json"]),
        ["a/run.json", "b/run.json"]
    );
    // The same file twice stays apart.
    assert_eq!(distinct(&["r.json", "r.json"]), ["r.json", "r.json (2)"]);
}

fn with_settings(label: &str, settings: &[(&str, &str)]) -> Entry {
    Entry {
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..entry(label, 100.0, None)
    }
}

#[test]
fn the_differs_block_lists_only_keys_whose_values_differ() {
    let a = with_settings(
        "a",
        &[
            ("pipeline", "1"),
            ("threads", "4"),
            ("server.version", "7.0.15"),
        ],
    );
    let b = with_settings(
        "b",
        &[
            ("pipeline", "16"),
            ("threads", "4"),
            ("server.version", "7.2.4"),
        ],
    );
    // A memtier file carries no settings and is not a difference.
    let memtier = entry("m", 100.0, None);
    let entries = [a, b, memtier];
    assert_eq!(differing_keys(&entries), ["pipeline", "server.version"]);
    let text = differs::render(&entries, Format::Text, None);
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines[0], ["files", "a", "b", "m"]);
    assert_eq!(lines[2], ["differs:"]);
    assert_eq!(lines[3], ["pipeline", "1", "16", "-"]);
    assert_eq!(lines[4], ["server.version", "7.0.15", "7.2.4", "-"]);
    assert_eq!(lines.len(), 5, "{text}");
    // Equal settings say that nothing differs.
    let same = [
        with_settings("a", &[("pipeline", "1")]),
        with_settings("b", &[("pipeline", "1")]),
    ];
    assert!(differing_keys(&same).is_empty());
    assert!(differs::render(&same, Format::Text, None).contains("differs: nothing"));
}

#[test]
fn a_same_seed_run_beside_a_distinct_seed_run_is_not_like_for_like() {
    let memtier = with_settings("memtier", &[("pipeline", "16")]);
    let kvbench = with_settings(
        "kvbench",
        &[("pipeline", "16"), ("seeding", "per-connection")],
    );
    let compat = with_settings("compat", &[("pipeline", "16"), ("seeding", "shared")]);
    let note = differs::seeding_note(&[memtier.clone(), kvbench.clone()]).unwrap();
    assert!(
        note.starts_with("not like for like: in memtier (memtier's default"),
        "{note}"
    );
    assert!(
        note.contains("); kvbench give each connection its own seed"),
        "{note}"
    );
    let text = differs::render(&[compat.clone(), kvbench.clone()], Format::Text, None);
    assert!(
        text.contains("not like for like: in compat every connection"),
        "{text}"
    );
    // Like for like: both same-seed, or both distinct.
    assert_eq!(differs::seeding_note(&[memtier, compat]), None);
    assert_eq!(differs::seeding_note(&[kvbench.clone(), kvbench]), None);
}

#[test]
fn the_hit_rate_is_shown_per_file() {
    let mut a = entry("a", 100.0, None);
    a.hit_rate_percent = Some(99.5);
    let entries = [a, entry("b", 100.0, None)];
    let md = differs::render(&entries, Format::Markdown, None);
    assert!(md.contains("| GET hit rate % | 99.50 | - |"), "{md}");
    let csv = rows::render(&entries, Format::Csv, None);
    assert!(
        csv.lines().nth(1).unwrap().contains(",99.50,baseline"),
        "{csv}"
    );
}

#[test]
fn rows_keep_the_files_order_with_totals_last_and_empty_waits_hidden() {
    let mut a = entry("a", 100.0, None);
    a.rows.insert(
        2,
        (
            "Waits".into(),
            OpRow {
                count: 0,
                ..row(1.0)
            },
        ),
    );
    let mut b = entry("b", 100.0, None);
    b.rows.insert(0, ("Hsets".into(), row(5.0)));
    assert_eq!(
        row_names(&[a.clone(), b.clone()]),
        ["Sets", "Gets", "Hsets", "Totals"]
    );
    // A file that did send WAITs shows the row.
    a.rows[2].1.count = 3;
    assert_eq!(
        row_names(&[a, b]),
        ["Sets", "Gets", "Waits", "Hsets", "Totals"]
    );
}

/// A section whose Totals did `ops` ops/sec.
fn section(ops: f64) -> Section {
    let row = serde_json::json!({
        "Count": 10, "Ops/sec": ops, "Hits/sec": 0.0, "Misses/sec": 0.0,
        "Connection Errors/sec": 0.0, "Connection Errors": 0, "Latency": 0.2,
        "Average Latency": 0.2, "Accumulated Latency": 2, "Min Latency": 0.1,
        "Max Latency": 0.3, "KB/sec": 1.0, "KB/sec RX/TX": 1.0, "KB/sec RX": 0.5,
        "KB/sec TX": 0.5, "Time-Serie": {},
        "Percentile Latencies": {"p99.00": 0.3}
    });
    serde_json::from_value(serde_json::json!({
        "Runtime": {"Start time": 1, "Finish time": 2, "Total duration": 1,
                    "Time unit": "MILLISECONDS", "Interrupted": "false"},
        "Totals": row,
    }))
    .unwrap()
}

#[test]
fn a_suite_gives_a_row_per_test_in_the_columns_layout() {
    let (set, lrange) = (section(100.0), section(40.0));
    let host = Entry::per_test("host".into(), [("SET", &set), ("LRANGE_100", &lrange)]);
    let (set, lrange) = (section(50.0), section(30.0));
    let container = Entry::per_test("container".into(), [("SET", &set), ("LRANGE_100", &lrange)]);
    let csv = columns::render(&[host, container], Format::Csv, None);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "metric,op,host,container,ratio");
    assert_eq!(lines[1], "ops_per_sec,SET,100.00,50.00,1 : 0.50");
    assert_eq!(lines[2], "ops_per_sec,LRANGE_100,40.00,30.00,1 : 0.75");
    assert_eq!(lines[3], "avg_ms,SET,0.200,0.200,1 : 1.00");
    // No hit rate in either: no hit rate row; a verdict row per test.
    assert_eq!(lines.len(), 1 + 3 * 2 + 2);
    assert_eq!(
        lines[7],
        "verdict,SET,baseline,\"no spread measured: run with -x 3 to judge (ops/sec -50.0 %, p99 +0.0 %)\","
    );
}

#[test]
fn the_columns_layout_ends_with_the_verdicts_of_the_rows_layout() {
    // Same ops/sec, p99 7.9×: the verdict row names p99, as `--layout rows` does.
    let base = entry("a.json", 1000.0, Some(1.04));
    let mut worse = entry("b.json", 1000.0, Some(1.02));
    for (_, row) in &mut worse.rows {
        *row = row_with(1000.0, 7.9, Some(1.02));
    }
    let text = columns::render(&[base, worse], Format::Text, None);
    let verdicts: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("vs baseline"))
        .collect();
    assert_eq!(verdicts.len(), 4, "{text}");
    for line in &verdicts[1..] {
        assert!(line.contains("baseline"), "{line}");
        assert!(line.contains("p99 +690 % (beyond 4.0 % spread)"), "{line}");
    }
    let md = columns::render(
        &[entry("a.json", 1.0, None), entry("b.json", 1.0, None)],
        Format::Markdown,
        None,
    );
    assert!(md.contains("| vs baseline | a.json | b.json |"), "{md}");
    assert!(
        md.contains("| Totals | baseline | no spread measured"),
        "{md}"
    );
}

#[test]
fn csv_and_markdown_have_a_row_per_op_and_file() {
    let entries = [entry("a", 100.0, None), entry("b", 200.0, None)];
    let csv = rows::render(&entries, Format::Csv, None);
    assert_eq!(csv.lines().next(), Some(CSV_HEADER));
    assert_eq!(csv.lines().count(), 1 + 3 * 2);
    assert!(
        csv.lines()
            .nth(2)
            .unwrap()
            .starts_with("Sets,b,200.00,2.000,")
    );
    let md = rows::render(&entries, Format::Markdown, None);
    assert_eq!(md.lines().count(), 2 + 3 * 2);
    assert!(md.lines().all(|l| l.starts_with('|') && l.ends_with('|')));
}

#[test]
fn a_row_one_file_lacks_shows_dashes() {
    let mut b = entry("b", 200.0, None);
    b.rows.insert(0, ("Hsets".into(), row(50.0)));
    let csv = rows::render(&[entry("a", 100.0, None), b], Format::Csv, None);
    let hsets: Vec<&str> = csv.lines().filter(|l| l.starts_with("Hsets")).collect();
    assert_eq!(hsets[0], "Hsets,a,-,-,-,-,-,-,-,-,-,-,-,baseline");
    assert!(hsets[1].starts_with("Hsets,b,50.00,-,"), "{}", hsets[1]);
    assert!(hsets[1].ends_with(",n/a"), "{}", hsets[1]);
}
