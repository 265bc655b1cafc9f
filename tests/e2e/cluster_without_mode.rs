//! A Redis Cluster node as the target without `--cluster-mode`: refused at
//! the preflight (exit 2, naming the flag, before any SET or GET), where the
//! run used to go ahead and report MOVED only at its end; `kvbench suite`
//! names its own `--cluster`; `--memtier-compat` keeps memtier's way: it runs
//! and counts each MOVED as an error reply (exit 3 by the verdict).

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::cluster::Cluster;
use crate::common::kvbench_at;

#[test]
fn a_cluster_node_without_cluster_mode_is_refused_before_any_load() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let load = || cluster.sum_calls("set") + cluster.sum_calls("get");
    let started = Instant::now();
    let out = kvbench_at(cluster.seed_port())
        .args(["-t", "2", "-c", "5", "--test-time", "10"])
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("kvbench: error: --cluster-mode: "),
        "{stderr}"
    );
    assert!(stderr.contains("cluster_enabled:1"), "{stderr}");
    assert!(stderr.contains("--memtier-compat"), "{stderr}");
    // Well inside the 10 s it would have run.
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert!(out.stdout.is_empty(), "a report was written");
    assert_eq!(load(), 0, "{stderr}");

    // The suite names its own flag, and no flag it does not take.
    let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &cluster.seed_port().to_string()])
        .args(["-t", "set", "-n", "100", "-r", "1000", "-q"])
        .env_remove("KVBENCH_AUTH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("kvbench: error: --cluster: "), "{stderr}");
    assert!(!stderr.contains("--memtier-compat"), "{stderr}");
    assert_eq!(load(), 0, "{stderr}");

    // memtier's way on request: the load goes to the seed, whose MOVED
    // replies are error replies.
    let out = kvbench_at(cluster.seed_port())
        .args(["--memtier-compat", "-t", "1", "-c", "1", "-n", "300"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("MOVED"), "{stderr}");
    let served = load();
    assert!(
        served > 0 && served < 300,
        "{served} of 300 served: {stderr}"
    );
}
