//! `--start-at barrier` when it cannot open: too few shards (exit 4 naming
//! `--barrier-timeout` once, the other shard stopping on that one's post, no
//! key left), a signal while waiting (the arrival
//! taken back), a run id that already holds this shard (exit 2 naming
//! `--run-id`), and no run id at all (exit 2 before connecting).

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::{barrier_keys, wait_bounded};
use crate::common::{Redis, TempDir, kvbench_at, refused_before_connecting};

#[test]
fn a_barrier_short_of_a_shard_times_out_with_exit_4_and_leaves_no_key() {
    let redis = Redis::start();
    let dir = TempDir::new("barrier-timeout");
    let started = Instant::now();
    let children: Vec<Child> = (0..2)
        .map(|i| {
            let json = dir.path(&format!("shard-{i}.json"));
            kvbench_at(redis.port)
                .args(["-t", "1", "-c", "1", "--test-time", "1"])
                .args(["--shard-count", "3", "--shard-index", &i.to_string()])
                .args(["--start-at", "barrier", "--run-id", "short"])
                .args(["--barrier-timeout", "3"])
                .arg("--json-out-file")
                .arg(json)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // The first to time out says how many came; it posts so, and the other
    // stops on its post naming it, so no two shards give two counts.
    let (mut timed_out, mut told) = (0, 0);
    for child in children {
        let out = wait_bounded(child, Duration::from_secs(60), "a waiting shard");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{stderr}");
        if stderr.contains("--barrier-timeout 3.0 s") {
            assert!(stderr.contains("2 of 3 shards arrived"), "{stderr}");
            timed_out += 1;
        } else {
            assert!(
                stderr.contains("will not come: it waited its --barrier-timeout of 3.0 s"),
                "{stderr}"
            );
            told += 1;
        }
        // The wait was said, so that it does not look like a hang.
        assert!(stderr.contains("of 3 at the barrier"), "{stderr}");
    }
    assert_eq!((timed_out, told), (1, 1));
    // Both waited the timeout, not much longer.
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(3), "{took:?}");
    assert_eq!(barrier_keys(redis.port), 0, "the keys left with the shards");
    assert_eq!(redis.calls("set") + redis.calls("get"), 0, "no phase ran");
}

#[test]
fn a_signal_while_waiting_at_the_barrier_takes_the_arrival_back() {
    let redis = Redis::start();
    let child = kvbench_at(redis.port)
        .args(["-t", "1", "-c", "1", "--test-time", "1"])
        .args(["--shard-count", "2", "--shard-index", "1"])
        .args(["--start-at", "barrier", "--run-id", "cut"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while barrier_keys(redis.port) == 0 {
        assert!(Instant::now() < deadline, "the shard never checked in");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let out = wait_bounded(child, Duration::from_secs(30), "the cut shard");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("while waiting for the planned start"),
        "{stderr}"
    );
    assert_eq!(barrier_keys(redis.port), 0, "its arrival was taken back");
}

#[test]
fn a_run_id_that_already_holds_this_shard_is_refused() {
    let redis = Redis::start();
    // What a run stopped half-way leaves: shard 0 checked in.
    redis.command(&[
        "HSET",
        "kvbench:barrier:{stale}",
        "in:0",
        "1",
        "arrivals",
        "1",
    ]);
    let out = kvbench_at(redis.port)
        .args(["-t", "1", "-c", "1", "--test-time", "1"])
        .args(["--shard-count", "2", "--shard-index", "0"])
        .args(["--start-at", "barrier", "--run-id", "stale"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--run-id") && stderr.contains("already checked in"),
        "{stderr}"
    );
    // The other run's key is not this shard's to delete.
    assert_eq!(barrier_keys(redis.port), 1);
}

#[test]
fn a_barrier_without_a_run_id_is_refused_before_connecting() {
    let redis = Redis::start();
    let stderr = refused_before_connecting(
        &redis,
        [
            "--shard-count",
            "2",
            "--shard-index",
            "0",
            "--start-at",
            "barrier",
        ],
    );
    assert!(
        stderr.contains("--run-id") && stderr.contains("SLURM_JOB_ID"),
        "{stderr}"
    );
    let stderr = refused_before_connecting(&redis, ["--run-id", "x", "--test-time", "1"]);
    assert!(stderr.contains("--start-at barrier"), "{stderr}");
}

/// Shard 0 of `count` alone at the barrier of run `run_id` on `redis`,
/// waiting at most `timeout` s: its exit code and stderr.
fn lone_shard(redis: &Redis, count: &str, run_id: &str, timeout: &str) -> (Option<i32>, String) {
    let dir = TempDir::new("barrier-foreign");
    let child = kvbench_at(redis.port)
        .args(["-t", "1", "-c", "1", "--test-time", "1"])
        .args(["--shard-count", count, "--shard-index", "0"])
        .args(["--start-at", "barrier", "--run-id", run_id])
        .args(["--barrier-timeout", timeout])
        .arg("--json-out-file")
        .arg(dir.path("shard-0.json"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, Duration::from_secs(60), "a shard");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr)
}

#[test]
fn a_start_an_hour_ahead_written_by_another_client_is_refused_with_exit_4() {
    let redis = Redis::start();
    let hour_ahead = std::time::SystemTime::now() + Duration::from_secs(3600);
    let t = hour_ahead
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros()
        .to_string();
    // A foreign client (here the test) writes the start before any shard.
    redis.command(&["HSET", "kvbench:barrier:{foreign-t}", "t", &t]);
    let started = Instant::now();
    let (code, stderr) = lone_shard(&redis, "2", "foreign-t", "120");
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("written by another client"), "{stderr}");
    assert!(stderr.contains("'foreign-t'"), "{stderr}");
    // Refused long before the second shard's timeout, let alone the hour.
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(redis.calls("set") + redis.calls("get"), 0, "no phase ran");
}

#[test]
fn a_count_written_by_another_client_starts_no_shard_alone() {
    let redis = Redis::start();
    // A foreign client (or an earlier run) writes counts into the run's
    // hash as if three of four shards had come and two had left.
    redis.command(&["HSET", "kvbench:barrier:{foreign-n}", "arrivals", "3"]);
    redis.command(&["HSET", "kvbench:barrier:{foreign-n}", "left", "2"]);
    let (code, stderr) = lone_shard(&redis, "4", "foreign-n", "3");
    // Shard 0 waited for the three others, who never came, and ran nothing.
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("1 of 4"), "{stderr}");
    assert_eq!(redis.calls("set") + redis.calls("get"), 0, "no phase ran");
}
