//! memtier's names keep memtier's meaning: the JSON has every key of memtier's
//! own output with the same JSON types (by default and with `--memtier-compat`),
//! `run information` says `Seconds` for timed runs, `--hide-histogram` drops the
//! distributions, an empty second has no latency, `Connection Errors` counts
//! the connections the server closed, and `--memtier-compat` gives every
//! connection memtier's key sequence ([`monitor`] checks it against memtier's
//! own MONITOR captures).
//!
//! memtier's samples (tests/data/memtier/) are real memtier_benchmark output:
//! `smoke.json` from `-t 1 -c 5 -n 1000`, `runcount3.json` from
//! `-t 2 -c 10 -n 2000 -x 3 --ratio 1:1 --hide-histogram --print-all-runs`.

mod monitor;

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common;
use crate::common::{Redis, TempDir, ask, f, kvbench_at, pipeline, read_json, u, wait_for_traffic};
use kvbench::protocol::value::Value as Reply;
use serde_json::Value;

/// Every path of a document (numbered seconds as `<n>`, run sections as
/// `RUN #n RESULTS`, array items as `[]`) with the JSON types seen there.
type Skeleton = BTreeMap<String, BTreeSet<&'static str>>;

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn normal_key(k: &str) -> String {
    if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) {
        "<n>".into()
    } else if k.starts_with("RUN #") && k.ends_with(" RESULTS") {
        "RUN #n RESULTS".into()
    } else {
        k.to_string()
    }
}

fn walk(v: &Value, path: String, out: &mut Skeleton) {
    out.entry(path.clone()).or_default().insert(type_of(v));
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                walk(child, format!("{path}/{}", normal_key(k)), out);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

fn skeleton(doc: &Value) -> Skeleton {
    let mut out = Skeleton::new();
    walk(doc, String::new(), &mut out);
    out
}

fn memtier_sample(name: &str) -> Value {
    let path = format!("{}/tests/data/memtier/{name}", env!("CARGO_MANIFEST_DIR"));
    read_json(std::path::Path::new(&path))
}

/// kvbench's JSON for `args` against a fresh server, without the
/// `--hide-histogram` the shared helpers add.
fn report(args: &str) -> Value {
    let redis = Redis::start();
    let dir = TempDir::new("memtier-compat");
    let json = dir.path("r.json");
    let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &redis.port.to_string()])
        .args(args.split_whitespace())
        .arg("--json-out-file")
        .arg(&json)
        .env_remove("KVBENCH_AUTH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_json(&json)
}

/// Every path of memtier's sample is in kvbench's report with the same types.
fn assert_has_memtiers_keys(kvbench: &Value, sample: &str, what: &str) {
    let ours = skeleton(kvbench);
    let theirs = skeleton(&memtier_sample(sample));
    let mut wrong = Vec::new();
    for (path, types) in &theirs {
        match ours.get(path) {
            None => wrong.push(format!("{path}: missing (memtier: {types:?})")),
            Some(t) if t != types => wrong.push(format!("{path}: {t:?}, memtier {types:?}")),
            Some(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "{what}: {} of memtier's {} paths differ:\n{}",
        wrong.len(),
        theirs.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_json_has_every_key_of_memtiers_with_memtiers_types() {
    for compat in ["", "--memtier-compat"] {
        let single = report(&format!("-t 1 -c 5 -n 1000 {compat}"));
        assert_has_memtiers_keys(&single, "smoke.json", &format!("single run {compat}"));
        let runs = report(&format!(
            "-t 2 -c 10 -n 2000 -x 3 --ratio 1:1 --key-maximum 100000 --hide-histogram --print-all-runs {compat}"
        ));
        assert_has_memtiers_keys(&runs, "runcount3.json", &format!("three runs {compat}"));
        assert_eq!(runs["configuration"]["print-all-runs"], "true");
        assert_eq!(runs["configuration"]["requests"], 2000);
    }
}

#[test]
fn a_timed_run_writes_seconds_where_memtier_does() {
    let doc = report("-t 1 -c 2 --test-time 1 --ratio 0:1 --key-maximum 100");
    let info = &doc["run information"];
    assert_eq!(info["Seconds"], 1, "{info}");
    assert!(info.get("Requests per client").is_none(), "{info}");
    assert_eq!(doc["configuration"]["test_time"], 1);
    assert_eq!(doc["configuration"]["requests"], 0);
    assert_eq!(doc["configuration"]["connection_timeout"], 5);
    // A GET-only run has no SET reply in any second: memtier writes no latency
    // for such a second, where 0.0 would read as an impossibly fast one.
    let sets = doc["ALL STATS"]["Sets"]["Time-Serie"].as_object().unwrap();
    assert!(!sets.is_empty());
    for (second, entry) in sets {
        assert_eq!(entry["Count"], 0, "second {second}");
        for key in ["Average Latency", "Min Latency", "Max Latency", "p50.00"] {
            assert!(
                entry.get(key).is_none(),
                "second {second} has {key}: {entry}"
            );
        }
    }
    let gets = doc["ALL STATS"]["Gets"]["Time-Serie"]["0"].clone();
    assert!(
        u(&gets["Count"]) > 0 && f(&gets["Max Latency"]) > 0.0,
        "{gets}"
    );
}

#[test]
fn hide_histogram_leaves_the_distributions_out_of_the_json() {
    let shown = report("-t 1 -c 1 -n 200 --key-maximum 100");
    assert!(
        shown["ALL STATS"]["SET"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
    assert!(shown["ALL STATS"]["WAIT"].is_array());
    let hidden = report("-t 1 -c 1 -n 200 --key-maximum 100 --hide-histogram");
    for key in ["SET", "GET", "WAIT"] {
        assert!(
            hidden["ALL STATS"].get(key).is_none(),
            "{key} is still there"
        );
    }
    assert_eq!(hidden["ALL STATS"]["Totals"]["Count"], 200);
}

/// The IDs of the server's clients whose last command was a SET or GET: the
/// benchmark's connections, not the test's or kvbench's own INFO probes.
fn benchmark_client_ids(port: u16) -> Vec<String> {
    ask(port, &["CLIENT", "LIST"])
        .lines()
        .filter(|l| l.contains(" cmd=set ") || l.contains(" cmd=get "))
        .filter_map(|l| l.split_whitespace().find_map(|f| f.strip_prefix("id=")))
        .map(String::from)
        .collect()
}

#[test]
fn connection_errors_count_the_connections_the_server_closed() {
    let redis = Redis::start();
    let dir = TempDir::new("memtier-compat");
    let json = dir.path("r.json");
    let mut child = kvbench_at(redis.port)
        .args("-t 1 -c 4 --test-time 3 --key-maximum 1000".split_whitespace())
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut child);
    std::thread::sleep(Duration::from_millis(500));
    let mut killed = 0;
    for id in benchmark_client_ids(redis.port) {
        match pipeline(redis.port, &[["CLIENT", "KILL", "ID", &id]]).remove(0) {
            Reply::Integer(n) => killed += n as u64,
            other => panic!("CLIENT KILL ID {id} answered {other:?}"),
        }
    }
    assert!((1..=4).contains(&killed), "the server closed {killed}");
    child.wait().unwrap();
    let doc = read_json(&json);
    let totals = &doc["ALL STATS"]["Totals"];
    assert_eq!(u(&totals["Connection Errors"]), killed, "{totals}");
    assert_eq!(u(&doc["kvbench"]["errors"]["connection"]), killed);
    let secs = u(&doc["ALL STATS"]["Runtime"]["Total duration"]) as f64 / 1000.0;
    let per_sec = f(&totals["Connection Errors/sec"]);
    assert!(
        (per_sec - killed as f64 / secs).abs() < 0.01,
        "{per_sec}/s for {killed} in {secs} s"
    );
    // memtier counts them in Totals only.
    assert_eq!(doc["ALL STATS"]["Sets"]["Connection Errors"], 0);
}

/// A server whose LFU counter of a key counts its accesses exactly (see
/// tests/e2e/patterns.rs): a SET that creates a key leaves 5, every further
/// access adds one.
fn counting_redis() -> Redis {
    Redis::start_with(&[
        "--maxmemory-policy",
        "allkeys-lfu",
        "--lfu-log-factor",
        "0",
        "--lfu-decay-time",
        "0",
    ])
}

/// How often each key of the database was written, for a SET-only load.
fn writes_per_key(redis: &Redis) -> BTreeMap<String, u64> {
    let keys: Vec<String> = match pipeline(redis.port, &[["KEYS", "*"]]).remove(0) {
        Reply::Array(items) => items.iter().map(|k| k.text().unwrap()).collect(),
        other => panic!("KEYS answered {other:?}"),
    };
    let commands: Vec<[&str; 3]> = keys
        .iter()
        .map(|k| ["OBJECT", "FREQ", k.as_str()])
        .collect();
    let freqs = pipeline(redis.port, &commands);
    keys.into_iter()
        .zip(freqs)
        .map(|(k, f)| match f {
            Reply::Integer(n) => (k, n as u64 - 5 + 1),
            other => panic!("OBJECT FREQ answered {other:?}"),
        })
        .collect()
}

#[test]
fn memtier_compat_gives_every_connection_the_same_key_sequence() {
    let load = "-t 2 -c 2 -n 200 --ratio 1:0 --key-pattern R:R --key-maximum 1000000";
    let redis = counting_redis();
    let doc = redis.kvbench_json(&format!("{load} --memtier-compat")).doc;
    assert_eq!(doc["kvbench"]["seed"], 0, "memtier's constant seed");
    let writes = writes_per_key(&redis);
    assert_eq!(writes.values().sum::<u64>(), 800);
    assert_eq!(redis.calls("set"), 800);
    // 200 draws from a million keys: about 200 distinct, each written once by
    // each of the four connections.
    assert!((190..=200).contains(&writes.len()), "{} keys", writes.len());
    assert!(writes.values().all(|w| w % 4 == 0), "{writes:?}");
    let first: BTreeSet<String> = writes.into_keys().collect();

    // The same command again draws the same keys: the seed is constant.
    let again = counting_redis();
    again.kvbench_json(&format!("{load} --memtier-compat"));
    assert_eq!(first, writes_per_key(&again).into_keys().collect());

    // --distinct-client-seed: one sequence per connection, as in memtier.
    let distinct = counting_redis();
    distinct.kvbench_json(&format!("{load} --memtier-compat --distinct-client-seed"));
    let n = writes_per_key(&distinct).len();
    assert!((760..=800).contains(&n), "{n} keys with distinct seeds");

    // --randomize: a random seed, still shared by all connections.
    let random = counting_redis();
    let doc = random
        .kvbench_json(&format!("{load} --memtier-compat --randomize"))
        .doc;
    assert_ne!(doc["kvbench"]["seed"], 0);
    let writes = writes_per_key(&random);
    assert!(writes.values().all(|w| w % 4 == 0), "{writes:?}");
    assert_ne!(first, writes.into_keys().collect());

    // kvbench's own default: every connection its own seed.
    let own = counting_redis();
    own.kvbench_json(load);
    let n = writes_per_key(&own).len();
    assert!((760..=800).contains(&n), "{n} keys with kvbench's seeds");
}

#[test]
fn memtier_compat_walks_the_whole_range_on_every_connection() {
    let load =
        "-t 1 -c 3 -n allkeys --ratio 1:0 --key-pattern S:S --key-minimum 1 --key-maximum 100";
    let redis = counting_redis();
    let doc = redis.kvbench_json(&format!("{load} --memtier-compat")).doc;
    let writes = writes_per_key(&redis);
    // memtier's -n allkeys is max - min requests per connection: keys 1 to 99,
    // the top key never.
    assert_eq!(writes.len(), 99);
    assert!(!writes.contains_key("memtier-100"), "{writes:?}");
    assert!(writes.values().all(|&w| w == 3), "{writes:?}");
    assert_eq!(doc["ALL STATS"]["Totals"]["Count"], 297);
    assert_eq!(doc["run information"]["Requests per client"], 99);
    // kvbench's default splits the range: every key once.
    let split = counting_redis();
    split.kvbench_json(load);
    let writes = writes_per_key(&split);
    assert_eq!(writes.len(), 100);
    assert!(writes.values().all(|&w| w == 1), "{writes:?}");
}

#[test]
fn memtier_compat_keeps_memtiers_reconnect_and_timeout_settings() {
    let redis = Redis::start();
    let doc = redis
        .kvbench_json(
            "--memtier-compat -t 1 -c 1 -n 10 --connection-timeout 0 --reconnect-backoff-factor 0",
        )
        .doc;
    let c = &doc["kvbench"]["config"];
    assert_eq!(c["reconnect"], false);
    assert_eq!(c["max_reconnect_attempts"], 0);
    assert_eq!(doc["configuration"]["connection_timeout"], 0);
    let on = redis
        .kvbench_json("--memtier-compat -t 1 -c 1 -n 10 --reconnect-on-error")
        .doc;
    assert_eq!(on["kvbench"]["config"]["reconnect"], true);
    // kvbench's defaults: reconnects on, 20 attempts, a 5 s connection timeout.
    let own = redis.kvbench_json("-t 1 -c 1 -n 10").doc;
    assert_eq!(own["kvbench"]["config"]["reconnect"], true);
    assert_eq!(own["kvbench"]["config"]["max_reconnect_attempts"], 20);
    assert_eq!(own["configuration"]["connection_timeout"], 5);
}

/// Runs a paced load (`pacing`) for 3 s and pauses the server for 600 ms in the
/// middle; returns the JSON report.
fn paced_run_through_a_pause(pacing: &str) -> Value {
    let redis = Redis::start();
    let dir = TempDir::new("memtier-compat");
    let json = dir.path("r.json");
    let mut child = kvbench_at(redis.port)
        .args(format!("-t 1 -c 2 --test-time 3 --key-maximum 1000 {pacing}").split_whitespace())
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut child);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(ask(redis.port, &["CLIENT", "PAUSE", "600", "ALL"]), "OK");
    child.wait().unwrap();
    read_json(&json)
}

/// p99 of a latency block or a memtier row's `Percentile Latencies`, ms.
fn p99(block: &Value) -> f64 {
    f(&block["p99.00"])
}

#[test]
fn rate_limiting_keeps_memtiers_service_time_and_rate_headlines_response_time() {
    // memtier's --rate-limiting: 200 requests/s per connection, latency from the
    // actual send. A cap, not a schedule: the some 240 requests the 600 ms pause
    // held back are skipped, as memtier skips them; only the first due in it
    // on each connection waits for its end (response time), and only the 2 in
    // flight when it began see it in their service time.
    let doc = paced_run_through_a_pause("--rate-limiting 200");
    let open_loop = &doc["kvbench"]["runs"][0]["open_loop"];
    assert_eq!(open_loop["headline"], "service_time");
    let memtier_p99 = p99(&doc["ALL STATS"]["Totals"]["Percentile Latencies"]);
    let service = p99(&open_loop["service_time"]["Totals"]);
    let response_block = &open_loop["response_time"]["Totals"];
    let response = p99(response_block);
    let response_max = f(&response_block["Max Latency"]);
    eprintln!(
        "--rate-limiting: service p99 {service} ms, response p99 {response} ms, max {response_max} ms"
    );
    assert_eq!(memtier_p99, service, "memtier's fields are service time");
    assert!(service < 100.0, "service p99 {service} ms");
    assert!(
        response < 100.0,
        "response p99 {response} ms: the pause's backlog was sent"
    );
    assert!(response_max > 300.0, "response max {response_max} ms");
    // Under 1 200 requests in all: the pause's share was not caught up.
    let count = u(&doc["ALL STATS"]["Totals"]["Count"]);
    assert!(
        (800..=1_120).contains(&count),
        "{count} requests in 3 s at 2 x 200/s with a 0.6 s pause"
    );
    assert_eq!(doc["configuration"]["rate_limit"], 200);

    // kvbench's --rate: the same schedule in total, response time headlined.
    let doc = paced_run_through_a_pause("--rate 400");
    let open_loop = &doc["kvbench"]["runs"][0]["open_loop"];
    assert_eq!(open_loop["headline"], "response_time");
    let memtier_p99 = p99(&doc["ALL STATS"]["Totals"]["Percentile Latencies"]);
    assert_eq!(memtier_p99, p99(&open_loop["response_time"]["Totals"]));
    assert!(memtier_p99 > 300.0, "response p99 {memtier_p99} ms");
    assert!(p99(&open_loop["service_time"]["Totals"]) < 100.0);
    assert!(common::warning_kinds(&doc).contains(&"latency_measures_diverge"));
}
