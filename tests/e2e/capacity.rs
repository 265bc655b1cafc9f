//! `kvbench capacity` against a real server whose service time is known: a
//! redis-server serving `DEBUG SLEEP 0.001` (one request at a time, a
//! millisecond each) carries about 1 000 ops/s. The search must find a
//! capacity below that and well above a third of it, its step at the
//! capacity meeting the SLO and the step above failing it, the
//! confirmation meeting it; the report validates against the schema, and
//! the server's own count of the commands holds every reply the steps
//! report. Bad input is refused before any connection.

use std::process::Command;

use serde_json::Value;

use crate::common::{Redis, TempDir, f, info_u64, machine, parse_commandstats, read_json, u};
use crate::json_schema::{assert_valid, validator};

/// The objective searched for, in the flag's form, in the answer line's
/// words, and its limit in ms. 50 ms, not less: on a shared 2-core machine
/// the scheduler alone puts up to some 25 ms on the p99 of a server at 90 %
/// of its capacity (measured: 5.5 ms and then 25 ms at 800 ops/s of some
/// 880, 2 s each, so that 20 ms refuted three confirmations in a row), and
/// the search must find where the server fills up (its p99 then grows by
/// hundreds of ms), not where the machine is busy.
const SLO: &str = "p99=50ms";
const SLO_WORDS: &str = "p99 ≤ 50 ms";
const SLO_MS: f64 = 50.0;

/// `kvbench capacity` at 127.0.0.1:`port` with `args`.
pub fn capacity_at(port: u16, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvbench"));
    command
        .args(["capacity", "-s", "127.0.0.1", "-p", &port.to_string()])
        .args(args)
        .env_remove("KVBENCH_AUTH");
    command
}

/// The last step of the search at exactly `rate` (a confirmation that
/// missed joins the steps after the step it refutes).
fn step_at(steps: &[Value], rate: f64) -> &Value {
    steps
        .iter()
        .rev()
        .find(|s| f(&s["rate"]) == rate)
        .unwrap_or_else(|| panic!("no step at {rate} ops/s in {steps:?}"))
}

#[test]
fn finds_the_capacity_of_a_server_that_sleeps_a_millisecond_per_request() {
    let _alone = machine::alone();
    let redis = Redis::start_with(&["--enable-debug-command", "yes"]);
    let dir = TempDir::new("capacity");
    let (json, html) = (dir.path("capacity.json"), dir.path("capacity.html"));
    let out = capacity_at(
        redis.port,
        &[
            "--slo",
            SLO,
            "--command",
            "DEBUG SLEEP 0.001",
            "-t",
            "1",
            "-c",
            "20",
            "--step-time",
            "2",
            "--step-warmup",
            "0.5",
            "--start-rate",
            "200",
            "--resolution",
            "5",
            "--max-repeats",
            "1",
            "--test-time",
            "2",
            "--json-out-file",
            json.to_str().unwrap(),
            "--html-out-file",
            html.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    let doc = read_json(&json);
    assert_valid(&validator(), &doc, "a capacity report");
    let cap = &doc["kvbench"]["capacity"];
    assert_eq!(cap["outcome"], "found", "{cap}");
    let (capacity, low, high) = (f(&cap["ops_per_sec"]), f(&cap["low"]), f(&cap["high"]));
    assert!(
        300.0 < capacity && capacity < 1000.0,
        "capacity {capacity} ops/s\n{stderr}"
    );
    assert_eq!(capacity, low);
    assert!(
        low < high && high - low <= 0.05 * low + 1e-9,
        "{low}..{high}"
    );
    let steps = cap["steps"].as_array().unwrap();
    // Growth from 200 ops/s and bisection to 5 %: a handful of steps, not dozens.
    assert!((5..=15).contains(&steps.len()), "{} steps", steps.len());
    assert_eq!(step_at(steps, low)["meets"], true, "{cap}");
    assert_eq!(step_at(steps, high)["meets"], false, "{cap}");
    let confirmation = &cap["confirmation"];
    assert_eq!(f(&confirmation["rate"]), capacity);
    assert_eq!(confirmation["meets"], true, "{confirmation}");
    let p99 = f(&confirmation["percentiles_ms"]["p99"]);
    assert!(
        (1.0..=SLO_MS).contains(&p99),
        "the confirmation's p99 {p99} ms"
    );
    // The report's run is the confirmation run, at the capacity's rate.
    let run = &doc["kvbench"]["runs"][0];
    assert_eq!(
        u(&run["totals"]["DEBUG"]["count"]),
        u(&confirmation["replies"])
    );
    // Every reply a step reports was a DEBUG the server counted; the rest
    // of the server's count is the steps' warm-ups (at most their rate for
    // their half second, and a second of slack each).
    let mut replies = u(&confirmation["replies"]);
    let mut warm_up_most = capacity * 1.5;
    for s in steps {
        replies += u(&s["replies"]);
        warm_up_most += u(&s["runs"]) as f64 * f(&s["rate"]) * 1.5;
    }
    let calls = parse_commandstats(&String::from_utf8_lossy(
        &redis.command(&["INFO", "commandstats"]),
    ))["debug"]
        .0;
    assert!(
        replies <= calls && (calls as f64) <= replies as f64 + warm_up_most,
        "the server counted {calls} DEBUG, the steps report {replies} replies"
    );
    // The text: one table of steps within 80 columns, and the answer.
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|l| *l != "CAPACITY SEARCH")
        .collect();
    assert!(table.len() >= steps.len() + 3, "{stdout}");
    assert!(table.iter().all(|l| l.chars().count() <= 80), "{stdout}");
    let answer = format!("capacity: {low:.0} ops/s ({low:.0}–{high:.0}) at {SLO_WORDS}");
    assert!(stdout.contains(&answer), "{answer}\n{stdout}");
    assert!(stderr.contains("[STEP 1] rate 200 ops/s"), "{stderr}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Capacity"), "the page has no capacity chart");
}

#[test]
fn bad_capacity_flags_are_refused_before_any_connection() {
    let redis = Redis::start();
    let cases: &[(&[&str], &str)] = &[
        (&["--command", "PING"], "--slo: is required"),
        (&["--slo", "p99=5"], "--slo: the limit '5' has no unit"),
        (
            &["--slo", "p100=5ms"],
            "--slo: the percentile must be above 0",
        ),
        (
            &["--slo", "p99=5ms", "--rate", "100"],
            "--rate: is not taken",
        ),
        (
            &["--slo", "p99=5ms", "-n", "100"],
            "--requests: is not taken",
        ),
        (
            &["--slo", "p99=5ms", "--resolution", "0"],
            "--resolution: must be",
        ),
        (
            &["--slo", "p99=5ms", "--step-time", "0.5"],
            "--step-time: must be at least 1",
        ),
        (&["--slo", "p99=5ms", "-c", "1,2"], "searches one workload"),
    ];
    for (args, message) in cases {
        let before = info_u64(redis.port, "stats", "total_connections_received");
        let out = capacity_at(redis.port, args).output().unwrap();
        let after = info_u64(redis.port, "stats", "total_connections_received");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert_eq!(
            after,
            before + 1,
            "{args:?} connected before refusing: {stderr}"
        );
    }
}
