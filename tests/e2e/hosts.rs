//! Shards on several hosts: three client network namespaces, each with its
//! own address and its own host name (a UTS namespace), run one kvbench shard
//! each against a redis-server listening on its own address in a fourth
//! namespace (tests/e2e/common/netns.rs). Each shard names its host in its file
//! name (`{host}`) and in `kvbench.shard.host`, and `kvbench merge` of the
//! three counts exactly what the server executed.

use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::netns::{Lan, SERVER_ADDR};
use crate::common::{TempDir, kvbench, parse_commandstats, read_json, total, u};

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
                .args([
                    "-t",
                    "1",
                    "-c",
                    "2",
                    "--ratio",
                    "1:1",
                    "--key-maximum",
                    "1000",
                ])
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
