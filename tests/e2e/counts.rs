//! Counts agree with the server: kvbench's SET and GET totals equal the `calls` the
//! server itself recorded in `INFO commandstats`, across warm-up and runs, pipeline
//! depths, thread counts and SET:GET ratios.

use crate::common::Redis;
use serde_json::Value;

/// `kvbench.totals.<op>.count` (or of any object with the same layout).
fn count(totals: &Value, op: &str) -> u64 {
    totals[op]["count"].as_u64().unwrap()
}

/// The sum of one op's count over every entry of `kvbench.runs`.
fn sum_of_runs(doc: &Value, op: &str) -> u64 {
    doc["kvbench"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| count(&run["totals"], op))
        .sum()
}

/// Asserts that kvbench reports `sets` SETs and `gets` GETs in its totals and
/// that the server counted exactly as many; `context` names the case.
fn assert_counts(redis: &Redis, doc: &Value, sets: u64, gets: u64, context: &str) {
    let totals = &doc["kvbench"]["totals"];
    assert_eq!(count(totals, "SET"), sets, "kvbench SETs, {context}");
    assert_eq!(count(totals, "GET"), gets, "kvbench GETs, {context}");
    assert_eq!(redis.calls("set"), sets, "server SETs, {context}");
    assert_eq!(redis.calls("get"), gets, "server GETs, {context}");
}

/// Asserts that kvbench reports no errors of any kind for all its runs.
fn assert_no_errors(doc: &Value) {
    let totals = &doc["kvbench"]["totals"];
    for op in ["SET", "GET"] {
        assert_eq!(totals[op]["errors"], 0, "{op} errors in {totals}");
    }
    let errors = &doc["kvbench"]["errors"];
    for kind in ["connection", "protocol", "lost_requests"] {
        assert_eq!(errors[kind], 0, "{kind} in {errors}");
    }
}

#[test]
fn warmup_and_runs_are_reported_apart_and_together_equal_the_servers_calls() {
    let redis = Redis::start();
    let doc = redis
        .kvbench_json("-t 2 -c 2 --ratio 1:1 --key-maximum 1000 --warmup-time 1 --test-time 1 -x 2")
        .doc;
    let kv = &doc["kvbench"];
    assert_eq!(kv["runs"].as_array().unwrap().len(), 2);
    assert_eq!(kv["complete"], true);
    let warmup = &kv["warmup"];
    assert!(warmup.is_object(), "no warm-up reported: {warmup}");
    assert_eq!(warmup["phase"], "WARM-UP");

    let (warm_set, warm_get) = (
        count(&warmup["totals"], "SET"),
        count(&warmup["totals"], "GET"),
    );
    assert!(
        warm_set > 0 && warm_get > 0,
        "warm-up sent nothing: {warmup}"
    );

    // kvbench.totals are the runs only: the warm-up is not folded in.
    let (runs_set, runs_get) = (sum_of_runs(&doc, "SET"), sum_of_runs(&doc, "GET"));
    assert_eq!(count(&kv["totals"], "SET"), runs_set);
    assert_eq!(count(&kv["totals"], "GET"), runs_get);
    assert!(runs_set > 0 && runs_get > 0);

    // The server saw exactly the runs plus the warm-up, nothing lost or invented.
    assert_eq!(redis.calls("set"), runs_set + warm_set);
    assert_eq!(redis.calls("get"), runs_get + warm_get);

    // The memtier-layout sections agree with the integer totals.
    let agg = &doc["AGGREGATED AVERAGE RESULTS (2 runs)"];
    assert_eq!(agg["Sets"]["Count"], runs_set);
    assert_eq!(agg["Gets"]["Count"], runs_get);
    assert_eq!(agg["Totals"]["Count"], runs_set + runs_get);
    let warm_stats = &warmup["ALL STATS"];
    assert_eq!(warm_stats["Sets"]["Count"], warm_set);
    assert_eq!(warm_stats["Gets"]["Count"], warm_get);
    assert_no_errors(&doc);
}

#[test]
fn every_pipelined_request_is_counted_once_at_depth_1_and_16() {
    let redis = Redis::start();
    for depth in ["1", "16"] {
        redis.reset_stats();
        let doc = redis
            .kvbench_json(&format!(
                "-t 1 -c 3 -n 400 --ratio 1:1 --pipeline {depth} --key-maximum 500"
            ))
            .doc;
        // 3 connections × 400 requests, alternating SET and GET.
        assert_counts(&redis, &doc, 600, 600, &format!("pipeline {depth}"));
        assert_eq!(
            doc["kvbench"]["config"]["pipeline"],
            depth.parse::<u64>().unwrap()
        );
        assert_no_errors(&doc);
    }
}

#[test]
fn a_time_bound_pipelined_run_counts_exactly_the_requests_the_server_answered() {
    let redis = Redis::start();
    let doc = redis
        .kvbench_json("-t 2 -c 2 --test-time 1 --ratio 1:3 --pipeline 16 --key-maximum 1000")
        .doc;
    let totals = &doc["kvbench"]["totals"];
    let (sets, gets) = (count(totals, "SET"), count(totals, "GET"));
    assert!(sets > 0 && gets > 0);
    // Requests still in flight at the deadline are awaited, so none goes uncounted.
    assert_counts(&redis, &doc, sets, gets, "a time-bound run");
    assert_no_errors(&doc);
}

#[test]
fn one_and_two_threads_each_send_their_share() {
    let redis = Redis::start();
    for threads in [1u64, 2] {
        redis.reset_stats();
        let doc = redis
            .kvbench_json(&format!(
                "-t {threads} -c 3 -n 100 --ratio 1:1 --key-maximum 500"
            ))
            .doc;
        let per_op = threads * 3 * 50;
        assert_counts(&redis, &doc, per_op, per_op, &format!("{threads} threads"));
        assert_eq!(doc["ALL STATS"]["Totals"]["Count"], 2 * per_op);
    }
}

#[test]
fn ratio_1_0_sends_no_get_at_all() {
    let redis = Redis::start();
    let doc = redis
        .kvbench_json("-t 2 -c 2 -n 150 --ratio 1:0 --key-maximum 500")
        .doc;
    assert_counts(&redis, &doc, 600, 0, "ratio 1:0");
    assert_eq!(doc["ALL STATS"]["Gets"]["Count"], 0);
    assert_eq!(doc["kvbench"]["hit_rate_percent"], Value::Null);
}

#[test]
fn ratio_0_1_sends_no_set_at_all() {
    let redis = Redis::start();
    let doc = redis
        .kvbench_json("-t 2 -c 2 -n 150 --ratio 0:1 --key-maximum 500")
        .doc;
    assert_counts(&redis, &doc, 0, 600, "ratio 0:1");
    // Nothing was ever written, so every GET missed, on both sides.
    assert_eq!(doc["kvbench"]["totals"]["GET"]["hits"], 0);
    assert_eq!(doc["kvbench"]["totals"]["GET"]["misses"], 600);
    assert_eq!(redis.dbsize(), 0);
}

#[test]
fn ratio_1_10_is_exactly_one_set_per_ten_gets_on_every_connection() {
    let redis = Redis::start();
    // 110 requests per connection are ten whole cycles of 1 SET + 10 GETs.
    let doc = redis
        .kvbench_json("-t 2 -c 2 -n 110 --ratio 1:10 --key-maximum 500")
        .doc;
    assert_counts(&redis, &doc, 4 * 10, 4 * 100, "ratio 1:10");
}

#[test]
fn the_ratio_cycle_runs_per_connection_and_starts_with_the_sets() {
    let redis = Redis::start();
    // 12 requests per connection: SET, 10 GETs, SET. A cycle shared by all
    // connections, or one starting with GETs, would give other totals.
    redis.kvbench_json("-t 1 -c 3 -n 12 --ratio 1:10 --key-maximum 500");
    assert_eq!(redis.calls("set"), 3 * 2);
    assert_eq!(redis.calls("get"), 3 * 10);

    redis.reset_stats();
    // 4 requests per connection of 2:5: SET, SET, GET, GET.
    redis.kvbench_json("-t 1 -c 3 -n 4 --ratio 2:5 --key-maximum 500");
    assert_eq!(redis.calls("set"), 3 * 2);
    assert_eq!(redis.calls("get"), 3 * 2);
}
