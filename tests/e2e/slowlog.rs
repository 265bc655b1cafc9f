//! The server's slow log travels with the results (`--slowlog`): each entry is
//! the server's own (same id, timestamp and duration in `SLOWLOG GET`), the run's
//! log holds the run's commands and not kvbench's own, and without the flag
//! there is none.

use std::collections::HashMap;

use crate::common::{Redis, pipeline};
use kvbench::protocol::value::Value as Reply;
use serde_json::Value;

/// The server's own slow log: id → (timestamp, duration µs).
fn server_slowlog(redis: &Redis) -> HashMap<i64, (i64, i64)> {
    let Reply::Array(entries) = pipeline(redis.port, &[["SLOWLOG", "GET", "1000"]]).remove(0)
    else {
        panic!("SLOWLOG GET did not answer an array");
    };
    entries
        .iter()
        .map(|entry| match entry {
            Reply::Array(fields) => match fields.as_slice() {
                [
                    Reply::Integer(id),
                    Reply::Integer(at),
                    Reply::Integer(us),
                    ..,
                ] => (*id, (*at, *us)),
                other => panic!("slow log entry {other:?}"),
            },
            other => panic!("slow log entry {other:?}"),
        })
        .collect()
}

/// The commands of the run's slow log, after checking that each entry is the
/// server's own: same id, timestamp and duration in `SLOWLOG GET`.
fn slowlog_commands(redis: &Redis, evidence: &Value) -> Vec<String> {
    let server = server_slowlog(redis);
    evidence["slowlog"]
        .as_array()
        .unwrap_or_else(|| panic!("no slowlog list in {evidence}"))
        .iter()
        .map(|e| {
            let id = e["id"].as_i64().unwrap();
            let own = (
                e["timestamp"].as_i64().unwrap(),
                e["duration_us"].as_i64().unwrap(),
            );
            assert_eq!(server.get(&id), Some(&own), "entry {e} vs the server's");
            e["command"][0].as_str().unwrap().to_uppercase()
        })
        .collect()
}

#[test]
fn slowlog_lists_the_runs_commands_with_the_flag_and_is_null_without_it() {
    let redis = Redis::start_with(&["--slowlog-log-slower-than", "0"]);
    let args = "-t 1 -c 1 --key-maximum 5000 -n 40 --ratio 1:1 --warmup-time 0.1";

    let with = redis.kvbench_json(&format!("{args} --slowlog"));
    let kv = &with.doc["kvbench"];
    let commands = slowlog_commands(&redis, &kv["runs"][0]["server"]);
    assert!(!commands.is_empty());
    assert!(
        commands.iter().any(|c| c == "SET" || c == "GET"),
        "{commands:?}"
    );
    let line = format!("Slowlog RUN #1: {} entries", commands.len());
    assert!(
        with.stdout.contains(&line),
        "no {line:?} in\n{}",
        with.stdout
    );
    // Only measured runs read the slow log.
    assert!(kv["warmup"]["server"]["slowlog"].is_null());
    assert!(!with.stdout.contains("Slowlog WARM-UP"));

    let without = redis.kvbench_json(args);
    let evidence = &without.doc["kvbench"]["runs"][0]["server"];
    assert!(evidence.is_object());
    assert!(evidence["slowlog"].is_null(), "{}", evidence["slowlog"]);
    assert!(!without.stdout.contains("Slowlog"), "{}", without.stdout);
}

#[test]
fn the_runs_slowlog_holds_the_runs_commands_and_not_kvbenchs_own() {
    // A GET-only run after a prefill: every command the server ran during the
    // run is one of the run's GETs. kvbench's control connection resets the slow
    // log before the run and reads INFO after it; neither belongs to the run.
    let redis = Redis::start_with(&["--slowlog-log-slower-than", "0"]);
    let run =
        redis.kvbench_json("-t 1 -c 1 --key-maximum 2000 --prefill --ratio 0:1 -n 20 --slowlog");
    let commands = slowlog_commands(&redis, &run.doc["kvbench"]["runs"][0]["server"]);
    let foreign: Vec<&String> = commands.iter().filter(|c| *c != "GET").collect();
    assert!(
        foreign.is_empty(),
        "the run's slow log holds commands the run did not send: {foreign:?} (all: {commands:?})"
    );
    assert_eq!(commands.len(), 20, "one entry per GET of the run");
}
