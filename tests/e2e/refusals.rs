//! The errors a user meets first, against a real redis-server: a typo in a
//! `--config` key, a value of the wrong type there, a duration with a unit,
//! an HTML report that cannot be written and a metrics address that cannot be
//! bound each exit 2 with one line naming the key or flag and the fix, and
//! the server sees no connection from kvbench (the INFO that counts them is
//! the only one).

use std::fs;

use crate::common::{Redis, TempDir, refused_before_connecting};

/// The one line on stderr, checked to be exactly one.
fn one_line(stderr: &str) -> &str {
    let line = stderr.strip_suffix('\n').unwrap_or(stderr);
    assert!(
        !line.is_empty() && !line.contains('\n'),
        "not one line: {stderr:?}"
    );
    assert!(line.len() <= 200, "{} characters: {line}", line.len());
    line
}

#[test]
fn first_mistakes_exit_2_naming_the_fix_before_any_connection() {
    let redis = Redis::start();
    let dir = TempDir::new("refusals");
    let short = ["--test-time", "1", "-t", "1", "-c", "1"];

    let typo = dir.path("typo.toml");
    fs::write(&typo, "ratio = \"1:1\"\ntest_time = 2\n").unwrap();
    let stderr = refused_before_connecting(&redis, ["--config".as_ref(), typo.as_os_str()]);
    let line = one_line(&stderr);
    assert!(line.contains("unknown key 'test_time'"), "{line}");
    assert!(line.contains("did you mean 'test-time'"), "{line}");

    let wrong_type = dir.path("type.toml");
    fs::write(&wrong_type, "ratio = 3\n").unwrap();
    let stderr = refused_before_connecting(&redis, ["--config".as_ref(), wrong_type.as_os_str()]);
    let line = one_line(&stderr);
    assert!(line.contains("ratio at line 1"), "{line}");
    assert!(line.contains("ratio = \"1:4\""), "{line}");

    let stderr = refused_before_connecting(&redis, ["--test-time", "10s"]);
    let line = one_line(&stderr);
    assert!(line.starts_with("kvbench: error: --test-time"), "{line}");
    assert!(line.contains("--test-time 10"), "{line}");

    let html = dir.path("missing-dir/report.html");
    let mut args: Vec<String> = short.iter().map(|s| s.to_string()).collect();
    args.extend(["--html-out-file".into(), html.display().to_string()]);
    let stderr = refused_before_connecting(&redis, &args);
    assert!(one_line(&stderr).contains("--html-out-file"), "{stderr}");
    assert!(!html.exists());

    let stderr =
        refused_before_connecting(&redis, ["--test-time", "1", "--metrics-listen", "9464"]);
    assert!(one_line(&stderr).contains("--metrics-listen"), "{stderr}");
}

/// Runs kvbench with `args` against `port` and returns its exit code,
/// stderr and how long it took.
fn timed(port: u16, args: &[&str]) -> (Option<i32>, String, std::time::Duration) {
    let started = std::time::Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &port.to_string()])
        .args(["-t", "1", "-c", "4", "--test-time", "8"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr, started.elapsed())
}

/// A wrong `-P` is refused by the preflight, naming what the server speaks,
/// rather than a run whose every connection reconnects (36 s and exit 3).
#[test]
fn a_wrong_protocol_exits_2_naming_what_the_server_speaks() {
    let redis = Redis::start();
    for protocol in ["memcache_text", "memcache_meta", "memcache_binary"] {
        let (code, stderr, took) = timed(redis.port, &["-P", protocol]);
        assert_eq!(code, Some(2), "-P {protocol}: {stderr}");
        assert!(took.as_secs() < 10, "-P {protocol}: {took:?}");
        assert!(stderr.contains("RESP (Redis)"), "-P {protocol}: {stderr}");
        assert!(stderr.contains("use -P redis"), "-P {protocol}: {stderr}");
    }
    let memcached = crate::common::memcached::Memcached::start();
    for protocol in ["redis", "resp3"] {
        let (code, stderr, took) = timed(memcached.port, &["-P", protocol]);
        assert_eq!(code, Some(2), "-P {protocol}: {stderr}");
        assert!(took.as_secs() < 10, "-P {protocol}: {took:?}");
        assert!(
            stderr.contains("use -P memcache_text"),
            "-P {protocol}: {stderr}"
        );
    }
}
