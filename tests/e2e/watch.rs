//! `--watch`: the components behind the target, sampled by shard 0 and
//! reported in each phase's `watched` rows and `limit`. Three redis-server
//! shards stand behind a private nutcracker (twemproxy), beside a private
//! node exporter (tests/e2e/common/proxy.rs): each shard's rows count exactly
//! the SETs and GETs its own `INFO commandstats` counted, and the shards
//! together exactly kvbench's; the host's row has the exporter's CPUs; the
//! proxy's row forwarded about kvbench's requests.
//!
//! The rest is in the submodules: `limit` names a shard that slow EVALs
//! keep a full core busy, and no component under a light load ([`limit`]);
//! a bad URI is refused before any connection opens, and `watch = [...]` in
//! a config file is the flag ([`uris`]); three client namespaces in front of
//! the same topology merge into the shards' own counts, and SETs written to
//! a shard behind kvbench's back are a `count_mismatch` in the merge
//! ([`fleet`]).

use serde_json::Value;

use crate::common::proxy::{NodeExporter, Nutcracker, POOL, backend_requests, cpus, metric};
use crate::common::{Redis, TempDir, assert_success, f, info, info_u64, kvbench_at, read_json, u};

mod clock;
mod fleet;
mod limit;
mod uris;

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
    let (doc, stdout, _) = run_with_page(proxy, args);
    (doc, stdout)
}

/// [`run_through`], with the HTML page too.
fn run_with_page(proxy: &Nutcracker, args: &[String]) -> (Value, String, String) {
    let dir = TempDir::new("watch");
    let (json, html) = (dir.path("r.json"), dir.path("r.html"));
    let out = kvbench_at(proxy.port)
        .args(args)
        .arg("--json-out-file")
        .arg(&json)
        .arg("--html-out-file")
        .arg(&html)
        .output()
        .unwrap();
    assert_success(&out, &format!("against nutcracker {args:?}"));
    let page = std::fs::read_to_string(&html).unwrap();
    (
        read_json(&json),
        String::from_utf8(out.stdout).unwrap(),
        page,
    )
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
    assert!(seconds > 0.0 && seconds < 60.0, "{row}");
    row
}

/// A shard row's calls of `command` during its phase (0 when none).
fn calls(row: &Value, command: &str) -> u64 {
    assert!(row["calls"].is_object(), "{row}");
    row["calls"].get(command).map_or(0, u)
}

/// A shard row against what `shard` says of itself after the run (`last`:
/// the phase is the report's last).
fn assert_shard_row(row: &Value, shard: &Redis, last: bool) {
    let port = shard.port;
    assert_eq!(row["run_id"], info(port, "server", "run_id").as_str());
    let (keys, dbsize) = (u(&row["keys"]), shard.dbsize());
    assert!(
        keys <= dbsize && (keys > 0 || !last),
        "{keys} keys of {dbsize}: {row}"
    );
    let (hits, misses) = (u(&row["hits"]), u(&row["misses"]));
    if hits + misses > 0 {
        let rate = 100.0 * hits as f64 / (hits + misses) as f64;
        assert!((f(&row["hit_rate_percent"]) - rate).abs() < 0.1, "{row}");
    }
    let seconds = f(&row["seconds"]);
    let (cpu, main) = (f(&row["cpu_percent"]), f(&row["main_thread_cpu_percent"]));
    assert!(
        (0.0..=100.0 * host_cpus() as f64 + 5.0).contains(&cpu),
        "{row}"
    );
    assert!((0.0..=105.0).contains(&main) && main <= cpu + 1.0, "{row}");
    assert!((1..=64).contains(&u(&row["threads"])), "{row}");
    for (field, total) in [
        ("net_input_bytes_per_sec", "total_net_input_bytes"),
        ("net_output_bytes_per_sec", "total_net_output_bytes"),
    ] {
        let bytes = f(&row[field]) * seconds;
        let ever = info_u64(port, "stats", total) as f64;
        assert!(
            bytes > 0.0 && bytes <= ever * 1.2,
            "{field}: {bytes} of {ever}: {row}"
        );
    }
    // Its rate of commands against the commands it counted in the phase
    // (a rate over the phase's span, read from the same two INFOs).
    let counted: u64 = row["calls"].as_object().unwrap().values().map(u).sum();
    let rate = f(&row["ops_per_sec"]);
    assert!(
        rate * seconds >= counted as f64 * 0.5 && rate * seconds <= counted as f64 * 2.0 + 10.0,
        "{rate} ops/s over {seconds} s, {counted} calls: {row}"
    );
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
    assert!(
        (used / capacity * 100.0 - utilization).abs() < 1.0,
        "{limit}"
    );
    // `client`: kvbench's CPU against its threads; `client host` (`client
    // HOST host` in a merge): the CPU of the machine it runs on.
    let client = component == "client" || component.starts_with("client ");
    assert!(
        client || addresses.iter().any(|a| component.contains(a.as_str())),
        "{component} is neither the client nor a watched component: {limit}"
    );
}

/// The proxy's row of a phase: its three servers, no errors, and about
/// `forwarded` requests (what kvbench sent through it). nutcracker adds up
/// its counters every `-i` ms (1 000 here), so a reading at a phase's edge
/// misses up to a second of it: a phase of 2.5 s or more forwarded at least
/// a third of kvbench's requests, and none forwarded more than kvbench sent
/// plus a second's worth.
fn assert_proxy_row(row: &Value, forwarded: u64) -> u64 {
    let backends = row["backends"]
        .as_array()
        .unwrap_or_else(|| panic!("{row}"));
    let mut servers: Vec<&str> = backends
        .iter()
        .map(|b| b["server"].as_str().unwrap())
        .collect();
    servers.sort_unstable();
    // nutcracker names its servers by the names the config gives them.
    assert_eq!(servers, ["shard0", "shard1", "shard2"], "{row}");
    for b in backends {
        assert_eq!(b["pool"], POOL, "{b}");
        assert_eq!(u(&b["errors"]), 0, "{b}");
        // nutcracker adds up each counter at its own moment of the
        // interval: a reply may land in a reading whose request did not
        // (one per client connection at most, each with one in flight).
        assert!(u(&b["responses"]) <= u(&b["requests"]) + 16, "{b}");
    }
    assert!(u(&row["client_connections"]) <= 16, "{row}");
    let requests: u64 = backends.iter().map(|b| u(&b["requests"])).sum();
    let seconds = f(&row["seconds"]);
    let per_second = forwarded as f64 / seconds.max(1.0);
    assert!(
        requests as f64 <= forwarded as f64 + 1.5 * per_second + 100.0,
        "{requests} forwarded, kvbench sent {forwarded}: {row}"
    );
    if seconds >= 2.5 {
        assert!(
            requests * 3 >= forwarded,
            "{requests} forwarded, kvbench sent {forwarded}: {row}"
        );
    }
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
    let (doc, stdout, page) = run_with_page(&proxy, &args(&fixed, watched));
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
            let watched: u64 = phases
                .iter()
                .map(|p| calls(row(p, "redis", address), command))
                .sum();
            assert!(watched > 0, "no {command} reached {address}");
            assert_eq!(watched, shard.calls(command), "{command} on {address}");
        }
        for (k, p) in phases.iter().enumerate() {
            assert_shard_row(row(p, "redis", address), shard, k + 1 == phases.len());
        }
    }
    let mut lo_bytes = 0.0;
    let mut forwarded = 0;
    for p in &phases {
        let what = &p["phase"];
        let watched = p["watched"].as_array().unwrap();
        assert_eq!(
            watched.len(),
            5,
            "{what}: 3 shards, the host, the proxy: {watched:?}"
        );
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
        assert!(
            (f(&host["host_cpu_percent"]) - 100.0 * busy / cores as f64).abs() <= 1.0,
            "{host}"
        );
        let interfaces = host["interfaces"].as_array().unwrap();
        let lo = interfaces
            .iter()
            .find(|i| i["device"] == "lo")
            .unwrap_or_else(|| panic!("{host}"));
        assert!(lo["speed_bytes_per_sec"].is_null(), "lo has no speed: {lo}");
        let (rx, tx) = (f(&lo["rx_bytes_per_sec"]), f(&lo["tx_bytes_per_sec"]));
        // Every byte a shard read came over lo (and kvbench's to the proxy too).
        let shards_in: f64 = rows.iter().map(|r| f(&r["net_input_bytes_per_sec"])).sum();
        assert!(
            rx >= shards_in * 0.5 && tx > 0.0,
            "lo {rx} B/s, the shards read {shards_in}"
        );
        lo_bytes += rx * f(&host["seconds"]);

        let sent = u(&p["totals"]["SET"]["count"]) + u(&p["totals"]["GET"]["count"]);
        forwarded += assert_proxy_row(row(p, "twemproxy", &proxy_address), sent);

        let mut named = addresses.clone();
        named.push(node_address.clone());
        assert_limit(&p["limit"], &named);
    }
    // Within what the exporter and the proxy counted around the whole run.
    let lo_delta = rx_after - rx_before;
    assert!(
        lo_bytes <= lo_delta * 1.2,
        "lo: {lo_bytes} B in the phases, {lo_delta} B in all"
    );
    assert!(
        forwarded <= backend_requests(&stats),
        "{forwarded} vs {stats}"
    );

    assert!(stdout.contains("Components"), "{stdout}");
    // The page's components panel has every shard's row and the limit.
    assert!(
        page.contains("data-panel=\"components\""),
        "no components panel"
    );
    for address in &addresses {
        let row = format!("data-phase=\"RUN #1\" data-component=\"shard {address}\"");
        assert!(page.contains(&row), "{row} missing from the page");
    }
    assert!(
        page.contains("<li class=\"limit\" data-phase=\"RUN #1\""),
        "no limit on the page"
    );
    assert!(stdout.lines().any(|l| l.starts_with("Limit:")), "{stdout}");
}
