//! Memory bounds against a real redis-server: a run of large values with a
//! pipeline keeps its peak resident memory (VmHWM) under the bound the formula
//! of docs/design.md ("Memory") gives, and a pipeline deeper than the
//! documented maximum is refused before any connection opens.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Redis, kvbench_at, refused_before_connecting};
use kvbench::config::MAX_PIPELINE;
use kvbench::engine::conn::{IN_FLIGHT_BYTES, WRITE_BUDGET};

const MIB: u64 = 1024 * 1024;

/// What the process needs whatever the load: code, libraries, the master's
/// phase histograms, thread stacks and allocator slack (a debug build, measured
/// at about 10 MiB for one connection of small values).
const BASE_BYTES: u64 = 48 * MIB;

/// Per worker thread: one set of per-op histograms (design.md: about 1 MiB).
const THREAD_BYTES: u64 = MIB;

/// The peak resident memory of process `pid` so far, in bytes.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// design.md's worst case for one connection: the write buffer (the budget plus
/// one request), the read buffer (twice the largest reply, at least 256 KiB)
/// and the in-flight queue (one entry per request of the window).
fn per_connection_bound(pipeline: u64, value: u64) -> u64 {
    let request = value + 128;
    let write = WRITE_BUDGET as u64 + request;
    let read = (2 * request).max(256 * 1024);
    write + read + pipeline * IN_FLIGHT_BYTES as u64
}

#[test]
fn large_values_with_a_pipeline_stay_under_the_documented_memory_bound() {
    let (threads, clients, pipeline, value) = (2u64, 25u64, 16u64, 1_000_000u64);
    let redis = Redis::start();
    // 100 keys: the server holds at most 100 MB, whatever the run's length.
    let mut child = kvbench_at(redis.port)
        .args(["-t", &threads.to_string(), "-c", &clients.to_string()])
        .args([
            "--pipeline",
            &pipeline.to_string(),
            "-d",
            &value.to_string(),
        ])
        .args(["--ratio", "1:1", "--key-maximum", "100", "--test-time", "4"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let give_up = Instant::now() + Duration::from_secs(60);
    let mut peak = 0;
    let status = loop {
        // VmHWM only rises; the last reading before the process ends is its peak.
        if let Some(rss) = peak_rss(pid) {
            peak = peak.max(rss);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < give_up, "kvbench did not finish in 60 s");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "kvbench failed: {status}");
    // The values went out: at least one full 1 MB SET was executed per connection.
    let sets = redis.calls("set");
    assert!(sets >= threads * clients, "only {sets} SETs executed");
    let values_per_thread = value; // without -R, the pool holds one value
    let bound = BASE_BYTES
        + threads * (THREAD_BYTES + values_per_thread)
        + threads * clients * per_connection_bound(pipeline, value);
    eprintln!(
        "peak RSS {} MiB, bound {} MiB, {sets} SETs",
        peak / MIB,
        bound / MIB
    );
    assert!(peak > 0, "VmHWM was never read");
    assert!(
        peak <= bound,
        "peak RSS {} MiB is above the documented bound of {} MiB",
        peak / MIB,
        bound / MIB
    );
}

#[test]
fn a_pipeline_above_the_maximum_exits_2_before_connecting() {
    let redis = Redis::start();
    let depth = (MAX_PIPELINE + 1).to_string();
    let stderr = refused_before_connecting(&redis, ["--pipeline", &depth, "-n", "10"]);
    assert!(
        stderr.contains("--pipeline") && stderr.contains(&MAX_PIPELINE.to_string()),
        "{stderr}"
    );
    // The maximum itself is accepted.
    let out = kvbench_at(redis.port)
        .args([
            "--pipeline",
            &MAX_PIPELINE.to_string(),
            "-c",
            "1",
            "-t",
            "1",
        ])
        .args(["-n", "1000"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
