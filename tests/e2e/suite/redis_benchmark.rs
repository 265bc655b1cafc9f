//! redis-benchmark's flags beyond its named tests, against real
//! redis-servers, each checked on the server: a command after the flags
//! (its `INFO commandstats` calls equal `-n`), `-x` (the stored value is
//! stdin's bytes), `-3` (HELLO on every connection), `-k 0` (a connection
//! per request in `total_connections_received`), `-I` (the idle connections
//! in `connected_clients`, gone when it ends by itself), `--precision`, `-e`,
//! valkey-benchmark's `--sequential` (every key once) and `--rps` (a rate
//! that stays under the limit). TLS and `--cluster` are in
//! `suite/rb_connect.rs`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::suite;
use crate::common::{Redis, assert_success, info_u64};

/// The `-q` line's requests/s and p50 text.
fn quiet(line: &str) -> (String, f64, String) {
    let (title, rest) = line.rsplit_once(": ").unwrap();
    let (rps, rest) = rest.split_once(" requests per second, p50=").unwrap();
    let p50 = rest.split_once(" msec").unwrap().0;
    (title.to_string(), rps.parse().unwrap(), p50.to_string())
}

#[test]
fn a_command_after_the_flags_runs_as_its_own_test_named_as_typed() {
    let redis = Redis::start();
    redis.reset_stats();
    let out = suite(
        redis.port,
        "-n 300 -c 3 -q -t get script load redis.call('set','foo','bar')",
        &[],
    );
    assert_success(&out, "script load");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let (title, rps, _) = quiet(lines[0]);
    assert_eq!(title, "script load redis.call('set','foo','bar')");
    assert!(rps > 0.0, "{stdout}");
    // -t is ignored, as redis-benchmark ignores it: no GET ran.
    assert_eq!(redis.calls("script|load"), 300);
    assert_eq!(redis.calls("get"), 0);
    // __rand_int__ draws below -r in a command of one's own too.
    redis.reset_stats();
    let out = suite(redis.port, "-n 400 -c 4 -r 20 -q incr c:__rand_int__", &[]);
    assert_success(&out, "incr");
    assert_eq!(redis.calls("incr"), 400);
    let keys = redis.dbsize();
    assert!((2..=21).contains(&keys), "{keys} keys");
    let one = redis.command(&["GET", "c:000000000000"]);
    assert!(!one.is_empty(), "c:000000000000 was never incremented");
}

#[test]
fn x_reads_the_last_argument_from_stdin() {
    let redis = Redis::start();
    redis.reset_stats();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &redis.port.to_string()])
        .args(["-n", "10", "-c", "1", "-q", "-x", "set", "fromstdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"line one\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_success(&out, "-x set fromstdin");
    assert_eq!(redis.command(&["GET", "fromstdin"]), b"line one\n");
    assert_eq!(redis.calls("set"), 10);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("set fromstdin: "), "{stdout}");
}

#[test]
fn minus_3_says_hello_3_on_every_connection() {
    let redis = Redis::start();
    redis.reset_stats();
    let out = suite(redis.port, "-t set -n 200 -c 4 -q", &[]);
    assert_success(&out, "-t set");
    assert_eq!(redis.calls("hello"), 0);
    let out = suite(redis.port, "-3 -t set,get -n 200 -c 4 -q -r 100", &[]);
    assert_success(&out, "-3");
    // Four connections per test (and the control connections) said HELLO 3.
    let hellos = redis.calls("hello");
    assert!((8..=16).contains(&hellos), "{hellos} HELLOs");
    assert_eq!(redis.calls("set"), 400);
    assert_eq!(redis.calls("get"), 200);
}

#[test]
fn k_0_opens_a_connection_per_request() {
    let redis = Redis::start();
    let before = info_u64(redis.port, "stats", "total_connections_received");
    let out = suite(redis.port, "-k 0 -t set -n 300 -c 3 -q", &[]);
    assert_success(&out, "-k 0");
    let after = info_u64(redis.port, "stats", "total_connections_received");
    // One per request, plus the first connections' and the control
    // connections' few, plus this test's own INFO.
    let opened = after - before;
    assert!((300..=320).contains(&opened), "{opened} connections");
    assert_eq!(redis.calls("set"), 300);
}

#[test]
fn minus_i_holds_idle_connections_and_ends_by_itself() {
    let redis = Redis::start();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &redis.port.to_string()])
        .args(["-I", "-c", "7", "--test-time", "4"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Seven idle connections and this test's own INFO connection.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut most = 0;
    while most < 8 && Instant::now() < deadline {
        most = most.max(info_u64(redis.port, "clients", "connected_clients"));
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(most, 8, "connected_clients never reached 7 idle + 1");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "-I did not end by itself");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("Creating 7 idle connections and waiting 4 seconds"),
        "{stdout}"
    );
    // Nothing was sent but the handshakes' readiness PINGs.
    assert_eq!(redis.calls("set"), 0);
    assert_eq!(info_u64(redis.port, "clients", "connected_clients"), 1);
}

#[test]
fn precision_sets_the_decimals_of_the_printed_latencies() {
    let redis = Redis::start();
    let out = suite(redis.port, "-t set -n 100 -c 2 -q --precision 5", &[]);
    assert_success(&out, "--precision 5");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (_, _, p50) = quiet(stdout.trim_end());
    assert_eq!(p50.split_once('.').unwrap().1.len(), 5, "{stdout}");
    let out = suite(redis.port, "-t set -n 100 -c 2 --csv --precision 1", &[]);
    assert_success(&out, "--csv --precision 1");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let row: Vec<&str> = stdout.lines().nth(1).unwrap().split(',').collect();
    // rps keeps two decimals, every latency has one.
    assert_eq!(row[1].trim_matches('"').split_once('.').unwrap().1.len(), 2);
    for field in &row[2..] {
        let v = field.trim_matches('"');
        assert_eq!(v.split_once('.').unwrap().1.len(), 1, "{stdout}");
    }
    assert_eq!(redis.calls("set"), 200);
}

#[test]
fn e_prints_the_servers_errors_on_stdout() {
    let redis = Redis::start_with(&["--maxmemory", "1", "--maxmemory-policy", "noeviction"]);
    redis.reset_stats();
    let out = suite(redis.port, "-t set -n 50 -c 1 -q -e --allow-invalid", &[]);
    assert_success(&out, "-e");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("Error from server: OOM (50 of 50 replies) [SET]"),
        "{stdout}"
    );
    let text = String::from_utf8(redis.command(&["INFO", "commandstats"])).unwrap();
    assert!(
        text.contains("cmdstat_set:calls=0,") && text.contains("rejected_calls=50"),
        "{text}"
    );
    // Without -e stdout has the row alone.
    let out = suite(redis.port, "-t set -n 50 -c 1 -q --allow-invalid", &[]);
    assert!(
        !String::from_utf8(out.stdout)
            .unwrap()
            .contains("Error from server")
    );
}

#[test]
fn sequential_writes_every_key_once_and_random_keys_repeat() {
    let redis = Redis::start();
    let out = suite(
        redis.port,
        "-t set -n 1000 -c 4 -r 1000 --sequential -q",
        &[],
    );
    assert_success(&out, "--sequential");
    assert_eq!(redis.dbsize(), 1000);
    assert_eq!(redis.calls("set"), 1000);
    assert_eq!(redis.command(&["FLUSHALL"]), b"OK");
    let out = suite(redis.port, "-t set -n 1000 -c 4 -r 1000 -q", &[]);
    assert_success(&out, "random");
    // 1000 uniform draws of 1000 keys hit about 632 of them.
    let keys = redis.dbsize();
    assert!((550..=720).contains(&keys), "{keys} keys");
}

#[test]
fn rps_keeps_the_rate_under_its_limit() {
    let redis = Redis::start();
    redis.reset_stats();
    let out = suite(redis.port, "-t set -n 200 -c 2 -q --rps 400", &[]);
    assert_success(&out, "--rps 400");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (_, rps, _) = quiet(stdout.trim_end());
    // At most the limit (a margin for the first requests, sent at once).
    assert!(rps > 0.0 && rps < 480.0, "{stdout}");
    assert_eq!(redis.calls("set"), 200);
}
