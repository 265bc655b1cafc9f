//! A `--watch` URI kvbench cannot use is exit 2 before any connection
//! opens, with a message naming `--watch`, from the command line or from a
//! config file; `watch = [...]` in a config file is sampled as the flag is.

use super::{assert_shard_row, calls, row};
use crate::common::{Redis, TempDir, kvbench_json, refused_before_connecting, total};

#[test]
fn a_bad_watch_uri_is_exit_2_before_any_connection() {
    let redis = Redis::start();
    // A good watch of the server itself beside the bad one: it must not
    // connect either.
    let good = format!("redis://127.0.0.1:{}", redis.port);
    for bad in [
        "ftp://x",
        "redis://",
        "node://127.0.0.1",
        "twemproxy://127.0.0.1:99999",
    ] {
        let args = ["-n", "10", "--watch", &good, "--watch", bad];
        let stderr = refused_before_connecting(&redis, args);
        assert!(stderr.contains("--watch"), "{bad}: {stderr}");
    }
    let dir = TempDir::new("watch-bad-config");
    let config = dir.path("bad.toml");
    std::fs::write(&config, format!("watch = [\"{good}\", \"ftp://x\"]\n")).unwrap();
    let stderr =
        refused_before_connecting(&redis, ["-n", "10", "--config", config.to_str().unwrap()]);
    assert!(stderr.contains("watch"), "{stderr}");
}

#[test]
fn watches_in_a_config_file_are_sampled_as_the_flags_are() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("watch-config");
    let config = dir.path("watch.toml");
    let address = format!("127.0.0.1:{}", redis.port);
    std::fs::write(&config, format!("watch = [\"redis://{address}\"]\n")).unwrap();
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 500 --ratio 1:1 --key-maximum 1000",
        &["--config", config.to_str().unwrap()],
    );
    let run = &report.doc["kvbench"]["runs"][0];
    assert_eq!(run["watched"].as_array().unwrap().len(), 1, "{run}");
    let shard = row(run, "redis", &address);
    for (op, command) in [("SET", "set"), ("GET", "get")] {
        assert_eq!(calls(shard, command), redis.calls(command), "{command}");
        assert_eq!(
            calls(shard, command),
            total(&report.doc, op, "count"),
            "{op}"
        );
    }
    assert_shard_row(shard, &redis, true);
}
