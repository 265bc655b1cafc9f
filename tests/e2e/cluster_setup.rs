//! `--cluster-mode` setup against real servers: a seed that is no cluster
//! node and a cluster with unassigned slots are refused at once (exit 2,
//! before any benchmark connection, naming the fix or the missing slots);
//! a healthy cluster is discovered with every master and its slots, and
//! the server evidence of a run is the sum of the masters' counts. Scripted
//! nodes stand in for what no real cluster does on demand: a slot map naming
//! a node that refuses (named, with the seed that announced it), ranges that
//! overlap (refused, naming both masters), two masters whose MOVED point at
//! each other (a loop, named with its nodes) and a node that refuses `ASKING`
//! (named with its refusals).

use std::time::{Duration, Instant};

use crate::common;
use crate::common::cluster::Cluster;
use crate::common::cluster::scripted::{Data, Node};
use crate::common::{Redis, free_port, info_u64, kvbench_at};
use clap::Parser;
use kvbench::cli::Cli;
use kvbench::config::Config;
use kvbench::engine::cluster::discover::discover;

/// The target `--cluster-mode -p port` builds.
fn target(port: u16) -> kvbench::config::target::Target {
    let args = Cli::try_parse_from([
        "kvbench",
        "-s",
        "127.0.0.1",
        "-p",
        &port.to_string(),
        "--cluster-mode",
    ])
    .unwrap()
    .run;
    Config::from_args(args).unwrap().target
}

#[test]
fn a_standalone_server_is_refused_with_the_fix_before_any_benchmark_connection() {
    let redis = Redis::start();
    let connections = || info_u64(redis.port, "stats", "total_connections_received");
    let before = connections();
    let out = kvbench_at(redis.port)
        .args(["--cluster-mode", "-t", "2", "-c", "5", "--test-time", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // One connection asked (CLUSTER SHARDS on the preflight's), one is the
    // INFO that counts: none of the ten benchmark connections.
    assert_eq!(connections(), before + 2, "{stderr}");
    assert!(
        stderr.starts_with("kvbench: error: --cluster-mode: "),
        "{stderr}"
    );
    assert!(stderr.contains("is not a cluster node"), "{stderr}");
    assert!(stderr.contains("cluster support disabled"), "{stderr}");
    assert!(stderr.contains("drop --cluster-mode"), "{stderr}");
    assert_eq!(redis.calls("set") + redis.calls("get"), 0, "{stderr}");
}

#[test]
fn unassigned_slots_are_named_at_once_instead_of_waiting() {
    let cluster = Cluster::start(3);
    let ports = cluster.ports();
    // The last master's share: 16384 / 3 = 5461 slots each, the rest last.
    let (start, end) = ("10922", "16383");
    for port in &ports {
        let reply = common::ask(*port, &["CLUSTER", "DELSLOTSRANGE", start, end]);
        assert!(reply.contains("OK"), "DELSLOTSRANGE on {port}: {reply}");
    }
    let timeout = 5.0;
    let started = Instant::now();
    let out = kvbench_at(ports[0])
        .args(["--cluster-mode", "--test-time", "1"])
        .args(["--connection-timeout", &timeout.to_string()])
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("kvbench: error: --cluster-mode: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("slots 10922-16383 have no master (5462 of 16384 slots)"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs_f64(timeout), "took {took:?}");
    assert!(out.stdout.is_empty(), "a report was written");
}

#[test]
fn a_healthy_cluster_is_discovered_with_every_master_and_its_slots() {
    let cluster = Cluster::start(3);
    let ports = cluster.ports();
    // Any node answers for the whole cluster.
    for seed in [ports[0], ports[2]] {
        let topology = discover(&target(seed)).unwrap();
        let mut found: Vec<u16> = topology.map.nodes.iter().map(|n| n.port).collect();
        found.sort_unstable();
        let mut expected = ports.clone();
        expected.sort_unstable();
        assert_eq!(found, expected, "seen from {seed}");
        let slots = topology.map.slots_per_node();
        assert_eq!(slots.iter().sum::<usize>(), 16384);
        assert!(
            slots.iter().all(|&n| (5461..=5462).contains(&n)),
            "{slots:?}"
        );
        assert!(topology.replicas.iter().all(Vec::is_empty));
        assert!(topology.map.nodes.iter().all(|n| n.id.is_some()));
    }
}

/// `SET calls A (kvbench K)` or `SET calls A + R rejected (kvbench K)`:
/// the server's answered requests and kvbench's replies.
fn answered_and_replies(line: &str, op: &str) -> (u64, u64) {
    let rest = &line[line.find(&format!("{op} calls ")).unwrap() + op.len() + 7..];
    let (server, rest) = rest.split_once(" (kvbench ").unwrap();
    let replies: u64 = rest.split(')').next().unwrap().parse().unwrap();
    let answered = server
        .split(" + ")
        .map(|part| part.trim_end_matches(" rejected").parse::<u64>().unwrap())
        .sum();
    (answered, replies)
}

#[test]
fn the_evidence_of_a_cluster_run_is_the_sum_of_its_masters() {
    let cluster = Cluster::start(3);
    let out = kvbench_at(cluster.ports()[1])
        .args(["--cluster-mode", "--test-time", "1", "-t", "1", "-c", "2"])
        .args(["--ratio", "1:1", "--key-maximum", "1000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Server RUN #1"))
        .unwrap_or_else(|| panic!("no evidence line: {stdout}"));
    assert!(line.contains("(the sum of 3 nodes)"), "{line}");
    for op in ["SET", "GET"] {
        let (answered, replies) = answered_and_replies(line, op);
        assert!(replies > 0, "{line}");
        // Every request kvbench saw answered was answered by one master,
        // whether it ran there or was redirected.
        assert_eq!(answered, replies, "{op}: {line}");
    }
}

/// A `--cluster-mode` run of 10 requests from `seed`: its exit code and stderr.
fn cluster_run(seed: u16) -> (Option<i32>, String) {
    let out = kvbench_at(seed)
        .args(["--cluster-mode", "-t", "1", "-c", "1", "-n", "10"])
        .args(["--connection-timeout", "5"])
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "a report was written");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_node_the_slot_map_names_that_refuses_is_named_with_the_seed_not_server_port() {
    let closed = free_port();
    let seed = Node::spawn(
        Node::new(Data::Serve),
        &[(0, 8191, 0), (8192, 16383, closed)],
    );
    let (code, stderr) = cluster_run(seed.port);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("kvbench: error: --cluster-mode: "),
        "{stderr}"
    );
    let named = format!(
        "cluster node 127.0.0.1:{closed}, which the seed 127.0.0.1:{} named",
        seed.port
    );
    assert!(stderr.contains(&named), "{stderr}");
    assert!(!stderr.contains("--server/--port"), "{stderr}");
    assert_eq!(
        seed.script()
            .requests
            .load(std::sync::atomic::Ordering::SeqCst),
        0
    );
}

#[test]
fn slot_ranges_two_masters_claim_are_refused_naming_both() {
    let other = free_port();
    let seed = Node::spawn(
        Node::new(Data::Serve),
        &[(0, 10000, 0), (5000, 16383, other)],
    );
    let (code, stderr) = cluster_run(seed.port);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.starts_with("kvbench: error: --cluster-mode: "),
        "{stderr}"
    );
    let claimed = format!(
        "slots 5000-10000 are claimed by two masters: 127.0.0.1:{} (its range 0-10000) and 127.0.0.1:{other} (its range 5000-16383)",
        seed.port
    );
    assert!(stderr.contains(&claimed), "{stderr}");
    assert_eq!(
        seed.script()
            .requests
            .load(std::sync::atomic::Ordering::SeqCst),
        0
    );
}

/// Two scripted masters whose redirects point at each other: `a` owns every
/// slot by the slot map and answers `a_data`, `b` answers `b_data`.
fn redirecting_pair(
    a_data: Data,
    b_data: Data,
    b_refuses_asking: bool,
) -> (
    common::scripted_server::ScriptedServer<Node>,
    common::scripted_server::ScriptedServer<Node>,
) {
    let a = Node::spawn(Node::new(a_data), &[(0, 16383, 0)]);
    let b = Node::spawn(
        Node {
            refuses_asking: b_refuses_asking,
            ..Node::new(b_data)
        },
        &[(0, 16383, a.port)],
    );
    a.script()
        .to
        .store(b.port, std::sync::atomic::Ordering::SeqCst);
    b.script()
        .to
        .store(a.port, std::sync::atomic::Ordering::SeqCst);
    (a, b)
}

/// A `--cluster-mode --max-redirects 3` run of 20 requests from `seed`,
/// allowed to be invalid (every reply is an error): its stderr, text report
/// and JSON report.
fn redirected_run(seed: u16) -> (String, String, serde_json::Value) {
    let dir = common::TempDir::new("redirect-loop");
    let json = dir.path("r.json");
    let out = kvbench_at(seed)
        .args(["--cluster-mode", "--max-redirects", "3", "--allow-invalid"])
        .args(["-t", "1", "-c", "1", "-n", "20"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (stderr, stdout, common::read_json(&json))
}

/// The message of the report's `error_replies` warning.
fn error_replies_message(doc: &serde_json::Value) -> String {
    doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "error_replies")
        .unwrap_or_else(|| panic!("no error_replies warning: {}", doc["kvbench"]["warnings"]))
        ["message"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_moved_loop_under_cluster_mode_is_named_as_a_loop_between_its_nodes() {
    let (a, b) = redirecting_pair(Data::Moved, Data::Moved, false);
    let (stderr, _, doc) = redirected_run(a.port);
    let message = error_replies_message(&doc);
    assert!(message.contains("most of them MOVED (20)"), "{message}");
    assert!(
        message.contains("after --max-redirects 3 redirects"),
        "{message}"
    );
    let between = format!("loop between 127.0.0.1:{}, 127.0.0.1:{}", a.port, b.port);
    assert!(message.contains(&between), "{message}");
    assert!(!message.contains("add --cluster-mode"), "{message}");
    assert!(stderr.contains(&between), "{stderr}");
    // Each of the 20 requests went A, B, A, B: three MOVED followed, the
    // fourth counted; the nodes saw every one of those sends.
    let sent = a
        .script()
        .requests
        .load(std::sync::atomic::Ordering::SeqCst)
        + b.script()
            .requests
            .load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(sent, 20 * 4);
}

#[test]
fn a_node_that_refuses_asking_is_named_with_its_refusals() {
    let (a, b) = redirecting_pair(Data::Ask, Data::Moved, true);
    let (stderr, stdout, doc) = redirected_run(a.port);
    // The witness: every ASKING the node got, it refused, and kvbench counted each.
    let refused = b.script().asking.load(std::sync::atomic::Ordering::SeqCst);
    assert!(refused > 0);
    let runs = doc["kvbench"]["runs"].as_array().unwrap();
    let counted = &runs.last().unwrap()["cluster"]["redirects"]["asking_refused"];
    assert_eq!(counted.as_u64(), Some(refused), "{counted}");
    let message = error_replies_message(&doc);
    let named = format!(
        "answered ASKING with an error: 127.0.0.1:{} ({refused} times)",
        b.port
    );
    assert!(message.contains(&named), "{message}");
    assert!(!message.contains("add --cluster-mode"), "{message}");
    assert!(stderr.contains(&named), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Redirects:"))
        .unwrap_or_else(|| panic!("no Redirects line: {stdout}"));
    assert!(
        line.contains(&format!("({refused} ASKING answered with an error)")),
        "{line}"
    );
}

#[test]
fn a_node_that_answers_every_request_ask_to_itself_is_a_loop_given_up_at_once() {
    // Every GET and SET gets `-ASK 1 <its own address>`: sent there again
    // (after ASKING) it gets the same answer, so each request is given up at
    // its first redirect instead of after --max-redirects 16 round trips
    // (1 700 sends for 100 requests, each a round trip: over 60 s against a
    // node whose replies wait for an ACK).
    let node = Node::spawn(Node::new(Data::Ask), &[(0, 16383, 0)]);
    let own = node.port;
    node.script()
        .to
        .store(own, std::sync::atomic::Ordering::SeqCst);
    let dir = common::TempDir::new("always-ask");
    let json = dir.path("r.json");
    let started = Instant::now();
    let out = kvbench_at(own)
        .args(["--cluster-mode", "-t", "1", "-c", "1", "-n", "100"])
        .args(["--json-out-file", json.to_str().unwrap()])
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Not valid: every reply was an error.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(took < Duration::from_secs(30), "{took:?}: {stderr}");
    // The witness: the node saw each request once and no ASKING.
    let script = node.script();
    let sent = script.requests.load(std::sync::atomic::Ordering::SeqCst);
    let asking = script.asking.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!((sent, asking), (100, 0), "{stderr}");
    let doc = common::read_json(&json);
    let message = error_replies_message(&doc);
    assert!(message.contains("most of them ASK (100)"), "{message}");
}
