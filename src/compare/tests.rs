//! compare's rendering and verdicts on hand-made entries.

use crate::compare::{Entry, Format, OpRow, Section, columns, render, row_names, verdict};

fn row(ops: f64) -> OpRow {
    OpRow {
        count: 10,
        ops_per_sec: ops,
        avg_ms: 1000.0 / ops,
        percentiles_ms: [Some(0.1), Some(1.0), None],
    }
}

fn entry(label: &str, ops: f64, spread: Option<f64>) -> Entry {
    let rows = ["Sets", "Gets", "Totals"].map(|n| (n.to_string(), row(ops)));
    Entry {
        label: label.into(),
        rows: rows.to_vec(),
        spread,
    }
}

#[test]
fn differences_inside_the_spread_are_noise() {
    let a = entry("a", 100.0, Some(1.10));
    let b = entry("b", 105.0, None);
    let c = entry("c", 130.0, None);
    assert!(verdict(&a, &b, "Sets", false).starts_with("noise"));
    assert_eq!(verdict(&a, &c, "Sets", false), "+30.0 % ops/sec");
    assert!(verdict(&entry("x", 100.0, None), &c, "Sets", false).contains("spread unknown"));
    assert_eq!(verdict(&a, &c, "Hsets", false), "n/a");
    // Half the throughput is a factor of 2, beyond a 1.5× spread.
    let spread = entry("s", 100.0, Some(1.5));
    let half = entry("h", 50.0, None);
    assert_eq!(verdict(&spread, &half, "Sets", false), "-50.0 % ops/sec");
    let slower = entry("l", 70.0, None);
    assert!(verdict(&spread, &slower, "Sets", false).starts_with("noise"));
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
    let host = Entry::per_test(
        "host".into(),
        [("SET", &set), ("LRANGE_100", &lrange)],
        None,
    );
    let (set, lrange) = (section(50.0), section(30.0));
    let container = Entry::per_test(
        "container".into(),
        [("SET", &set), ("LRANGE_100", &lrange)],
        None,
    );
    let csv = columns::render(&[host, container], Format::Csv);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "metric,op,host,container,ratio");
    assert_eq!(lines[1], "ops_per_sec,SET,100.00,50.00,1 : 0.50");
    assert_eq!(lines[2], "ops_per_sec,LRANGE_100,40.00,30.00,1 : 0.75");
    assert_eq!(lines[3], "avg_ms,SET,0.200,0.200,1 : 1.00");
    assert_eq!(lines.len(), 1 + 3 * 2);
}

#[test]
fn csv_and_markdown_have_a_row_per_op_and_file() {
    let entries = [entry("a", 100.0, None), entry("b", 200.0, None)];
    let csv = render(&entries, Format::Csv);
    assert_eq!(csv.lines().count(), 1 + 3 * 2);
    assert!(
        csv.lines()
            .nth(2)
            .unwrap()
            .starts_with("Sets,b,200.00,2.000,")
    );
    let md = render(&entries, Format::Markdown);
    assert_eq!(md.lines().count(), 2 + 3 * 2);
    assert!(md.lines().all(|l| l.starts_with('|') && l.ends_with('|')));
}

#[test]
fn a_row_one_file_lacks_shows_dashes() {
    let mut b = entry("b", 200.0, None);
    b.rows.insert(0, ("Hsets".into(), row(50.0)));
    let csv = render(&[entry("a", 100.0, None), b], Format::Csv);
    let hsets: Vec<&str> = csv.lines().filter(|l| l.starts_with("Hsets")).collect();
    assert_eq!(hsets[0], "Hsets,a,-,-,-,-,-,-,-,-,-,-,baseline");
    assert!(hsets[1].starts_with("Hsets,b,50.00,-,"), "{}", hsets[1]);
    assert!(hsets[1].ends_with(",n/a"), "{}", hsets[1]);
}
