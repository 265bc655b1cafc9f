//! Shards on several hosts: three client network namespaces, each with its
//! own address and its own host name (a UTS namespace), run one kvbench shard
//! each against a redis-server listening on its own address in a fourth
//! namespace (tests/e2e/common/netns.rs). Each shard names its host in its file
//! name (`{host}`) and in `kvbench.shard.host`, and `kvbench merge` of the
//! three counts exactly what the server executed.
//!
//! The per-round table's columns against witnesses the test reads itself
//! are in [`witness`].
//!
//! The server's side of what the method watches: each run's `server_use`,
//! the server's CPU and network second by second read on the control
//! connection, agrees with the INFO (memcached's `stats`) the test reads
//! itself before and after the run.

use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::launch::SMALL_SHARD;
use crate::common::memcached::Memcached;
use crate::common::netns::{Lan, SERVER_ADDR};
use crate::common::{
    Redis, TempDir, f, info, info_u64, kvbench, kvbench_at, parse_commandstats, read_json, total, u,
};

mod witness;

const CLIENTS: usize = 3;

/// The server's port inside its namespace: nothing else listens there.
const PORT: u16 = 6379;

#[test]
fn three_hosts_in_network_namespaces_merge_into_the_servers_counts() {
    let dir = TempDir::new("hosts");
    let mut lan = Lan::new(CLIENTS);
    lan.start_redis(PORT, &dir.0);
    assert_eq!(lan.redis_cli(PORT, &["CONFIG", "RESETSTAT"]).trim(), "OK");

    let pattern = dir.path("{host}-{shard}.json");
    let at = (SystemTime::now() + Duration::from_secs(3))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let at = format!("{at:.3}");
    let children: Vec<Child> = lan
        .clients
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            Lan::exec_as_host(ns, &format!("client{i}"), env!("CARGO_BIN_EXE_kvbench"))
                .args(["-s", SERVER_ADDR, "-p", &PORT.to_string()])
                .args(["--shard-count", &CLIENTS.to_string()])
                .args(["--shard-index", &i.to_string()])
                .args(SMALL_SHARD)
                .args(["--hide-histogram", "--test-time", "2", "--start-at", &at])
                .arg("--json-out-file")
                .arg(&pattern)
                .env_remove("KVBENCH_AUTH")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run kvbench in a client namespace")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "shard {i}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // `{host}` became each namespace's host name, not this machine's.
    let files: Vec<String> = (0..CLIENTS)
        .map(|i| {
            let path = dir.path(&format!("client{i}-{i}.json"));
            assert!(path.exists(), "no {}", path.display());
            path.to_str().unwrap().to_string()
        })
        .collect();
    let docs: Vec<Value> = files.iter().map(|f| read_json(f.as_ref())).collect();
    for (i, doc) in docs.iter().enumerate() {
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["host"], format!("client{i}").as_str(), "{shard}");
        assert_eq!(shard["source"], "flags", "{shard}");
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert!(shard["late"].is_null(), "{shard}");
        assert!(total(doc, "GET", "count") > 0, "shard {i} sent GETs");
    }

    let merged = dir.path("total.json");
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", merged.to_str().unwrap()]);
    let out = kvbench(&args);
    assert!(
        out.status.success(),
        "kvbench merge: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    for i in 0..CLIENTS {
        assert!(table.contains(&format!("client{i}")), "{table}");
    }
    let doc = read_json(&merged);
    let text = lan
        .redis_cli(PORT, &["INFO", "commandstats"])
        .replace('\r', "");
    let stats = parse_commandstats(&text);
    let calls = |name: &str| stats.get(name).map_or(0, |c| c.0);
    assert!(calls("set") > 0 && calls("get") > 0, "{stats:?}");
    assert_eq!(total(&doc, "SET", "count"), calls("set"));
    assert_eq!(total(&doc, "GET", "count"), calls("get"));
}

/// A 3 s run against `port` with `protocol`; its JSON report.
fn three_seconds(port: u16, protocol: &str, dir: &TempDir) -> Value {
    let json = dir.path(&format!("{protocol}.json"));
    let out = kvbench_at(port)
        .args(["-P", protocol, "-t", "1", "-c", "2", "--ratio", "1:1"])
        .args(["--key-maximum", "1000", "-d", "2000", "--test-time", "3"])
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_json(&json)
}

/// Each completed second of the run's one server: 2 or 3 of a 3 s run.
fn server_seconds(doc: &Value) -> &Vec<Value> {
    let uses = doc["kvbench"]["runs"][0]["server_use"].as_array().unwrap();
    assert_eq!(uses.len(), 1, "{uses:?}");
    let seconds = uses[0]["per_second"].as_array().unwrap();
    assert!((2..=3).contains(&seconds.len()), "{seconds:?}");
    seconds
}

/// The seconds' sum of `field` (each a rate over the time between two
/// readings, about one second: a rate over a second the loaded master read
/// late and the next one early reads high, so the sum may pass the bytes by
/// some percent) is at most a fifth above the run's own delta and at least
/// a third of it (the run's last, partial second is in the delta only); and
/// the delta is within the test's own.
fn bounded_by(seconds: &[Value], field: &str, run_delta: f64, test_delta: f64) {
    let sum: f64 = seconds.iter().map(|s| f(&s[field])).sum();
    assert!(
        run_delta > 0.0 && run_delta <= test_delta,
        "{field}: {run_delta} vs {test_delta}"
    );
    assert!(
        sum >= run_delta / 3.0 && sum <= run_delta * 1.2,
        "{field}: the seconds sum to {sum}, the run's delta is {run_delta}"
    );
}

#[test]
fn the_servers_cpu_and_network_per_second_agree_with_its_own_counters() {
    let dir = TempDir::new("server-use");
    let redis = Redis::start();
    let cpu = |port| {
        info(port, "cpu", "used_cpu_user").parse::<f64>().unwrap()
            + info(port, "cpu", "used_cpu_sys").parse::<f64>().unwrap()
    };
    let net = |port| {
        (
            info_u64(port, "stats", "total_net_input_bytes"),
            info_u64(port, "stats", "total_net_output_bytes"),
        )
    };
    let (cpu0, net0) = (cpu(redis.port), net(redis.port));
    let doc = three_seconds(redis.port, "redis", &dir);
    let (cpu1, net1) = (cpu(redis.port), net(redis.port));
    let seconds = server_seconds(&doc);
    assert_eq!(
        doc["kvbench"]["runs"][0]["server_use"][0]["run_id"],
        info(redis.port, "server", "run_id").as_str()
    );
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    // CPU: percent of one core per second, against CPU seconds.
    let cpu_sum: f64 = seconds.iter().map(|s| f(&s["cpu_percent"]) / 100.0).sum();
    let run_cpu = f(&delta["cpu_s"]);
    assert!(
        run_cpu > 0.0 && run_cpu <= cpu1 - cpu0 + 0.01,
        "{run_cpu} vs {}",
        cpu1 - cpu0
    );
    assert!(cpu_sum <= run_cpu * 1.2 + 0.02, "{cpu_sum} vs {run_cpu}");
    bounded_by(
        seconds,
        "net_input_bytes_per_sec",
        f(&delta["net_input_bytes"]),
        (net1.0 - net0.0) as f64,
    );
    bounded_by(
        seconds,
        "net_output_bytes_per_sec",
        f(&delta["net_output_bytes"]),
        (net1.1 - net0.1) as f64,
    );

    // memcached's `stats`: bytes_read and bytes_written.
    let m = Memcached::start();
    let read0 = (m.stat("bytes_read"), m.stat("bytes_written"));
    let doc = three_seconds(m.port, "memcache_text", &dir);
    let read1 = (m.stat("bytes_read"), m.stat("bytes_written"));
    let seconds = server_seconds(&doc);
    assert!(
        seconds.iter().all(|s| s["cpu_percent"].is_number()),
        "{seconds:?}"
    );
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    bounded_by(
        seconds,
        "net_input_bytes_per_sec",
        f(&delta["net_input_bytes"]),
        (read1.0 - read0.0) as f64,
    );
    bounded_by(
        seconds,
        "net_output_bytes_per_sec",
        f(&delta["net_output_bytes"]),
        (read1.1 - read0.1) as f64,
    );
}
