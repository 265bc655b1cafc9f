//! HdrHistogram files (`--hdr-file-prefix P`) end to end, under memtier's names:
//! for each measured run *n*, `P_FULL_RUN_<n>`, `P_SET_command_run_<n>` and
//! `P_GET_command_run_<n>` each get a `.txt` percentile distribution in
//! memtier's layout ending at the 100th percentile with the run's count and
//! max, a `.hgrm` log with one interval spanning the run in memtier's layout
//! line by line (its header lines, its columns), and kvbench's `.hlog` interval log whose one-second intervals together
//! hold exactly the run's latencies — in a closed loop and with `--rate`.

use std::path::Path;

use crate::common::{Redis, TempDir, decode_histogram, kvbench_json, row_histogram};
use hdrhistogram::Histogram;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use serde_json::Value;

/// File op names, the JSON rows they correspond to and memtier's file stem
/// before the run number.
const OPS: [(&str, &str, &str); 3] = [
    ("SET", "Sets", "SET_command_run_"),
    ("GET", "Gets", "GET_command_run_"),
    ("TOTALS", "Totals", "FULL_RUN_"),
];

/// `<dir>/x_<stem><run>.<ext>`.
fn path_of(dir: &TempDir, run: u32, op: &str, ext: &str) -> std::path::PathBuf {
    let stem = OPS.iter().find(|o| o.0 == op).unwrap().2;
    dir.path(&format!("x_{stem}{run}.{ext}"))
}

/// Every recorded (value, count) of a histogram, in value order.
fn recorded(h: &Histogram<u64>) -> Vec<(u64, u64)> {
    h.iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

/// Runs kvbench against a fresh server with `args` (split at whitespace) and
/// `--hdr-file-prefix <dir>/x`; returns the JSON report.
fn run_with_hdr_files(args: &str, dir: &TempDir) -> Value {
    let redis = Redis::start();
    let prefix = dir.path("x");
    kvbench_json(
        redis.port,
        args,
        &["--hdr-file-prefix", prefix.to_str().unwrap()],
    )
    .doc
}

/// The names of the files in `dir`, sorted.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// The names `--hdr-file-prefix <dir>/x` must produce for runs 1..=runs, sorted.
fn expected_names(runs: u32) -> Vec<String> {
    let mut names = Vec::new();
    for run in 1..=runs {
        for (_, _, stem) in OPS {
            for ext in ["txt", "hgrm", "hlog"] {
                names.push(format!("x_{stem}{run}.{ext}"));
            }
        }
    }
    names.sort();
    names
}

/// Checks the `.hlog` of `op` in run `run`: it parses, has start and base times, every
/// interval is one second tagged `op`, in order from second 0, and decodes; the
/// intervals merged are exactly the JSON row's histogram. Returns their count.
fn check_interval_log(dir: &TempDir, run: u32, op: &str, row: &Value) -> u64 {
    let path = path_of(dir, run, op, "hlog");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let what = format!("RUN{run} {op} interval log");
    let mut start_times = 0;
    let mut base_times = 0;
    let mut merged: Option<Histogram<u64>> = None;
    let mut sum = 0;
    let mut intervals = 0u64;
    for entry in IntervalLogIterator::new(&bytes) {
        match entry.unwrap_or_else(|e| panic!("{what} does not parse: {e:?}")) {
            LogEntry::StartTime(_) => start_times += 1,
            LogEntry::BaseTime(_) => base_times += 1,
            LogEntry::Interval(interval) => {
                let tag = interval.tag().map(|t| t.as_str().to_string());
                assert_eq!(tag.as_deref(), Some(op), "{what}: interval tag");
                let start = interval.start_timestamp().as_secs_f64();
                assert!(
                    (start - intervals as f64).abs() < 1e-6,
                    "{what}: interval {intervals} starts at {start} s"
                );
                let length = interval.duration().as_secs_f64();
                assert!(
                    (length - 1.0).abs() < 1e-6,
                    "{what}: interval of {length} s"
                );
                let h = decode_histogram(interval.encoded_histogram());
                if !h.is_empty() {
                    // The Interval_Max column is the histogram's max, in µs.
                    assert_eq!(interval.max(), h.max() as f64, "{what}: interval max");
                }
                sum += h.len();
                match merged.as_mut() {
                    Some(m) => m.add(&h).expect("intervals merge"),
                    None => merged = Some(h),
                }
                intervals += 1;
            }
        }
    }
    assert_eq!((start_times, base_times), (1, 1), "{what}: time headers");
    assert!(intervals >= 1, "{what} has no interval");
    assert_eq!(
        sum,
        row["Count"].as_u64().unwrap(),
        "{what}: sum of interval counts vs the JSON Count"
    );
    let json_histogram = row_histogram(row);
    assert_eq!(
        recorded(&merged.unwrap()),
        recorded(&json_histogram),
        "{what}: the intervals together are not the run's latencies"
    );
    intervals
}

/// Checks the `.txt` of `op` in run `run`: memtier's header and percentile
/// steps, its last row is the 100th percentile at the row's Count, and its
/// footer has that count and the row's max.
fn check_distribution(dir: &TempDir, run: u32, op: &str, row: &Value) {
    let path = path_of(dir, run, op, "txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let what = format!("RUN{run} {op} distribution");
    let count = row["Count"].as_u64().unwrap();
    assert!(
        text.starts_with("       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"),
        "{what} header:\n{text}"
    );
    // memtier's steps: 5 % up to the median, then halving with the distance
    // to 100 % (HdrHistogram_c's iterator at 10 ticks per half distance).
    let percentiles: Vec<&str> = text
        .lines()
        .skip(2)
        .take(13)
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        percentiles,
        [
            "0.000000", "0.050000", "0.100000", "0.150000", "0.200000", "0.250000", "0.300000",
            "0.350000", "0.400000", "0.450000", "0.500000", "0.525000", "0.550000"
        ],
        "{what}:\n{text}"
    );
    let last_row: Vec<&str> = text
        .lines()
        .skip(2)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .last()
        .unwrap_or_else(|| panic!("{what} has no rows:\n{text}"))
        .split_whitespace()
        .collect();
    assert_eq!(last_row.get(1), Some(&"1.000000"), "{what}: last row");
    assert_eq!(last_row.get(3), Some(&"inf"), "{what}: last row");
    assert_eq!(
        last_row.get(2).map(|c| c.parse::<u64>().unwrap()),
        Some(count),
        "{what}: last row's TotalCount"
    );
    let footer = text
        .lines()
        .find(|l| l.starts_with("#[Max"))
        .unwrap_or_else(|| panic!("{what} has no #[Max line:\n{text}"));
    let field = |name: &str| -> f64 {
        footer
            .split_once(name)
            .and_then(|(_, rest)| rest.trim_start_matches([' ', '=']).split([',', ']']).next())
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {footer:?}"))
    };
    assert_eq!(field("Total count") as u64, count, "{what}: {footer}");
    let max = row["Max Latency"].as_f64().unwrap();
    assert!(
        (field("Max") - max).abs() < 0.0015,
        "{what}: {footer} vs Max Latency {max} ms"
    );
}

/// memtier's `.hgrm` of the full run, as memtier_benchmark wrote it.
const MEMTIER_HGRM: &str = include_str!("../data/memtier/hdr/run_FULL_RUN_1.hgrm");

/// Checks the `.hgrm` of `op` in run `run` against memtier's layout line by
/// line (HdrHistogram_c's log format 1.2): the title, the format version,
/// the start time in seconds and as a GMT date, the column names, and one
/// line `start,end,max.0,histogram` for the whole run, whose histogram is
/// exactly the run's latencies. Nothing else.
fn check_whole_run_log(dir: &TempDir, run: u32, op: &str, section: &Value, row: &Value) {
    let path = path_of(dir, run, op, "hgrm");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let what = format!("RUN{run} {op} whole-run log");
    let lines: Vec<&str> = text.lines().collect();
    let memtier: Vec<&str> = MEMTIER_HGRM.lines().collect();
    assert_eq!(lines.len(), memtier.len(), "{what}: lines\n{text}");
    assert!(text.ends_with('\n'), "{what}: no final newline");
    let title = if op == "TOTALS" { "Full Run" } else { op };
    assert_eq!(
        lines[0],
        format!("#[{title} command HDR latency histogram results]")
    );
    assert_eq!(lines[1], memtier[1], "{what}: version line");
    assert_eq!(lines[3], memtier[3], "{what}: column names");

    // #[StartTime: 1796105216.445 (seconds since epoch), Tue Dec 06:06:56 GMT 2026]
    let start_line = lines[2]
        .strip_prefix("#[StartTime: ")
        .and_then(|l| l.strip_suffix(']'))
        .unwrap_or_else(|| panic!("{what}: {:?}", lines[2]));
    let (seconds, date) = start_line
        .split_once(" (seconds since epoch), ")
        .unwrap_or_else(|| panic!("{what}: {:?}", lines[2]));
    let start: f64 = seconds.parse().unwrap();
    let start_ms = section["Runtime"]["Start time"].as_u64().unwrap() as f64;
    assert!(
        (start * 1000.0 - start_ms).abs() < 2.0,
        "{what}: starts at {start} s, run at {start_ms} ms"
    );
    assert_eq!(
        seconds.split_once('.').unwrap().1.len(),
        3,
        "{what}: {seconds}"
    );
    // strftime's "%a %b %X %Z %Y" of gmtime: weekday, month, time, GMT, year.
    let words: Vec<&str> = date.split(' ').collect();
    assert_eq!(words.len(), 5, "{what}: date {date:?}");
    assert!(
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(&words[0]),
        "{what}: {date}"
    );
    assert!(
        [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
        ]
        .contains(&words[1]),
        "{what}: {date}"
    );
    // As HdrHistogram_c's header, the date is of the start's whole seconds
    // and the number is rounded to the millisecond: a start in the last
    // half millisecond of a second prints as the next second's `.000`, its
    // date still the second before. Only then may the date be a second
    // behind the number.
    let clock = |secs: u64| {
        let day_secs = secs % 86_400;
        format!(
            "{:02}:{:02}:{:02}",
            day_secs / 3600,
            day_secs / 60 % 60,
            day_secs % 60
        )
    };
    let whole = start as u64;
    let rounded_up = seconds.ends_with(".000");
    assert!(
        words[2] == clock(whole) || (rounded_up && words[2] == clock(whole - 1)),
        "{what}: {date} for a start of {seconds} s"
    );
    assert_eq!(words[3], "GMT", "{what}: {date}");
    let year: u32 = words[4].parse().unwrap();
    assert!((2024..=2200).contains(&year), "{what}: {date}");

    // One interval: absolute start and end, the max in µs with ".0", then
    // the histogram.
    let fields: Vec<&str> = lines[4].split(',').collect();
    assert_eq!(fields.len(), 4, "{what}: {:?}", lines[4]);
    assert_eq!(
        fields[0], seconds,
        "{what}: the interval starts at StartTime"
    );
    let end: f64 = fields[1].parse().unwrap();
    let total_ms = section["Runtime"]["Total duration"].as_u64().unwrap() as f64;
    assert!(
        ((end - start) * 1000.0 - total_ms).abs() < 2.0,
        "{what}: ends {} ms after its start, the run lasted {total_ms} ms",
        (end - start) * 1000.0
    );
    let h = decode_histogram(fields[3]);
    assert_eq!(fields[2], format!("{}.0", h.max()), "{what}: Interval_Max");
    assert_eq!(
        recorded(&h),
        recorded(&row_histogram(row)),
        "{what}: latencies"
    );
}

/// Checks every file of run `run` against its JSON section.
fn check_run(dir: &TempDir, run: u32, section: &Value) -> u64 {
    let mut intervals = 0;
    for (op, row, _) in OPS {
        let row = &section[row];
        assert!(
            row["Count"].as_u64().unwrap() > 0,
            "RUN{run} {op}: nothing measured"
        );
        intervals = check_interval_log(dir, run, op, row);
        check_distribution(dir, run, op, row);
        check_whole_run_log(dir, run, op, section, row);
    }
    intervals
}

#[test]
fn each_measured_run_of_a_closed_loop_gets_an_interval_log_and_a_distribution_per_op() {
    let dir = TempDir::new("hdr-closed");
    let doc = run_with_hdr_files("-x 2 -n 300 -t 1 -c 2 --ratio 1:1", &dir);
    assert_eq!(file_names(&dir.0), expected_names(2));
    for run in 1..=2 {
        let section = &doc[format!("RUN #{run} RESULTS")];
        // 2 connections × 300 requests, half of them SETs.
        assert_eq!(section["Totals"]["Count"], 600, "RUN #{run}");
        assert_eq!(section["Sets"]["Count"], 300, "RUN #{run}");
        check_run(&dir, run, section);
    }
}

#[test]
fn an_open_loop_run_logs_its_response_times_second_by_second() {
    let dir = TempDir::new("hdr-rate");
    let doc = run_with_hdr_files(
        "--rate 1000 --test-time 2 -t 1 -c 2 --ratio 1:1 --allow-invalid",
        &dir,
    );
    assert_eq!(file_names(&dir.0), expected_names(1));
    let section = &doc["ALL STATS"];
    let intervals = check_run(&dir, 1, section);
    // A 2 s run spans at least seconds 0 and 1, like its Time-Serie.
    let seconds = section["Totals"]["Time-Serie"].as_object().unwrap().len() as u64;
    assert!(intervals >= 2, "{intervals} intervals in a 2 s run");
    assert_eq!(intervals, seconds, "intervals vs Time-Serie seconds");
}
