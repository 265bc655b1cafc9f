//! `--start-at barrier` against real servers: four shards launched a second
//! apart meet on the target server (a redis-server, a memcached, a Redis
//! Cluster), start every phase within 20 ms of each other, merge into the
//! server's own counts, and leave no barrier key behind; a barrier short of
//! shards times out with exit 4 naming `--barrier-timeout` and removes its
//! keys; a run id that already holds this shard is refused with exit 2
//! naming `--run-id`; without any run id kvbench refuses before connecting.
//! Those are in `failures`; the Slurm case is in tests/e2e/slurm.rs.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::cluster::Cluster;
use crate::common::memcached::Memcached;
use crate::common::{Redis, TempDir, f, kvbench_at, machine, pipeline, read_json, total, u};

mod balancer;
mod failures;

const SHARDS: u32 = 4;

/// The workload of every shard: a 4 s warm-up (which hands over to run 1
/// 1 s before its start), two timed runs the default --run-gap (5 s) apart:
/// room for the drain, the evidence and a report write (seconds, in a debug
/// build on a loaded machine).
const WORKLOAD: [&str; 14] = [
    "-t",
    "1",
    "-c",
    "2",
    "--ratio",
    "1:1",
    "--key-maximum",
    "1000",
    "--warmup-time",
    "4",
    "--test-time",
    "2",
    "-x",
    "2",
];

/// Shard `index` of [`SHARDS`] at `port` with `extra` target flags.
fn shard(port: u16, index: u32, run_id: &str, extra: &[&str], json: &str) -> Command {
    let mut c = kvbench_at(port);
    c.args(extra)
        .args(WORKLOAD)
        .args(["--shard-count", &SHARDS.to_string()])
        .args(["--shard-index", &index.to_string()])
        .args(["--start-at", "barrier", "--run-id", run_id])
        .args(["--barrier-timeout", "60", "--allow-invalid"])
        .args(["--json-out-file", json])
        .env_remove("SLURM_JOB_ID")
        .env_remove("KVBENCH_RUN_ID")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// Waits for `child` at most `limit`, killing it past that.
pub(super) fn wait_bounded(mut child: Child, limit: Duration, what: &str) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} did not end within {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Launches the four shards one second apart (3 s from the first to the
/// last), waits for all and returns their reports, checked for success.
fn four_shards(port: u16, run_id: &str, extra: &[&str], dir: &TempDir) -> Vec<Value> {
    let mut children = Vec::new();
    for i in 0..SHARDS {
        if i > 0 {
            std::thread::sleep(Duration::from_secs(1));
        }
        let json = dir.path(&format!("shard-{i}.json"));
        children.push(
            shard(port, i, run_id, extra, json.to_str().unwrap())
                .spawn()
                .unwrap(),
        );
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
    (0..SHARDS)
        .map(|i| read_json(&dir.path(&format!("shard-{i}.json"))))
        .collect()
}

/// Every shard met under `run_id`, in four distinct places of arrival, at
/// one published T; every phase of every shard started within 20 ms of the
/// others' and at or after its plan.
fn assert_aligned(docs: &[Value], run_id: &str) {
    let mut arrivals: Vec<u64> = docs
        .iter()
        .map(|d| u(&d["kvbench"]["shard"]["barrier"]["arrival"]))
        .collect();
    arrivals.sort_unstable();
    assert_eq!(arrivals, [1, 2, 3, 4]);
    let t = u(&docs[0]["kvbench"]["shard"]["start_at_ms"]);
    let schema: Value =
        serde_json::from_str(include_str!("../../docs/output.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (i, doc) in docs.iter().enumerate() {
        let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "shard {i} vs the schema: {errors:?}");
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert_eq!(u(&shard["start_at_ms"]), t, "shard {i}: one published T");
        assert_eq!(shard["barrier"]["run_id"], run_id, "{shard}");
        // Launched 1 s apart: the first waited for the last, about 3 s.
        let waited = f(&shard["barrier"]["waited_ms"]);
        assert!((0.0..60_000.0).contains(&waited), "{shard}");
        if i == 0 {
            assert!(waited > 2_000.0, "the first shard waited {waited} ms");
        }
        assert!(shard["late"].is_null(), "{shard}");
    }
    // The warm-up starts at T, run 1 a warm-up later, run 2 a run and a gap later.
    let planned = [t, t + 4_000, t + 4_000 + 2_000 + 5_000];
    for (k, (name, planned)) in ["WARM-UP", "RUN #1", "RUN #2"]
        .iter()
        .zip(planned)
        .enumerate()
    {
        let starts: Vec<u64> = docs
            .iter()
            .map(|d| u(&phase(d, k)["start_time_ms"]))
            .collect();
        let lags: Vec<f64> = docs
            .iter()
            .map(|d| f(&phase(d, k)["start_lag_ms"]))
            .collect();
        let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
        let before: Vec<String> = docs
            .iter()
            .map(|d| {
                let p = phase(d, k.saturating_sub(1));
                format!("{}+{} ms", p["duration_ms"], p["drain_ms"])
            })
            .collect();
        assert!(
            spread <= 20,
            "{name} started at {starts:?} (lags {lags:?} ms; the phase before lasted {before:?}): more than 20 ms apart"
        );
        // Each at or after its plan, well within --start-tolerance: a loaded
        // machine wakes every shard late alike, which the spread above
        // does not see.
        for lag in &lags {
            assert!((0.0..250.0).contains(lag), "{name} lags {lags:?} ms");
        }
        for start in &starts {
            assert!(
                *start + 1 >= planned && *start <= planned + 250,
                "{name} started at {starts:?}, planned {planned}"
            );
        }
    }
}

/// Phase `k` of a report: 0 the warm-up, then the runs.
fn phase(doc: &Value, k: usize) -> &Value {
    match k {
        0 => &doc["kvbench"]["warmup"],
        _ => &doc["kvbench"]["runs"][k - 1],
    }
}

/// `kvbench merge` of the shards' files; the merged file.
fn merged(dir: &TempDir) -> Value {
    let files: Vec<String> = (0..SHARDS)
        .map(|i| dir.path(&format!("shard-{i}.json")).display().to_string())
        .collect();
    crate::common::launch::merge_ok(&files, &dir.path("total.json"), &[])
}

/// The SETs and GETs of every shard's warm-up.
fn warmups(docs: &[Value], op: &str) -> u64 {
    docs.iter()
        .map(|d| u(&d["kvbench"]["warmup"]["totals"][op]["count"]))
        .sum()
}

/// Asserts the merged counts equal the server's own, less the warm-ups'.
fn assert_counts(docs: &[Value], merged: &Value, server: impl Fn(&str) -> u64) {
    for (op, command) in [("SET", "set"), ("GET", "get")] {
        let runs = total(merged, op, "count");
        let shards: u64 = docs.iter().map(|d| total(d, op, "count")).sum();
        assert!(runs > 0, "{op}: nothing merged");
        assert_eq!(runs, shards, "{op}: the merge is the shards' sum");
        assert_eq!(
            runs + warmups(docs, op),
            server(command),
            "{op}: the server counted every request, and no barrier command as one"
        );
    }
}

/// The keys named `kvbench:barrier:*` on the Redis at `port`.
pub(super) fn barrier_keys(port: u16) -> usize {
    match pipeline(port, &[["KEYS", "kvbench:barrier:*"]]).remove(0) {
        kvbench::protocol::value::Value::Array(keys) => keys.len(),
        other => panic!("KEYS answered {other:?}"),
    }
}

#[test]
fn four_shards_launched_apart_meet_on_a_redis_server_and_start_every_phase_together() {
    let _alone = machine::alone();
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("barrier-redis");
    let docs = four_shards(redis.port, "redis-run", &[], &dir);
    assert_aligned(&docs, "redis-run");
    assert_counts(&docs, &merged(&dir), |c| redis.calls(c));
    assert_eq!(barrier_keys(redis.port), 0, "the barrier's key is gone");
    // No barrier command or key inside any shard's evidence: its first
    // phase's INFO before was read once every shard had left the barrier.
    for (i, doc) in docs.iter().enumerate() {
        let server = &doc["kvbench"]["warmup"]["server"];
        assert_eq!(u(&server["delta"]["keys_before"]), 0, "shard {i}: {server}");
        for command in ["hsetnx", "hincrby", "hget", "hdel", "pexpire", "del"] {
            let key = format!("cmdstat_{command}");
            assert_eq!(
                server["info_before"]["commandstats"][&key],
                server["info_after"]["commandstats"][&key],
                "shard {i}: {command} during the warm-up"
            );
        }
    }
    // The barrier spoke hash commands only: 4 check-ins, 4 arrivals, 4 departures.
    assert_eq!(redis.calls("hsetnx"), 4 + 1, "4 check-ins and one T");
    // Each shard on its way out takes its check-in back, then removes the
    // key if none is left: the last one out, or the last few when they
    // leave together and each finds none (seen on a loaded machine: 2 DELs;
    // DEL is idempotent), at most once each. The key is gone, as asserted
    // above.
    let dels = redis.calls("del");
    assert!(
        (1..=SHARDS as u64).contains(&dels),
        "{dels} DELs: the key is removed by the shards that leave last"
    );
}

#[test]
fn four_shards_meet_on_memcached_without_touching_its_get_and_set_counts() {
    let _alone = machine::alone();
    let mc = Memcached::start();
    let base = (mc.stat("cmd_set"), mc.stat("cmd_get"));
    let dir = TempDir::new("barrier-memcached");
    let docs = four_shards(mc.port, "mc-run", &["-P", "memcache_text"], &dir);
    assert_aligned(&docs, "mc-run");
    assert_counts(&docs, &merged(&dir), |c| match c {
        "set" => mc.stat("cmd_set") - base.0,
        _ => mc.stat("cmd_get") - base.1,
    });
    // Every barrier key is gone: a meta get of each misses.
    let mut names = vec!["arrivals".to_string(), "left".into(), "t".into()];
    names.extend((0..SHARDS).map(|i| format!("shard-{i}-in")));
    let mut s = mc.connect();
    for name in &names {
        write!(s, "mg kvbench:barrier:mc-run:{name} v\r\n").unwrap();
    }
    s.write_all(b"mn\r\n").unwrap();
    let replies = read_until_mn(&mut s);
    assert_eq!(replies, vec!["EN"; names.len()], "every barrier key misses");
}

fn read_until_mn(s: &mut TcpStream) -> Vec<String> {
    let mut text = String::new();
    let mut buf = [0u8; 4096];
    while !text.ends_with("MN\r\n") {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "memcached closed: {text}");
        text.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    text.lines()
        .filter(|l| *l != "MN")
        .map(String::from)
        .collect()
}

#[test]
fn four_shards_meet_on_a_redis_cluster_node_that_holds_the_barrier_key() {
    let _alone = machine::alone();
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let dir = TempDir::new("barrier-cluster");
    let docs = four_shards(
        cluster.seed_port(),
        "cluster-run",
        &["--cluster-mode"],
        &dir,
    );
    assert_aligned(&docs, "cluster-run");
    assert_counts(&docs, &merged(&dir), |c| cluster.sum_calls(c));
    for port in cluster.masters() {
        assert_eq!(barrier_keys(port), 0, "no barrier key on {port}");
    }
    // One slot, one node: every barrier command went to the same master.
    let hsetnx = cluster.calls_by_master("hsetnx");
    assert_eq!(
        hsetnx.iter().filter(|(_, n)| *n > 0).count(),
        1,
        "{hsetnx:?}"
    );
    assert_eq!(hsetnx.iter().map(|(_, n)| n).sum::<u64>(), 4 + 1);
}
