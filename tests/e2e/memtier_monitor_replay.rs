//! memtier's `--monitor-input` against a real redis-server: a capture
//! recorded here with `redis-cli MONITOR` replayed with `__monitor_line@__`
//! (in file order and at random) and `__monitor_lineN__`, each replayed
//! command counted by kvbench and by the server's `INFO commandstats` alike,
//! and the values the replay stored read back; and the refusals memtier makes
//! (memcached, cluster mode) before any connection.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Redis, TempDir, kvbench_json, refused_before_connecting, u};

/// The commands recorded, one per line of the capture, in order: a value
/// with a quote, a space and a byte that MONITOR escapes as `\xHH`.
const RECORDED: &[&[&str]] = &[
    &["SET", "mon:s", "a \"quoted\" value\u{1}"],
    &["INCR", "mon:n"],
    &["HSET", "mon:h", "field", "v"],
    &["LPUSH", "mon:l", "x"],
    &["GET", "mon:s"],
];

/// Waits (generously: a loaded machine) until the file holds `needle`.
fn wait_for_text(path: &Path, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never held {needle:?}", path.display());
}

/// Records `RECORDED` with redis-cli MONITOR into `path`.
fn record(redis: &Redis, path: &Path) {
    let file = std::fs::File::create(path).unwrap();
    let mut monitor = Command::new("redis-cli")
        .args(["-p", &redis.port.to_string(), "MONITOR"])
        .stdout(file)
        .stderr(Stdio::null())
        .spawn()
        .expect("run redis-cli MONITOR");
    wait_for_text(path, "OK");
    for command in RECORDED {
        redis.command(command);
    }
    // The last recorded command in the file says every one before it is there.
    wait_for_text(path, "\"GET\" \"mon:s\"");
    let _ = monitor.kill();
    let _ = monitor.wait();
    redis.command(&["FLUSHALL"]);
    redis.reset_stats();
}

/// The lines of the capture that hold a command (memtier's numbering).
fn command_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.contains('"'))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_recorded_capture_replays_in_file_order_counted_as_the_server_counts() {
    let redis = Redis::start();
    let dir = TempDir::new("monitor");
    let capture = dir.path("monitor.txt");
    record(&redis, &capture);
    let lines = command_lines(&capture);
    assert_eq!(lines.len(), RECORDED.len(), "{lines:?}");
    // 2 connections x 50 requests walk the 5 commands 10 times each.
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 50 --command __monitor_line@__",
        &["--monitor-input", capture.to_str().unwrap()],
    );
    for (command, row) in [
        ("set", "Sets"),
        ("incr", "Incrs"),
        ("hset", "Hsets"),
        ("lpush", "Lpushs"),
        ("get", "Gets"),
    ] {
        assert_eq!(redis.calls(command), 20, "{command}");
        let counted = u(&report.doc["ALL STATS"][row]["Count"]);
        assert_eq!(counted, 20, "{row}: {}", report.doc["ALL STATS"]);
    }
    // The replayed bytes are the recorded ones, escapes undone.
    assert_eq!(redis.command(&["GET", "mon:s"]), RECORDED[0][2].as_bytes());
    assert_eq!(redis.command(&["GET", "mon:n"]), b"20");
    assert_eq!(redis.command(&["LLEN", "mon:l"]), b"20");
}

#[test]
fn single_lines_and_random_picks_send_what_they_name() {
    let redis = Redis::start();
    let dir = TempDir::new("monitor-lines");
    let capture = dir.path("monitor.txt");
    record(&redis, &capture);
    let path = capture.to_str().unwrap();
    // Line 2 (INCR) three times for every line 4 (LPUSH).
    kvbench_json(
        redis.port,
        "-t 1 -c 1 -n 400 --command __monitor_line2__ --command __monitor_line4__ \
         --command-ratio 3,1",
        &["--monitor-input", path],
    );
    assert_eq!(redis.calls("incr"), 300);
    assert_eq!(redis.calls("lpush"), 100);
    assert_eq!(redis.calls("set"), 0);

    redis.reset_stats();
    let report = kvbench_json(
        redis.port,
        "-t 1 -c 2 -n 1000 --command __monitor_line@__ --monitor-pattern R",
        &["--monitor-input", path],
    );
    let mut total = 0;
    for (command, row) in [
        ("set", "Sets"),
        ("incr", "Incrs"),
        ("hset", "Hsets"),
        ("lpush", "Lpushs"),
        ("get", "Gets"),
    ] {
        let calls = redis.calls(command);
        assert_eq!(u(&report.doc["ALL STATS"][row]["Count"]), calls, "{row}");
        // 2000 uniform picks of 5: 400 each on average, sd 18; a fixed
        // cycle would give exactly 400 for every command.
        assert!((250..=550).contains(&calls), "{command}: {calls}");
        total += calls;
    }
    assert_eq!(total, 2000);
    let spread: Vec<u64> = ["set", "incr", "hset", "lpush", "get"]
        .iter()
        .map(|c| redis.calls(c))
        .collect();
    assert!(spread.iter().any(|&c| c != 400), "random picks: {spread:?}");
}

#[test]
fn memcached_cluster_mode_and_lines_outside_the_capture_are_refused() {
    let redis = Redis::start();
    let dir = TempDir::new("monitor-refused");
    let capture = dir.path("monitor.txt");
    std::fs::write(&capture, "OK\n1.0 [0 127.0.0.1:1] \"PING\"\n").unwrap();
    let path = capture.to_str().unwrap();
    for (args, says) in [
        (
            vec![
                "--monitor-input",
                path,
                "-P",
                "memcache_text",
                "--command",
                "__monitor_line1__",
            ],
            "--monitor-input: is supported only with the Redis protocols",
        ),
        (
            vec![
                "--monitor-input",
                path,
                "--cluster-mode",
                "--command",
                "__monitor_line1__",
            ],
            "--monitor-input: is not supported with --cluster-mode",
        ),
        (
            vec!["--monitor-input", path, "--command", "__monitor_line2__"],
            "valid: __monitor_line1__ to __monitor_line1__",
        ),
        (
            vec!["--command", "__monitor_line1__"],
            "no --monitor-input was given",
        ),
        (
            vec!["--monitor-input", path, "--monitor-pattern", "X"],
            "--monitor-pattern: 'X' is neither S",
        ),
    ] {
        let stderr = refused_before_connecting(&redis, &args);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
