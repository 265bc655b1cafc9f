//! Passwords authenticate however they reach kvbench (`-a password`,
//! `-a user:password`, a `redis://` URI, `KVBENCH_AUTH`, `--auth-file` or a
//! `--config` file) and never leak into stdout, stderr, `--show-config` or the
//! reports (text, JSON, HTML, HDR); [`failures`] runs every error path that
//! sees a secret with a canary.

mod failures;

use std::process::Command;

use crate::common::{Redis, TempDir, parse_commandstats, pipeline};
use kvbench::protocol::value::Value as Reply;
use serde_json::Value;

const PASSWORD: &str = "secret123";

/// A server whose clients must `AUTH secret123` (or `AUTH bench secret123`).
fn protected_redis() -> Redis {
    Redis::start_protected(PASSWORD, Some("bench"))
}

/// `calls` of `command` in `INFO commandstats`, asked over an authenticated connection.
fn authed_calls(redis: &Redis, command: &str) -> u64 {
    let replies = pipeline(redis.port, &[["AUTH", PASSWORD], ["INFO", "commandstats"]]);
    assert_eq!(replies[0], Reply::Simple("OK".into()));
    let info = replies[1].text().unwrap();
    parse_commandstats(&info).get(command).map_or(0, |c| c.0)
}

/// How the credentials reach kvbench: one case of the table.
enum Credentials {
    /// `-s … -p … -a secret123`.
    Password,
    /// `-s … -p … -a bench:secret123`.
    UserAndPassword,
    /// `-u redis://:secret123@…`.
    Uri,
    /// `-s … -p …` with `KVBENCH_AUTH=secret123` in the environment.
    Environment,
    /// `--config FILE` whose `authenticate = "bench:secret123"`.
    ConfigFile,
}

/// Runs 2 connections × 20 SETs with `--show-config` against a protected server,
/// passing the credentials as `credentials` says, and checks that kvbench
/// authenticated (the server counted the SETs) and that the password is nowhere
/// in its output.
fn assert_authenticates_without_leaking(credentials: Credentials) {
    let redis = protected_redis();
    let dir = TempDir::new("secrets");
    let json = dir.path("r.json");
    let port = redis.port.to_string();
    let server = ["-s", "127.0.0.1", "-p", &port];
    let user_password = format!("bench:{PASSWORD}");
    let uri = format!("redis://:{PASSWORD}@127.0.0.1:{port}");
    let config = dir.path("c.toml");
    std::fs::write(&config, format!("authenticate = \"bench:{PASSWORD}\"\n")).unwrap();
    let mut args: Vec<&str> = match credentials {
        Credentials::Password => [&server[..], &["-a", PASSWORD]].concat(),
        Credentials::UserAndPassword => [&server[..], &["-a", &user_password]].concat(),
        Credentials::Uri => vec!["-u", &uri],
        Credentials::Environment => server.to_vec(),
        Credentials::ConfigFile => [&server[..], &["--config", config.to_str().unwrap()]].concat(),
    };
    args.extend("-t 1 -c 2 -n 20 --ratio 1:0 --show-config".split_whitespace());
    args.extend(["--json-out-file", json.to_str().unwrap()]);
    let (text, html) = (dir.path("r.txt"), dir.path("r.html"));
    args.extend(["-o", text.to_str().unwrap()]);
    args.extend(["--html-out-file", html.to_str().unwrap()]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvbench"));
    command.args(&args).env_remove("KVBENCH_AUTH");
    if let Credentials::Environment = credentials {
        command.env("KVBENCH_AUTH", PASSWORD);
    }
    let out = command.output().unwrap();

    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kvbench failed: {stderr}\n{stdout}");
    assert!(!stdout.contains(PASSWORD), "password on stdout:\n{stdout}");
    assert!(!stderr.contains(PASSWORD), "password on stderr:\n{stderr}");
    let json_text = std::fs::read_to_string(&json).unwrap();
    for report in [&json, &text, &html] {
        let written = std::fs::read_to_string(report).unwrap();
        assert!(
            !written.contains(PASSWORD),
            "password in {}:\n{written}",
            report.display()
        );
    }
    // --show-config printed the configuration, with the password redacted.
    assert!(
        stderr.contains("\"authenticate\""),
        "no configuration on stderr:\n{stderr}"
    );
    let doc: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(doc["kvbench"]["totals"]["SET"]["count"], 40);
    assert_eq!(authed_calls(&redis, "set"), 40);
}

#[test]
fn a_password_given_with_a_authenticates_and_appears_in_no_output() {
    assert_authenticates_without_leaking(Credentials::Password);
}

#[test]
fn a_user_and_password_given_with_a_authenticate_and_appear_in_no_output() {
    assert_authenticates_without_leaking(Credentials::UserAndPassword);
}

#[test]
fn a_password_given_in_a_uri_authenticates_and_appears_in_no_output() {
    assert_authenticates_without_leaking(Credentials::Uri);
}

#[test]
fn a_password_from_kvbench_auth_authenticates_and_appears_in_no_output() {
    assert_authenticates_without_leaking(Credentials::Environment);
}

#[test]
fn a_password_from_a_config_file_authenticates_and_appears_in_no_output() {
    assert_authenticates_without_leaking(Credentials::ConfigFile);
}

#[test]
fn credentials_from_an_auth_file_authenticate_and_appear_in_no_report_file_or_output() {
    let redis = protected_redis();
    let dir = TempDir::new("secrets-auth-file");
    let auth = dir.path("auth");
    // Only the first line counts: were the second one read too, AUTH would fail.
    std::fs::write(&auth, format!("bench:{PASSWORD}\nnot part of it\n")).unwrap();
    let reports = dir.path("reports");
    std::fs::create_dir(&reports).unwrap();
    let path = |name: &str| reports.join(name).to_str().unwrap().to_string();
    let port = redis.port.to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args([
            "-s",
            "127.0.0.1",
            "-p",
            &port,
            "--auth-file",
            auth.to_str().unwrap(),
        ])
        .args("-t 1 -c 2 -n 20 --ratio 1:0 --show-config".split_whitespace())
        .args(["-o", &path("r.txt"), "--json-out-file", &path("r.json")])
        .args(["--html-out-file", &path("r.html")])
        .args(["--hdr-file-prefix", &path("hdr")])
        .env_remove("KVBENCH_AUTH")
        .output()
        .unwrap();

    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kvbench failed: {stderr}\n{stdout}");
    assert!(!stdout.contains(PASSWORD), "password on stdout:\n{stdout}");
    assert!(!stderr.contains(PASSWORD), "password on stderr:\n{stderr}");
    assert!(
        stderr.contains("\"authenticate\""),
        "no configuration on stderr:\n{stderr}"
    );
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&reports).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = std::fs::read(entry.path()).unwrap();
        let leaked = bytes
            .windows(PASSWORD.len())
            .any(|w| w == PASSWORD.as_bytes());
        assert!(!leaked, "password in {name}");
        names.push(name);
    }
    // Every kind of file was written, so each was checked.
    for ending in [".txt", ".json", ".html", ".hgrm", ".hlog"] {
        assert!(
            names.iter().any(|n| n.ends_with(ending)),
            "no {ending} file among {names:?}"
        );
    }
    let doc: Value = serde_json::from_slice(&std::fs::read(path("r.json")).unwrap()).unwrap();
    assert_eq!(doc["kvbench"]["totals"]["SET"]["count"], 40);
    assert_eq!(authed_calls(&redis, "set"), 40);
}
