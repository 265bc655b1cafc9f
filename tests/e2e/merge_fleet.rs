//! `kvbench merge` judges a sharded set as one load: shards against one real
//! server leave the count check to the merge, which takes their server's
//! INFO together and finds a foreign client (and no false one); clocks set
//! off with libfaketime, in both directions, are corrected by the measured
//! offsets, checked against the server's own clock; `--max-skew` refuses a
//! set that did not start together.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::launch::wait_ok;
use crate::common::memcached::Memcached;
use crate::common::{Redis, TempDir, f, info, info_u64, kvbench, kvbench_at, read_json, total, u};

/// `--start-at` `ahead` from now, as epoch seconds.
fn start_in(ahead: Duration) -> String {
    format!("{:.3}", crate::common::launch::epoch_in(ahead))
}

/// Shard `index` of `count` against `port`, writing `dir/s<index>.json`;
/// `faketime`: its clock set off by that offset (`+0.6`, `-0.4`).
fn shard(
    port: u16,
    index: u32,
    count: u32,
    dir: &TempDir,
    args: &[&str],
    faketime: Option<&str>,
) -> Child {
    let path = dir.path(&format!("s{index}.json"));
    let base = kvbench_at(port);
    let mut command = match faketime {
        Some(offset) => {
            let mut c = Command::new("faketime");
            c.args(["-f", &format!("{offset}s")]);
            c.arg(base.get_program());
            c.args(base.get_args());
            // A constant offset: the monotonic clock, which paces the run,
            // is left alone.
            c.env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
            c
        }
        None => base,
    };
    command
        .env_remove("KVBENCH_AUTH")
        .args(["--shard-count", &count.to_string()])
        .args(["--shard-index", &index.to_string()])
        .args(["--json-out-file", path.to_str().unwrap()])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kvbench (faketime is installed by make deps)")
}

/// Runs shard `i` of `ports.len()` against `ports[i]` for every `i`, at
/// once, and waits for each to succeed.
fn run_set(ports: &[u16], dir: &TempDir, args: &[&str]) {
    let n = ports.len() as u32;
    let children: Vec<Child> = (0..n)
        .map(|i| shard(ports[i as usize], i, n, dir, args, None))
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        wait_ok(c, &format!("shard {i}"));
    }
}

/// Merges the set's files into `dir/merged.json` and reads it.
fn merge(dir: &TempDir, n: u32, extra: &[&str]) -> Value {
    let files: Vec<String> = (0..n)
        .map(|i| dir.path(&format!("s{i}.json")).display().to_string())
        .collect();
    crate::common::launch::merge_ok(&files, &dir.path("merged.json"), extra)
}

fn kinds(doc: &Value) -> Vec<String> {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap().to_string())
        .collect()
}

fn mismatches(doc: &Value) -> Vec<String> {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "count_mismatch")
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

/// Each merged run's server evidence counts exactly the set's replies of
/// each command, and the shards' files make no count check of their own.
fn assert_judged_clean(dir: &TempDir, merged: &Value, n: u32) {
    for i in 0..n {
        let doc = read_json(&dir.path(&format!("s{i}.json")));
        assert!(
            !kinds(&doc).contains(&"count_mismatch".to_string()),
            "shard {i} judged its server alone: {:?}",
            kinds(&doc)
        );
        // It still records what its server said.
        let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
        assert!(u(&delta["commands"]["set"]["calls"]) > 0, "{delta}");
    }
    assert_eq!(mismatches(merged), Vec::<String>::new());
    for run in merged["kvbench"]["runs"].as_array().unwrap() {
        let commands = &run["server"]["delta"]["commands"];
        for (command, op) in [("set", "SET"), ("get", "GET")] {
            let c = &commands[command];
            assert_eq!(
                c["calls"], c["kvbench_replies"],
                "{} {command}",
                run["phase"]
            );
            assert_eq!(u(&c["kvbench_replies"]), u(&run["totals"][op]["count"]));
            assert!(u(&c["calls"]) > 0);
        }
    }
}

const SET: &[&str] = &[
    "-t",
    "1",
    "-c",
    "2",
    "--ratio",
    "1:1",
    "--key-maximum",
    "2000",
    "--test-time",
    "2",
];

#[test]
fn a_sharded_set_is_judged_once_against_its_redis_server() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("merge-fleet");
    let at = start_in(Duration::from_secs(3));
    let mut args = SET.to_vec();
    args.extend(["-x", "2", "--warmup-time", "1", "--start-at", &at]);
    run_set(&[redis.port; 2], &dir, &args);
    let merged = merge(&dir, 2, &[]);
    assert_judged_clean(&dir, &merged, 2);
    // The runs' and the warm-up's windows hold every SET the server counted.
    let runs = merged["kvbench"]["runs"].as_array().unwrap();
    let warmup = &merged["kvbench"]["warmup"];
    let witnessed: u64 = runs
        .iter()
        .chain([warmup])
        .map(|r| u(&r["server"]["delta"]["commands"]["set"]["calls"]))
        .sum();
    assert_eq!(witnessed, redis.calls("set"));
    let warm_sets = u(&warmup["totals"]["SET"]["count"]);
    assert_eq!(
        total(&merged, "SET", "count") + warm_sets,
        redis.calls("set")
    );
    // The warm-up merges as a run does: its counts are both machines'.
    let shards_warm: u64 = (0..2)
        .map(|i| read_json(&dir.path(&format!("s{i}.json"))))
        .map(|d| u(&d["kvbench"]["warmup"]["totals"]["SET"]["count"]))
        .sum();
    assert_eq!(warm_sets, shards_warm);
    assert_eq!(u(&warmup["ALL STATS"]["Sets"]["Count"]), warm_sets);
    assert_eq!(warmup["phase"], "WARM-UP");
    let schema: Value =
        serde_json::from_str(include_str!("../../docs/output.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&merged)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "merged file vs schema: {}",
        errors.join("\n")
    );
}

#[test]
fn a_sharded_set_is_judged_once_against_its_memcached() {
    let server = Memcached::start();
    let dir = TempDir::new("merge-fleet-mc");
    let at = start_in(Duration::from_secs(3));
    let mut args = SET.to_vec();
    args.extend(["-P", "memcache_text", "--start-at", &at]);
    run_set(&[server.port; 2], &dir, &args);
    let merged = merge(&dir, 2, &[]);
    assert_judged_clean(&dir, &merged, 2);
    assert_eq!(total(&merged, "SET", "count"), server.stat("cmd_set"));
}

#[test]
fn a_foreign_client_during_a_sharded_set_is_found_by_the_merge_only() {
    let redis = Redis::start();
    let dir = TempDir::new("merge-fleet-foreign");
    let at = start_in(Duration::from_secs(2));
    let mut args = SET.to_vec();
    // Three seconds, so that a test thread slowed by a busy machine still
    // writes during the run.
    args.extend(["--test-time", "3", "--start-at", &at]);
    let mut children: Vec<Child> = (0..2)
        .map(|i| shard(redis.port, i, 2, &dir, &args, None))
        .collect();
    let mut foreign = 0u64;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        assert_eq!(redis.command(&["SET", "foreign", "x"]), b"OK");
        foreign += 1;
    }
    for (i, c) in children.into_iter().enumerate() {
        wait_ok(c, &format!("shard {i}"));
    }
    for i in 0..2 {
        let doc = read_json(&dir.path(&format!("s{i}.json")));
        assert!(!kinds(&doc).contains(&"count_mismatch".to_string()));
    }
    let merged = merge(&dir, 2, &[]);
    let found = mismatches(&merged);
    assert_eq!(found.len(), 1, "one SET mismatch, no GET one: {found:?}");
    let run = &merged["kvbench"]["runs"][0];
    let client = total(&merged, "SET", "count");
    let server = u(&run["server"]["delta"]["commands"]["set"]["calls"]);
    assert!(
        server > client && server - client <= foreign,
        "server {server}, set {client}, foreign {foreign}"
    );
    let want = format!("RUN #1: the server counted {server} SET calls but kvbench {client}");
    assert!(found[0].starts_with(&want), "{}", found[0]);
    assert_eq!(redis.calls("set"), client + foreign);
}

/// The server's clock when a shard's RUN #1 began: its INFO just before.
fn server_start_ms(doc: &Value) -> f64 {
    let before = &doc["kvbench"]["runs"][0]["server"]["info_before"]["server"];
    f(&before["server_time_usec"]) / 1000.0
}

#[test]
fn clocks_set_off_either_way_are_corrected_in_the_right_direction() {
    for offset in ["+0.6", "-0.4"] {
        let redis = Redis::start();
        let dir = TempDir::new("merge-fleet-clock");
        // No --start-at: both start as soon as they are connected, so the
        // true skew is small, while shard 0's own clock is `offset` off.
        let children = vec![
            shard(redis.port, 0, 2, &dir, SET, Some(offset)),
            shard(redis.port, 1, 2, &dir, SET, None),
        ];
        for (i, c) in children.into_iter().enumerate() {
            wait_ok(c, &format!("shard {i} ({offset})"));
        }
        let docs: Vec<Value> = (0..2)
            .map(|i| read_json(&dir.path(&format!("s{i}.json"))))
            .collect();
        // The server's clock is the witness of when each really started.
        let truth = (server_start_ms(&docs[0]) - server_start_ms(&docs[1])).abs();
        let measured = f(&docs[0]["kvbench"]["shard"]["clock"]["offset_start_ms"]);
        let set_off: f64 = offset.parse::<f64>().unwrap() * 1000.0;
        assert!(
            (measured + set_off).abs() < 20.0,
            "{offset}: offset {measured} ms measured"
        );
        let merged = merge(&dir, 2, &[]);
        let m = &merged["kvbench"]["merged"];
        assert_eq!(m["clocks_corrected"], true);
        let skew = f(&m["start_skew_ms"]);
        assert!(
            (skew - truth).abs() <= 20.0,
            "{offset}: merge says {skew} ms apart, the server saw {truth} ms"
        );
        // Uncorrected, the starts are `offset` apart; corrected the wrong
        // way, twice that.
        assert!(skew < set_off.abs() / 2.0, "{offset}: {skew}");
    }
}

#[test]
fn max_skew_refuses_a_set_that_did_not_start_together() {
    let redis = Redis::start();
    let dir = TempDir::new("merge-fleet-skew");
    let first = shard(redis.port, 0, 2, &dir, SET, None);
    wait_ok(first, "shard 0");
    let second = shard(redis.port, 1, 2, &dir, SET, None);
    wait_ok(second, "shard 1");
    let files: Vec<String> = (0..2)
        .map(|i| dir.path(&format!("s{i}.json")).display().to_string())
        .collect();
    let out_path = dir.path("merged.json");
    let run = kvbench(&[
        "merge",
        &files[0],
        &files[1],
        "--max-skew",
        "0.5",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("--max-skew"), "{stderr}");
    assert!(stderr.contains("apart"), "{stderr}");
    assert!(!out_path.exists(), "a refused set writes nothing");
    // One run after the other never overlapped: without --max-skew the set
    // merges, and its rates are the plain sum's (no common window).
    let merged = merge(&dir, 2, &[]);
    let m = &merged["kvbench"]["merged"];
    assert!(f(&m["start_skew_ms"]) > 1500.0, "{m}");
    assert!(m.get("common_window_s").is_none(), "{m}");
    // A bad value is refused before any file is read.
    let run = kvbench(&["merge", &files[0], &files[1], "--max-skew", "50ms"]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("--max-skew 0.05"), "{stderr}");
}

/// The server's CPU seconds so far (user + system).
fn server_cpu_s(port: u16) -> f64 {
    let field = |name: &str| info(port, "cpu", name).parse::<f64>().unwrap();
    field("used_cpu_user") + field("used_cpu_sys")
}

#[test]
fn each_round_shows_every_machines_and_the_servers_cpu_and_network() {
    let redis = Redis::start();
    let dir = TempDir::new("merge-fleet-rounds");
    let at = start_in(Duration::from_secs(3));
    let mut args = SET.to_vec();
    args.extend(["-x", "2", "--start-at", &at]);
    let net_in = || info_u64(redis.port, "stats", "total_net_input_bytes");
    let (in_before, cpu_before) = (net_in(), server_cpu_s(redis.port));
    run_set(&[redis.port; 2], &dir, &args);
    let (in_after, cpu_after) = (net_in(), server_cpu_s(redis.port));
    let merged = merge(&dir, 2, &[]);
    let rounds = merged["kvbench"]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    let (mut server_in, mut server_cpu) = (0.0, 0.0);
    for (i, round) in rounds.iter().enumerate() {
        assert_eq!(round["phase"], format!("RUN #{}", i + 1));
        assert_eq!(
            round["ops_per_sec"],
            merged["kvbench"]["runs"][i]["ops_per_sec"]
        );
        let clients = round["clients"].as_array().unwrap();
        assert_eq!(clients.len(), 2, "{round}");
        for (k, c) in clients.iter().enumerate() {
            let doc = read_json(&dir.path(&format!("s{k}.json")));
            let run = &doc["kvbench"]["runs"][i];
            assert_eq!(run["client"]["interface"], "lo", "{}", run["client"]);
            // kvbench's CPU holds its worker threads' and little more.
            let threads: f64 = run["thread_cpu_s"].as_array().unwrap().iter().map(f).sum();
            let process = f(&run["client"]["process_cpu_s"]);
            assert!(
                process >= threads * 0.95 && process <= threads * 1.5 + 0.2,
                "process {process} s, threads {threads} s"
            );
            assert_eq!(
                c["process_cpu_percent"],
                run["client"]["process_cpu_percent"]
            );
            let (own, machine) = (f(&c["process_cpu_percent"]), f(&c["machine_cpu_percent"]));
            let cores = f(&run["client"]["cores"]);
            assert!(
                machine <= 100.0 && machine >= own / cores * 0.9,
                "machine {machine} %, kvbench {own} % of one of {cores} cores"
            );
            // Loopback receives every byte it sends, this set's both ways
            // among them.
            let (rx, tx) = (f(&c["net_rx_bytes_per_sec"]), f(&c["net_tx_bytes_per_sec"]));
            assert!((rx - tx).abs() <= 0.02 * tx, "lo rx {rx}, tx {tx}");
        }
        let servers = round["servers"].as_array().unwrap();
        assert_eq!(servers.len(), 1, "{round}");
        let s = &servers[0];
        let seconds = f(&s["seconds"]);
        assert!((1.9..4.0).contains(&seconds), "{s}");
        server_in += f(&s["net_input_bytes_per_sec"]) * seconds;
        server_cpu += f(&s["cpu_percent"]) / 100.0 * seconds;
        // What both machines sent is what the server read (loopback also
        // carries the server's replies and other processes' bytes).
        let sent: f64 = clients
            .iter()
            .map(|c| f(&c["net_tx_bytes_per_sec"]))
            .sum::<f64>()
            / 2.0;
        assert!(sent >= f(&s["net_input_bytes_per_sec"]) * 0.9, "{round}");
    }
    // The rounds hold nearly all the server read and spent over the set:
    // between them it only answered INFO and TIME.
    let read = (in_after - in_before) as f64;
    assert!(
        server_in >= 0.95 * read && server_in <= 1.01 * read,
        "rounds {server_in} bytes, INFO {read}"
    );
    let spent = cpu_after - cpu_before;
    assert!(
        server_cpu >= 0.8 * spent && server_cpu <= 1.05 * spent + 0.02,
        "rounds {server_cpu} s, INFO {spent} s"
    );
    let text = String::from_utf8(
        kvbench(&[
            "merge",
            dir.path("s0.json").to_str().unwrap(),
            dir.path("s1.json").to_str().unwrap(),
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        text.contains("Process CPU  Host CPU  Net in MB/s"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("server ")).count(),
        2,
        "{text}"
    );
    // compare sets the merged set beside one machine, as the whitepaper's
    // tables of 1, 2, 4, 8 machines do.
    let out = kvbench(&[
        "compare",
        dir.path("merged.json").to_str().unwrap(),
        dir.path("s0.json").to_str().unwrap(),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let cells = |title: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(title))
            .unwrap_or_else(|| panic!("{title}: {text}"));
        line[title.len()..]
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    assert_eq!(cells("machines"), ["2", "1"]);
    assert_eq!(cells("connections"), ["4", "2"]);
    assert_eq!(cells("server shards"), ["1", "1"]);
    let per: Vec<f64> = cells("ops/sec per machine")
        .iter()
        .map(|c| c.parse().unwrap())
        .collect();
    let merged_total = f(&merged["AGGREGATED AVERAGE RESULTS (2 runs)"]["Totals"]["Ops/sec"]);
    assert!(
        (per[0] - merged_total / 2.0).abs() < 0.01,
        "{per:?} vs {merged_total}"
    );
}

#[test]
fn shards_that_each_drive_their_own_server_merge_with_a_table_per_target() {
    let servers = [Redis::start(), Redis::start()];
    let dir = TempDir::new("merge-fleet-targets");
    let at = start_in(Duration::from_secs(3));
    let mut args = SET.to_vec();
    args.extend(["--start-at", &at]);
    let ports: Vec<u16> = servers.iter().map(|s| s.port).collect();
    run_set(&ports, &dir, &args);
    let merged = merge(&dir, 2, &[]);
    // Each server is judged against its own machine: no false mismatch.
    assert_eq!(mismatches(&merged), Vec::<String>::new());
    let target = merged["kvbench"]["target"].as_str().unwrap();
    for s in &servers {
        assert!(target.contains(&format!(":{}", s.port)), "{target}");
    }
    // Two servers: no one `server` object stands for the run.
    assert!(merged["kvbench"]["runs"][0]["server"].is_null());
    let round = &merged["kvbench"]["rounds"][0];
    let listed = round["servers"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{round}");
    for (i, s) in servers.iter().enumerate() {
        let doc = read_json(&dir.path(&format!("s{i}.json")));
        let row = listed
            .iter()
            .find(|r| {
                r["target"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!(":{}", s.port))
            })
            .unwrap_or_else(|| panic!("no row for server {i}: {round}"));
        assert!(f(&row["cpu_percent"]) > 0.0, "{row}");
        // Every SET the server counted is its one machine's.
        assert_eq!(total(&doc, "SET", "count"), s.calls("set"));
    }
    assert_eq!(
        total(&merged, "SET", "count"),
        servers.iter().map(|s| s.calls("set")).sum::<u64>()
    );
    let text = String::from_utf8(
        kvbench(&[
            "merge",
            dir.path("s0.json").to_str().unwrap(),
            dir.path("s1.json").to_str().unwrap(),
        ])
        .stdout,
    )
    .unwrap();
    assert!(text.contains("Target"), "{text}");
    for s in &servers {
        assert!(text.contains(&format!("127.0.0.1:{}", s.port)), "{text}");
    }
    // Plain files (no shard object) of two servers stay two workloads.
    let plain: Vec<String> = servers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = dir.path(&format!("plain{i}.json"));
            let out = kvbench_at(s.port)
                .args([
                    "-t",
                    "1",
                    "-c",
                    "1",
                    "-n",
                    "200",
                    "--json-out-file",
                    p.to_str().unwrap(),
                ])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            p.display().to_string()
        })
        .collect();
    let out = kvbench(&["merge", &plain[0], &plain[1]]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("target"));
    // The page of the two-server set beside one machine on one server has
    // the scaling chart: one point per file on each line, against shards.
    let page = dir.path("scaling.html");
    let merged_path = dir.path("merged.json");
    let out = kvbench(&[
        "report",
        merged_path.to_str().unwrap(),
        &plain[0],
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let at = html
        .find("data-chart=\"scaling\"")
        .expect("a scaling chart");
    let chart = &html[at..at + html[at..].find("</svg>").unwrap()];
    assert!(chart.contains("data-x=\"server shards\""), "{chart}");
    for series in ["total ops/s", "ops/s per shard"] {
        let g = &chart[chart.find(&format!("data-series=\"{series}\"")).unwrap()..];
        let g = &g[..g.find("</g>").unwrap()];
        assert_eq!(g.matches("<circle class=\"pt\"").count(), 2, "{series}");
    }
    // One file alone scales nothing.
    let single = dir.path("single.html");
    let out = kvbench(&["report", &plain[0], "-o", single.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        !std::fs::read_to_string(&single)
            .unwrap()
            .contains("data-chart=\"scaling\"")
    );
}
