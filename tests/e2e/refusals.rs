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
        // A server silent in the protocol asked is asked again in another
        // once this passes.
        .args(["--connection-timeout", "2"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr, started.elapsed())
}

/// A wrong `-P` is refused by the preflight, naming what the server speaks,
/// rather than a run whose every connection reconnects (36 s and exit 3).
/// (Redis never answers memcached's binary header, which has no line end:
/// its silence has kvbench ask again in the text protocol.)
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

/// memcached started with `-B ascii` or `-B binary` speaks one protocol
/// and never answers the other (it waits for a line end, or for a whole
/// binary header): the preflight's silence has kvbench ask in the other
/// protocol and name it (exit 2), where each run stalled for its whole
/// length and exited 3. The protocol it speaks runs, counted as it counts.
#[test]
fn a_memcached_that_speaks_one_protocol_names_it_for_the_other() {
    use crate::common::memcached::Memcached;
    let ascii = Memcached::start_with(&["-B", "ascii"]);
    let (code, stderr, _) = timed(ascii.port, &["-P", "memcache_binary"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "answers memcached's text protocol, not memcache_binary: use -P memcache_text"
        ),
        "{stderr}"
    );
    let binary = Memcached::start_binary_only();
    for protocol in ["memcache_text", "memcache_meta"] {
        let (code, stderr, _) = timed(binary.port, &["-P", protocol]);
        assert_eq!(code, Some(2), "-P {protocol}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "answers memcached's binary protocol, not {protocol}: use -P memcache_binary"
            )),
            "-P {protocol}: {stderr}"
        );
    }
    assert_eq!(binary.stat("cmd_get") + binary.stat("cmd_set"), 0);
    let out = crate::common::kvbench_at(binary.port)
        .args(["-P", "memcache_binary", "-t", "1", "-c", "2", "-n", "50"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        binary.stat("cmd_get") + binary.stat("cmd_set"),
        100,
        "{stderr}"
    );
}
