//! The same-file check on real files in a scratch directory: an input
//! reached by another spelling, a symbolic or a hard link, two outputs on one
//! new path, and the `--hdr-file-prefix` names of each run and op.

use std::fs;
use std::path::{Path, PathBuf};

use super::SameFileCheck;
use crate::error::UsageError;
use crate::report::files::Target;
use crate::workload::keys::KeyPattern;
use crate::workload::mix::Ratio;
use crate::workload::ops::OpTable;

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kvbench-same-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn pair() -> OpTable {
    let ratio = Ratio { set: 1, get: 10 };
    OpTable::default_pair(ratio, KeyPattern::Uniform, KeyPattern::Uniform)
}

/// `-o output` against `--config input`, and the HDR files of `hdr`.
fn check(input: &Path, output: &Path, hdr: Option<(&Path, u32)>) -> Result<(), UsageError> {
    let target = Target::of(output).unwrap();
    let table = pair();
    let mut check =
        SameFileCheck::default()
            .input("--config", input)
            .output("--out-file", output, &target);
    if let Some((prefix, runs)) = hdr {
        check = check.hdr_files(prefix, &table, runs);
    }
    check.check()
}

#[test]
fn an_output_on_an_input_is_refused_however_it_is_spelled() {
    let dir = scratch("input");
    let input = dir.join("c.toml");
    fs::write(&input, "test-time = 1\n").unwrap();
    std::os::unix::fs::symlink("c.toml", dir.join("link")).unwrap();
    fs::hard_link(&input, dir.join("hard")).unwrap();
    for spelled in [
        input.clone(),
        dir.join(".").join("c.toml"),
        dir.join("link"),
        dir.join("hard"),
    ] {
        let e = check(&input, &spelled, None).unwrap_err();
        assert_eq!(e.flag, "--out-file", "{spelled:?}");
        assert!(e.message.contains("--config"), "{e}");
        assert!(
            e.message.contains("give --out-file a path of its own"),
            "{e}"
        );
    }
    assert!(check(&input, &dir.join("r.txt"), None).is_ok());
    assert!(check(&input, Path::new("-"), None).is_ok());
    assert_eq!(fs::read(&input).unwrap(), b"test-time = 1\n");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_input_that_is_no_regular_file_is_never_the_output() {
    // Reading a terminal or a pipe destroys nothing that writing another could.
    let dir = scratch("device");
    assert!(check(Path::new("/dev/null"), Path::new("/dev/null"), None).is_ok());
    assert!(check(&dir.join("missing"), &dir.join("missing"), None).is_ok());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn two_outputs_on_one_new_path_are_refused() {
    let dir = scratch("outputs");
    let (json, spelled) = (dir.join("r"), dir.join(".").join("r"));
    let (a, b) = (Target::of(&json).unwrap(), Target::of(&spelled).unwrap());
    let e = SameFileCheck::default()
        .output("--out-file", &json, &a)
        .output("--json-out-file", &spelled, &b)
        .check()
        .unwrap_err();
    assert_eq!(e.flag, "--json-out-file");
    assert!(e.message.contains("same file as --out-file"), "{e}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_hdr_file_of_every_run_is_an_output_and_no_other_name_is() {
    let dir = scratch("hdr");
    let prefix = dir.join("h");
    let input = dir.join("c.toml");
    fs::write(&input, "").unwrap();
    let hdr = Some((prefix.as_path(), 2));
    for name in [
        "h_FULL_RUN_1.txt",
        "h_FULL_RUN_2.hgrm",
        "h_SET_command_run_2.hlog",
        "h_GET_command_run_1.txt",
    ] {
        let e = check(&input, &dir.join(name), hdr).unwrap_err();
        assert_eq!(e.flag, "--out-file", "{name}");
        assert!(
            e.message.contains("--hdr-file-prefix") && e.message.contains(name),
            "{e}"
        );
    }
    for name in [
        "h_FULL_RUN_3.txt",
        "h_FULL_RUN_01.txt",
        "h_FULL_RUN_1.json",
        "h_FULL_WARMUP.txt",
        "h_HSET_command_run_1.txt",
        "g_FULL_RUN_1.txt",
    ] {
        assert!(check(&input, &dir.join(name), hdr).is_ok(), "{name}");
    }
    // The same name in another directory is another file.
    let other = scratch("hdr-other");
    assert!(check(&input, &other.join("h_FULL_RUN_1.txt"), hdr).is_ok());
    fs::remove_dir_all(&other).unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_hdr_file_that_leads_to_an_input_is_refused() {
    let dir = scratch("hdr-input");
    let input = dir.join("c.toml");
    fs::write(&input, "").unwrap();
    // The HDR writer follows the link, as a write does.
    std::os::unix::fs::symlink("c.toml", dir.join("h_GET_command_run_1.hgrm")).unwrap();
    let prefix = dir.join("h");
    let e = check(&input, &dir.join("r.txt"), Some((&prefix, 1))).unwrap_err();
    assert_eq!(e.flag, "--hdr-file-prefix");
    assert!(
        e.message.contains("h_GET_command_run_1.hgrm") && e.message.contains("--config"),
        "{e}"
    );
    // An input whose own name is an HDR file's is refused the same way.
    let named = dir.join("h_FULL_RUN_1.txt");
    fs::write(&named, "").unwrap();
    let e = check(&named, &dir.join("r.txt"), Some((&prefix, 1))).unwrap_err();
    assert_eq!(e.flag, "--hdr-file-prefix", "{e}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_client_stats_file_is_an_output_and_no_other_name_is() {
    let dir = scratch("client-stats");
    let input = dir.join("auth");
    fs::write(&input, "secret\n").unwrap();
    let prefix = dir.join("cs");
    // 2 runs of 2 threads of 3 clients: cs-R-T-C.csv, R from 1, T and C from 0.
    let with = |output: &Path| {
        let target = Target::of(output).unwrap();
        SameFileCheck::default()
            .input("--auth-file", &input)
            .output("--json-out-file", output, &target)
            .client_stats(&prefix, 2, 2, 3)
            .check()
    };
    for name in ["cs-1-0-0.csv", "cs-2-1-2.csv"] {
        let e = with(&dir.join(name)).unwrap_err();
        assert_eq!(e.flag, "--json-out-file", "{e}");
        assert!(
            e.message.contains("--client-stats") && e.message.contains(name),
            "{e}"
        );
    }
    for name in [
        "cs-3-0-0.csv",
        "cs-1-2-0.csv",
        "cs-1-0-3.csv",
        "cs-1-0.csv",
        "cs.csv",
    ] {
        assert!(with(&dir.join(name)).is_ok(), "{name}");
    }
    // The input behind a client's name (a link the write would follow).
    std::os::unix::fs::symlink("auth", dir.join("cs-1-1-2.csv")).unwrap();
    let e = with(&dir.join("r.json")).unwrap_err();
    assert_eq!(e.flag, "--client-stats", "{e}");
    assert!(
        e.message.contains("cs-1-1-2.csv") && e.message.contains("--auth-file"),
        "{e}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
