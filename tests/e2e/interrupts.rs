//! Interrupted means interrupted, against real redis-server processes: a
//! SIGINT in a sweep's second cell (kept, marked cut and named), in the
//! second of three runs, in the prefill,
//! in the warm-up, and while the first connection is still being made. A cut
//! run is reported and marked, never counted as completed nor ranked BEST or
//! WORST, and the exit code is 130 in every case.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use crate::common::{Redis, TempDir, kvbench_at, u, wait_for_traffic};
use serde_json::Value;

/// What an interrupted kvbench left.
struct Cut {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn spawn(port: u16, args: &[&str], json: &Path) -> Child {
    kvbench_at(port)
        .args(args)
        .arg("--json-out-file")
        .arg(json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn sigint(child: &Child) {
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
}

fn finish(child: Child) -> Cut {
    let out = child.wait_with_output().unwrap();
    Cut {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Waits until `json` exists and `ready` holds for it (it is rewritten after
/// every phase, atomically).
fn wait_for_json(json: &Path, child: &mut Child, ready: impl Fn(&Value) -> bool) {
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(bytes) = std::fs::read(json)
            && let Ok(doc) = serde_json::from_slice::<Value>(&bytes)
            && ready(&doc)
        {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "kvbench ended before the awaited phase"
        );
        assert!(Instant::now() < give_up, "the awaited phase never came");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigint_in_a_sweeps_second_cell_keeps_its_numbers_marked_cut_and_names_it() {
    let redis = Redis::start();
    let dir = TempDir::new("sweep-cut");
    let json = dir.path("s.json");
    let args = [
        "-t",
        "1",
        "-c",
        "2",
        "--pipeline",
        "1,4",
        "--test-time",
        "4",
    ];
    let mut kv = spawn(redis.port, &args, &json);
    // The file holds the first cell once its run is over, with every reply
    // in. The second cell may already be sending by then, so the server's
    // counts are not reset here: at the end they hold both cells' requests.
    wait_for_json(&json, &mut kv, |d| {
        d["sweep"]["cells"].as_array().is_some_and(|c| c.len() == 1)
            && d["sweep"]["cells"][0]["kvbench"]["runs_completed"] == 1
    });
    wait_for_traffic(redis.port, &mut kv);
    // Well inside the second cell's 4 s run.
    std::thread::sleep(Duration::from_millis(1000));
    sigint(&kv);
    let cut = finish(kv);
    assert_eq!(cut.code, Some(130), "{}", cut.stderr);
    let doc = common::read_json(&json);
    let k = &doc["kvbench"];
    assert_eq!(k["complete"], false, "{k}");
    assert_eq!(u(&k["cells_completed"]), 1);
    let cells = doc["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "the cut cell is kept");
    let second = &cells[1];
    assert_eq!(second["kvbench"]["cell"]["label"], "pipeline=4");
    assert_eq!(second["kvbench"]["complete"], false);
    assert_eq!(u(&second["kvbench"]["runs_completed"]), 0);
    assert_eq!(second["kvbench"]["interrupted"]["phase"], "RUN #1");
    // Its numbers are what the server served in it, no more and no less:
    // the server's SETs and GETs are the first cell's and the cut cell's.
    let replies = u(&second["ALL STATS"]["Totals"]["Count"]);
    assert!(replies > 0, "the cut cell measured nothing");
    let first = u(&cells[0]["ALL STATS"]["Totals"]["Count"]);
    assert_eq!(first + replies, redis.calls("set") + redis.calls("get"));
    // The sweep itself says which cell and phase were cut.
    assert_eq!(
        k["interrupted"],
        serde_json::json!({"index": 1, "cell": "pipeline=4", "phase": "RUN #1", "cause": "signal", "signal": 2}),
    );
    let summary = doc["sweep"]["summary"].as_array().unwrap();
    let cut_rows: Vec<(&Value, &Value)> = summary.iter().map(|r| (&r["cell"], &r["cut"])).collect();
    assert_eq!(
        cut_rows,
        [
            (&Value::from("pipeline=1"), &Value::from(false)),
            (&Value::from("pipeline=4"), &Value::from(true))
        ]
    );
    assert!(summary[1]["ops_per_sec"].as_f64().unwrap() > 0.0);
    // The text says it too, and marks the row.
    for line in [
        "Interrupted: signal 2 during CELL 2/2 (pipeline=4), RUN #1: the cut run's numbers cover the time until then, and the cell's row below is marked (cut).",
        "Incomplete: 1 of 2 cells completed.",
    ] {
        assert!(cut.stdout.contains(line), "no {line:?} in:\n{}", cut.stdout);
    }
    assert!(cut.stdout.contains("pipeline=4 (cut)"), "{}", cut.stdout);
    assert!(!cut.stdout.contains("pipeline=1 (cut)"), "{}", cut.stdout);
}

#[test]
fn a_cut_run_is_neither_completed_nor_ranked_nor_aggregated_and_says_it_is_incomplete() {
    let redis = Redis::start();
    let dir = TempDir::new("runs-cut");
    let json = dir.path("r.json");
    let args = ["-t", "1", "-c", "2", "-x", "3", "--test-time", "3"];
    let mut kv = spawn(redis.port, &args, &json);
    wait_for_json(&json, &mut kv, |d| {
        d["kvbench"]["runs"]
            .as_array()
            .is_some_and(|r| r.len() == 1)
    });
    std::thread::sleep(Duration::from_millis(1500));
    sigint(&kv);
    let cut = finish(kv);
    assert_eq!(cut.code, Some(130), "{}", cut.stderr);
    let doc = common::read_json(&json);
    let k = &doc["kvbench"];
    assert_eq!(
        k["runs"].as_array().unwrap().len(),
        2,
        "the cut run is reported"
    );
    assert_eq!(u(&k["runs_completed"]), 1);
    assert_eq!(k["complete"], false);
    let count = |section: &str| u(&doc[section]["Totals"]["Count"]);
    // Only run 1 ran to its end: it is both the best and the worst.
    assert_eq!(count("BEST RUN RESULTS"), count("RUN #1 RESULTS"));
    assert_eq!(count("WORST RUN RESULTS"), count("RUN #1 RESULTS"));
    assert!(count("RUN #2 RESULTS") > 0);
    assert_ne!(count("RUN #2 RESULTS"), count("RUN #1 RESULTS"));
    assert!(
        cut.stdout.contains("Incomplete: 1 of 3 runs completed."),
        "{}",
        cut.stdout
    );
    // The aggregate merges the runs that ran to their end, and its title
    // counts those (memtier's title, for the runs it has).
    let aggregates: Vec<&String> = doc
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| k.starts_with("AGGREGATED"))
        .collect();
    assert_eq!(
        aggregates,
        ["AGGREGATED AVERAGE RESULTS (1 runs)"],
        "sections"
    );
    let aggregate = &doc["AGGREGATED AVERAGE RESULTS (1 runs)"];
    assert_eq!(
        count("AGGREGATED AVERAGE RESULTS (1 runs)"),
        count("RUN #1 RESULTS")
    );
    assert_eq!(
        aggregate["Runtime"]["Total duration"],
        doc["RUN #1 RESULTS"]["Runtime"]["Total duration"]
    );
    assert_eq!(aggregate["Runtime"]["Interrupted"], "false");
    assert_eq!(doc["RUN #2 RESULTS"]["Runtime"]["Interrupted"], "true");
    assert!(
        cut.stdout.contains("AGGREGATED AVERAGE RESULTS (1 runs)"),
        "{}",
        cut.stdout
    );
    assert!(
        cut.stdout.contains(
            "Interrupted: signal 2 during RUN #2; its numbers cover the time until then, and it is left out of BEST, WORST and the aggregate."
        ),
        "{}",
        cut.stdout
    );
    // The cut run's summary says why it is incomplete; the whole one has none.
    let runs = k["runs"].as_array().unwrap();
    assert!(runs[0]["incomplete"].is_null(), "{}", runs[0]["incomplete"]);
    let why = &runs[1]["incomplete"];
    assert_eq!(why["reason"], "interrupted", "{why}");
    let message = why["message"].as_str().unwrap();
    assert!(message.contains("signal 2"), "{message}");
}

/// A SIGINT during `phase` (started by `args`): the text report still has the
/// phase's numbers and says it was interrupted.
fn assert_cut_before_any_run(args: &[&str], phase: &str, numbers: &str) {
    let redis = Redis::start();
    let dir = TempDir::new("early-cut");
    let json = dir.path("r.json");
    let mut kv = spawn(redis.port, args, &json);
    wait_for_traffic(redis.port, &mut kv);
    std::thread::sleep(Duration::from_millis(500));
    sigint(&kv);
    let cut = finish(kv);
    assert_eq!(cut.code, Some(130), "{}", cut.stderr);
    let line = format!("Interrupted: signal 2 during {phase}");
    assert!(
        cut.stdout.contains(&line),
        "no {line:?} in:\n{}",
        cut.stdout
    );
    assert!(
        cut.stdout.contains(numbers),
        "no {numbers:?} in:\n{}",
        cut.stdout
    );
    assert!(cut.stdout.contains("Incomplete: 0 of 1 runs completed."));
    let doc = common::read_json(&json);
    assert_eq!(doc["kvbench"]["interrupted"]["phase"], phase);
    assert_eq!(u(&doc["kvbench"]["runs_completed"]), 0);
}

#[test]
fn sigint_in_the_warm_up_reports_its_numbers_and_says_so() {
    let args = [
        "-t",
        "1",
        "-c",
        "2",
        "--warmup-time",
        "20",
        "--test-time",
        "5",
    ];
    assert_cut_before_any_run(&args, "WARM-UP", "Warm-up (excluded above): ");
}

#[test]
fn sigint_in_the_prefill_reports_its_numbers_and_says_so() {
    // Far more keys than a second can write: the prefill is still running.
    let args = [
        "-t",
        "1",
        "-c",
        "2",
        "--prefill",
        "--key-maximum",
        "50000000",
        "--test-time",
        "5",
    ];
    assert_cut_before_any_run(&args, "PREFILL", "Prefill (excluded above): ");
}

#[test]
fn sigint_while_the_first_connection_is_made_exits_130() {
    // A listener that takes the connection and never answers the handshake.
    let listener = common::listen();
    let port = listener.local_addr().unwrap().port();
    let dir = TempDir::new("connect-cut");
    let json = dir.path("r.json");
    let mut kv = kvbench_at(port)
        .args(["--connection-timeout", "30", "-n", "10"])
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut peer, _) = listener.accept().unwrap();
    // The handshake's first command has arrived: kvbench waits for its reply.
    let mut first = [0u8; 64];
    assert!(peer.read(&mut first).unwrap() > 0);
    std::thread::sleep(Duration::from_millis(100));
    assert!(kv.try_wait().unwrap().is_none());
    sigint(&kv);
    let cut = finish(kv);
    assert_eq!(cut.code, Some(130), "{}", cut.stderr);
    assert!(
        cut.stderr.contains("interrupted by signal 2"),
        "{}",
        cut.stderr
    );
    assert!(
        !cut.stderr.contains("Interrupted system call"),
        "{}",
        cut.stderr
    );
    drop(peer);
}

#[test]
fn sigterm_between_two_aligned_runs_writes_both_reports_interrupted_with_run_1_kept() {
    let redis = Redis::start();
    let dir = TempDir::new("start-at-cut");
    let json = dir.path("r.json");
    // Run 2 is planned 60 s after run 1's end: the signal comes in that wait.
    let args = [
        "-t",
        "1",
        "-c",
        "2",
        "-x",
        "2",
        "--test-time",
        "1",
        "--start-at",
        "+1s",
        "--run-gap",
        "60",
    ];
    let mut kv = spawn(redis.port, &args, &json);
    wait_for_json(&json, &mut kv, |d| {
        d["kvbench"]["runs"]
            .as_array()
            .is_some_and(|r| r.len() == 1)
    });
    let sent = Instant::now();
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(kv.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let cut = finish(kv);
    assert!(
        sent.elapsed() < Duration::from_secs(30),
        "the wait for run 2 was not cut short"
    );
    assert_eq!(cut.code, Some(143), "{}", cut.stderr);
    assert!(
        !cut.stderr.contains("nothing was measured"),
        "{}",
        cut.stderr
    );
    // The text report is written, with run 1 and the interrupt.
    for line in [
        "RUN #1 RESULTS",
        "Interrupted: signal 15 before RUN #2 started",
        "Incomplete: 1 of 2 runs completed.",
    ] {
        assert!(cut.stdout.contains(line), "no {line:?} in:\n{}", cut.stdout);
    }
    let doc = common::read_json(&json);
    let k = &doc["kvbench"];
    assert_eq!(
        k["interrupted"],
        serde_json::json!({"phase": "RUN #2", "cause": "signal", "signal": 15})
    );
    assert_eq!(k["complete"], false, "{k}");
    assert_eq!(u(&k["runs_completed"]), 1);
    assert_eq!(k["runs"].as_array().unwrap().len(), 1, "{}", k["runs"]);
    let replies = u(&doc["RUN #1 RESULTS"]["Totals"]["Count"]);
    assert_eq!(replies, redis.calls("set") + redis.calls("get"));
    assert!(replies > 0);
    let verdict = &k["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    let kinds: Vec<&Value> = verdict["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["kind"])
        .collect();
    assert!(kinds.contains(&&Value::from("interrupted")), "{verdict}");
}
