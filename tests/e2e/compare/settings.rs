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
