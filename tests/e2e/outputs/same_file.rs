//! Nothing overwritten: a report aimed at a file the command reads
//! (`--config`, `--auth-file`, the TLS files, the reports `kvbench report`
//! and `kvbench merge` read) or at a file `--hdr-file-prefix` writes exits 2
//! naming both, before any connection opens, and the file keeps every byte
//! it had. Each path is spelled in a way of its own (a link, `./`, a hard
//! link) where the user could.

use std::ffi::OsString;
use std::fs;
use std::path::Path;

use super::{SHORT, names_in};
use crate::common::tls::Certs;
use crate::common::{Redis, TempDir, kvbench, kvbench_ok, refused_before_connecting};

/// Runs `args` after [`SHORT`] against `redis` and asserts that kvbench
/// exited 2 without a connection, naming each of `named`, and that `kept`
/// still holds the bytes it held.
fn refused_keeping(redis: &Redis, args: &[&OsString], named: &[&str], kept: &Path) {
    let before = fs::read(kept).unwrap();
    let all = SHORT
        .iter()
        .map(OsString::from)
        .chain(args.iter().map(|a| (*a).clone()));
    let stderr = refused_before_connecting(redis, all);
    for name in named {
        assert!(stderr.contains(name), "{name} is not named: {stderr}");
    }
    assert!(stderr.contains("of its own"), "no fix in: {stderr}");
    assert_eq!(
        fs::read(kept).unwrap(),
        before,
        "{} changed",
        kept.display()
    );
}

fn os(s: impl AsRef<std::ffi::OsStr>) -> OsString {
    s.as_ref().to_os_string()
}

#[test]
fn a_report_over_a_file_the_run_reads_exits_2_and_leaves_it_byte_for_byte() {
    let redis = Redis::start();
    let dir = TempDir::new("inputs");
    let (config, auth) = (dir.path("c.toml"), dir.path("pw"));
    fs::write(&config, "threads = 1\n").unwrap();
    fs::write(&auth, "a-password\n").unwrap();
    fs::hard_link(&config, dir.path("hard.toml")).unwrap();
    std::os::unix::fs::symlink("pw", dir.path("pw-link")).unwrap();
    let certs = Certs::make();
    let (ca, key) = (certs.dir.path("ca.crt"), certs.dir.path("client.key"));
    let tls = [
        os("--tls"),
        os("--cacert"),
        os(&ca),
        os("--cert"),
        os(certs.dir.path("client.crt")),
        os("--key"),
        os(&key),
    ];
    let cases: Vec<(Vec<OsString>, [&str; 2], &Path)> = vec![
        (
            vec![os("--config"), os(&config), os("-o"), os(&config)],
            ["--out-file", "--config"],
            &config,
        ),
        (
            vec![
                os("--auth-file"),
                os(&auth),
                os("--json-out-file"),
                os(dir.path("pw-link")),
            ],
            ["--json-out-file", "--auth-file"],
            &auth,
        ),
        (
            vec![
                os("--config"),
                os(dir.0.join(".").join("c.toml")),
                os("--html-out-file"),
                os(dir.path("hard.toml")),
            ],
            ["--html-out-file", "--config"],
            &config,
        ),
        (
            tls.iter().cloned().chain([os("-o"), os(&key)]).collect(),
            ["--out-file", "--key"],
            &key,
        ),
        (
            tls.iter()
                .cloned()
                .chain([os("--json-out-file"), os(&ca)])
                .collect(),
            ["--json-out-file", "--cacert"],
            &ca,
        ),
    ];
    for (args, named, kept) in &cases {
        let args: Vec<&OsString> = args.iter().collect();
        refused_keeping(&redis, &args, named, kept);
    }
    assert_eq!(names_in(&dir.0), ["c.toml", "hard.toml", "pw", "pw-link"]);
}

#[test]
fn report_and_merge_refuse_an_output_that_is_one_of_their_inputs() {
    let redis = Redis::start();
    let dir = TempDir::new("subcommand-inputs");
    let (s0, s1) = (dir.path("s0.json"), dir.path("s1.json"));
    for json in [&s0, &s1] {
        kvbench_ok(
            redis.port,
            &[
                "-t",
                "1",
                "-c",
                "2",
                "-n",
                "200",
                "--json-out-file",
                json.to_str().unwrap(),
            ],
        );
    }
    let (s0, s1) = (s0.to_str().unwrap(), s1.to_str().unwrap());
    let spelled = dir.0.join(".").join("s1.json");
    let spelled = spelled.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&["report", s0, "-o", s0], s0),
        (&["report", s0, s1, "-o", spelled], s1),
        (&["merge", s0, s1, "-o", s1], s1),
    ];
    for (args, kept) in cases {
        let before = fs::read(kept).unwrap();
        let out = kvbench(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("-o: ")
                && stderr.contains(&format!("the input {kept} of kvbench {}", args[0])),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("give -o a path of its own"), "{stderr}");
        assert_eq!(fs::read(kept).unwrap(), before, "{args:?} changed {kept}");
    }
    assert_eq!(names_in(&dir.0), ["s0.json", "s1.json"]);
}

#[test]
fn every_file_the_hdr_prefix_writes_is_kept_apart_from_the_reports() {
    let redis = Redis::start();
    let written = TempDir::new("hdr-written");
    let prefix = written.path("h");
    let runs = ["-x", "2", "--hdr-file-prefix", prefix.to_str().unwrap()];
    let first: Vec<&str> = SHORT.iter().chain(&runs).copied().collect();
    kvbench_ok(redis.port, &first);
    let names = names_in(&written.0);
    // Three files (.txt, .hgrm, .hlog) for SET, GET and both, per run.
    assert_eq!(names.len(), 18, "{names:?}");
    let fresh = TempDir::new("hdr-fresh");
    let fresh_prefix = fresh.path("h");
    for name in &names {
        // A report on a file of the last run: it exists, and is kept.
        let existing = written.path(name);
        let args = [
            &os("-x"),
            &os("2"),
            &os("--hdr-file-prefix"),
            &os(&prefix),
            &os("--json-out-file"),
            &os(&existing),
        ];
        refused_keeping(
            &redis,
            &args,
            &["--json-out-file", "--hdr-file-prefix", name],
            &existing,
        );
        // A report on a name the run is about to write: nothing is created.
        let args = [
            &os("-x"),
            &os("2"),
            &os("--hdr-file-prefix"),
            &os(&fresh_prefix),
            &os("-o"),
            &os(fresh.path(name)),
        ];
        let all = SHORT
            .iter()
            .map(OsString::from)
            .chain(args.iter().map(|a| (*a).clone()));
        let stderr = refused_before_connecting(&redis, all);
        assert!(
            stderr.contains("--out-file") && stderr.contains("--hdr-file-prefix"),
            "{stderr}"
        );
        assert!(names_in(&fresh.0).is_empty(), "{:?}", names_in(&fresh.0));
    }
}
