//! `kvbench compare` judging throughput and latency against the spread the
//! files measured, on real runs (`-x 2`) and on copies of them with one
//! latency changed; files with the same name told apart; a differing server.
//! Sweeps are tests/e2e/compare_sweep.rs's.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::compare::{VERDICT, compare_ok, csv_rows};
use crate::common::{Redis, TempDir, kvbench_ok, read_json};
use serde_json::Value;

const OPS: [&str; 3] = ["Sets", "Gets", "Totals"];
/// Judged figures: the verdict's name and the section key.
const JUDGED: [(&str, &str); 4] = [
    ("ops/sec", "Ops/sec"),
    ("p50", "p50.00"),
    ("p99", "p99.00"),
    ("p99.9", "p99.90"),
];
const NO_SPREAD: &str = "no spread measured: run with -x 3 to judge";

/// Real result files written once: two 2-run files differing by
/// `--pipeline`, and a single run.
struct Files {
    dir: TempDir,
}

impl Files {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }

    fn json(&self, name: &str) -> Value {
        read_json(&self.path(name))
    }
}

fn files() -> &'static Files {
    static FILES: OnceLock<Files> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = TempDir::new("compare-latency");
        let redis = Redis::start();
        let common = "-t 1 -c 2 --key-maximum 5000 --ratio 1:1";
        for (name, args) in [
            ("base.json", "--test-time 1 -x 2"),
            ("piped.json", "--test-time 1 -x 2 --pipeline 16"),
            ("single.json", "-n 500"),
        ] {
            let json = dir.path(name);
            let mut full: Vec<&str> = common.split_whitespace().collect();
            full.extend(args.split_whitespace());
            full.extend(["--json-out-file", json.to_str().unwrap()]);
            kvbench_ok(redis.port, &full);
        }
        Files { dir }
    })
}

/// The value of figure `key` in an op row of a section.
fn figure(row: &Value, key: &str) -> f64 {
    if key == "Ops/sec" {
        row["Ops/sec"].as_f64().unwrap()
    } else {
        row["Percentile Latencies"][key].as_f64().unwrap()
    }
}

/// The sections of `doc` whose title satisfies `pick`.
fn sections(doc: &Value, pick: impl Fn(&str) -> bool) -> Vec<&Value> {
    doc.as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| pick(k))
        .map(|(_, v)| v)
        .collect()
}

/// Max/min of a figure over the file's `RUN #n RESULTS` sections.
fn run_spread(doc: &Value, op: &str, key: &str) -> f64 {
    let values: Vec<f64> = sections(doc, |k| k.starts_with("RUN #"))
        .iter()
        .map(|s| figure(&s[op], key))
        .collect();
    assert!(values.len() >= 2, "{op} {key}: {values:?}");
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    max / min
}

fn aggregate(doc: &Value) -> &Value {
    sections(doc, |k| k.starts_with("AGGREGATED"))[0]
}

/// The figures (by verdict name) that should be named as moved: ratio, as a
/// factor either way, beyond the larger spread of the two files.
fn expected_moves(base: &Value, other: &Value, op: &str) -> Vec<&'static str> {
    let mut moved = Vec::new();
    for (name, key) in JUDGED {
        let r = figure(&aggregate(other)[op], key) / figure(&aggregate(base)[op], key);
        let spread = run_spread(base, op, key).max(run_spread(other, op, key));
        if r.max(1.0 / r) > spread {
            moved.push(name);
        }
    }
    moved.sort_unstable();
    moved
}

/// The figures a verdict names as moved.
fn named_moves(verdict: &str) -> Vec<&str> {
    if verdict.starts_with("noise") {
        return Vec::new();
    }
    let mut names: Vec<&str> = verdict
        .split("; ")
        .map(|m| {
            // "p99 +12.0 % (beyond 8.1 % spread)", or with the factor of a
            // large move: "p99.9 -39.4 % (÷1.65, beyond 57.2 % spread)".
            assert!(
                m.contains(" (beyond ") || m.contains(", beyond "),
                "{verdict}"
            );
            m.split(' ').next().unwrap()
        })
        .collect();
    names.sort_unstable();
    names
}

#[test]
fn the_verdict_names_every_figure_beyond_its_spread_on_real_runs() {
    let f = files();
    let csv = compare_ok(&[&f.arg("base.json"), &f.arg("piped.json"), "--format", "csv"]);
    let (base, piped) = (f.json("base.json"), f.json("piped.json"));
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 2 * OPS.len(), "{csv}");
    for op in OPS {
        let row = rows
            .iter()
            .find(|r| r[0] == op && r[1] == "piped.json")
            .unwrap();
        let verdict = &row[VERDICT];
        assert_eq!(
            named_moves(verdict),
            expected_moves(&base, &piped, op),
            "{op}: {verdict}"
        );
    }
}

/// Writes a copy of `source` with `edit` applied to it, as `name`.
fn edited(source: &str, name: &str, edit: impl FnOnce(&mut Value)) -> String {
    let f = files();
    let mut doc = f.json(source);
    edit(&mut doc);
    std::fs::write(f.path(name), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    f.arg(name)
}

/// Sets p99 of every op row of every section: the aggregate's p99 times
/// `factor`, and `RUN #2`'s 4 % above `RUN #1`'s, so the p99 spread is
/// exactly 1.04.
fn set_p99(doc: &mut Value, factor: f64) {
    let titles: Vec<String> = doc.as_object().unwrap().keys().cloned().collect();
    for op in OPS {
        let agg = figure(&aggregate(doc)[op], "p99.00");
        for title in &titles {
            let p99 = &mut doc[title.as_str()][op]["Percentile Latencies"]["p99.00"];
            if p99.is_null() {
                continue;
            }
            let run2 = if title.starts_with("RUN #2") {
                1.04
            } else {
                1.0
            };
            *p99 = serde_json::json!(agg * factor * run2);
        }
    }
}

#[test]
fn a_p99_seven_point_nine_times_worse_at_equal_throughput_is_not_noise() {
    // One measured file with a known p99 spread, and a copy whose p99 alone is 7.9×.
    let steady = edited("base.json", "steady.json", |d| set_p99(d, 1.0));
    let slow = edited("base.json", "slow.json", |d| set_p99(d, 7.9));
    let rows = csv_rows(&compare_ok(&[&steady, &slow, "--format", "csv"]));
    for op in OPS {
        let row = rows
            .iter()
            .find(|r| r[0] == op && r[1] == "slow.json")
            .unwrap();
        assert_eq!(row[3], "1.000", "{row:?}");
        assert_eq!(row[9], "7.900", "{row:?}");
        assert_eq!(row[VERDICT], "p99 +690 % (beyond 4.0 % spread)", "{op}");
    }
    // A p99 within the spread, the rest equal: noise.
    let close = edited("base.json", "close.json", |d| set_p99(d, 1.03));
    let rows = csv_rows(&compare_ok(&[&steady, &close, "--format", "csv"]));
    for r in rows.iter().filter(|r| r[1] == "close.json") {
        assert!(r[VERDICT].starts_with("noise ("), "{r:?}");
    }
}

#[test]
fn single_runs_are_never_called_noise() {
    let f = files();
    let slow = edited("single.json", "single-slow.json", |d| {
        let p99 = &mut d["ALL STATS"]["Totals"]["Percentile Latencies"]["p99.00"];
        *p99 = serde_json::json!(p99.as_f64().unwrap() * 7.9);
    });
    let rows = csv_rows(&compare_ok(&[
        &f.arg("single.json"),
        &slow,
        "--format",
        "csv",
    ]));
    for r in rows.iter().filter(|r| r[1] == "single-slow.json") {
        assert!(r[VERDICT].starts_with(NO_SPREAD), "{r:?}");
        if r[0] == "Totals" {
            assert!(
                r[VERDICT].ends_with("(ops/sec +0.0 %, p99 +690 %)"),
                "{r:?}"
            );
        }
    }
}

#[test]
fn files_of_the_same_name_are_told_apart_and_a_different_server_is_named() {
    let f = files();
    for (dir, source) in [("x", "base.json"), ("y", "piped.json")] {
        std::fs::create_dir_all(f.path(dir)).unwrap();
        let mut doc = f.json(source);
        if dir == "y" {
            doc["kvbench"]["server"]["version"] = "99.1.0".into();
        }
        let to = Path::new(dir).join("run.json");
        std::fs::write(
            f.path(to.to_str().unwrap()),
            serde_json::to_vec(&doc).unwrap(),
        )
        .unwrap();
    }
    let (x, y) = (f.arg("x/run.json"), f.arg("y/run.json"));
    let text = compare_ok(&[&x, &y]);
    let (table, block) = text.rsplit_once("\n\n").unwrap();
    let labels: Vec<&str> = table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(labels, ["x/run.json", "y/run.json"].repeat(OPS.len()));
    let rows: Vec<Vec<&str>> = block
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["files", "x/run.json", "y/run.json"]);
    let version = f.json("base.json")["kvbench"]["server"]["version"].clone();
    assert!(rows.contains(&vec!["pipeline", "1", "16"]), "{block}");
    assert!(
        rows.contains(&vec!["server.version", version.as_str().unwrap(), "99.1.0"]),
        "{block}"
    );
    // Only what differs is listed.
    assert_eq!(rows.len(), 3 + 2, "{block}");
}
