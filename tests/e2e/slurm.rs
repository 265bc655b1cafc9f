//! Shards launched by a real Slurm: a private cluster on this machine
//! (tests/e2e/common/slurm.rs) runs `srun -n 4 --overcommit kvbench …` against a
//! private redis-server; each task reads its identity from `SLURM_PROCID` and
//! `SLURM_NTASKS`, the four run the same window, and `kvbench merge` of their
//! files counts exactly what the server executed.
//!
//! `--start-at` is given as epoch seconds computed once, as a batch script
//! does (deploy/slurm/kvbench.sbatch): a relative `+5s` would be counted by
//! each task from its own start, giving each its own planned start, and
//! `kvbench merge` refuses files of different planned starts. Or, with
//! `--start-at barrier`, no time at all: the tasks, launched seconds apart,
//! meet on the server under the run id `SLURM_JOB_ID.SLURM_STEP_ID`.

use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::launch::{SMALL_SHARD, epoch_in};
use crate::common::slurm::Slurm;
use crate::common::{Redis, TempDir, read_json, total, u};

const TASKS: u64 = 4;

/// Waits for `child` at most `limit`; kills it and panics with the cluster's
/// logs when it takes longer.
fn wait_bounded(mut child: Child, limit: Duration, slurm: &Slurm) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "srun did not finish within {limit:?}: {}\n{}",
                String::from_utf8_lossy(&out.stderr),
                slurm.logs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn srun_runs_four_aligned_shards_that_merge_into_the_servers_counts() {
    let slurm = Slurm::start();
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("slurm-run");
    let pattern = dir.path("shard-{shard}.json");
    let at = format!("{:.3}", epoch_in(Duration::from_secs(5)));
    let child = slurm
        .srun()
        .args([
            "-n",
            &TASKS.to_string(),
            "--overcommit",
            "--kill-on-bad-exit=1",
        ])
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &redis.port.to_string()])
        .args(SMALL_SHARD)
        .args(["--hide-histogram", "--test-time", "2", "--start-at", &at])
        .arg("--json-out-file")
        .arg(&pattern)
        .current_dir(&dir.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run srun");
    let out = wait_bounded(child, Duration::from_secs(60), &slurm);
    assert!(
        out.status.success(),
        "srun: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        slurm.logs()
    );

    let files: Vec<String> = (0..TASKS)
        .map(|i| {
            dir.path(&format!("shard-{i}.json"))
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let docs: Vec<Value> = files.iter().map(|f| read_json(f.as_ref())).collect();
    for (i, doc) in docs.iter().enumerate() {
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["source"], "slurm", "task {i}: {shard}");
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert_eq!(u(&shard["count"]), TASKS, "{shard}");
        assert!(shard["late"].is_null(), "{shard}");
        assert!(total(doc, "SET", "count") > 0, "task {i} sent SETs");
    }
    let starts: Vec<u64> = docs
        .iter()
        .map(|d| u(&d["kvbench"]["runs"][0]["start_time_ms"]))
        .collect();
    let (first, last) = (starts.iter().min().unwrap(), starts.iter().max().unwrap());
    assert!(
        last - first <= 50,
        "run starts {starts:?} are more than 50 ms apart"
    );

    let doc = crate::common::launch::merge_ok(&files, &dir.path("total.json"), &[]);
    let (sets, gets) = (redis.calls("set"), redis.calls("get"));
    assert!(
        sets > 0 && gets > 0,
        "the server saw {sets} SETs, {gets} GETs"
    );
    assert_eq!(total(&doc, "SET", "count"), sets);
    assert_eq!(total(&doc, "GET", "count"), gets);
    assert_eq!(doc["kvbench"]["merged"]["partial"], false);
    assert_eq!(doc["kvbench"]["shards"].as_array().map(Vec::len), Some(4));
}

#[test]
fn the_sbatch_script_runs_the_shards_and_merges_their_files() {
    let slurm = Slurm::start();
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("sbatch");
    let out_dir = dir.path("out");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/slurm/kvbench.sbatch");
    // The script asks for one task on each of 4 nodes; this cluster has one
    // node, so the command line (which overrides #SBATCH lines) puts the
    // four tasks on it.
    let child = slurm
        .client("sbatch")
        .args(["--wait", "--nodes=1", "--ntasks=4", "--overcommit"])
        .arg(format!("--output={}", dir.path("job.out").display()))
        .arg(script)
        .current_dir(&dir.0)
        .env("KVBENCH", env!("CARGO_BIN_EXE_kvbench"))
        .env("KVBENCH_SERVER", "127.0.0.1")
        .env("KVBENCH_PORT", redis.port.to_string())
        .env(
            "KVBENCH_ARGS",
            "-t 1 -c 2 --ratio 1:1 --key-maximum 1000 --test-time 2",
        )
        .env("KVBENCH_OUT", &out_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sbatch");
    let out = wait_bounded(child, Duration::from_secs(90), &slurm);
    let job_log = std::fs::read_to_string(dir.path("job.out")).unwrap_or_default();
    assert!(
        out.status.success(),
        "sbatch: {}\n{}\njob output:\n{job_log}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        slurm.logs()
    );
    for i in 0..TASKS {
        let doc = read_json(&out_dir.join(format!("run-{i}.json")));
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["source"], "slurm", "{shard}");
        assert_eq!(u(&shard["index"]), i, "{shard}");
        // The script starts the tasks at a barrier named by the job's step.
        let run_id = shard["barrier"]["run_id"].as_str().unwrap_or_default();
        assert!(run_id.contains('.'), "{shard}");
        let text = std::fs::read_to_string(out_dir.join(format!("stdout-{i}.txt"))).unwrap();
        assert!(text.contains(&format!("Shard: {i} of 4 (slurm)")), "{text}");
    }
    let doc = read_json(&out_dir.join("total.json"));
    let (sets, gets) = (redis.calls("set"), redis.calls("get"));
    assert!(
        sets > 0 && gets > 0,
        "the server saw {sets} SETs, {gets} GETs"
    );
    assert_eq!(total(&doc, "SET", "count"), sets, "{job_log}");
    assert_eq!(total(&doc, "GET", "count"), gets, "{job_log}");
}

#[test]
fn srun_tasks_launched_apart_meet_at_a_barrier_named_by_the_job() {
    let _alone = crate::common::machine::alone();
    let slurm = Slurm::start();
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("slurm-barrier");
    let pattern = dir.path("shard-{shard}.json");
    // Task I starts I seconds after task 0: the barrier, not the launch,
    // lines them up.
    let child = slurm
        .srun()
        .args([
            "-n",
            &TASKS.to_string(),
            "--overcommit",
            "--kill-on-bad-exit=1",
        ])
        .args(["sh", "-c", r#"sleep "$SLURM_PROCID"; exec "$0" "$@""#])
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &redis.port.to_string()])
        .args(SMALL_SHARD)
        .args(["--hide-histogram", "--test-time", "2", "--allow-invalid"])
        .args(["--start-at", "barrier", "--barrier-timeout", "60"])
        .arg("--json-out-file")
        .arg(&pattern)
        .current_dir(&dir.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run srun");
    let out = wait_bounded(child, Duration::from_secs(90), &slurm);
    assert!(
        out.status.success(),
        "srun: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        slurm.logs()
    );
    let docs: Vec<Value> = (0..TASKS)
        .map(|i| read_json(&dir.path(&format!("shard-{i}.json"))))
        .collect();
    let run_id = docs[0]["kvbench"]["shard"]["barrier"]["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    // SLURM_JOB_ID.SLURM_STEP_ID: digits, a dot, digits.
    let (job, step) = run_id.split_once('.').unwrap_or_else(|| panic!("{run_id}"));
    assert!(
        [job, step]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())),
        "{run_id}"
    );
    let mut arrivals = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["source"], "slurm", "task {i}: {shard}");
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert_eq!(shard["barrier"]["run_id"], run_id.as_str(), "{shard}");
        assert_eq!(
            shard["start_at_ms"], docs[0]["kvbench"]["shard"]["start_at_ms"],
            "one published T"
        );
        arrivals.push(u(&shard["barrier"]["arrival"]));
    }
    arrivals.sort_unstable();
    assert_eq!(arrivals, [1, 2, 3, 4]);
    let starts: Vec<u64> = docs
        .iter()
        .map(|d| u(&d["kvbench"]["runs"][0]["start_time_ms"]))
        .collect();
    let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
    assert!(
        spread <= 20,
        "run starts {starts:?} are more than 20 ms apart"
    );
    let sets: u64 = docs.iter().map(|d| total(d, "SET", "count")).sum();
    assert!(sets > 0);
    assert_eq!(
        sets,
        redis.calls("set"),
        "no barrier command counted as a SET"
    );
    assert_eq!(
        redis.dbsize(),
        redis.dbsize().min(1001),
        "no key but the workload's"
    );
}
