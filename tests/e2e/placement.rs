//! CPU placement against a real redis-server that the test pins with
//! `taskset`: kvbench keeps its threads off a pinned server's CPUs, does not
//! pin against a server that may run anywhere, and obeys `--cpus`/`--no-pin`.
//! The witness is the kernel: the affinity of kvbench's own worker threads,
//! read from `/proc` while the run is under way, must equal the plan in the
//! report.

use std::process::{Child, Command, Stdio};

use crate::common;
use crate::common::{Redis, TempDir, info, read_json, wait_for_traffic};
use serde_json::Value;

/// The CPUs this test process may use, ascending.
fn available_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    cpu_list(allowed_list(&status).unwrap())
}

fn allowed_list(status: &str) -> Option<&str> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .map(str::trim)
}

/// Parses the kernel's `0-3,6` format.
fn cpu_list(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in text.split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        out.extend(lo.parse::<usize>().unwrap()..=hi.parse::<usize>().unwrap());
    }
    out
}

/// Restricts every thread of the server to `cpus` (as `taskset -acp` does).
fn pin_server(redis: &Redis, cpus: &str) -> u32 {
    let pid: u32 = info(redis.port, "server", "process_id").parse().unwrap();
    let status = Command::new("taskset")
        .args(["-acp", cpus, &pid.to_string()])
        .stdout(Stdio::null())
        .status()
        .expect("taskset (util-linux) must be installed");
    assert!(status.success(), "taskset -acp {cpus} {pid} failed");
    pid
}

/// The affinity of each of kvbench's worker threads (named `kvbench-N`).
fn worker_affinities(child: &Child) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let tasks = format!("/proc/{}/task", child.id());
    for task in std::fs::read_dir(tasks).unwrap().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("kvbench-") {
            continue;
        }
        let status = std::fs::read_to_string(task.path().join("status")).unwrap();
        out.push(cpu_list(allowed_list(&status).unwrap()));
    }
    out
}

/// Runs kvbench (2 threads, 2 s) with `extra` flags; returns its JSON
/// `kvbench.placement`, its text report and the worker threads' affinities
/// seen while it ran.
fn run(redis: &Redis, extra: &[&str]) -> (Value, String, Vec<Vec<usize>>) {
    let dir = TempDir::new("placement");
    let json = dir.path("r.json");
    // wait_for_traffic looks for this run's first command.
    redis.reset_stats();
    let mut child = common::kvbench_at(redis.port)
        .args([
            "-t",
            "2",
            "-c",
            "2",
            "--test-time",
            "2",
            "--key-maximum",
            "1000",
        ])
        .args(extra)
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut child);
    let affinities = worker_affinities(&child);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "kvbench failed: {:?}", out.status);
    let doc = read_json(&json);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(affinities.len(), 2, "expected 2 worker threads");
    (doc["kvbench"]["placement"].clone(), text, affinities)
}

fn thread_cpus(p: &Value) -> Vec<Option<u64>> {
    p["thread_cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::as_u64)
        .collect()
}

#[test]
fn threads_keep_off_the_cpu_of_a_pinned_server() {
    let cpus = available_cpus();
    let redis = Redis::start();
    let pid = pin_server(&redis, &cpus[0].to_string());
    let (p, text, affinities) = run(&redis, &[]);
    if cpus.len() < 2 {
        assert_eq!(p["reason"], "one_cpu", "{p}");
        return;
    }
    assert_eq!(p["reason"], "apart_from_server", "{p}");
    assert_eq!(p["server_pid"].as_u64(), Some(u64::from(pid)));
    assert_eq!(p["server_cpus"], serde_json::json!([cpus[0]]));
    assert!(p["server_threads"].as_u64().unwrap() >= 1);
    let free = &cpus[1..];
    let expected: Vec<Option<u64>> = (0..2).map(|i| Some(free[i % free.len()] as u64)).collect();
    assert_eq!(thread_cpus(&p), expected);
    // The kernel agrees: each worker may run on its one CPU, none on the server's.
    for a in &affinities {
        assert_eq!(a.len(), 1, "a worker may run on {a:?}");
        assert_ne!(a[0], cpus[0], "a worker shares the server's CPU");
    }
    assert!(
        text.contains("Placement: 2 client threads pinned to"),
        "{text}"
    );
    assert!(text.contains("kept off the server's CPUs"), "{text}");
}

#[test]
fn a_server_that_may_run_anywhere_leaves_the_threads_unpinned() {
    let cpus = available_cpus();
    if cpus.len() < 2 {
        return;
    }
    let redis = Redis::start();
    pin_server(&redis, &common_list(&cpus));
    let (p, text, affinities) = run(&redis, &[]);
    assert_eq!(p["reason"], "server_may_use_every_cpu", "{p}");
    assert_eq!(thread_cpus(&p), vec![None, None]);
    for a in &affinities {
        assert_eq!(a, &cpus, "an unpinned worker was restricted");
    }
    assert!(text.contains("not pinned"), "{text}");
    // The same-machine warning gives this machine's split, with the server's pid.
    assert!(
        text.contains(&format!("taskset -acp {} ", cpus[0])) && text.contains("--cpus "),
        "{text}"
    );
}

#[test]
fn cpus_and_no_pin_override_the_choice() {
    let cpus = available_cpus();
    if cpus.len() < 2 {
        return;
    }
    let redis = Redis::start();
    let first = cpus[0].to_string();
    pin_server(&redis, &first);
    let (p, text, affinities) = run(&redis, &["--cpus", &first]);
    assert_eq!(p["reason"], "cpus_flag", "{p}");
    assert_eq!(thread_cpus(&p), vec![Some(cpus[0] as u64); 2]);
    for a in &affinities {
        assert_eq!(a, &vec![cpus[0]]);
    }
    assert!(
        text.contains("although the server may also run on CPU"),
        "{text}"
    );
    let (p, _, affinities) = run(&redis, &["--no-pin"]);
    assert_eq!(p["reason"], "no_pin_flag", "{p}");
    assert_eq!(thread_cpus(&p), vec![None, None]);
    for a in &affinities {
        assert_eq!(a, &cpus);
    }
}

/// `0,1,2` for the kernel.
fn common_list(cpus: &[usize]) -> String {
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
