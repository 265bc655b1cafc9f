//! The settings block of tests/e2e/compare.rs: a setting that changes the
//! workload (`--prefill`, `-P`) is a difference, one that only names an
//! output (`--html-out-file`, `--print-percentiles`) is not.

use super::files;
use crate::common::compare::compare_ok;
use crate::common::{Redis, kvbench_ok};

#[test]
fn prefill_and_protocol_differ_and_output_paths_do_not() {
    let f = files();
    let redis = Redis::start();
    let common = "-t 1 -c 2 --key-maximum 500 --ratio 1:1 -n 100";
    let (plain, other) = (f.path("plain.json"), f.path("prefilled_resp3.json"));
    let page = f.path("prefilled_resp3.html");
    let mut a: Vec<&str> = common.split_whitespace().collect();
    a.extend(["--json-out-file", plain.to_str().unwrap()]);
    kvbench_ok(redis.port, &a);
    let mut b: Vec<&str> = common.split_whitespace().collect();
    b.extend(["--prefill", "-P", "resp3", "--print-percentiles", "50,90"]);
    b.extend(["--html-out-file", page.to_str().unwrap()]);
    b.extend(["--json-out-file", other.to_str().unwrap()]);
    kvbench_ok(redis.port, &b);
    let out = compare_ok(&[plain.to_str().unwrap(), other.to_str().unwrap()]);
    let block = out.rsplit_once("\n\n").unwrap().1;
    let rows: Vec<Vec<&str>> = block
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[2], ["differs:"], "{block}");
    assert!(
        rows.contains(&vec!["prefill", "false", "true"]),
        "prefill differs: {block}"
    );
    assert!(
        rows.contains(&vec!["protocol", "redis", "resp3"]),
        "protocol differs: {block}"
    );
    for output in ["html_out_file", "percentiles"] {
        assert!(
            !block.contains(output),
            "{output} is not the workload: {block}"
        );
    }
}

/// The `differs:` rows of a compare's block, as `key → values`.
fn differs(out: &str) -> Vec<(String, Vec<String>)> {
    let block = out.rsplit_once("\n\n").unwrap().1;
    block
        .lines()
        .skip_while(|l| !l.starts_with("differs:"))
        .skip(1)
        .map(|l| {
            let mut cells = l.split_whitespace().map(String::from);
            let key = cells.next().unwrap();
            (key, cells.collect())
        })
        .collect()
}

#[test]
fn memtier_files_compare_their_configurations_settings() {
    let smoke = "tests/data/memtier/smoke.json";
    let commands = "tests/data/memtier/commands.json";
    let rows = differs(&compare_ok(&[smoke, commands]));
    let row = |k: &str| {
        rows.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    // memtier's -c 5 and -c 2, read from each file's configuration.
    assert_eq!(
        row("clients_per_thread"),
        Some(vec!["5".into(), "2".into()]),
        "{rows:?}"
    );
    assert_eq!(
        row("ratio"),
        Some(vec!["1:1".into(), "1:10".into()]),
        "{rows:?}"
    );
    // What both files say alike is no difference.
    assert_eq!(row("threads"), None, "{rows:?}");
    assert_eq!(row("pipeline"), None, "{rows:?}");

    // A kvbench run of smoke.json's workload differs from it only in what
    // really differs: the server's address, not the settings' spelling.
    let f = files();
    let redis = Redis::start();
    let ours = f.path("like_smoke.json");
    kvbench_ok(
        redis.port,
        &[
            "-t",
            "1",
            "-c",
            "5",
            "-n",
            "1000",
            "--ratio",
            "1:1",
            "--key-maximum",
            "100000",
            "--json-out-file",
            ours.to_str().unwrap(),
        ],
    );
    let rows = differs(&compare_ok(&[ours.to_str().unwrap(), smoke]));
    let keys: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
    assert!(keys.contains(&"target"), "{rows:?}");
    for same in [
        "threads",
        "clients_per_thread",
        "ratio",
        "requests_per_client",
        "test_time_s",
        "data_size",
        "key_pattern",
        "key_maximum",
    ] {
        assert!(!keys.contains(&same), "{same} in {rows:?}");
    }
}
