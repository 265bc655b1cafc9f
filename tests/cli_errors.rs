//! Usage errors: every bad command line, config file or connection setting exits
//! with code 2 and one stderr line `kvbench: error: <flag>: <message>` naming the
//! flag to fix, without a panic and without sending any load.

mod common;

use std::process::{Command, Output};

use common::{Redis, TempDir, free_port};

/// One bad invocation and the flag its error must name.
struct Case {
    what: &'static str,
    args: Vec<String>,
    env: Option<(&'static str, &'static str)>,
    flag: &'static str,
    /// Further text the message must contain (case-insensitive), if any.
    mentions: Option<&'static str>,
}

fn case(what: &'static str, args: &[&str], flag: &'static str) -> Case {
    Case {
        what,
        args: args.iter().map(|a| a.to_string()).collect(),
        env: None,
        flag,
        mentions: None,
    }
}

fn run(case: &Case) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvbench"));
    command.args(&case.args).env_remove("KVBENCH_AUTH");
    if let Some((name, value)) = case.env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// What is wrong with how kvbench rejected `case`, if anything.
fn check(case: &Case) -> Option<String> {
    let out = run(case);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut problems = Vec::new();
    if out.status.code() != Some(2) {
        problems.push(format!("exit status {:?}, not 2", out.status.code()));
    }
    if stderr.contains("panicked") {
        problems.push("a panic".to_string());
    }
    let line = stderr.strip_suffix('\n').unwrap_or(&stderr);
    if line.contains('\n') || line.is_empty() {
        problems.push("not exactly one line on stderr".to_string());
    }
    let prefix = format!("kvbench: error: {}: ", case.flag);
    if !line.starts_with(&prefix) {
        problems.push(format!("does not start with {prefix:?}"));
    }
    if let Some(word) = case.mentions {
        if !line.to_lowercase().contains(&word.to_lowercase()) {
            problems.push(format!("does not mention {word:?}"));
        }
    }
    if !stdout.is_empty() {
        problems.push("wrote a report to stdout".to_string());
    }
    (!problems.is_empty()).then(|| {
        format!(
            "{} ({:?}): {}\n    stderr: {stderr:?}",
            case.what,
            case.args,
            problems.join("; ")
        )
    })
}

/// Runs every case and fails once, listing each case that misbehaved.
fn assert_all_rejected(cases: &[Case]) {
    let failures: Vec<String> = cases.iter().filter_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases misbehaved:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn bad_values_on_the_command_line_exit_2_naming_the_flag_on_one_line() {
    // Every case aims at a port where nothing listens, so a value wrongly
    // accepted shows up as a connection error naming the wrong flag.
    let port = free_port().to_string();
    let p = port.as_str();
    let uri = format!("rediss://127.0.0.1:{port}");
    let cases = vec![
        case("ratio 0:0", &["-p", p, "--ratio", "0:0"], "--ratio"),
        case(
            "ratio without a colon",
            &["-p", p, "--ratio", "10"],
            "--ratio",
        ),
        case(
            "key-minimum above key-maximum",
            &["-p", p, "--key-minimum", "10", "--key-maximum", "5"],
            "--key-minimum",
        ),
        case("pipeline 0", &["-p", p, "--pipeline", "0"], "--pipeline"),
        case(
            "unknown key pattern letter",
            &["-p", p, "--key-pattern", "X:R"],
            "--key-pattern",
        ),
        case(
            "key pattern without a colon",
            &["-p", p, "--key-pattern", "RR"],
            "--key-pattern",
        ),
        case(
            "P slices for more connections than keys",
            &[
                "-p",
                p,
                "-t",
                "2",
                "-c",
                "3",
                "--key-pattern",
                "P:P",
                "--key-minimum",
                "1",
                "--key-maximum",
                "5",
            ],
            "--key-pattern",
        ),
        case(
            "malformed data-size-list",
            &["-p", p, "--data-size-list", "100"],
            "--data-size-list",
        ),
        case(
            "data-size-list with a bad weight",
            &["-p", p, "--data-size-list", "100:x"],
            "--data-size-list",
        ),
        case(
            "malformed data-size-range",
            &["-p", p, "--data-size-range", "10"],
            "--data-size-range",
        ),
        case(
            "inverted data-size-range",
            &["-p", p, "--data-size-range", "20-10"],
            "--data-size-range",
        ),
        case("data-size 0", &["-p", p, "-d", "0"], "--data-size"),
        case("requests 0", &["-p", p, "-n", "0"], "--requests"),
        case("requests foo", &["-p", p, "-n", "foo"], "--requests"),
        case("threads 0", &["-p", p, "--threads", "0"], "--threads"),
        case("clients 0", &["-p", p, "--clients", "0"], "--clients"),
        case("run-count 0", &["-p", p, "-x", "0"], "--run-count"),
        case("test-time 0", &["-p", p, "--test-time", "0"], "--test-time"),
        case(
            "negative warmup-time",
            &["-p", p, "--warmup-time=-1"],
            "--warmup-time",
        ),
        case(
            "connection-timeout 0",
            &["-p", p, "--connection-timeout", "0"],
            "--connection-timeout",
        ),
        case(
            "memcache_text protocol",
            &["-p", p, "-P", "memcache_text"],
            "--protocol",
        ),
        case("unknown protocol", &["-p", p, "-P", "http"], "--protocol"),
        case("TLS uri", &["-u", &uri], "--uri"),
        case(
            "uri with a non-numeric db",
            &["-u", "redis://127.0.0.1/x"],
            "--uri",
        ),
        case(
            "non-numeric percentile",
            &["-p", p, "--print-percentiles", "50,abc"],
            "--print-percentiles",
        ),
        case(
            "percentile above 100",
            &["-p", p, "--print-percentiles", "50,101"],
            "--print-percentiles",
        ),
        case(
            "percentile 0",
            &["-p", p, "--print-percentiles", "0"],
            "--print-percentiles",
        ),
        case("inverted cpu range", &["-p", p, "--cpus", "5-1"], "--cpus"),
        case(
            "cpus with no-pin",
            &["-p", p, "--cpus", "0", "--no-pin"],
            "--cpus",
        ),
        case("-4 and -6 together", &["-p", p, "-4", "-6"], "-4/-6"),
        case(
            "data-size-range and data-size-list together",
            &[
                "-p",
                p,
                "--data-size-range",
                "10-20",
                "--data-size-list",
                "10:1",
            ],
            "--data-size-range",
        ),
        case(
            "unix socket and server together",
            &[
                "--unix-socket",
                "/nonexistent/redis.sock",
                "--server",
                "127.0.0.1",
            ],
            "--unix-socket",
        ),
        case(
            "zipf exponent 0",
            &["-p", p, "--key-pattern", "Z:Z", "--key-zipf-exp", "0"],
            "--key-zipf-exp",
        ),
        case(
            "gaussian median outside the range",
            &[
                "-p",
                p,
                "--key-pattern",
                "G:G",
                "--key-maximum",
                "100",
                "--key-median",
                "500",
            ],
            "--key-median",
        ),
        case(
            "gaussian stddev 0",
            &["-p", p, "--key-pattern", "G:G", "--key-stddev", "0"],
            "--key-stddev",
        ),
        case("empty password", &["-p", p, "-a", ""], "--authenticate"),
        Case {
            env: Some(("KVBENCH_AUTH", "")),
            ..case("empty KVBENCH_AUTH", &["-p", p], "--authenticate")
        },
        Case {
            mentions: Some("refused"),
            ..case(
                "nothing listening",
                &["-s", "127.0.0.1", "-p", p],
                "--server/--port",
            )
        },
        case(
            "no socket at the unix path",
            &["--unix-socket", "/nonexistent/redis.sock"],
            "--unix-socket",
        ),
    ];
    assert!(cases.len() >= 20);
    assert_all_rejected(&cases);
}

#[test]
fn bad_config_files_exit_2_naming_config_and_the_fault() {
    let port = free_port().to_string();
    let dir = TempDir::new("cli-errors");
    let file = |name: &str, text: &str| -> String {
        let path = dir.path(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let unknown = file("unknown.toml", "threads = 2\nthread = 3\n");
    let syntax = file("syntax.toml", "threads = 2\nclients = = 3\n");
    let wrong_type = file("type.toml", "threads = \"two\"\n");
    let zero = file("zero.toml", "clients = 0\n");
    let missing = dir.path("missing.toml").to_str().unwrap().to_string();
    let with = |path: &str| -> Vec<String> {
        ["-p", &port, "--config", path]
            .iter()
            .map(|a| a.to_string())
            .collect()
    };
    let cases = vec![
        Case {
            args: with(&unknown),
            mentions: Some("thread`"),
            ..case("unknown config key", &[], "--config")
        },
        Case {
            args: with(&syntax),
            mentions: Some("line 2"),
            ..case("TOML syntax error", &[], "--config")
        },
        Case {
            args: with(&wrong_type),
            mentions: Some("line 1"),
            ..case("a string where a number belongs", &[], "--config")
        },
        Case {
            args: with(&missing),
            mentions: Some("missing.toml"),
            ..case("missing config file", &[], "--config")
        },
        // A value that parses but is invalid names the flag, as on the command line.
        Case {
            args: with(&zero),
            ..case("clients 0 in the file", &[], "--clients")
        },
    ];
    assert_all_rejected(&cases);
}

#[test]
fn connection_settings_a_real_server_rejects_exit_2_naming_the_flag() {
    let open = Redis::start();
    let protected = Redis::start();
    assert_eq!(
        protected.command(&["CONFIG", "SET", "requirepass", "secret123"]),
        b"OK"
    );
    let open_port = open.port.to_string();
    let port = protected.port.to_string();
    let at = |port: &str, extra: &[&str]| -> Vec<String> {
        [
            "-s",
            "127.0.0.1",
            "-p",
            port,
            "-t",
            "1",
            "-c",
            "1",
            "-n",
            "10",
        ]
        .iter()
        .chain(extra)
        .map(|a| a.to_string())
        .collect()
    };
    let cases = vec![
        Case {
            args: at(&port, &["-a", "wrongpass999"]),
            mentions: Some("WRONGPASS"),
            ..case("wrong password", &[], "--authenticate")
        },
        Case {
            args: at(&port, &[]),
            env: Some(("KVBENCH_AUTH", "wrongpass999")),
            ..case("wrong password from KVBENCH_AUTH", &[], "--authenticate")
        },
        Case {
            args: at(&port, &[]),
            mentions: Some("NOAUTH"),
            ..case("password required, none given", &[], "--authenticate")
        },
        Case {
            args: at(&open_port, &["--select-db", "99999"]),
            mentions: Some("out of range"),
            ..case("database the server lacks", &[], "--select-db")
        },
    ];
    assert_all_rejected(&cases);
    // Rejected before any load, and the wrong password was not echoed.
    assert_eq!(open.calls("set") + open.calls("get"), 0);
    let out = run(&Case {
        args: at(&port, &["-a", "wrongpass999"]),
        ..case("wrong password", &[], "--authenticate")
    });
    assert!(!String::from_utf8_lossy(&out.stderr).contains("wrongpass999"));
}

#[test]
fn values_the_argument_parser_rejects_get_the_same_one_line_form() {
    // Values of the wrong type and unknown flags are usage errors too; they
    // should look like every other one: code 2, one `kvbench: error:` line.
    let port = free_port().to_string();
    let p = port.as_str();
    let cases = vec![
        case("threads foo", &["-p", p, "--threads", "foo"], "--threads"),
        case("negative clients", &["-p", p, "--clients=-1"], "--clients"),
        case("port out of range", &["-p", "70000"], "--port"),
        case(
            "unknown flag",
            &["-p", p, "--no-such-flag"],
            "--no-such-flag",
        ),
    ];
    assert_all_rejected(&cases);
}
