//! Watching a sharded run: three client network namespaces run one kvbench
//! shard each through nutcracker, all naming the watches, shard 0 alone
//! sampling them, and `kvbench merge` carries the watched rows into each
//! round, where the shards' calls equal their own INFO and the merged
//! counts. SETs written straight to a shard behind kvbench's back make the
//! shards' sum exceed kvbench's: a `count_mismatch` the merge prints.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{
    LOAD, args, assert_limit, assert_proxy_row, calls, row, three_shards_behind_nutcracker, watches,
};
use crate::barrier::wait_bounded;
use crate::common::launch::{SMALL_SHARD, merge_ok};
use crate::common::netns::{Lan, SERVER_ADDR};
use crate::common::proxy::{
    LAN_NODE_PORT, LAN_PROXY_PORT, LAN_STATS_PORT, backend_requests, cpus, metric, metrics_in,
    start_node_exporter_in, start_nutcracker_in, stats_in,
};
use crate::common::{
    TempDir, assert_success, f, kvbench, kvbench_at, parse_commandstats, read_json, total, u,
    wait_for_traffic,
};

/// The shards' ports inside the Lan's server namespace.
const LAN_SHARDS: [u16; 3] = [7001, 7002, 7003];

/// Calls of `command` on the Lan's shard at `port`, by its own INFO.
fn lan_calls(lan: &Lan, port: u16, command: &str) -> u64 {
    let text = lan
        .redis_cli(port, &["INFO", "commandstats"])
        .replace('\r', "");
    parse_commandstats(&text).get(command).map_or(0, |c| c.0)
}

#[test]
fn three_machines_behind_nutcracker_merge_into_the_shards_counts() {
    const CLIENTS: usize = 3;
    let dir = TempDir::new("watch-lan");
    let mut lan = Lan::new(CLIENTS);
    for port in LAN_SHARDS {
        lan.start_redis(port, &dir.0);
    }
    start_nutcracker_in(&mut lan, &dir.0, &LAN_SHARDS);
    start_node_exporter_in(&mut lan, &dir.0);
    for port in LAN_SHARDS {
        assert_eq!(lan.redis_cli(port, &["CONFIG", "RESETSTAT"]).trim(), "OK");
    }
    let run_id = format!("watch-lan-{}", std::process::id());
    // Every machine names the watches; only shard 0 samples them.
    let watched = watches(
        SERVER_ADDR,
        &LAN_SHARDS,
        Some(LAN_NODE_PORT),
        Some(LAN_STATS_PORT),
    );
    let children: Vec<Child> = lan
        .clients
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            Lan::exec_as_host(ns, &format!("client{i}"), env!("CARGO_BIN_EXE_kvbench"))
                .args(["-s", SERVER_ADDR, "-p", &LAN_PROXY_PORT.to_string()])
                .args(["--shard-count", &CLIENTS.to_string()])
                .args(["--shard-index", &i.to_string()])
                .args(SMALL_SHARD)
                .args(["--test-time", "3", "--hide-histogram", "--allow-invalid"])
                .args(["--start-at", "barrier", "--run-id", &run_id])
                .args(["--barrier-timeout", "60"])
                .args(&watched)
                .arg("--json-out-file")
                .arg(dir.path(&format!("s{i}.json")))
                .env_remove("KVBENCH_AUTH")
                .env_remove("KVBENCH_RUN_ID")
                .env_remove("SLURM_JOB_ID")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run kvbench in a client namespace")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = wait_bounded(child, Duration::from_secs(120), &format!("shard {i}"));
        assert!(
            out.status.success(),
            "shard {i}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let files: Vec<String> = (0..CLIENTS)
        .map(|i| dir.path(&format!("s{i}.json")).display().to_string())
        .collect();
    for (i, file) in files.iter().enumerate().skip(1) {
        let watched = &read_json(file.as_ref())["kvbench"]["runs"][0]["watched"];
        let none = watched.is_null() || watched.as_array().is_some_and(Vec::is_empty);
        assert!(none, "shard {i} sampled too: {watched}");
    }

    let merged = merge_ok(&files, &dir.path("merged.json"), &[]);
    let kv = &merged["kvbench"];
    let rounds = kv["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    let round = &rounds[0];
    assert_eq!(
        round["clients"].as_array().unwrap().len(),
        CLIENTS,
        "{round}"
    );
    let metrics = metrics_in(&lan, LAN_NODE_PORT);
    let node_address = format!("{SERVER_ADDR}:{LAN_NODE_PORT}");
    let mut named: Vec<String> = LAN_SHARDS
        .iter()
        .map(|p| format!("{SERVER_ADDR}:{p}"))
        .collect();
    named.push(node_address.clone());
    for phase in [round, &kv["runs"][0]] {
        for (op, command) in [("SET", "set"), ("GET", "get")] {
            let mut sum = 0;
            for port in LAN_SHARDS {
                let shard = row(phase, "redis", &format!("{SERVER_ADDR}:{port}"));
                let own = lan_calls(&lan, port, command);
                assert!(own > 0, "no {command} reached shard {port}");
                assert_eq!(calls(shard, command), own, "{command} on shard {port}");
                sum += own;
            }
            assert_eq!(
                sum,
                total(&merged, op, "count"),
                "{op}: the shards against the merge"
            );
        }
        // The server namespace's host: the clients' traffic crossed its bridge.
        let host = row(phase, "node", &node_address);
        assert_eq!(u(&host["cores"]) as usize, cpus(&metrics), "{host}");
        let interfaces = host["interfaces"].as_array().unwrap();
        let device = |name: &str| {
            interfaces
                .iter()
                .find(|i| i["device"] == name)
                .unwrap_or_else(|| panic!("no {name} in {host}"))
        };
        assert!(f(&device("br0")["rx_bytes_per_sec"]) > 0.0, "{host}");
        // A veth end's speed is what the exporter reads from /sys.
        let speed = metric(&metrics, "node_network_speed_bytes", "c1").expect("c1's speed");
        assert_eq!(f(&device("c1")["speed_bytes_per_sec"]), speed, "{host}");
        let sent = total(&merged, "SET", "count") + total(&merged, "GET", "count");
        let proxy = row(
            phase,
            "twemproxy",
            &format!("{SERVER_ADDR}:{LAN_STATS_PORT}"),
        );
        let forwarded = assert_proxy_row(proxy, sent);
        let ever = backend_requests(&stats_in(&lan, LAN_STATS_PORT));
        assert!(
            forwarded <= ever,
            "{forwarded} of the {ever} it ever forwarded"
        );
        assert_limit(&phase["limit"], &named);
    }
    let warnings = kv["warnings"].as_array().unwrap();
    assert!(
        !warnings.iter().any(|w| w["kind"] == "count_mismatch"),
        "{warnings:?}"
    );
}

/// SETs written straight to one shard while kvbench runs through the proxy.
const FOREIGN_SETS: u64 = 20_000;

#[test]
fn sets_written_to_a_shard_behind_kvbench_are_a_count_mismatch_in_the_merge() {
    let (shards, proxy) = three_shards_behind_nutcracker();
    let ports = shards.each_ref().map(|r| r.port);
    let dir = TempDir::new("watch-foreign");
    let json = dir.path("r.json");
    let mut fixed = LOAD.to_vec();
    // Long enough for the foreign SETs to end inside the run on a loaded machine.
    fixed.extend(["--test-time", "10"]);
    let mut child = kvbench_at(proxy.port)
        .args(args(&fixed, watches("127.0.0.1", &ports, None, None)))
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let foreign = &shards[0];
    wait_for_traffic(foreign.port, &mut child);
    let bench = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", &foreign.port.to_string()])
        .args([
            "-t",
            "set",
            "-n",
            &FOREIGN_SETS.to_string(),
            "-c",
            "4",
            "-P",
            "16",
            "-q",
        ])
        .output()
        .expect("run redis-benchmark (make deps installs redis-tools)");
    assert!(
        bench.status.success(),
        "{}",
        String::from_utf8_lossy(&bench.stderr)
    );
    let done_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    assert!(
        child.try_wait().unwrap().is_none(),
        "kvbench ended before the foreign SETs did"
    );
    let out = child.wait_with_output().unwrap();
    assert_success(&out, "through nutcracker beside a foreign writer");
    let doc = read_json(&json);
    let run = &doc["kvbench"]["runs"][0];
    let end_ms = u(&run["start_time_ms"]) + u(&run["duration_ms"]);
    assert!(
        done_ms <= end_ms,
        "the foreign SETs ended at {done_ms}, the run at {end_ms}"
    );

    // The shard's row counts them; kvbench did not send them.
    let shard = row(run, "redis", &format!("127.0.0.1:{}", foreign.port));
    assert_eq!(calls(shard, "set"), foreign.calls("set"));
    let watched: u64 = ports
        .iter()
        .map(|p| calls(row(run, "redis", &format!("127.0.0.1:{p}")), "set"))
        .sum();
    assert_eq!(watched, total(&doc, "SET", "count") + FOREIGN_SETS);

    let merged_path = dir.path("merged.json");
    let merge = kvbench(&[
        "merge",
        json.to_str().unwrap(),
        "-o",
        merged_path.to_str().unwrap(),
    ]);
    assert_success(&merge, "merge");
    let stderr = String::from_utf8_lossy(&merge.stderr);
    let merged = read_json(&merged_path);
    let mismatches: Vec<&str> = merged["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "count_mismatch")
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    let sets: Vec<&&str> = mismatches.iter().filter(|m| m.contains("SET")).collect();
    assert!(!sets.is_empty(), "no SET count mismatch: {mismatches:?}");
    assert!(
        !mismatches.iter().any(|m| m.contains("GET")),
        "{mismatches:?}"
    );
    for m in sets {
        assert!(stderr.contains(*m), "merge did not print {m:?}: {stderr}");
    }
}
