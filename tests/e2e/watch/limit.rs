//! `limit` names the component nearest its capacity: the one shard that
//! slow EVALs on a single key keep a full core busy (its main thread, by
//! its own INFO), and none at all under a light, rate-limited load.

use super::{args, calls, row, run_through, three_shards_behind_nutcracker, watches};
use crate::common::{Redis, f, machine, u};

/// A script that keeps a Redis main thread busy for some 20 ms.
const SLOW_EVAL: &str = "EVAL \"local x=0 for i=1,3000000 do x=x+i end return x\" 1 __key__";

#[test]
fn a_shard_made_the_bottleneck_is_named_as_the_limit() {
    // It measures a shard's CPU: no other test's servers may take the cores.
    let _alone = machine::alone();
    let (shards, proxy) = three_shards_behind_nutcracker();
    let ports = shards.each_ref().map(|r| r.port);
    let fixed = [
        "-t",
        "1",
        "-c",
        "3",
        "--test-time",
        "4",
        "--key-minimum",
        "1",
        "--key-maximum",
        "1",
        "--allow-invalid",
        "--command",
        SLOW_EVAL,
    ];
    let watched = watches("127.0.0.1", &ports, None, Some(proxy.stats_port));
    let (doc, _) = run_through(&proxy, &args(&fixed, watched));
    let run = &doc["kvbench"]["runs"][0];

    // One key: one shard ran every EVAL.
    let busy: Vec<&Redis> = shards.iter().filter(|s| s.calls("eval") > 0).collect();
    assert_eq!(busy.len(), 1, "EVALs on {} shards", busy.len());
    let busy = busy[0];
    let address = format!("127.0.0.1:{}", busy.port);
    let evals = busy.calls("eval");
    assert_eq!(u(&run["totals"]["EVAL"]["count"]), evals);
    let shard = row(run, "redis", &address);
    assert_eq!(calls(shard, "eval"), evals, "{shard}");
    // A full core by its own INFO, less what a loaded 2-core machine takes
    // from it (88.7 % seen while a build ran beside the suite), and still
    // above the 80 % at which a component is named the limit.
    let main = f(&shard["main_thread_cpu_percent"]);
    assert!((80.0..=110.0).contains(&main), "{shard}");
    for other in shards.iter().filter(|s| s.port != busy.port) {
        let idle = row(run, "redis", &format!("127.0.0.1:{}", other.port));
        assert!(f(&idle["main_thread_cpu_percent"]) < 50.0, "{idle}");
    }

    let limit = &run["limit"];
    assert_eq!(
        limit["component"],
        format!("shard {address}").as_str(),
        "{limit}"
    );
    assert_eq!(limit["measure"], "main-thread CPU", "{limit}");
    assert_eq!(f(&limit["capacity"]), 1.0, "{limit}");
    let utilization = f(&limit["utilization_percent"]);
    assert!((80.0..=110.0).contains(&utilization), "{limit}");
    assert!(
        (f(&limit["used"]) * 100.0 - utilization).abs() < 1.0,
        "{limit}"
    );
    assert!(!limit["text"].as_str().unwrap().is_empty(), "{limit}");

    // A light load: nothing near its capacity. (No host is watched: this
    // machine may be busy with things outside the suite.)
    let fixed = [
        "-t",
        "1",
        "-c",
        "2",
        "--rate",
        "100",
        "--test-time",
        "2",
        "--ratio",
        "1:1",
        "--key-maximum",
        "1000",
        "--allow-invalid",
    ];
    let watched = watches("127.0.0.1", &ports, None, Some(proxy.stats_port));
    let (doc, stdout) = run_through(&proxy, &args(&fixed, watched));
    let limit = &doc["kvbench"]["runs"][0]["limit"];
    assert!(limit["component"].is_null(), "{limit}");
    let text = limit["text"].as_str().unwrap();
    assert!(text.starts_with("no component above 80 %"), "{limit}");
    assert!(stdout.lines().any(|l| l.starts_with("Limit:")), "{stdout}");
}
