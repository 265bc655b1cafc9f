//! memtier's options on the SET/GET pair against a real redis-server, each
//! checked by what the server holds or counted: `--expiry-range` (TTLs of
//! every key), `--wait-ratio` (`cmdstat_wait`), `--data-size-pattern S`
//! (STRLEN per key), `--multi-key-get` (`cmdstat_mget` and the keys it looked
//! up), `--data-offset` (SETRANGE / GETRANGE and the bytes stored), the
//! `---` of a row without ops in the text table, and the
//! refusals of combinations memtier refuses too.

use crate::common::{Redis, info_u64, refused_before_connecting, u};

/// The server's reply to `args`, as text.
fn text(redis: &Redis, args: &[&str]) -> String {
    String::from_utf8(redis.command(args)).unwrap()
}

#[test]
fn expiry_range_gives_every_set_a_ttl_in_the_range() {
    let redis = Redis::start();
    let args = "-t 1 -c 2 -n 100 --ratio 1:0 --key-minimum 0 --key-maximum 99 \
                --key-pattern S:S --expiry-range 100-200";
    let report = redis.kvbench_json(args);
    assert_eq!(redis.calls("set"), 200);
    assert_eq!(redis.calls("setex"), 0);
    assert_eq!(redis.dbsize(), 100);
    let ttls: Vec<u64> = (0..100)
        .map(|k| {
            text(&redis, &["TTL", &format!("memtier-{k}")])
                .parse()
                .unwrap()
        })
        .collect();
    // A TTL counts down from at most 200; the run and this loop take far
    // less than the 50 s of slack below 100.
    assert!(ttls.iter().all(|t| (50..=200).contains(t)), "{ttls:?}");
    let spread = ttls.iter().max().unwrap() - ttls.iter().min().unwrap();
    assert!(spread >= 20, "uniform draws over 100-200 spread: {ttls:?}");
    assert_eq!(report.doc["configuration"]["expiry_range"], "100:200");

    // memtier's SETEX under --memtier-compat.
    redis.reset_stats();
    redis.kvbench_json(&format!("{args} --memtier-compat"));
    assert_eq!(redis.calls("setex"), 200);
    assert_eq!(redis.calls("set"), 0);
}

/// The SETs and WAITs memtier's rule gives for `requests` of a SET-only run.
fn memtier_waits(sets: u64, waits: u64, requests: u64) -> (u64, u64) {
    let (mut s, mut w) = (0u64, 0u64);
    for _ in 0..requests {
        if w == 0 || s / w > sets / waits {
            w += 1;
        } else {
            s += 1;
        }
    }
    (s, w)
}

#[test]
fn wait_ratio_sends_waits_in_the_ratio_and_reports_them_in_the_waits_row() {
    let redis = Redis::start();
    // No replica: WAIT 0 returns at once, and WAIT 1 would wait its timeout.
    let args = "-t 1 -c 2 -n 100 --ratio 1:0 --key-maximum 999 --wait-ratio 4:1 \
                --num-slaves 0-0 --wait-timeout 10-20";
    let report = redis.kvbench_json(args);
    assert_eq!(redis.calls("wait"), 2 * 20);
    assert_eq!(redis.calls("set"), 2 * 80);
    let waits = &report.doc["ALL STATS"]["Waits"];
    assert_eq!(u(&waits["Count"]), 40, "{waits}");
    assert!(report.stdout.contains("Waits "), "{}", report.stdout);
    assert_eq!(report.doc["configuration"]["wait-ratio"], "4:1");
    assert_eq!(report.doc["configuration"]["wait-timeout"], "10-20");

    redis.reset_stats();
    redis.kvbench_json(&format!("{args} --memtier-compat"));
    let (sets, waits) = memtier_waits(4, 1, 100);
    assert_eq!((sets, waits), (83, 17));
    assert_eq!(redis.calls("wait"), 2 * waits);
    assert_eq!(redis.calls("set"), 2 * sets);
}

#[test]
fn data_size_pattern_s_spreads_value_sizes_over_the_key_range() {
    let redis = Redis::start();
    redis.kvbench_json(
        "-t 1 -c 1 -n allkeys --ratio 1:0 --key-minimum 0 --key-maximum 100 \
         --key-pattern S:S --data-size-range 100-200 --data-size-pattern S",
    );
    assert_eq!(redis.dbsize(), 101);
    for key in [0u64, 1, 37, 50, 99, 100] {
        let len: u64 = text(&redis, &["STRLEN", &format!("memtier-{key}")])
            .parse()
            .unwrap();
        assert_eq!(len, 100 + key, "memtier-{key}");
    }
}

#[test]
fn multi_key_get_sends_mgets_of_n_keys_with_memtiers_remainder() {
    let redis = Redis::start();
    redis.reset_stats();
    // A cycle of 1:10 with 4 keys per MGET: SET, MGET of 4, of 4, of 2.
    let report =
        redis.kvbench_json("-t 1 -c 1 -n 100 --ratio 1:10 --key-maximum 999 --multi-key-get 4");
    assert_eq!(redis.calls("set"), 25);
    assert_eq!(redis.calls("mget"), 75);
    assert_eq!(redis.calls("get"), 0);
    // Each key an MGET names is one lookup; the SETs make none.
    let port = redis.port;
    let lookups =
        info_u64(port, "stats", "keyspace_hits") + info_u64(port, "stats", "keyspace_misses");
    assert_eq!(lookups, 25 * 10);
    assert_eq!(u(&report.doc["ALL STATS"]["Gets"]["Count"]), 75);
    assert_eq!(u(&report.doc["configuration"]["multi_key_get"]), 4);
}

#[test]
fn data_offset_writes_and_reads_at_the_offset() {
    let redis = Redis::start();
    redis.kvbench_json(
        "-t 1 -c 1 -n 20 --ratio 1:1 -d 10 --data-offset 5 --key-minimum 0 \
         --key-maximum 9 --key-pattern S:S",
    );
    assert_eq!(redis.calls("setrange"), 10);
    assert_eq!(redis.calls("getrange"), 10);
    assert_eq!(redis.calls("set") + redis.calls("get"), 0);
    let value = redis.command(&["GET", "memtier-3"]);
    assert_eq!(value, b"\0\0\0\0\0xxxxxxxxxx");
}

#[test]
fn combinations_memtier_refuses_are_refused_naming_the_flag() {
    let redis = Redis::start();
    for (args, flag) in [
        (&["--num-slaves", "1-2"][..], "--num-slaves"),
        (&["--wait-ratio", "0:1"][..], "--wait-ratio"),
        (&["--expiry-range", "0-0"][..], "--expiry-range"),
        (&["--expiry-range", "9-1"][..], "--expiry-range"),
        (&["--data-size-pattern", "S"][..], "--data-size-pattern"),
        (&["--data-size-pattern", "X"][..], "--data-size-pattern"),
        (&["--multi-key-get", "0"][..], "--multi-key-get"),
        (
            &["--data-offset", "4", "--expiry-range", "1-2"][..],
            "--data-offset",
        ),
        (
            &["--command", "GET __key__", "--expiry-range", "1-2"][..],
            "--expiry-range",
        ),
    ] {
        let mut full = vec!["-n", "1"];
        full.extend_from_slice(args);
        let stderr = refused_before_connecting(&redis, &full);
        assert!(stderr.contains(flag), "{args:?}: {stderr}");
    }
}

#[test]
fn a_pair_row_with_no_ops_prints_dashes_for_its_latencies_as_memtier() {
    let redis = Redis::start();
    let report = redis.kvbench_json("-t 1 -c 1 -n 50 --ratio 1:0");
    let cells = |name: &str| -> Vec<String> {
        let line = report.stdout.lines().find(|l| l.starts_with(name));
        let line = line.unwrap_or_else(|| panic!("no {name} row in\n{}", report.stdout));
        line.split_whitespace().map(str::to_string).collect()
    };
    // Type, Ops/sec, Hits/sec, Misses/sec, Avg. Latency, p50, p99, p99.9, KB/sec.
    let gets = cells("Gets");
    assert_eq!(gets.len(), 9, "{gets:?}");
    assert_eq!(gets[1..4], ["0.00", "0.00", "0.00"], "{gets:?}");
    assert_eq!(gets[4..8], ["---"; 4], "{gets:?}");
    assert_eq!(gets[8], "0.00", "{gets:?}");
    // Rows that had ops keep their numbers.
    for name in ["Sets", "Totals"] {
        let row = cells(name);
        assert!(
            row[4..8].iter().all(|c| c.parse::<f64>().is_ok()),
            "{row:?}"
        );
    }
}
