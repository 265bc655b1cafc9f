//! `--watch`: the components behind the target, sampled by shard 0 and
//! reported in each phase's `watched` rows and `limit`. Three redis-server
//! shards stand behind a private nutcracker (twemproxy), beside a private
//! node exporter (tests/e2e/common/proxy.rs): each shard's rows count exactly
//! the SETs and GETs its own `INFO commandstats` counted, and the shards
//! together exactly kvbench's; the host's row has the exporter's CPUs; the
//! proxy's row forwarded at least kvbench's requests. `limit` names a shard
//! that slow EVALs keep a full core busy, and no component under a light
//! load. A bad URI is refused before any connection opens; `watch = [...]`
//! in a config file is the flag. Three client namespaces in front of the
//! same topology merge into the shards' own counts, and SETs written to a
//! shard behind kvbench's back are a `count_mismatch` in the merge.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::barrier::wait_bounded;
use crate::common::launch::{SMALL_SHARD, merge_ok};
use crate::common::netns::{Lan, SERVER_ADDR};
use crate::common::proxy::{
    LAN_NODE_PORT, LAN_PROXY_PORT, LAN_STATS_PORT, NodeExporter, Nutcracker, POOL,
    backend_requests, cpus, metric, metrics_in, start_node_exporter_in, start_nutcracker_in,
};
use crate::common::{
    Redis, TempDir, assert_success, f, info, info_u64, kvbench, kvbench_at, kvbench_json, machine,
    parse_commandstats, read_json, refused_before_connecting, total, u, wait_for_traffic,
};

/// The load of the proxy runs: one thread, four connections, SET:GET 1:1
/// over 1 000 keys of 32 bytes, which ketama spreads over every shard.
const LOAD: [&str; 11] = [
    "-t",
    "1",
    "-c",
    "4",
    "--ratio",
    "1:1",
    "-d",
    "32",
    "--key-maximum",
    "1000",
    // A short run on a loaded machine may be judged not valid; what is
    // checked here is what it watched.
    "--allow-invalid",
];

/// `--watch` for the redis-servers at `host:shards`, the node exporter at
/// `host:node` and nutcracker's stats at `host:stats`, when given.
fn watches(host: &str, shards: &[u16], node: Option<u16>, stats: Option<u16>) -> Vec<String> {
    let uris = shards
        .iter()
        .map(|p| format!("redis://{host}:{p}"))
        .chain(node.map(|p| format!("node://{host}:{p}")))
        .chain(stats.map(|p| format!("twemproxy://{host}:{p}")));
    uris.flat_map(|uri| ["--watch".to_string(), uri]).collect()
}

/// Three redis-servers behind a nutcracker, their counters reset.
fn three_shards_behind_nutcracker() -> ([Redis; 3], Nutcracker) {
    let shards = [Redis::start(), Redis::start(), Redis::start()];
    let proxy = Nutcracker::start(&shards.each_ref().map(|r| r.port));
    for shard in &shards {
        shard.reset_stats();
    }
    (shards, proxy)
}

/// Runs kvbench against nutcracker with `args` and a JSON report; asserts
/// that it succeeded.
fn run_through(proxy: &Nutcracker, args: &[String]) -> (Value, String) {
    let dir = TempDir::new("watch");
    let json = dir.path("r.json");
    let out = kvbench_at(proxy.port)
        .args(args)
        .arg("--json-out-file")
        .arg(&json)
        .output()
        .unwrap();
    assert_success(&out, &format!("against nutcracker {args:?}"));
    (read_json(&json), String::from_utf8(out.stdout).unwrap())
}

fn args(fixed: &[&str], watches: Vec<String>) -> Vec<String> {
    fixed.iter().map(|a| a.to_string()).chain(watches).collect()
}

/// Every phase summary a report holds: the prefill, the warm-up, the runs.
fn phases(doc: &Value) -> Vec<&Value> {
    let kv = &doc["kvbench"];
    let mut phases: Vec<&Value> = [&kv["prefill"], &kv["warmup"]]
        .into_iter()
        .filter(|p| p.is_object())
        .collect();
    phases.extend(kv["runs"].as_array().expect("kvbench.runs"));
    phases
}

/// The one `watched` row of `kind` at `address` in a phase summary or a
/// merged round, with its role, no error and a plausible span.
fn row<'a>(phase: &'a Value, kind: &str, address: &str) -> &'a Value {
    let watched = phase["watched"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no watched rows in {phase}", phase["phase"]));
    let found: Vec<&Value> = watched
        .iter()
        .filter(|r| r["kind"] == kind && r["address"] == address)
        .collect();
    assert_eq!(found.len(), 1, "one {kind} row at {address}: {watched:?}");
    let row = found[0];
    let role = match kind {
        "redis" | "memcached" => "shard",
        "node" => "host",
        _ => "proxy",
    };
    assert_eq!(row["role"], role, "{row}");
    assert!(row["error"].is_null(), "{row}");
    let seconds = f(&row["seconds"]);
    assert!(seconds > 0.5 && seconds < 60.0, "{row}");
    row
}

/// A shard row's calls of `command` during its phase (0 when none).
fn calls(row: &Value, command: &str) -> u64 {
    assert!(row["calls"].is_object(), "{row}");
    row["calls"].get(command).map_or(0, u)
}

/// A shard row against what the shard at 127.0.0.1:`port` says of itself
/// after the run (`last`: the phase is the report's last).
fn assert_shard_row(row: &Value, port: u16, last: bool) {
    assert_eq!(row["run_id"], info(port, "server", "run_id").as_str());
    let (keys, dbsize) = (u(&row["keys"]), info_keys(port));
    assert!(keys <= dbsize && (keys > 0 || !last), "{keys} keys of {dbsize}: {row}");
    let (hits, misses) = (u(&row["hits"]), u(&row["misses"]));
    if hits + misses > 0 {
        let rate = 100.0 * hits as f64 / (hits + misses) as f64;
        assert!((f(&row["hit_rate_percent"]) - rate).abs() < 0.1, "{row}");
    }
    let seconds = f(&row["seconds"]);
    let (cpu, main) = (f(&row["cpu_percent"]), f(&row["main_thread_cpu_percent"]));
    assert!(cpu > 0.0 && cpu <= 100.0 * host_cpus() as f64 + 5.0, "{row}");
    assert!((0.0..=105.0).contains(&main) && main <= cpu + 1.0, "{row}");
    assert!((1..=64).contains(&u(&row["threads"])), "{row}");
    for (field, total) in [
        ("net_input_bytes_per_sec", "total_net_input_bytes"),
        ("net_output_bytes_per_sec", "total_net_output_bytes"),
    ] {
        let bytes = f(&row[field]) * seconds;
        let ever = info_u64(port, "stats", total) as f64;
        assert!(bytes > 0.0 && bytes <= ever * 1.2, "{field}: {bytes} of {ever}: {row}");
    }
    // Its rate of commands, against the commands it counted in the phase.
    let counted: u64 = row["calls"].as_object().unwrap().values().map(u).sum();
    let rate = f(&row["ops_per_sec"]);
    assert!(
        rate * seconds >= counted as f64 * 0.5 && rate * seconds <= counted as f64 * 2.0 + 10.0,
        "{rate} ops/s over {seconds} s, {counted} calls: {row}"
    );
}

/// Keys in database 0 of the server at `port`.
fn info_keys(port: u16) -> u64 {
    let text = crate::common::ask(port, &["DBSIZE"]);
    text.parse().unwrap_or(0)
}

/// This machine's CPUs, as the kernel lists them in /proc/stat.
fn host_cpus() -> usize {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    stat.lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count()
}

/// A phase's `limit`: a component at 80 % of its capacity or more, named as
/// the client or by one of the watched `addresses`; or none, and the text
/// that says so.
fn assert_limit(limit: &Value, addresses: &[String]) {
    let text = limit["text"].as_str().unwrap_or_else(|| panic!("{limit}"));
    assert!(!text.is_empty(), "{limit}");
    assert!(limit["unwatched"].is_array(), "{limit}");
    let Some(component) = limit["component"].as_str() else {
        assert!(limit["component"].is_null(), "{limit}");
        assert!(text.starts_with("no component above 80 %"), "{limit}");
        return;
    };
    let utilization = f(&limit["utilization_percent"]);
    assert!((80.0..=200.0).contains(&utilization), "{limit}");
    let (used, capacity) = (f(&limit["used"]), f(&limit["capacity"]));
    assert!(capacity > 0.0, "{limit}");
    assert!((used / capacity * 100.0 - utilization).abs() < 1.0, "{limit}");
    assert!(
        component == "client" || addresses.iter().any(|a| component.contains(a.as_str())),
        "{component} is neither the client nor a watched component: {limit}"
    );
}

/// The proxy's row of a phase: its three servers, no errors, at least
/// `forwarded` requests (what kvbench sent through it).
fn assert_proxy_row(row: &Value, forwarded: u64) -> u64 {
    let backends = row["backends"].as_array().unwrap_or_else(|| panic!("{row}"));
    let mut servers: Vec<&str> = backends.iter().map(|b| b["server"].as_str().unwrap()).collect();
    servers.sort_unstable();
    // nutcracker names its servers by the names the config gives them.
    assert_eq!(servers, ["shard0", "shard1", "shard2"], "{row}");
    for b in backends {
        assert_eq!(b["pool"], POOL, "{b}");
        assert_eq!(u(&b["errors"]), 0, "{b}");
        assert!(u(&b["responses"]) <= u(&b["requests"]), "{b}");
    }
    assert!(u(&row["client_connections"]) <= 16, "{row}");
    let requests: u64 = backends.iter().map(|b| u(&b["requests"])).sum();
    assert!(requests >= forwarded, "{requests} forwarded, kvbench sent {forwarded}: {row}");
    requests
}

#[test]
fn a_proxy_run_reports_each_shard_the_host_and_the_limit() {
    let (shards, proxy) = three_shards_behind_nutcracker();
    let node = NodeExporter::start();
    let ports = shards.each_ref().map(|r| r.port);
    let lo_rx = |m: &str| metric(m, "node_network_receive_bytes_total", "lo").expect("lo listed");
    let rx_before = lo_rx(&node.metrics());
    let mut fixed = LOAD.to_vec();
    fixed.extend(["--warmup-time", "1", "--test-time", "3"]);
    let watched = watches("127.0.0.1", &ports, Some(node.port), Some(proxy.stats_port));
    let (doc, stdout) = run_through(&proxy, &args(&fixed, watched));
    let metrics = node.metrics();
    let (rx_after, stats) = (lo_rx(&metrics), proxy.stats());
    let phases = phases(&doc);
    assert_eq!(phases.len(), 2, "the warm-up and one run");
    let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let (node_address, proxy_address) = (
        format!("127.0.0.1:{}", node.port),
        format!("127.0.0.1:{}", proxy.stats_port),
    );

    // Each shard's rows, over the phases, count what it counted itself.
    for (shard, address) in shards.iter().zip(&addresses) {
        for command in ["set", "get"] {
            let watched: u64 = phases.iter().map(|p| calls(row(p, "redis", address), command)).sum();
            assert!(watched > 0, "no {command} reached {address}");
            assert_eq!(watched, shard.calls(command), "{command} on {address}");
        }
        for (k, p) in phases.iter().enumerate() {
            assert_shard_row(row(p, "redis", address), shard.port, k + 1 == phases.len());
        }
    }
    let mut lo_bytes = 0.0;
    let mut forwarded = 0;
    for p in &phases {
        let what = &p["phase"];
        let watched = p["watched"].as_array().unwrap();
        assert_eq!(watched.len(), 5, "{what}: 3 shards, the host, the proxy: {watched:?}");
        // The shards together count what kvbench counted in the phase.
        let rows: Vec<&Value> = addresses.iter().map(|a| row(p, "redis", a)).collect();
        for (op, command) in [("SET", "set"), ("GET", "get")] {
            let sum: u64 = rows.iter().map(|r| calls(r, command)).sum();
            assert_eq!(sum, u(&p["totals"][op]["count"]), "{what} {op}");
        }
        for field in ["hits", "misses"] {
            let sum: u64 = rows.iter().map(|r| u(&r[field])).sum();
            assert_eq!(sum, u(&p["totals"]["GET"][field]), "{what} {field}");
        }

        // The host: the exporter's CPUs, busy within them, loopback busy.
        let host = row(p, "node", &node_address);
        let cores = u(&host["cores"]);
        assert_eq!(cores as usize, cpus(&metrics), "{host}");
        // 2 %: the busy time and the span are read at slightly different moments.
        let busy = f(&host["busy_cores"]);
        assert!(busy > 0.0 && busy <= cores as f64 * 1.02, "{host}");
        assert!((f(&host["cpu_percent"]) - 100.0 * busy / cores as f64).abs() <= 1.0, "{host}");
        let interfaces = host["interfaces"].as_array().unwrap();
        let lo = interfaces.iter().find(|i| i["device"] == "lo").unwrap_or_else(|| panic!("{host}"));
        assert!(lo["speed_bytes_per_sec"].is_null(), "lo has no speed: {lo}");
        let (rx, tx) = (f(&lo["rx_bytes_per_sec"]), f(&lo["tx_bytes_per_sec"]));
        // Every byte a shard read came over lo (and kvbench's to the proxy too).
        let shards_in: f64 = rows.iter().map(|r| f(&r["net_input_bytes_per_sec"])).sum();
        assert!(rx >= shards_in * 0.5 && tx > 0.0, "lo {rx} B/s, the shards read {shards_in}");
        lo_bytes += rx * f(&host["seconds"]);

        let sent = u(&p["totals"]["SET"]["count"]) + u(&p["totals"]["GET"]["count"]);
        forwarded += assert_proxy_row(row(p, "twemproxy", &proxy_address), sent);

        let mut named = addresses.clone();
        named.push(node_address.clone());
        assert_limit(&p["limit"], &named);
    }
    // Within what the exporter and the proxy counted around the whole run.
    let lo_delta = rx_after - rx_before;
    assert!(lo_bytes <= lo_delta * 1.2, "lo: {lo_bytes} B in the phases, {lo_delta} B in all");
    assert!(forwarded <= backend_requests(&stats), "{forwarded} vs {stats}");

    assert!(stdout.contains("Components"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("Limit:")), "{stdout}");
}

/// A script that keeps a Redis main thread busy for some 20 ms.
const SLOW_EVAL: &str = "EVAL \"local x=0 for i=1,3000000 do x=x+i end return x\" 1 __key__";

#[test]
fn a_shard_made_the_bottleneck_is_named_as_the_limit() {
    // It measures a shard's CPU: no other test's servers may take the cores.
    let _alone = machine::alone();
    let (shards, proxy) = three_shards_behind_nutcracker();
    let ports = shards.each_ref().map(|r| r.port);
    let fixed = [
        "-t", "1", "-c", "3", "--test-time", "4", "--key-minimum", "1", "--key-maximum", "1",
        "--allow-invalid", "--command", SLOW_EVAL,
    ];
    let watched = watches("127.0.0.1", &ports, None, Some(proxy.stats_port));
    let (doc, _) = run_through(&proxy, &args(&fixed, watched));
    let run = &doc["kvbench"]["runs"][0];

    // One key: one shard ran every EVAL.
    let busy: Vec<&Redis> = shards.iter().filter(|s| s.calls("eval") > 0).collect();
    assert_eq!(busy.len(), 1, "EVALs on {} shards", busy.len());
    let busy = busy[0];
    let address = format!("127.0.0.1:{}", busy.port);
    let evals = busy.calls("eval");
    assert_eq!(u(&run["totals"]["EVAL"]["count"]), evals);
    let shard = row(run, "redis", &address);
    assert_eq!(calls(shard, "eval"), evals, "{shard}");
    let main = f(&shard["main_thread_cpu_percent"]);
    assert!((90.0..=110.0).contains(&main), "{shard}");
    for other in shards.iter().filter(|s| s.port != busy.port) {
        let idle = row(run, "redis", &format!("127.0.0.1:{}", other.port));
        assert!(f(&idle["main_thread_cpu_percent"]) < 50.0, "{idle}");
    }

    let limit = &run["limit"];
    assert_eq!(limit["component"], format!("shard {address}").as_str(), "{limit}");
    assert_eq!(limit["measure"], "main-thread CPU", "{limit}");
    assert_eq!(f(&limit["capacity"]), 1.0, "{limit}");
    let utilization = f(&limit["utilization_percent"]);
    assert!((90.0..=110.0).contains(&utilization), "{limit}");
    assert!((f(&limit["used"]) * 100.0 - utilization).abs() < 1.0, "{limit}");
    assert!(!limit["text"].as_str().unwrap().is_empty(), "{limit}");

    // A light load: nothing near its capacity. (No host is watched: this
    // machine may be busy with things outside the suite.)
    let fixed = [
        "-t", "1", "-c", "2", "--rate", "100", "--test-time", "2", "--ratio", "1:1",
        "--key-maximum", "1000", "--allow-invalid",
    ];
    let watched = watches("127.0.0.1", &ports, None, Some(proxy.stats_port));
    let (doc, stdout) = run_through(&proxy, &args(&fixed, watched));
    let limit = &doc["kvbench"]["runs"][0]["limit"];
    assert!(limit["component"].is_null(), "{limit}");
    let text = limit["text"].as_str().unwrap();
    assert!(text.starts_with("no component above 80 %"), "{limit}");
    assert!(stdout.lines().any(|l| l.starts_with("Limit:")), "{stdout}");
}

#[test]
fn a_bad_watch_uri_is_exit_2_before_any_connection() {
    let redis = Redis::start();
    // A good watch of the server itself beside the bad one: it must not
    // connect either.
    let good = format!("redis://127.0.0.1:{}", redis.port);
    for bad in ["ftp://x", "redis://", "node://127.0.0.1", "twemproxy://127.0.0.1:99999"] {
        let args = ["-n", "10", "--watch", &good, "--watch", bad];
        let stderr = refused_before_connecting(&redis, args);
        assert!(stderr.contains("--watch"), "{bad}: {stderr}");
    }
    let dir = TempDir::new("watch-bad-config");
    let config = dir.path("bad.toml");
    std::fs::write(&config, format!("watch = [\"{good}\", \"ftp://x\"]\n")).unwrap();
    let stderr = refused_before_connecting(&redis, ["-n", "10", "--config", config.to_str().unwrap()]);
    assert!(stderr.contains("watch"), "{stderr}");
}

#[test]
fn watches_in_a_config_file_are_sampled_as_the_flags_are() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("watch-config");
    let config = dir.path("watch.toml");
    let address = format!("127.0.0.1:{}", redis.port);
    std::fs::write(&config, format!("watch = [\"redis://{address}\"]\n")).unwrap();
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 500 --ratio 1:1 --key-maximum 1000",
        &["--config", config.to_str().unwrap()],
    );
    let run = &report.doc["kvbench"]["runs"][0];
    assert_eq!(run["watched"].as_array().unwrap().len(), 1, "{run}");
    let shard = row(run, "redis", &address);
    for (op, command) in [("SET", "set"), ("GET", "get")] {
        assert_eq!(calls(shard, command), redis.calls(command), "{command}");
        assert_eq!(calls(shard, command), total(&report.doc, op, "count"), "{op}");
    }
    assert_shard_row(shard, redis.port, true);
}

/// The shards' ports inside the Lan's server namespace.
const LAN_SHARDS: [u16; 3] = [7001, 7002, 7003];

/// Calls of `command` on the Lan's shard at `port`, by its own INFO.
fn lan_calls(lan: &Lan, port: u16, command: &str) -> u64 {
    let text = lan.redis_cli(port, &["INFO", "commandstats"]).replace('\r', "");
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
    let watched = watches(SERVER_ADDR, &LAN_SHARDS, Some(LAN_NODE_PORT), Some(LAN_STATS_PORT));
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
    assert_eq!(round["clients"].as_array().unwrap().len(), CLIENTS, "{round}");
    let metrics = metrics_in(&lan, LAN_NODE_PORT);
    let node_address = format!("{SERVER_ADDR}:{LAN_NODE_PORT}");
    let mut named: Vec<String> = LAN_SHARDS.iter().map(|p| format!("{SERVER_ADDR}:{p}")).collect();
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
            assert_eq!(sum, total(&merged, op, "count"), "{op}: the shards against the merge");
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
        let proxy = row(phase, "twemproxy", &format!("{SERVER_ADDR}:{LAN_STATS_PORT}"));
        assert_proxy_row(proxy, sent);
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
        .args(["-t", "set", "-n", &FOREIGN_SETS.to_string(), "-c", "4", "-P", "16", "-q"])
        .output()
        .expect("run redis-benchmark (make deps installs redis-tools)");
    assert!(bench.status.success(), "{}", String::from_utf8_lossy(&bench.stderr));
    let done_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    assert!(child.try_wait().unwrap().is_none(), "kvbench ended before the foreign SETs did");
    let out = child.wait_with_output().unwrap();
    assert_success(&out, "through nutcracker beside a foreign writer");
    let doc = read_json(&json);
    let run = &doc["kvbench"]["runs"][0];
    let end_ms = u(&run["start_time_ms"]) + u(&run["duration_ms"]);
    assert!(done_ms <= end_ms, "the foreign SETs ended at {done_ms}, the run at {end_ms}");

    // The shard's row counts them; kvbench did not send them.
    let shard = row(run, "redis", &format!("127.0.0.1:{}", foreign.port));
    assert_eq!(calls(shard, "set"), foreign.calls("set"));
    let watched: u64 = ports.iter().map(|p| calls(row(run, "redis", &format!("127.0.0.1:{p}")), "set")).sum();
    assert_eq!(watched, total(&doc, "SET", "count") + FOREIGN_SETS);

    let merged_path = dir.path("merged.json");
    let merge = kvbench(&["merge", json.to_str().unwrap(), "-o", merged_path.to_str().unwrap()]);
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
    assert!(!mismatches.iter().any(|m| m.contains("GET")), "{mismatches:?}");
    for m in sets {
        assert!(stderr.contains(*m), "merge did not print {m:?}: {stderr}");
    }
}
