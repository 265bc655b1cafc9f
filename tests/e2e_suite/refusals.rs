//! The suite's share of tests/e2e_suite.rs about refused requests: ZADD
//! without `-r` sends score `0`, as redis-benchmark does, so the server
//! refuses none of it; and each row's requests/s agrees with what the server
//! actually executed over the client's elapsed time.

use std::collections::HashMap;

use crate::common::{Redis, assert_success, info_u64};
use crate::suite;

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
