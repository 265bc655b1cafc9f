//! `--client-stats` under the outputs' rules: a prefix whose files would
//! land on a file the run reads or on another report exits 2 before any
//! connection, the file untouched; a client's file (or an HDR file) that
//! cannot be written is named on stderr and the exit code is 1, as for any
//! report, with every other file written; `kvbench capacity`'s confirmation
//! run writes them too, and counts them the same way.

use std::fs;

use crate::capacity::capacity_at;
use crate::common::{Redis, TempDir, kvbench_at, read_json, refused_before_connecting};

#[test]
fn client_stats_over_the_auth_file_the_config_or_the_json_report_exits_2_untouched() {
    let redis = Redis::start();
    let dir = TempDir::new("client-stats-inputs");
    let prefix = dir.path("cs");
    // Run 1, thread 0, client 0 and 1: the first files the prefix writes.
    let (auth, config) = (dir.path("cs-1-0-0.csv"), dir.path("cs-1-0-1.csv"));
    fs::write(&auth, "a-password\n").unwrap();
    fs::write(&config, "threads = 1\n").unwrap();
    let cases = [
        ("--auth-file", &auth, "--client-stats"),
        ("--config", &config, "--client-stats"),
        // A report the run writes, on a name a client's file takes.
        (
            "--json-out-file",
            &dir.path("cs-1-0-1.csv"),
            "--json-out-file",
        ),
    ];
    for (flag, path, refused) in cases {
        let before = fs::read(path).unwrap();
        let stderr = refused_before_connecting(
            &redis,
            [
                "-t",
                "1",
                "-c",
                "2",
                "-n",
                "100",
                flag,
                path.to_str().unwrap(),
                "--client-stats",
                prefix.to_str().unwrap(),
            ],
        );
        assert!(stderr.contains(&format!("error: {refused}:")), "{stderr}");
        for named in [flag, "--client-stats"] {
            assert!(stderr.contains(named), "{named} not named: {stderr}");
        }
        assert!(stderr.contains("another prefix"), "no fix in: {stderr}");
        assert_eq!(fs::read(path).unwrap(), before, "{flag}'s file changed");
    }
    // Nothing else was written.
    let mut names: Vec<String> = fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["cs-1-0-0.csv", "cs-1-0-1.csv"]);
}

#[test]
fn a_client_stats_or_hdr_file_that_cannot_be_written_exits_1_naming_it() {
    let redis = Redis::start();
    let dir = TempDir::new("client-stats-unwritable");
    let prefix = dir.path("cs");
    // A directory where client 1's file goes: its write fails (EISDIR,
    // root or not), client 0's does not.
    fs::create_dir(dir.path("cs-1-0-1.csv")).unwrap();
    let hdr = dir.path("h");
    fs::create_dir(dir.path("h_FULL_RUN_1.hlog")).unwrap();
    for (flag, path, unwritten, written) in [
        ("--client-stats", &prefix, "cs-1-0-1.csv", "cs-1-0-0.csv"),
        ("--hdr-file-prefix", &hdr, "h", "h_FULL_RUN_1.hgrm"),
    ] {
        let out = kvbench_at(redis.port)
            .args(["-t", "1", "-c", "2", "-n", "200", "--hide-histogram"])
            .args([flag, path.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag}: {stderr}");
        let line = stderr
            .lines()
            .find(|l| l.contains(&format!("cannot write {flag}")))
            .unwrap_or_else(|| panic!("{flag}: no failure named in: {stderr}"));
        assert!(line.contains(unwritten), "{line}");
        assert!(dir.path(written).is_file(), "{flag}: {written} not written");
    }
}

#[test]
fn capacity_counts_a_client_stats_or_hdr_file_that_cannot_be_written() {
    let redis = Redis::start();
    let dir = TempDir::new("capacity-unwritable");
    // Directories where the confirmation run's files go: their writes fail,
    // root or not.
    fs::create_dir(dir.path("cs-1-0-0.csv")).unwrap();
    fs::create_dir(dir.path("h_FULL_RUN_1.hlog")).unwrap();
    for (flag, prefix, unwritten, written) in [
        ("--client-stats", "cs", "cs-1-0-0.csv", "cs-1-0-0.csv"),
        ("--hdr-file-prefix", "h", "h", "h_FULL_RUN_1.hgrm"),
    ] {
        let json = dir.path(&format!("{prefix}.json"));
        // Two steps well within the SLO, then --max-steps ends the search
        // (exit 6 when every file is written) and the confirmation runs.
        let out = capacity_at(
            redis.port,
            &[
                "--slo",
                "p99=1s",
                "--start-rate",
                "100",
                "--step-time",
                "1",
                "--step-warmup",
                "0",
                "--max-steps",
                "2",
                "--test-time",
                "1",
                "-t",
                "1",
                "-c",
                "1",
                "--hide-histogram",
                "--json-out-file",
                json.to_str().unwrap(),
                flag,
                dir.path(prefix).to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // An output not written comes before what the search found.
        assert_eq!(out.status.code(), Some(1), "{flag}: {stderr}");
        let line = stderr
            .lines()
            .find(|l| l.contains(&format!("cannot write {flag}")))
            .unwrap_or_else(|| panic!("{flag}: no failure named in: {stderr}"));
        assert!(line.contains(unwritten), "{line}");
        // Every other output is written all the same.
        let doc = read_json(&json);
        assert_eq!(
            doc["kvbench"]["capacity"]["outcome"], "unfinished",
            "{flag}"
        );
        assert!(dir.path(written).exists(), "{flag}: {written} not written");
    }
}
