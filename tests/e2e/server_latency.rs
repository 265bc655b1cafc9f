//! Server time apart from client time: each run's `server_latency` holds,
//! per op, the server's p50/p99 from Redis 7's `LATENCY HISTOGRAM`
//! (differenced around the run, never reset) beside kvbench's. Against a
//! real redis-server the server's p99 is at most kvbench's for every op of
//! every run, its calls are kvbench's replies, and the user's own counts
//! survive the run; against a server that sleeps a millisecond per request
//! (`DEBUG SLEEP 0.001`) the server's p50 and `usec_per_call` are that
//! millisecond; with `latency-tracking no` the report says it is not
//! available.

use serde_json::Value;

use crate::common::{Redis, f, kvbench_json, machine, parse_commandstats, u};

/// Every op of every run: the server's p99 at most kvbench's, and the
/// server's calls the replies kvbench counted.
pub(crate) fn assert_server_within_client(doc: &Value) {
    let runs = doc["kvbench"]["runs"].as_array().unwrap();
    assert!(!runs.is_empty());
    for run in runs {
        let sl = &run["server_latency"];
        assert_eq!(sl["available"], true, "{sl}");
        let ops = sl["ops"].as_object().unwrap();
        assert!(!ops.is_empty(), "{sl}");
        for (op, o) in ops {
            let (server, client) = (u(&o["server_p99_us"]), u(&o["kvbench_p99_us"]));
            assert!(
                server <= client && u(&o["server_p99_max_us"]) >= 1,
                "{op}: server p99 {server} > kvbench p99 {client}"
            );
            assert!(
                u(&o["server_p50_us"]) <= u(&o["kvbench_p50_us"]),
                "{op}: {o}"
            );
            assert_eq!(u(&o["outside_server_p99_us"]), client - server, "{op}: {o}");
            assert_eq!(
                u(&o["server_calls"]),
                u(&run["totals"][op.as_str()]["count"]),
                "{op}: {o}"
            );
        }
    }
}

#[test]
fn server_p99_is_at_most_kvbenchs_and_the_users_stats_survive() {
    let _share = machine::share();
    let redis = Redis::start();
    // The user's own traffic before the benchmark: 37 SETs.
    for i in 0..37 {
        redis.command(&["SET", &format!("user:{i}"), "v"]);
    }
    let report = redis.kvbench_json(
        "-t 1 -c 4 --ratio 1:4 --key-maximum 2000 --test-time 1 -x 2 --warmup-time 0.3",
    );
    let doc = &report.doc;
    assert_server_within_client(doc);
    let kv = &doc["kvbench"];
    // Nothing was reset: the server's SET calls are the user's 37 and every
    // SET kvbench counted (warm-up and runs).
    let stats =
        parse_commandstats(&String::from_utf8(redis.command(&["INFO", "commandstats"])).unwrap());
    let kvbench_sets = u(&kv["warmup"]["totals"]["SET"]["count"])
        + kv["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| u(&r["totals"]["SET"]["count"]))
            .sum::<u64>();
    assert_eq!(stats["set"].0, 37 + kvbench_sets);
    // usec_per_call is INFO commandstats' own figure over the run, a few µs.
    let get = &kv["runs"][0]["server_latency"]["ops"]["GET"];
    let per_call = f(&get["usec_per_call"]);
    assert!(per_call > 0.0 && per_call < 1000.0, "{get}");
    assert!(
        report
            .stdout
            .contains("Server-side latency, usec: the server's from LATENCY HISTOGRAM"),
        "{}",
        report.stdout
    );
    assert!(report.stdout.contains("RUN #2  GET"), "{}", report.stdout);
}

#[test]
fn a_server_that_sleeps_a_millisecond_shows_it_as_its_own_time() {
    let _alone = machine::alone();
    let redis = Redis::start_with(&["--enable-debug-command", "yes"]);
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 2 --test-time 2",
        &["--command", "DEBUG SLEEP 0.001"],
    );
    let doc = &report.doc;
    assert_server_within_client(doc);
    let o = &doc["kvbench"]["runs"][0]["server_latency"]["ops"]["DEBUG"];
    assert_eq!(o["command"], "debug", "{o}");
    // The sleep is 1 000 µs: its bucket is (1 035, 2 113] (or the next one
    // on a loaded machine), Redis's buckets being powers of two.
    let (low, high) = (u(&o["server_p50_us"]), u(&o["server_p50_max_us"]));
    assert!(
        (500..=2200).contains(&low) && (1000..=4300).contains(&high),
        "{o}"
    );
    let per_call = f(&o["usec_per_call"]);
    assert!((1000.0..3000.0).contains(&per_call), "{o}");
    assert!(u(&o["kvbench_p50_us"]) >= 1000, "{o}");
    // Second by second too: each completed second's median is the sleep's
    // bucket, and the seconds' calls are part of the run's.
    let seconds = doc["kvbench"]["runs"][0]["server_use"][0]["per_second"]
        .as_array()
        .unwrap();
    assert!(
        !seconds.is_empty(),
        "{}",
        doc["kvbench"]["runs"][0]["server_use"]
    );
    let mut calls = 0;
    for second in seconds {
        let d = &second["latency"]["DEBUG"];
        assert_eq!(d["command"], "debug", "{second}");
        assert!((500..=2200).contains(&u(&d["p50_us"])), "{second}");
        assert!(u(&d["p99_max_us"]) >= u(&d["p50_max_us"]), "{second}");
        // Two connections, one sleep of 1 ms at a time each.
        assert!((1..=2100).contains(&u(&d["calls"])), "{second}");
        // INFO's commands per second hold them (and the control connection's).
        let ops = f(&second["ops_per_sec"]);
        assert!(
            ops >= 0.5 * u(&d["calls"]) as f64 && ops <= 5000.0,
            "{second}"
        );
        calls += u(&d["calls"]);
    }
    assert!(calls <= u(&o["server_calls"]), "{calls} > {o}");
}

#[test]
fn without_latency_tracking_it_says_not_available() {
    let _share = machine::share();
    let redis = Redis::start_with(&["--latency-tracking", "no"]);
    let report = redis.kvbench_json("-t 1 -c 1 -n 200");
    let sl = &report.doc["kvbench"]["runs"][0]["server_latency"];
    assert_eq!(sl["available"], false, "{sl}");
    assert_eq!(sl["unavailable"]["kind"], "latency_tracking_off", "{sl}");
    assert!(sl["ops"].as_object().unwrap().is_empty(), "{sl}");
    assert!(
        report
            .stdout
            .contains("Server-side latency: not available: the server's latency-tracking is off"),
        "{}",
        report.stdout
    );
}
