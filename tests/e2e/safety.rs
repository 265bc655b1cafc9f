//! Results that must not mislead, against real redis-server processes: error
//! replies are shown apart from successes and warned about with their cause,
//! the server's count cross-check knows Redis 7's `rejected_calls`, a closed
//! stdout or stderr is no crash, and a run whose control connection fails says
//! that the server evidence is missing.

use std::process::Stdio;

use crate::common;
use crate::common::{Redis, TempDir, ask, f, kvbench_at, kvbench_json, u, warning_kinds};
use serde_json::Value;

/// `rejected_calls=` of `cmdstat_<command>` (Redis 7), 0 when absent.
fn rejected_calls(port: u16, command: &str) -> u64 {
    let text = ask(port, &["INFO", "commandstats"]);
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("cmdstat_{command}:")))
        .and_then(|fields| {
            fields
                .split(',')
                .find_map(|p| p.strip_prefix("rejected_calls="))
        })
        .map_or(0, |v| v.trim().parse().unwrap())
}

fn warning<'a>(doc: &'a Value, kind: &str) -> Option<&'a str> {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == kind)
        .map(|w| w["message"].as_str().unwrap())
}

#[test]
fn oom_replies_are_errors_not_throughput_and_the_server_counts_agree() {
    let redis = Redis::start_with(&["--maxmemory", "5mb", "--maxmemory-policy", "noeviction"]);
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 4 --test-time 2 --ratio 1:0 -d 1000 --allow-invalid",
        &[],
    );
    let doc = &report.doc;
    // Mostly refusals: counted as they are, and the verdict says the result
    // is not valid (tests/e2e/verdict.rs checks its exit code 3 without --allow-invalid).
    let verdict = &doc["kvbench"]["verdict"];
    assert_eq!(verdict["reasons"][0]["kind"], "error_replies", "{verdict}");
    let set = &doc["kvbench"]["totals"]["SET"];
    let (count, errors) = (u(&set["count"]), u(&set["errors"]));
    let successes = count - errors;
    // 5 MiB holds a few thousand 1000-byte values; everything after is -OOM.
    assert!(
        (1..=6000).contains(&successes),
        "{successes} SETs succeeded"
    );
    assert!(errors > successes, "only {errors} of {count} were errors");
    assert_eq!(u(&doc["kvbench"]["errors"]["server"]["OOM"]), errors);
    // The server's witness: executed SETs are the successes, rejected ones the errors.
    assert_eq!(redis.calls("set"), successes);
    assert_eq!(rejected_calls(redis.port, "set"), errors);

    let run = &doc["kvbench"]["runs"][0];
    // duration_ms is rounded to the millisecond: allow that much of the count.
    let secs = u(&run["duration_ms"]) as f64 / 1000.0;
    let (ok_rate, err_rate) = (f(&run["successes_per_sec"]), f(&run["errors_per_sec"]));
    let near = |rate: f64, count: u64| (rate * secs - count as f64).abs() <= 1.0 + rate / 1000.0;
    assert!(near(ok_rate, successes), "{ok_rate}/s for {successes}");
    assert!(near(err_rate, errors), "{err_rate}/s for {errors}");
    // memtier's field keeps memtier's meaning: every reply.
    assert!((f(&run["ops_per_sec"]) - ok_rate - err_rate).abs() <= 0.02);
    let delta = &run["server"]["delta"];
    assert_eq!(u(&delta["set_calls"]), successes);
    assert_eq!(u(&delta["set_rejected_calls"]), errors);

    let kinds = warning_kinds(doc);
    assert!(!kinds.contains(&"count_mismatch"), "{kinds:?}");
    let message = warning(doc, "error_replies").unwrap_or_else(|| panic!("{kinds:?}"));
    assert!(
        message.contains("OOM") && message.contains("maxmemory"),
        "{message}"
    );
    let line = format!("Replies: {successes} successes");
    assert!(report.stdout.contains(&line), "{}", report.stdout);
    assert!(
        report
            .stdout
            .contains(&format!("{successes} + {errors} rejected")),
        "{}",
        report.stdout
    );
}

#[test]
fn a_clean_run_has_no_error_warning_and_all_replies_are_successes() {
    let redis = Redis::start();
    let report = kvbench_json(redis.port, "-t 1 -c 2 -n 500 --ratio 1:1", &[]);
    let run = &report.doc["kvbench"]["runs"][0];
    assert_eq!(f(&run["errors_per_sec"]), 0.0);
    assert!((f(&run["successes_per_sec"]) - f(&run["ops_per_sec"])).abs() < 0.01);
    assert!(!warning_kinds(&report.doc).contains(&"error_replies"));
    assert!(
        report.stdout.contains("Replies: 1000 successes"),
        "{}",
        report.stdout
    );
}

#[test]
fn closed_stdout_and_stderr_end_output_quietly_and_the_result_file_is_written() {
    let redis = Redis::start();
    let dir = TempDir::new("closed-pipes");
    let json = dir.path("r.json");
    let mut child = kvbench_at(redis.port)
        .args(["-t", "1", "-c", "2", "-n", "500", "--ratio", "1:1"])
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader is gone before kvbench writes a byte: every write to either
    // stream fails with EPIPE, as after `kvbench ... 2>&1 | head -1`.
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    let doc = common::read_json(&json);
    assert_eq!(doc["kvbench"]["complete"], true);
    let totals = &doc["kvbench"]["totals"];
    assert_eq!(
        u(&totals["SET"]["count"]) + u(&totals["GET"]["count"]),
        1000
    );
    assert_eq!(redis.calls("set") + redis.calls("get"), 1000);
}

/// One usage error's stderr, asserting exit 2.
fn usage_error(args: &[&str]) -> String {
    let out = common::kvbench(args);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

#[test]
fn non_finite_numbers_in_a_config_file_are_refused_like_on_the_command_line() {
    let dir = TempDir::new("non-finite");
    let file = dir.path("c.toml");
    let port = common::free_port().to_string();
    for (text, flag) in [
        ("rate = inf\n", "--rate"),
        ("test-time = nan\n", "--test-time"),
    ] {
        std::fs::write(&file, text).unwrap();
        let from_file = usage_error(&["--config", file.to_str().unwrap(), "-p", &port]);
        assert!(
            from_file.starts_with(&format!("kvbench: error: {flag}: ")),
            "{text}: {from_file}"
        );
        // The same value typed as a flag is refused by the same flag.
        let value = text.split(" = ").nth(1).unwrap().trim();
        let typed = usage_error(&[flag, value, "-p", &port]);
        assert!(
            typed.starts_with(&format!("kvbench: error: {flag}: ")),
            "{typed}"
        );
    }
}

#[test]
fn a_too_long_test_time_names_the_real_limit() {
    let stderr = usage_error(&["--test-time", "99999999999"]);
    assert!(
        stderr.contains("--test-time") && stderr.contains("at most 10000000 seconds"),
        "{stderr}"
    );
    assert!(!stderr.contains("more than 0"), "{stderr}");
}

#[test]
fn a_connect_timeout_names_connection_timeout() {
    // The kernel completes the TCP handshake; nobody answers kvbench's PING.
    let listener = common::listen();
    let port = listener.local_addr().unwrap().port().to_string();
    let stderr = usage_error(&["-p", &port, "--connection-timeout", "0.3", "-n", "10"]);
    assert!(
        stderr.starts_with("kvbench: error: --connection-timeout: ") && stderr.contains("0.3 s"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Resource temporarily unavailable"),
        "{stderr}"
    );
    drop(listener);
}

#[test]
fn a_control_connection_refused_at_maxclients_is_said_in_the_report() {
    // Room for the two benchmark connections and not one more: the control
    // connection that reads INFO is refused.
    let redis = Redis::start_with(&["--maxclients", "2"]);
    let report = kvbench_json(redis.port, "-t 1 -c 2 -n 1000 --ratio 1:1", &[]);
    let doc = &report.doc;
    // The benchmark itself ran in full: the server executed every request.
    assert_eq!(redis.calls("set") + redis.calls("get"), 2000);
    assert!(common::info_u64(redis.port, "stats", "rejected_connections") >= 1);
    assert!(doc["kvbench"]["runs"][0]["server"].is_null());
    let message =
        warning(doc, "server_evidence_lost").unwrap_or_else(|| panic!("{:?}", warning_kinds(doc)));
    assert!(
        message.contains("RUN #1") && message.contains("max number of clients"),
        "{message}"
    );
    assert!(
        report.stdout.contains("Server RUN #1: no evidence: "),
        "{}",
        report.stdout
    );
}
