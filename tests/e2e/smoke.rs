//! The smallest end-to-end check: kvbench's counts equal the server's own.

use crate::common::Redis;

#[test]
fn counts_agree_with_the_servers_commandstats() {
    let redis = Redis::start();
    let doc = redis
        .kvbench_json("-t 2 -c 3 -n 500 --ratio 1:1 --key-maximum 100")
        .doc;
    let totals = &doc["kvbench"]["totals"];
    assert_eq!(totals["SET"]["count"], 1500);
    assert_eq!(totals["GET"]["count"], 1500);
    assert_eq!(redis.calls("set"), 1500);
    assert_eq!(redis.calls("get"), 1500);
}
