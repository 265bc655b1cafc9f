//! `--command` runs against a real redis-server: every command's count equals
//! the server's `INFO commandstats` calls (warm-up apart), a key inside an
//! argument writes keys of that shape only, LRANGE's 600-element replies are
//! decoded whole, an MSET of ten pairs writes ten distinct keys per call, and
//! the report rows and HDR files follow memtier's names and
//! `--command-stats-breakdown`.

use crate::common::{Redis, TempDir, kvbench_json, pipeline};
use kvbench::protocol::value::Value as Reply;
use serde_json::Value;

/// `kvbench.totals.<name>.count` of a phase's or the runs' totals.
fn count(totals: &Value, name: &str) -> u64 {
    totals[name]["count"]
        .as_u64()
        .unwrap_or_else(|| panic!("no count for {name} in {totals}"))
}

/// Every key of the server.
fn keys(redis: &Redis) -> Vec<String> {
    match pipeline(redis.port, &[["KEYS", "*"]]).remove(0) {
        Reply::Array(items) => items.iter().map(|k| k.text().unwrap()).collect(),
        other => panic!("KEYS answered {other:?}"),
    }
}

#[test]
fn hset_and_hget_counts_equal_the_servers_calls_with_the_warmup_apart() {
    let redis = Redis::start();
    let r = kvbench_json(
        redis.port,
        "-t 2 -c 2 -n 400 --warmup-time 0.5 --key-maximum 999 --command-ratio 1,3",
        &[
            "--command",
            "HSET __key__ field __data__",
            "--command",
            "HGET __key__ field",
        ],
    );
    let kv = &r.doc["kvbench"];
    // 4 connections × 400 requests, one HSET then three HGETs per cycle.
    assert_eq!(count(&kv["totals"], "HSET"), 400);
    assert_eq!(count(&kv["totals"], "HGET"), 1200);
    let warm = &kv["warmup"]["totals"];
    let (warm_hset, warm_hget) = (count(warm, "HSET"), count(warm, "HGET"));
    assert!(
        warm_hset > 0 && warm_hget > 0,
        "warm-up sent nothing: {warm}"
    );
    assert_eq!(redis.calls("hset"), 400 + warm_hset);
    assert_eq!(redis.calls("hget"), 1200 + warm_hget);
    assert_eq!(redis.calls("set") + redis.calls("get"), 0);
    // The run's own cross-check: the server's delta for the run alone.
    let delta = &kv["runs"][0]["server"]["delta"]["commands"];
    assert_eq!(delta["hset"]["calls"], 400, "{delta}");
    assert_eq!(delta["hget"]["kvbench_replies"], 1200, "{delta}");
    // memtier's rows: named after the command, no Sets, Gets or Waits.
    let all = &r.doc["ALL STATS"];
    assert_eq!(all["Hsets"]["Count"], 400);
    assert_eq!(all["Hgets"]["Count"], 1200);
    assert_eq!(all["Totals"]["Count"], 1600);
    assert!(
        all.get("Sets").is_none() && all.get("Waits").is_none(),
        "{all}"
    );
    // HGET is GET-like: every reply is a hit or a miss (nil), and the
    // warm-up's HSETs made hits.
    let hget = &kv["totals"]["HGET"];
    let (hits, misses) = (
        hget["hits"].as_u64().unwrap(),
        hget["misses"].as_u64().unwrap(),
    );
    assert_eq!(hits + misses, 1200, "{hget}");
    assert!(hits > 0, "{hget}");
    assert_eq!(kv["totals"]["HSET"]["hits"], 0);
    let table_rows: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| ["Hsets", "Hgets", "Sets", "Gets", "Waits"].contains(w))
        .collect();
    assert_eq!(table_rows, ["Hsets", "Hgets"], "{}", r.stdout);
    assert!(
        r.stdout
            .contains("HSET calls 400 (kvbench 400), HGET calls 1200 (kvbench 1200)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_key_inside_an_argument_writes_keys_of_that_shape_only() {
    let redis = Redis::start();
    kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 300 --key-prefix k --key-minimum 0 --key-maximum 49",
        &["--command", "SET user:{__key__} __data__"],
    );
    assert_eq!(redis.calls("set"), 600);
    let keys = keys(&redis);
    // 600 uniform draws over 50 keys leave none out but by a freak chance
    // (50 × (49/50)^600 ≈ 3e-4).
    assert!(keys.len() > 40 && keys.len() <= 50, "{keys:?}");
    for key in &keys {
        let number = key
            .strip_prefix("user:{k")
            .and_then(|rest| rest.strip_suffix('}'))
            .unwrap_or_else(|| panic!("key {key:?} is not user:{{k<n>}}"));
        let n: u64 = number.parse().unwrap();
        assert!(n <= 49, "{key}");
    }
}

#[test]
fn lrange_600_replies_are_decoded_whole_and_counted_once() {
    let redis = Redis::start();
    // A 600-element list of 8-byte elements: each reply is `*600\r\n` and 600
    // times `$8\r\nvvvvvvvv\r\n`, 8406 bytes.
    let mut push = vec!["RPUSH", "mylist"];
    push.extend(std::iter::repeat_n("vvvvvvvv", 600));
    assert_eq!(pipeline(redis.port, &[push]).remove(0).integer(), Some(600));
    let dir = TempDir::new("lrange-hdr");
    let prefix = dir.path("x");
    let r = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 200 --pipeline 4",
        &[
            "--command",
            "LRANGE mylist 0 599",
            "--hdr-file-prefix",
            prefix.to_str().unwrap(),
        ],
    );
    // memtier's HDR file names follow the command; SET and GET have none.
    let txt = std::fs::read_to_string(dir.path("x_LRANGE_command_run_1.txt")).unwrap();
    assert!(txt.contains("Total count    =          400]"), "{txt}");
    assert!(!dir.path("x_GET_command_run_1.txt").exists());
    let totals = &r.doc["kvbench"]["totals"]["LRANGE"];
    assert_eq!(totals["count"], 400, "{totals}");
    assert_eq!(redis.calls("lrange"), 400);
    assert_eq!(totals["errors"], 0);
    let reply_bytes = 6 + 600 * (4 + 8 + 2);
    assert_eq!(totals["bytes_rx"], 400 * reply_bytes, "{totals}");
    // The request is fixed: `*4`, LRANGE, mylist, 0, 599.
    let request = "*4\r\n$6\r\nLRANGE\r\n$6\r\nmylist\r\n$1\r\n0\r\n$3\r\n599\r\n".len();
    assert_eq!(totals["bytes_tx"], 400 * request as u64, "{totals}");
    assert_eq!(r.doc["kvbench"]["errors"]["protocol"], 0);
    assert!(r.doc["ALL STATS"]["Lranges"]["Count"] == 400);
}

#[test]
fn an_mset_of_ten_pairs_sets_ten_distinct_keys_per_call() {
    let redis = Redis::start();
    let pairs = ["__key__ __data__"; 10].join(" ");
    let command = format!("MSET {pairs}");
    kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 10 --key-minimum 0 --key-maximum 99 --command-key-pattern S",
        &["--command", &command],
    );
    assert_eq!(redis.calls("mset"), 10);
    // Sequential keys: ten calls of ten pairs walk the hundred keys once.
    assert_eq!(redis.dbsize(), 100);
    let mut numbers: Vec<u64> = keys(&redis)
        .iter()
        .map(|k| k.strip_prefix("memtier-").unwrap().parse().unwrap())
        .collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (0..100).collect::<Vec<u64>>());
}

#[test]
fn line_breakdown_gives_each_line_a_row_and_command_breakdown_merges_them() {
    let redis = Redis::start();
    let commands = [
        "--command",
        "SET __key__ __data__",
        "--command",
        "GET __key__",
        "--command",
        "GET other:__key__",
    ];
    let by_line = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 300 --key-maximum 99 --command-stats-breakdown line",
        &commands,
    );
    let all = &by_line.doc["ALL STATS"];
    assert_eq!(all["Sets"]["Count"], 200);
    assert_eq!(all["Gets"]["Count"], 200);
    assert_eq!(all["Gets#2"]["Count"], 200);
    let gets_rows = by_line
        .stdout
        .lines()
        .filter(|l| l.starts_with("Gets "))
        .count();
    assert_eq!(gets_rows, 2, "{}", by_line.stdout);
    // The server counts GET once, whatever the rows.
    assert_eq!(redis.calls("get"), 400);
    assert!(
        by_line
            .stdout
            .contains("SET calls 200 (kvbench 200), GET calls 400 (kvbench 400)"),
        "{}",
        by_line.stdout
    );
    // The keys of the second GET line were never written: all misses.
    assert_eq!(by_line.doc["kvbench"]["totals"]["GET#2"]["hits"], 0);

    redis.reset_stats();
    let by_command = kvbench_json(redis.port, "-t 1 -c 2 -n 300 --key-maximum 99", &commands);
    let all = &by_command.doc["ALL STATS"];
    assert_eq!(all["Gets"]["Count"], 400);
    assert!(all.get("Gets#2").is_none(), "{all}");
    assert_eq!(redis.calls("get"), 400);
}

#[test]
fn a_command_the_server_refuses_is_counted_per_command_and_kind() {
    let redis = Redis::start();
    assert_eq!(redis.command(&["SET", "astring", "x"]), b"OK");
    let r = kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 100 --command-ratio 1,1 --allow-invalid",
        &[
            "--command",
            "LPUSH astring __data__",
            "--command",
            "ECHO hello",
        ],
    );
    let totals = &r.doc["kvbench"]["totals"];
    // LPUSH on a string key: WRONGTYPE every time; ECHO never fails.
    assert_eq!(totals["LPUSH"]["count"], 50);
    assert_eq!(totals["LPUSH"]["errors"], 50);
    assert_eq!(
        totals["LPUSH"]["errors_by_kind"]["WRONGTYPE"], 50,
        "{totals}"
    );
    assert_eq!(totals["ECHO"]["errors"], 0);
    assert_eq!(redis.calls("echo"), 50);
    // Half the replies were refusals: not a valid measurement, and it says so.
    let verdict = &r.doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    assert_eq!(verdict["reasons"][0]["kind"], "error_replies", "{verdict}");
    assert!(
        r.stdout
            .contains("Error replies by command: LPUSH WRONGTYPE 50"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_sweep_of_command_runs_counts_each_cell_and_its_summary_reads_the_get_lines() {
    let redis = Redis::start();
    let r = kvbench_json(
        redis.port,
        "-t 1 -c 1,2 -n 100 --key-maximum 99",
        &[
            "--command",
            "INCR counter:__rand_int__",
            "--command",
            "GET __key__",
        ],
    );
    let cells = r.doc["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    // 1 then 2 connections × 100 requests, INCR and GET alternating.
    for (cell, connections) in cells.iter().zip([1u64, 2]) {
        let totals = &cell["kvbench"]["totals"];
        assert_eq!(count(totals, "INCR"), 50 * connections, "{totals}");
        assert_eq!(count(totals, "GET"), 50 * connections, "{totals}");
    }
    assert_eq!(redis.calls("incr"), 150);
    assert_eq!(redis.calls("get"), 150);
    for row in r.doc["sweep"]["summary"].as_array().unwrap() {
        assert_eq!(row["set_ops_per_sec"], 0.0, "{row}");
        assert!(row["get_ops_per_sec"].as_f64().unwrap() > 0.0, "{row}");
    }
}

#[test]
fn a_prefill_before_command_runs_is_reported_as_its_own_sets() {
    let redis = Redis::start();
    let r = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 100 --prefill --key-minimum 1 --key-maximum 300",
        &["--command", "GET __key__", "--command", "STRLEN __key__"],
    );
    let kv = &r.doc["kvbench"];
    let prefill = &kv["prefill"]["totals"];
    assert_eq!(count(prefill, "SET"), 300, "{prefill}");
    assert!(prefill.get("STRLEN").is_none(), "{prefill}");
    assert_eq!(redis.calls("set"), 300);
    // Every GET of the prefilled range hits; STRLEN counts no hits.
    assert_eq!(kv["totals"]["GET"]["hits"], 100);
    assert_eq!(kv["totals"]["STRLEN"]["hits"], 0);
    assert_eq!(redis.calls("strlen"), 100);
    assert!(
        r.stdout
            .contains("Server PREFILL: SET calls 300 (kvbench 300), GET calls 0 (kvbench 0)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_ratio_goes_to_the_command_before_it_and_the_others_take_memtiers_ratio_1() {
    let redis = Redis::start();
    // memtier's line: --command-ratio 3 belongs to GET, SET and INCR keep 1.
    let r = kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 400 --key-maximum 999",
        &[
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
            "--command-ratio",
            "3",
            "--command",
            "INCR counter:__key__",
            "--command-key-pattern",
            "S",
        ],
    );
    let totals = &r.doc["kvbench"]["totals"];
    // 400 requests in cycles of 1 + 3 + 1.
    assert_eq!(
        (
            count(totals, "SET"),
            count(totals, "GET"),
            count(totals, "INCR")
        ),
        (80, 240, 80),
        "{totals}"
    );
    assert_eq!(
        (redis.calls("set"), redis.calls("get"), redis.calls("incr")),
        (80, 240, 80)
    );
    // INCR's S: the first 80 keys in order, each once.
    let counters = keys(&redis)
        .iter()
        .filter(|k| k.starts_with("counter:"))
        .count();
    assert_eq!(counters, 80);
}
