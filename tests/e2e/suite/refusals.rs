//! The suite's share of tests/e2e/suite.rs about refused requests: ZADD
//! without `-r` sends score `0`, as redis-benchmark does, so the server
//! refuses none of it; a row whose replies were errors says so in `-q` and
//! the table (never in `--csv`, whose columns stay redis-benchmark's) with
//! one stderr line, whether the errors are all its replies or a few; and
//! each row's requests/s agrees with what the server actually executed over
//! the client's elapsed time.

use std::collections::HashMap;

use super::suite;
use crate::common::{Redis, assert_success, info_u64};

/// `cmdstat_<command>` of `INFO commandstats` as (calls, rejected_calls,
/// failed_calls); zeros for a command never called.
fn cmdstat(redis: &Redis, command: &str) -> (u64, u64, u64) {
    let text = String::from_utf8(redis.command(&["INFO", "commandstats"])).unwrap();
    let prefix = format!("cmdstat_{command}:");
    let Some(fields) = text.lines().find_map(|l| l.strip_prefix(&prefix)) else {
        return (0, 0, 0);
    };
    let field = |name: &str| -> u64 {
        fields
            .split(',')
            .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
            .map_or(0, |v| v.parse().unwrap())
    };
    (
        field("calls"),
        field("rejected_calls"),
        field("failed_calls"),
    )
}

/// Every `errorstat_<KIND>:count=N` line of `INFO errorstats`.
fn errorstats(redis: &Redis) -> Vec<String> {
    let text = String::from_utf8(redis.command(&["INFO", "errorstats"])).unwrap();
    text.lines()
        .filter(|l| l.starts_with("errorstat_"))
        .map(str::to_string)
        .collect()
}

/// A `-q` line split into its title, rate and p50, and what follows the p50.
fn quiet_line(line: &str) -> (&str, f64, &str) {
    let (title, rest) = line.split_once(": ").unwrap();
    let (rps, rest) = rest.split_once(" requests per second, p50=").unwrap();
    let (p50, tail) = rest.split_once(" msec").unwrap();
    let p50: f64 = p50.parse().unwrap();
    assert!(p50 > 0.0 && p50 < 10_000.0, "{line}");
    (title, rps.parse().unwrap(), tail)
}

#[test]
fn zadd_without_r_sends_score_zero_so_the_server_refuses_none() {
    let redis = Redis::start();
    redis.reset_stats();
    let out = suite(redis.port, "-t zadd -n 1000 -q", &[]);
    assert_success(&out, "-t zadd -n 1000 -q");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(cmdstat(&redis, "zadd"), (1000, 0, 0), "{stderr}");
    assert_eq!(errorstats(&redis), Vec::<String>::new(), "{stderr}");
    assert_eq!(
        info_u64(redis.port, "stats", "total_error_replies"),
        0,
        "{stderr}"
    );
    // Every request named the one member element:__rand_int__, scored 0.
    assert_eq!(
        redis.command(&["ZSCORE", "myzset", "element:__rand_int__"]),
        b"0"
    );
    assert_eq!(redis.command(&["ZCARD", "myzset"]), b"1");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (title, rps, tail) = quiet_line(stdout.trim_end());
    assert_eq!((title, tail), ("ZADD", ""), "{stdout}");
    assert!(rps > 0.0, "{stdout}");
}

#[test]
fn a_refused_row_is_marked_in_q_and_the_table_while_csv_keeps_redis_benchmarks_columns() {
    // Every SET is refused with -OOM before it runs; GETs still read.
    let redis = Redis::start_with(&["--maxmemory", "1", "--maxmemory-policy", "noeviction"]);
    let args = "-t set,get -n 200 -c 2 -r 100";
    let marker = "(200 of 200 replies were errors: OOM) [INVALID: error_replies]";
    let run = |mode: &str| {
        let line = format!("{args} {mode}");
        let out = suite(redis.port, &line, &[]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        // The SET test is no measurement: the suite says why and exits 3.
        assert_eq!(out.status.code(), Some(3), "{mode}: {stderr}");
        let invalid: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("kvbench: invalid: "))
            .collect();
        assert_eq!(invalid.len(), 1, "{mode}: {stderr}");
        assert!(
            invalid[0].starts_with(
                "kvbench: invalid: SET RUN #1: 200 of 200 replies (100.0 %) were errors"
            ),
            "{mode}: {stderr}"
        );
        // One warning line for the refused test, naming it, the count, the
        // share and the kind; none for GET, whose replies were no errors.
        let about_errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("kvbench: warning:") && l.contains("were errors"))
            .collect();
        assert_eq!(about_errors.len(), 1, "{mode}: {stderr}");
        let said = about_errors[0];
        for part in ["[SET]", "200 of 200", "100.0 %", "OOM"] {
            assert!(said.contains(part), "{mode}: {part} missing in {said}");
        }
        String::from_utf8(out.stdout).unwrap()
    };

    let quiet = run("-q");
    let lines: Vec<&str> = quiet.lines().collect();
    assert_eq!(lines.len(), 2, "{quiet}");
    let (title, rps, tail) = quiet_line(lines[0]);
    assert_eq!((title, tail), ("SET", &format!(" {marker}")[..]), "{quiet}");
    assert!(rps > 0.0, "{quiet}");
    assert_eq!(quiet_line(lines[1]).0, "GET");
    assert_eq!(quiet_line(lines[1]).2, "", "{quiet}");

    let table = run("");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(
        lines[0].starts_with("test ") && !lines[0].contains("error"),
        "{table}"
    );
    let set = lines[1]
        .strip_suffix(marker)
        .unwrap_or_else(|| panic!("{table}"));
    // The row's own columns are all there before the marker: the title and
    // eight figures (hit rate `-` for SET).
    let columns: Vec<&str> = set.split_whitespace().collect();
    assert_eq!(columns.len(), 9, "{table}");
    assert_eq!(columns[0], "SET");
    assert!(
        lines[2].starts_with("GET ") && !lines[2].contains("errors"),
        "{table}"
    );

    let csv = run("--csv");
    let reference = include_str!("../../data/redis-benchmark-suite.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert_eq!(Some(lines[0]), reference.lines().next());
    for (line, title) in lines[1..].iter().zip(["SET", "GET"]) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 8, "{line}");
        assert_eq!(fields[0], format!("\"{title}\""), "{line}");
        for f in &fields[1..] {
            let number = f
                .strip_prefix('"')
                .and_then(|f| f.strip_suffix('"'))
                .unwrap();
            number.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
        }
    }
}

#[test]
fn a_few_errors_still_mark_the_row_and_get_one_stderr_line() {
    let redis = Redis::start();
    // One counter of the 200 is at i64's maximum: each INCR of it is
    // refused ("increment or decrement would overflow"), about 1 in 200.
    let full = "counter:000000000007";
    assert_eq!(redis.command(&["SET", full, "9223372036854775807"]), b"OK");
    redis.reset_stats();
    let args = "-t incr -n 2000 -c 4 -r 200 --seed 1 -q";
    let out = suite(redis.port, args, &[]);
    assert_success(&out, args);
    let (calls, _, failed) = cmdstat(&redis, "incr");
    assert_eq!(calls, 2000);
    // The seed fixes the draws; the share must stay below the 1 % of the
    // error-replies warning for this test to see the suite's own line.
    assert!(failed > 0 && failed * 100 < 2000, "{failed} of 2000 failed");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (title, _, tail) = quiet_line(stdout.trim_end());
    assert_eq!(title, "INCR");
    assert_eq!(
        tail,
        format!(" ({failed} of 2000 replies were errors: ERR)"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    let about_errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("were errors"))
        .collect();
    assert_eq!(about_errors.len(), 1, "{stderr}");
    let share = format!("({:.1} %)", failed as f64 * 100.0 / 2000.0);
    for part in ["[INCR]", &format!("{failed} of 2000"), &share, "ERR"] {
        assert!(about_errors[0].contains(part), "{part} missing in {stderr}");
    }
}

#[test]
fn each_rows_rate_agrees_with_the_servers_executed_calls_over_the_clients_elapsed_time() {
    let redis = Redis::start();
    redis.reset_stats();
    // No -r: ZADD's score must still be a number, or the server executes
    // none of the requests the rate claims.
    let requests = 2000_u64;
    let args = format!("-t set,get,incr,lpush,zadd,zpopmin,mset -n {requests} -c 4 -q");
    let out = suite(redis.port, &args, &[]);
    assert_success(&out, &args);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rates: HashMap<String, f64> = stdout
        .lines()
        .map(|l| {
            let (title, rps, _) = quiet_line(l);
            (title.to_string(), rps)
        })
        .collect();
    for (title, command) in [
        ("SET", "set"),
        ("GET", "get"),
        ("INCR", "incr"),
        ("LPUSH", "lpush"),
        ("ZADD", "zadd"),
        ("ZPOPMIN", "zpopmin"),
        ("MSET (10 keys)", "mset"),
    ] {
        let rps = rates[title];
        assert!(rps > 0.0, "{title}: {stdout}");
        // The client's elapsed time, as its rate implies; what the server
        // executed (refused calls are not in `calls`, failed ones are) over
        // that time must be the same rate.
        let elapsed_s = requests as f64 / rps;
        let (calls, rejected, failed) = cmdstat(&redis, command);
        let executed = calls - failed;
        let server_rps = executed as f64 / elapsed_s;
        let ratio = server_rps / rps;
        assert!(
            (0.8..=1.25).contains(&ratio),
            "{title}: the server executed {executed} of {calls} calls ({rejected} rejected, {failed} failed) in {elapsed_s:.4} s, {server_rps:.1}/s against the row's {rps:.2}/s\n{stdout}"
        );
    }
}

#[test]
fn allow_invalid_exits_0_and_the_suite_file_keeps_every_tests_verdict() {
    let redis = Redis::start_with(&["--maxmemory", "1", "--maxmemory-policy", "noeviction"]);
    let dir = crate::common::TempDir::new("suite-verdict");
    let json = dir.path("suite.json");
    let args = "-t set,get -n 200 -c 2 -r 100 -q --allow-invalid";
    let out = suite(
        redis.port,
        args,
        &["--json-out-file", json.to_str().unwrap()],
    );
    assert_success(&out, args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--allow-invalid"), "{stderr}");
    let doc = crate::common::read_json(&json);
    let verdict = &doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    let reasons = verdict["reasons"].as_array().unwrap();
    // SET only: the GETs were answered.
    assert_eq!(reasons.len(), 1, "{verdict}");
    assert_eq!(reasons[0]["kind"], "error_replies");
    assert_eq!(reasons[0]["phase"], "SET RUN #1");
    // Each test's own report carries its own verdict.
    let tests = doc["suite"]["tests"].as_array().unwrap();
    assert_eq!(tests[0]["report"]["kvbench"]["verdict"]["valid"], false);
    assert_eq!(tests[1]["report"]["kvbench"]["verdict"]["valid"], true);
    // The server's witness: every SET refused, none executed.
    let (calls, rejected, _) = cmdstat(&redis, "set");
    assert_eq!((calls, rejected), (0, 200), "set calls and rejected calls");
}
