//! `--memtier-compat` sends memtier's keys in memtier's order: every capture in
//! tests/data/memtier-monitor/ (memtier_benchmark's own traffic, seen by Redis
//! MONITOR) is replayed as a kvbench command line against a real server, whose
//! MONITOR the test reads itself, and each connection's sequence of commands
//! and keys must be one of memtier's, key for key.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::net::TcpStream;
use std::path::PathBuf;

use crate::common::{Redis, ask, assert_success, kvbench_at, monitor, monitor_until};

/// One connection's requests: (command, key) in the order the server saw them.
type Sequence = Vec<(String, String)>;

/// The last command the test sends, so that the capture knows it has seen
/// everything kvbench sent before it.
const END: &str = "end-of-capture";

fn capture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/memtier-monitor/{name}.keys"))
}

/// A recorded capture: memtier's arguments (the first line) and its
/// per-connection sequences, sorted so that connection numbers do not matter.
fn recorded(name: &str) -> (String, Vec<Sequence>) {
    let text = std::fs::read_to_string(capture_path(name)).unwrap();
    let mut lines = text.lines();
    let args = lines
        .next()
        .and_then(|l| l.strip_prefix("# memtier_benchmark "))
        .unwrap_or_else(|| panic!("{name}: no memtier line"))
        .to_string();
    let mut by_conn: BTreeMap<u32, Sequence> = BTreeMap::new();
    for line in lines {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [conn, command, key] = fields[..] else {
            panic!("{name}: bad line {line:?}");
        };
        by_conn
            .entry(conn.parse().unwrap())
            .or_default()
            .push((command.to_string(), key.to_string()));
    }
    (args, sorted(by_conn.into_values().collect()))
}

fn sorted(mut sequences: Vec<Sequence>) -> Vec<Sequence> {
    sequences.sort();
    sequences
}

/// Reads MONITOR lines up to the test's closing `ECHO` and reduces them as the
/// recordings were: each client address's SETs and GETs with their keys.
fn reduce(reader: &mut BufReader<TcpStream>) -> Vec<Sequence> {
    let mut by_addr: BTreeMap<String, Sequence> = BTreeMap::new();
    monitor_until(reader, END, |addr, words| {
        if let [command, key, ..] = words
            && (*command == "SET" || *command == "GET")
        {
            by_addr
                .entry(addr.to_string())
                .or_default()
                .push((command.to_string(), key.to_string()));
        }
    });
    sorted(by_addr.into_values().collect())
}

/// Runs kvbench with memtier's `args` under `--memtier-compat` and returns its
/// per-connection sequences as MONITOR saw them.
fn kvbench_sequences(args: &str) -> Vec<Sequence> {
    let redis = Redis::start();
    let mut capture = monitor(redis.port);
    let out = kvbench_at(redis.port)
        .arg("--memtier-compat")
        .args(args.split_whitespace())
        .output()
        .unwrap();
    assert_success(&out, args);
    assert_eq!(ask(redis.port, &["ECHO", END]), END);
    reduce(&mut capture)
}

/// The first place two sets of sequences part, for a readable failure.
fn first_difference(ours: &[Sequence], memtiers: &[Sequence]) -> String {
    if ours.len() != memtiers.len() {
        return format!("{} connections, memtier {}", ours.len(), memtiers.len());
    }
    for (c, (a, b)) in ours.iter().zip(memtiers).enumerate() {
        if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
            return format!("sequence {c}, request {i}: {:?}, memtier {:?}", a[i], b[i]);
        }
        if a.len() != b.len() {
            return format!("sequence {c}: {} requests, memtier {}", a.len(), b.len());
        }
    }
    "none".into()
}

fn assert_same_keys_as_memtier(name: &str) {
    let (args, memtiers) = recorded(name);
    let ours = kvbench_sequences(&args);
    let requests: usize = memtiers.iter().map(Vec::len).sum();
    assert!(requests >= 100, "{name}: only {requests} recorded requests");
    assert!(
        ours == memtiers,
        "{name} ({args}): first difference at {}",
        first_difference(&ours, &memtiers)
    );
}

#[test]
fn uniform_keys_are_memtiers() {
    assert_same_keys_as_memtier("uniform");
}

#[test]
fn gaussian_keys_are_memtiers() {
    assert_same_keys_as_memtier("gaussian");
}

#[test]
fn gaussian_sets_and_sequential_gets_are_memtiers() {
    assert_same_keys_as_memtier("gaussian-sequential");
}

#[test]
fn sequential_allkeys_walks_are_memtiers() {
    let (_, memtiers) = recorded("sequential-allkeys");
    // memtier's -n allkeys counts max - min requests: keys 1 to 99 of 1..=100.
    assert!(memtiers.iter().all(|s| s.len() == 99));
    assert_same_keys_as_memtier("sequential-allkeys");
}

#[test]
fn parallel_allkeys_shares_are_memtiers() {
    assert_same_keys_as_memtier("parallel-allkeys");
}

#[test]
fn distinct_client_seeds_are_memtiers() {
    let (_, memtiers) = recorded("distinct-client-seed");
    assert_eq!(memtiers.len(), 4);
    assert!(
        memtiers.windows(2).all(|w| w[0] != w[1]),
        "one sequence each"
    );
    assert_same_keys_as_memtier("distinct-client-seed");
}

#[test]
fn zipfian_keys_are_memtiers() {
    assert_same_keys_as_memtier("zipfian");
}

#[test]
fn without_memtier_compat_the_keys_are_kvbenchs_own() {
    // The comparison can fail: kvbench's default seeds draw other keys.
    let (args, memtiers) = recorded("uniform");
    let redis = Redis::start();
    let mut capture = monitor(redis.port);
    let out = kvbench_at(redis.port)
        .args(args.split_whitespace())
        .output()
        .unwrap();
    assert_success(&out, &args);
    assert_eq!(ask(redis.port, &["ECHO", END]), END);
    let ours = reduce(&mut capture);
    assert_eq!(ours.len(), memtiers.len());
    assert_ne!(ours, memtiers);
}
