//! `--start-at barrier` behind an L4 balancer and with a shard that cannot
//! come. haproxy (`balance roundrobin`) in front of three redis-servers
//! sends each connection to the next backend, so each shard's barrier
//! connection would find another board: `--barrier-server` names one
//! backend, and the shards meet there, start together and count exactly
//! what the three backends executed. A shard that fails before the barrier
//! (it cannot connect; it is stopped by a signal during its prefill) posts
//! so, and the shards waiting stop at once with exit 4 naming it, instead
//! of waiting out their `--barrier-timeout`.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{barrier_keys, wait_bounded};
use crate::common::balancer::Balancer;
use crate::common::{Redis, TempDir, f, free_port, kvbench_at, pipeline, total};

/// Shard `index` of three against `port`, meeting under `run_id` on the
/// Redis at `barrier_port`, waiting at most `timeout` s there.
fn shard(port: u16, barrier_port: u16, index: u32, run_id: &str, timeout: &str) -> Command {
    let mut c = kvbench_at(port);
    c.args([
        "-t",
        "1",
        "-c",
        "2",
        "--ratio",
        "1:1",
        "--key-maximum",
        "1000",
    ])
    .args(["--test-time", "2", "--allow-invalid"])
    .args(["--shard-count", "3", "--shard-index", &index.to_string()])
    .args(["--start-at", "barrier", "--run-id", run_id])
    .args(["--barrier-timeout", timeout])
    .arg("--barrier-server")
    .arg(format!("redis://127.0.0.1:{barrier_port}"))
    .env_remove("SLURM_JOB_ID")
    .env_remove("KVBENCH_RUN_ID")
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    c
}

/// The shards checked in at the barrier of `run_id` at `port`.
fn arrivals(port: u16, run_id: &str) -> u64 {
    let key = format!("kvbench:barrier:{{{run_id}}}");
    let checked_in = |i: u32| {
        let field = format!("in:{i}");
        match pipeline(port, &[["HGET", key.as_str(), field.as_str()]]).remove(0) {
            kvbench::protocol::value::Value::Bulk(_) => 1,
            _ => 0,
        }
    };
    (0..3).map(checked_in).sum()
}

/// Shards 0 and 1, started and waited for until both are in at the barrier.
fn two_waiting(port: u16, barrier_port: u16, run_id: &str) -> Vec<Child> {
    let children: Vec<Child> = (0..2)
        .map(|i| shard(port, barrier_port, i, run_id, "120").spawn().unwrap())
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while arrivals(barrier_port, run_id) < 2 {
        assert!(
            Instant::now() < deadline,
            "shards 0 and 1 did not reach the barrier within 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    children
}

/// Both waiting shards stop with exit 4 naming shard 2 and `why`, within
/// 10 s of its failure (their own timeout is 120 s).
fn assert_told(children: Vec<Child>, since: Instant, why: &str) {
    for (i, child) in children.into_iter().enumerate() {
        let out = wait_bounded(child, Duration::from_secs(100), &format!("shard {i}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "shard {i}: {stderr}");
        assert!(
            stderr.contains("shard 2 of run id") && stderr.contains("will not come"),
            "shard {i}: {stderr}"
        );
        assert!(stderr.contains(why), "shard {i}: {stderr}");
    }
    // Their timeout was 120 s: they were told, they did not time out.
    let took = since.elapsed();
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn three_shards_behind_a_round_robin_balancer_meet_on_the_barrier_server() {
    let backends = [Redis::start(), Redis::start(), Redis::start()];
    for b in &backends {
        b.reset_stats();
    }
    let balancer = Balancer::start(&backends.each_ref().map(|b| b.port));
    let dir = TempDir::new("barrier-balancer");
    let files: Vec<String> = (0..3)
        .map(|i| dir.path(&format!("shard-{i}.json")).display().to_string())
        .collect();
    let mut children = Vec::new();
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(500));
        }
        let mut c = shard(balancer.port, backends[0].port, i as u32, "lb", "60");
        c.args(["--json-out-file", file]);
        children.push(c.spawn().unwrap());
    }
    for (i, child) in children.into_iter().enumerate() {
        let out = wait_bounded(child, Duration::from_secs(90), &format!("shard {i}"));
        assert!(
            out.status.success(),
            "shard {i}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(barrier_keys(backends[0].port), 0, "the board was cleared");
    let merged = crate::common::launch::merge_ok(&files, &dir.path("total.json"), &[]);
    // One board, one clock: the three started together.
    let skew = f(&merged["kvbench"]["merged"]["start_skew_ms"]);
    assert!((0.0..50.0).contains(&skew), "start skew {skew} ms");
    // The balancer spread the connections; the backends together executed
    // every request, and no barrier command as a SET or GET.
    for (op, command) in [("SET", "set"), ("GET", "get")] {
        let served: Vec<u64> = backends.iter().map(|b| b.calls(command)).collect();
        assert!(
            served.iter().filter(|n| **n > 0).count() >= 2,
            "{op}: {served:?}"
        );
        assert_eq!(
            total(&merged, op, "count"),
            served.iter().sum::<u64>(),
            "{op}"
        );
    }
}

#[test]
fn a_shard_that_cannot_connect_stops_the_shards_waiting_at_the_barrier() {
    let redis = Redis::start();
    redis.reset_stats();
    let waiting = two_waiting(redis.port, redis.port, "dead");
    // Shard 2's target has nobody listening: it fails before any barrier.
    let dead = free_port();
    let since = Instant::now();
    let out = shard(dead, redis.port, 2, "dead", "120").output().unwrap();
    assert!(!out.status.success());
    assert_told(waiting, since, &format!("127.0.0.1:{dead}"));
    assert_eq!(
        barrier_keys(redis.port),
        0,
        "the last one out cleared the board"
    );
    assert_eq!(redis.calls("set") + redis.calls("get"), 0, "no phase ran");
}

#[test]
fn a_shard_stopped_during_its_prefill_stops_the_shards_waiting_at_the_barrier() {
    let redis = Redis::start();
    let waiting = two_waiting(redis.port, redis.port, "cut");
    // Shard 2 prefills a large range before it would come to the barrier.
    let mut late = shard(redis.port, redis.port, 2, "cut", "120");
    late.args(["--prefill", "--key-maximum", "30000000", "-c", "1"]);
    let child = late.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    // The barrier's hash is one key; the prefill's SETs are the others.
    while redis.dbsize() < 100 {
        assert!(Instant::now() < deadline, "shard 2 never began its prefill");
        std::thread::sleep(Duration::from_millis(20));
    }
    let since = Instant::now();
    // SAFETY: kill(2) on the pid of our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let out = wait_bounded(child, Duration::from_secs(60), "shard 2");
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_told(waiting, since, "signal 15 during PREFILL");
}
