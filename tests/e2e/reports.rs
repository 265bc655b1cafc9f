//! Reports tell the truth about what was measured: compressed histograms, best,
//! worst and aggregated runs, per-second series, `-o`, `--print-percentiles`,
//! and `--config` files; tests/e2e/secrets.rs covers passwords.

use std::sync::OnceLock;

use crate::common::{Redis, Report, TempDir, f, kvbench_json, row_histogram};
use serde_json::Value;

/// The op rows of every section.
const OPS: [&str; 4] = ["Sets", "Gets", "Waits", "Totals"];

/// A latency in µs as the JSON report writes it: ms rounded to 3 places.
fn ms(us: u64) -> f64 {
    let ms = us as f64 / 1000.0;
    (ms * 1000.0).round() / 1000.0
}

/// Every row's histogram decodes, holds `Count` values, and yields the row's
/// min, max and percentiles.
fn assert_histograms_match(title: &str, section: &Value) {
    for op in OPS {
        let row = &section[op];
        let h = row_histogram(row);
        let count = row["Count"].as_u64().unwrap();
        assert_eq!(h.len(), count, "{title} / {op}: histogram vs Count");
        if count == 0 {
            continue;
        }
        assert_eq!(f(&row["Min Latency"]), ms(h.min()), "{title} / {op}");
        assert_eq!(f(&row["Max Latency"]), ms(h.max()), "{title} / {op}");
        for (key, value) in row["Percentile Latencies"].as_object().unwrap() {
            let Some(p) = key.strip_prefix('p') else {
                continue;
            };
            let p: f64 = p.parse().unwrap();
            assert_eq!(
                f(value),
                ms(h.value_at_percentile(p)),
                "{title} / {op} / {key}"
            );
        }
    }
    assert_eq!(
        section["Totals"]["Count"].as_u64().unwrap(),
        section["Sets"]["Count"].as_u64().unwrap() + section["Gets"]["Count"].as_u64().unwrap(),
        "{title}: Totals is not Sets + Gets"
    );
}

/// The keys of a JSON object, in order.
fn keys(object: &Value) -> Vec<&str> {
    let map = object
        .as_object()
        .unwrap_or_else(|| panic!("{object} is not an object"));
    map.keys().map(String::as_str).collect()
}

/// The sum of a row's per-second counts.
fn series_sum(row: &Value) -> u64 {
    row["Time-Serie"]
        .as_object()
        .unwrap()
        .values()
        .map(|s| s["Count"].as_u64().unwrap())
        .sum()
}

/// A multi-run report shared by several tests (its load runs once), with the
/// server's SET and GET calls after it.
struct MultiRun {
    doc: Value,
    server_set: u64,
    server_get: u64,
}

fn multi_run() -> &'static MultiRun {
    static RUN: OnceLock<MultiRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let redis = Redis::start();
        let Report { doc, .. } = redis.kvbench_json(
            "-t 1 -c 2 --ratio 1:2 --key-maximum 1000 --warmup-time 0.5 --test-time 1.5 -x 3",
        );
        MultiRun {
            doc,
            server_set: redis.calls("set"),
            server_get: redis.calls("get"),
        }
    })
}

const RUN_TITLES: [&str; 3] = ["RUN #1 RESULTS", "RUN #2 RESULTS", "RUN #3 RESULTS"];
const AGGREGATED: &str = "AGGREGATED AVERAGE RESULTS (3 runs)";

#[test]
fn a_multi_run_report_has_memtiers_sections_in_order() {
    let doc = &multi_run().doc;
    assert_eq!(
        keys(doc),
        [
            "configuration",
            "run information",
            RUN_TITLES[0],
            RUN_TITLES[1],
            RUN_TITLES[2],
            "BEST RUN RESULTS",
            "WORST RUN RESULTS",
            AGGREGATED,
            "kvbench"
        ]
    );
    assert_eq!(doc["kvbench"]["complete"], true);
    assert_eq!(doc["kvbench"]["runs_completed"], 3);
}

#[test]
fn compressed_histograms_decode_to_the_reported_counts_in_every_section() {
    let doc = &multi_run().doc;
    for (title, section) in doc.as_object().unwrap() {
        if title.contains("RESULTS") {
            assert_histograms_match(title, section);
        }
    }
    assert_histograms_match("warm-up", &doc["kvbench"]["warmup"]["ALL STATS"]);
    // Default percentiles: 50, 99, 99.9.
    let keys = keys(&doc[RUN_TITLES[0]]["Totals"]["Percentile Latencies"]);
    assert_eq!(keys, ["p50.00", "p99.00", "p99.90", "Histogram log format"]);
}

#[test]
fn best_and_worst_are_the_fastest_and_slowest_runs() {
    let doc = &multi_run().doc;
    let rate = |title: &str| f(&doc[title]["Totals"]["Ops/sec"]);
    let rates: Vec<f64> = RUN_TITLES.iter().map(|t| rate(t)).collect();
    let max = rates.iter().copied().fold(f64::MIN, f64::max);
    let min = rates.iter().copied().fold(f64::MAX, f64::min);
    let (best, worst) = (rate("BEST RUN RESULTS"), rate("WORST RUN RESULTS"));
    assert_eq!(best, max, "best {best} is not the fastest of {rates:?}");
    assert_eq!(worst, min, "worst {worst} is not the slowest of {rates:?}");
    assert!(best >= worst);
    if max > min {
        // Different runs: BEST and WORST are two different runs, whole.
        assert_ne!(doc["BEST RUN RESULTS"], doc["WORST RUN RESULTS"]);
    }
    let fastest = RUN_TITLES[rates.iter().position(|r| *r == max).unwrap()];
    let slowest = RUN_TITLES[rates.iter().position(|r| *r == min).unwrap()];
    for op in OPS {
        assert_eq!(
            doc["BEST RUN RESULTS"][op]["Count"],
            doc[fastest][op]["Count"]
        );
        assert_eq!(
            doc["WORST RUN RESULTS"][op]["Count"],
            doc[slowest][op]["Count"]
        );
    }
    // The aggregate's rate is a duration-weighted mean of the runs' rates.
    let agg = rate(AGGREGATED);
    assert!(
        agg >= min - 0.01 && agg <= max + 0.01,
        "aggregate {agg} outside {rates:?}"
    );
}

#[test]
fn the_aggregate_counts_every_run_and_the_server_saw_runs_plus_warmup() {
    let run = multi_run();
    let doc = &run.doc;
    for op in OPS {
        let sum: u64 = RUN_TITLES
            .iter()
            .map(|t| doc[t][op]["Count"].as_u64().unwrap())
            .sum();
        assert_eq!(doc[AGGREGATED][op]["Count"], sum, "{op}");
    }
    let kv = &doc["kvbench"];
    assert_eq!(
        kv["totals"]["SET"]["count"],
        doc[AGGREGATED]["Sets"]["Count"]
    );
    assert_eq!(
        kv["totals"]["GET"]["count"],
        doc[AGGREGATED]["Gets"]["Count"]
    );
    let warm = &kv["warmup"]["totals"];
    let warm_set = warm["SET"]["count"].as_u64().unwrap();
    let warm_get = warm["GET"]["count"].as_u64().unwrap();
    assert!(warm_set > 0 && warm_get > 0);
    let runs_set = doc[AGGREGATED]["Sets"]["Count"].as_u64().unwrap();
    let runs_get = doc[AGGREGATED]["Gets"]["Count"].as_u64().unwrap();
    assert_eq!(run.server_set, runs_set + warm_set);
    assert_eq!(run.server_get, runs_get + warm_get);
}

#[test]
fn per_second_series_add_up_to_the_section_counts() {
    let doc = &multi_run().doc;
    let mut sections: Vec<(&str, &Value)> = RUN_TITLES
        .iter()
        .chain(&["BEST RUN RESULTS", "WORST RUN RESULTS"])
        .map(|t| (*t, &doc[t]))
        .collect();
    sections.push(("warm-up", &doc["kvbench"]["warmup"]["ALL STATS"]));
    for (title, section) in sections {
        for op in OPS {
            let row = &section[op];
            assert_eq!(
                series_sum(row),
                row["Count"].as_u64().unwrap(),
                "{title} / {op}"
            );
        }
    }
    // A 1.5 s run spans seconds 0 and 1, numbered from 0 without gaps.
    for title in RUN_TITLES {
        let seconds = keys(&doc[title]["Totals"]["Time-Serie"]);
        assert!(seconds.len() >= 2, "{title}: {seconds:?}");
        for (i, s) in seconds.iter().enumerate() {
            assert_eq!(*s, i.to_string(), "{title}: {seconds:?}");
        }
    }
}

#[test]
fn out_file_receives_the_text_report_and_stdout_stays_empty() {
    let redis = Redis::start();
    let dir = TempDir::new("reports");
    let text = dir.path("report.txt");
    let Report { doc, stdout, .. } = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 100 --ratio 1:1 --key-maximum 50",
        &["-o", text.to_str().unwrap()],
    );
    assert!(stdout.is_empty(), "stdout: {stdout}");
    let report = std::fs::read_to_string(&text).unwrap();
    for needle in [
        "ALL STATS",
        "Sets",
        "Gets",
        "Totals",
        "GET hit rate:",
        "Seed:",
    ] {
        assert!(report.contains(needle), "no {needle:?} in\n{report}");
    }
    // The file's figures are this run's: hits and misses as in the JSON, seed too.
    let get = &doc["kvbench"]["totals"]["GET"];
    let expected = format!("({} hits, {} misses)", get["hits"], get["misses"]);
    assert!(report.contains(&expected), "no {expected:?} in\n{report}");
    assert!(report.contains(&format!("Seed: {}", doc["kvbench"]["seed"])));
    assert_eq!(
        get["hits"].as_u64().unwrap() + get["misses"].as_u64().unwrap(),
        100
    );
    assert_eq!(redis.calls("get"), 100);
}

/// The whitespace-separated fields of the text report's `name` row in its first table.
fn text_row<'a>(report: &'a str, name: &str) -> Vec<&'a str> {
    report
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} row in\n{report}"))
        .split_whitespace()
        .collect()
}

#[test]
fn print_percentiles_gives_one_column_and_one_json_key_per_entry() {
    let redis = Redis::start();
    let Report {
        doc,
        stdout: report,
        ..
    } = redis.kvbench_json(
        "-t 1 -c 2 -n 300 --ratio 1:1 --key-maximum 50 --print-percentiles 50,90,99.99",
    );
    let header = report.lines().find(|l| l.starts_with("Type")).unwrap();
    for column in ["p50 Latency", "p90 Latency", "p99.99 Latency"] {
        assert!(header.contains(column), "no {column:?} in {header:?}");
    }
    for absent in ["p99 Latency", "p99.9 Latency"] {
        assert!(!header.contains(absent), "{absent:?} in {header:?}");
    }
    assert_eq!(header.matches(" Latency").count(), 4, "{header:?}");

    let section = &doc["ALL STATS"];
    assert_histograms_match("ALL STATS", section);
    for op in OPS {
        // Type, Ops/sec, Hits/sec, Misses/sec, Avg. Latency, 3 percentiles, KB/sec.
        let fields = text_row(&report, op);
        assert_eq!(fields.len(), 9, "{op} row: {fields:?}");
        let pct = &section[op]["Percentile Latencies"];
        assert_eq!(
            keys(pct),
            ["p50.00", "p90.00", "p99.99", "Histogram log format"],
            "{op}"
        );
        if op == "Waits" {
            continue;
        }
        let values: Vec<f64> = ["p50.00", "p90.00", "p99.99"]
            .iter()
            .map(|k| f(&pct[k]))
            .collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "{op}: {values:?}");
        // The text columns show the same figures as the JSON keys.
        for (i, v) in values.iter().enumerate() {
            let shown: f64 = fields[5 + i].parse().unwrap();
            assert!(
                (shown - v).abs() < 1e-9,
                "{op} column {i}: {shown} vs JSON {v}"
            );
        }
    }
}

#[test]
fn distinct_percentiles_keep_distinct_json_keys() {
    let redis = Redis::start();
    let Report { doc, .. } =
        redis.kvbench_json("-t 1 -c 1 -n 50 --key-maximum 50 --print-percentiles 99.99,99.999,100");
    let mut keys = keys(&doc["ALL STATS"]["Totals"]["Percentile Latencies"]);
    keys.retain(|k| k.starts_with('p'));
    // Three percentiles asked for, three figures reported; none overwritten.
    assert_eq!(keys.len(), 3, "percentile keys {keys:?}");
}

#[test]
fn config_file_values_are_used_and_the_command_line_overrides_them() {
    let redis = Redis::start();
    let dir = TempDir::new("reports");
    let config = dir.path("bench.toml");
    std::fs::write(
        &config,
        "threads = 2\nclients = 3\nrequests = 20\nratio = \"1:0\"\nkey-prefix = \"cfg-\"\nkey-maximum = 100\n",
    )
    .unwrap();
    // The command line's -c comes first: it still wins over the file.
    let Report { doc, .. } =
        kvbench_json(redis.port, "-c 2", &["--config", config.to_str().unwrap()]);
    let c = &doc["configuration"];
    assert_eq!(c["threads"], 2, "threads from the file");
    assert_eq!(c["clients"], 2, "clients from the command line");
    assert_eq!(c["requests"], 20);
    assert_eq!(c["ratio"], "1:0");
    assert_eq!(c["key_prefix"], "cfg-");
    assert_eq!(doc["kvbench"]["config"]["connections"], 4);
    // The server agrees: 2 threads × 2 clients × 20 SETs, all under the file's prefix.
    assert_eq!(redis.calls("set"), 80);
    assert_eq!(redis.calls("get"), 0);
    let keys_with = |pattern: &str| -> u64 {
        String::from_utf8(redis.command(&["KEYS", pattern]))
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(keys_with("cfg-*") > 0);
    assert_eq!(keys_with("cfg-*"), redis.dbsize());
    assert_eq!(keys_with("memtier-*"), 0);
}
