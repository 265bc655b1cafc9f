//! The smallest end-to-end check: kvbench's counts equal the server's own.

mod common;

use common::{Redis, TempDir, kvbench_ok, read_json};

#[test]
fn counts_agree_with_the_servers_commandstats() {
    let redis = Redis::start();
    let dir = TempDir::new("smoke");
    let json = dir.path("r.json");
    let mut args: Vec<&str> = "-t 2 -c 3 -n 500 --ratio 1:1 --key-maximum 100"
        .split_whitespace()
        .collect();
    args.extend(["--json-out-file", json.to_str().unwrap()]);
    kvbench_ok(&redis, &args);
    let doc = read_json(&json);
    let totals = &doc["kvbench"]["totals"];
    assert_eq!(totals["SET"]["count"], 1500);
    assert_eq!(totals["GET"]["count"], 1500);
    assert_eq!(redis.calls("set"), 1500);
    assert_eq!(redis.calls("get"), 1500);
}
