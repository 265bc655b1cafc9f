//! `kvbench suite` against real redis-servers: every test's count equals the
//! server's `INFO commandstats` calls (LRANGE's preparation apart), LRANGE_600
//! replies are 600-element arrays, MSET writes 10 distinct keys per call,
//! PING_INLINE goes inline, `--csv` has redis-benchmark's header and titles,
//! a persistence comparison prints the notes' ratio column, `-a --user`
//! authenticate, `-l` loops until interrupted, and mistakes exit 2 before any
//! connection. Refused requests and the rows that show them are in
//! `suite/refusals.rs`; redis-benchmark's other flags (a command after the
//! flags, `-x`, `-3`, `-k 0`, `-I`, `-e`, `--precision`, valkey-benchmark's)
//! in `suite/redis_benchmark.rs`, TLS and `--cluster` in `suite/rb_connect.rs`.

mod rb_connect;
mod redis_benchmark;
mod refusals;
mod server_gone;

use std::collections::HashMap;
use std::process::{Command, Output};

use crate::common;
use crate::common::compare::csv_fields;
use crate::common::{
    Redis, TempDir, assert_success, info_u64, parse_commandstats, pipeline, read_json,
};
use kvbench::protocol::value::Value as Reply;
use serde_json::Value;

fn suite(port: u16, args: &str, extra: &[&str]) -> Output {
    let mut full = vec!["suite", "-p"];
    let port = port.to_string();
    full.push(&port);
    full.extend(args.split_whitespace());
    full.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(&full)
        .env_remove("KVBENCH_AUTH")
        .output()
        .unwrap()
}

/// Runs the suite with a JSON report and returns its `suite.tests`.
fn suite_json(redis: &Redis, args: &str, dir: &TempDir, name: &str) -> (Vec<Value>, Output) {
    let path = dir.path(name);
    let out = suite(
        redis.port,
        args,
        &["--json-out-file", path.to_str().unwrap()],
    );
    assert_success(&out, args);
    let doc = read_json(&path);
    assert_eq!(doc["kvbench"]["complete"], true, "{}", doc["kvbench"]);
    (doc["suite"]["tests"].as_array().unwrap().clone(), out)
}

/// The test's one command row of `kvbench.totals`.
fn totals(test: &Value) -> &Value {
    let totals = test["report"]["kvbench"]["totals"].as_object().unwrap();
    let rows: Vec<&Value> = totals.values().collect();
    assert_eq!(rows.len(), 1, "{totals:?}");
    rows[0]
}

/// `calls=` of `cmdstat_<command>` in a report's commandstats snapshot.
fn phase_calls(stats: &Value, command: &str) -> u64 {
    stats[format!("cmdstat_{command}")]
        .as_str()
        .and_then(|v| v.split(',').find_map(|f| f.strip_prefix("calls=")))
        .map_or(0, |n| n.parse().unwrap())
}

fn commandstats(redis: &Redis) -> HashMap<String, (u64, u64)> {
    let text = String::from_utf8(redis.command(&["INFO", "commandstats"])).unwrap();
    parse_commandstats(&text)
}

#[test]
fn every_tests_count_equals_the_servers_calls_with_the_preparation_apart() {
    let redis = Redis::start();
    let dir = TempDir::new("suite-counts");
    redis.reset_stats();
    let (tests, out) = suite_json(
        &redis,
        "-t ping,set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange,mset,xadd -n 200 -c 4 -r 1000",
        &dir,
        "all.json",
    );
    let names: Vec<&str> = tests.iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 21, "{names:?}");
    assert_eq!(names[14], "LPUSH (needed to benchmark LRANGE)");
    // What kvbench counted, summed per command the server counts it under.
    let mut counted: HashMap<String, u64> = HashMap::new();
    for t in &tests {
        let row = totals(t);
        let command = row["command"].as_str().unwrap().to_ascii_lowercase();
        let preparation = t["preparation"].as_bool().unwrap();
        let expected = if preparation { 600 } else { 200 };
        assert_eq!(row["count"], expected, "{}", t["test"]);
        assert_eq!(row["errors"], 0, "{}", t["test"]);
        *counted.entry(command.clone()).or_default() += row["count"].as_u64().unwrap();
        // The server's own calls during the test's phase, from the report's
        // INFO commandstats before and after it.
        let server = &t["report"]["kvbench"]["runs"][0]["server"];
        let calls = |when: &str| phase_calls(&server[when]["commandstats"], &command);
        assert_eq!(
            calls("info_after") - calls("info_before"),
            expected,
            "{}",
            t["test"]
        );
        let kinds = common::warning_kinds(&t["report"]);
        assert!(
            !kinds.contains(&"count_mismatch"),
            "{}: {kinds:?}",
            t["test"]
        );
    }
    let server = commandstats(&redis);
    for (command, count) in &counted {
        let calls = server.get(command).map_or(0, |c| c.0);
        if command == "ping" {
            // Each connection is checked with a PING before a test's phase
            // starts: at most the 4 connections and 2 control ones per step.
            let extra = calls - count;
            assert!(
                extra > 0 && extra <= 21 * 6,
                "cmdstat_ping {calls}, counted {count}"
            );
        } else {
            assert_eq!(calls, *count, "cmdstat_{command}");
        }
    }
    // Both PINGs are cmdstat_ping, the preparation's LPUSH is cmdstat_lpush.
    assert_eq!(counted["ping"], 400);
    assert_eq!(counted["lpush"], 800);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("without -r"), "{stderr}");
}

#[test]
fn lrange_600_replies_are_600_element_arrays_and_ping_inline_is_inline() {
    let redis = Redis::start();
    let dir = TempDir::new("suite-lrange");
    let (tests, _) = suite_json(
        &redis,
        "-t lrange_600,ping -n 100 -c 2 -d 3",
        &dir,
        "l.json",
    );
    let by_name = |n: &str| tests.iter().find(|t| t["test"] == n).unwrap();
    let lrange = totals(by_name("LRANGE_600"));
    assert_eq!(lrange["count"], 100);
    // `*600\r\n`, then 600 times `$3\r\nxxx\r\n`: each reply counted whole.
    assert_eq!(
        lrange["bytes_rx"],
        100 * (6 + 600 * (4 + 3 + 2)),
        "{lrange}"
    );
    assert_eq!(
        pipeline(redis.port, &[["LLEN", "mylist"]])
            .remove(0)
            .integer(),
        Some(600)
    );
    // `PING\r\n` inline, `*1\r\n$4\r\nPING\r\n` as an array.
    assert_eq!(totals(by_name("PING_INLINE"))["bytes_tx"], 100 * 6);
    assert_eq!(totals(by_name("PING_MBULK"))["bytes_tx"], 100 * 14);
}

#[test]
fn mset_writes_ten_distinct_keys_per_call() {
    let redis = Redis::start();
    let dir = TempDir::new("suite-mset");
    redis.reset_stats();
    // 1000 draws below 10^12: a repeated key has odds of about 5e-7.
    suite_json(
        &redis,
        "-t mset -n 100 -c 2 -r 1000000000000",
        &dir,
        "m.json",
    );
    assert_eq!(redis.calls("mset"), 100);
    assert_eq!(redis.dbsize(), 1000);
    let keys = match pipeline(redis.port, &[["KEYS", "*"]]).remove(0) {
        Reply::Array(items) => items,
        other => panic!("KEYS answered {other:?}"),
    };
    for k in keys {
        let k = k.text().unwrap();
        let digits = k.strip_prefix("key:").unwrap_or_else(|| panic!("{k}"));
        assert!(
            digits.len() == 12 && digits.bytes().all(|b| b.is_ascii_digit()),
            "{k}"
        );
    }
}

#[test]
fn without_r_every_test_hits_one_key_and_a_warning_says_so() {
    let redis = Redis::start();
    let out = suite(redis.port, "-t set,incr -n 50 -c 1", &[]);
    assert_success(&out, "suite without -r");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("without -r") && stderr.contains("-r 100000"),
        "{stderr}"
    );
    assert_eq!(redis.dbsize(), 2);
    assert_eq!(redis.command(&["EXISTS", "key:__rand_int__"]), b"1");
    assert_eq!(redis.command(&["GET", "counter:__rand_int__"]), b"50");
}

#[test]
fn csv_has_redis_benchmarks_header_and_titles() {
    let redis = Redis::start();
    let out = suite(
        redis.port,
        "-t ping_inline,set,get,lrange_100 -n 200 -c 2 -r 100 --csv",
        &[],
    );
    assert_success(&out, "--csv");
    let reference = include_str!("../data/redis-benchmark-suite.csv");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), reference.lines().next());
    let titles: Vec<String> = lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').map(|f| f.trim_matches('"')).collect();
            assert_eq!(fields.len(), 8, "{line}");
            let v: Vec<f64> = fields[1..].iter().map(|f| f.parse().unwrap()).collect();
            let (rps, avg, min, p50, p95, p99, max) = (v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
            assert!(rps > 0.0 && rps < 1e8, "{line}");
            assert!(
                min <= p50 && p50 <= p95 && p95 <= p99 && p99 <= max,
                "{line}"
            );
            assert!(min <= avg && avg <= max && max < 10_000.0, "{line}");
            fields[0].to_string()
        })
        .collect();
    assert_eq!(
        titles,
        [
            "PING_INLINE",
            "SET",
            "GET",
            "LPUSH (needed to benchmark LRANGE)",
            "LRANGE_100 (first 100 elements)"
        ]
    );
    for t in &titles {
        assert!(
            reference.contains(&format!("\"{t}\"")),
            "{t} is not a reference title"
        );
    }
}

#[test]
fn q_prints_one_line_per_test_as_redis_benchmark() {
    let redis = Redis::start();
    let out = suite(redis.port, "-t set,get -n 100 -c 2 -r 10 -q", &[]);
    assert_success(&out, "-q");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    for (line, title) in lines.iter().zip(["SET", "GET"]) {
        let rest = line.strip_prefix(&format!("{title}: ")).unwrap();
        let (rps, p50) = rest.split_once(" requests per second, p50=").unwrap();
        assert!(rps.parse::<f64>().unwrap() > 0.0);
        let p50: f64 = p50.strip_suffix(" msec").unwrap().parse().unwrap();
        assert!(p50 > 0.0 && p50 < 10_000.0, "{line}");
    }
}

#[test]
fn two_servers_compare_in_the_notes_columns_with_the_ratio() {
    let always = Redis::start_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let off = Redis::start();
    let dir = TempDir::new("suite-aof");
    let args = "-t set,incr,lpush,mset -n 300 -c 5 -r 1000";
    suite_json(&off, args, &dir, "aof-off.json");
    suite_json(&always, args, &dir, "aof-always.json");
    let (a, b) = (dir.path("aof-off.json"), dir.path("aof-always.json"));
    let compare = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
            .args(["compare", a.to_str().unwrap(), b.to_str().unwrap()])
            .args(["--layout", "columns", "--format", format])
            .output()
            .unwrap();
        assert_success(&out, format);
        String::from_utf8(out.stdout).unwrap()
    };
    let text = compare("text");
    assert!(text.starts_with("ops/sec"), "{text}");
    let tests = ["SET", "INCR", "LPUSH", "MSET"];
    for t in tests {
        assert!(
            text.lines().any(|l| l.starts_with(t) && l.contains("1 : ")),
            "{t}\n{text}"
        );
    }
    // CSV: metric, test, a figure per file, the ratio of the second to the first.
    let csv = compare("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("metric,op,aof-off.json,aof-always.json,ratio")
    );
    let mut rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert_eq!(rows.len(), 3 * tests.len() + tests.len(), "{csv}");
    // Last, a verdict row per test, the first file the baseline.
    let verdicts = rows.split_off(3 * tests.len());
    for (r, t) in verdicts.iter().zip(tests) {
        assert_eq!(r[..3], ["verdict", t, "baseline"], "{r:?}");
        assert!(!r[3].is_empty() && r[4].is_empty(), "{r:?}");
    }
    for r in &rows {
        assert_eq!(r.len(), 5, "{r:?}");
        let (first, second): (f64, f64) = (r[2].parse().unwrap(), r[3].parse().unwrap());
        assert!(first > 0.0 && second > 0.0, "{r:?}");
        assert_eq!(r[4], format!("1 : {:.2}", second / first), "{r:?}");
    }
    let ops: Vec<&str> = rows
        .iter()
        .filter(|r| r[0] == "ops_per_sec")
        .map(|r| r[1].as_str())
        .collect();
    assert_eq!(ops, tests);
    // Markdown: three tables, each line with the same number of cells.
    let md = compare("md");
    let mut tables: Vec<&str> = md.split("\n\n").collect();
    // Three tables, the verdicts, then compare's files block (docs/compare.md).
    assert_eq!(tables.len(), 3 + 2, "{md}");
    assert!(tables.pop().unwrap().starts_with("| files |"), "{md}");
    let verdicts = tables.pop().unwrap();
    assert!(
        verdicts.starts_with("| vs baseline | aof-off.json | aof-always.json |"),
        "{md}"
    );
    assert_eq!(verdicts.lines().count(), 2 + tests.len(), "{verdicts}");
    for table in tables {
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 2 + tests.len(), "{table}");
        for l in &lines {
            assert!(l.starts_with("| ") && l.ends_with(" |"), "{l}");
            assert_eq!(l.matches(" | ").count(), 3, "{l}");
        }
    }
}

#[test]
fn mistakes_exit_2_naming_the_flag_before_any_connection() {
    let redis = Redis::start();
    for (args, flag, fix) in [
        ("-t set,hgetall", "-t", "choose from"),
        ("-k 2", "-k", "-k 1"),
        ("-c 10 --threads 3", "-c", "-c 9"),
        ("-r 0", "-r", "-r 100000"),
        ("--no-such-flag", "--no-such-flag", "kvbench"),
    ] {
        let before = info_u64(redis.port, "stats", "total_connections_received");
        let out = suite(redis.port, args, &[]);
        let after = info_u64(redis.port, "stats", "total_connections_received");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(fix),
            "{args}: {stderr}"
        );
        assert_eq!(after, before + 1, "{args}: kvbench connected: {stderr}");
    }
}

#[test]
fn help_lists_the_subcommands() {
    let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .arg("--help")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("suite") && stdout.contains("compare"),
        "{stdout}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "--help"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "-h, --host",
        "-c, --clients",
        "-r, --keyspacelen",
        "--csv",
        "--json-out-file",
    ] {
        assert!(stdout.contains(flag), "{flag}\n{stdout}");
    }
}

#[test]
fn a_password_and_user_reach_the_server_as_redis_benchmarks_do() {
    let redis = Redis::start_protected("s3cret", Some("bench"));
    let out = suite(redis.port, "-t set -n 20 -c 1 -a s3cret --user bench", &[]);
    assert_success(&out, "-a --user");
    let out = suite(redis.port, "-t set -n 20 -c 1 -a wrong --user bench", &[]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn l_loops_until_interrupted_and_keeps_what_it_printed() {
    let redis = Redis::start();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args([
            "suite",
            "-p",
            &redis.port.to_string(),
            "-t",
            "ping_mbulk",
            "-n",
            "50",
            "-c",
            "1",
            "-l",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Three rounds of 50 PINGs have reached the server: it loops.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while commandstats(&redis).get("ping").map_or(0, |c| c.0) < 150 {
        assert!(std::time::Instant::now() < give_up, "no third round");
        assert!(child.try_wait().unwrap().is_none(), "-l stopped by itself");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows = stdout
        .lines()
        .filter(|l| l.starts_with("PING_MBULK"))
        .count();
    assert!(rows >= 2, "{stdout}");
}

/// With stdout and stderr on one stream (a terminal shows them so), the
/// table's rows come together and the warnings after them; a short test's
/// advice names what the suite takes (`-n`), not the benchmark's
/// `--test-time`.
#[test]
fn warnings_come_after_the_table_and_name_the_suites_flags() {
    let redis = Redis::start();
    let port = redis.port.to_string();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" 2>&1")
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args([
            "suite",
            "-p",
            &port,
            "-t",
            "ping,set,get",
            "-n",
            "300",
            "-c",
            "2",
        ])
        .args(["-r", "100"])
        .env_remove("KVBENCH_AUTH")
        .output()
        .unwrap();
    assert_success(&out, "suite");
    let both = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = both.lines().collect();
    let row = |title: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(&format!("{title} ")))
            .unwrap_or_else(|| panic!("no {title} row:\n{both}"))
    };
    let last_row = row("GET").max(row("SET")).max(row("PING_INLINE"));
    let first_row = row("PING_INLINE");
    let inside = &lines[first_row..=last_row];
    assert!(
        !inside.iter().any(|l| l.contains("warning:")),
        "a warning between the rows:\n{both}"
    );
    let short = lines
        .iter()
        .find(|l| l.contains("tests under 10 s"))
        .unwrap_or_else(|| panic!("no short-test warning:\n{both}"));
    assert!(short.contains("raise -n"), "{short}");
    assert!(!both.contains("--test-time"), "{both}");
    // -r 100 is the key range the suite's tests name, not memtier's default
    // 10 million keys: too few keys, said with the suite's flag.
    let keys = lines
        .iter()
        .find(|l| l.contains("the key range holds only"))
        .unwrap_or_else(|| panic!("no key-range warning:\n{both}"));
    assert!(
        keys.contains("only 100 keys") && keys.contains("raise -r"),
        "{keys}"
    );
    assert!(!both.contains("--key-m"), "{both}");
}
