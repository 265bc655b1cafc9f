//! Output paths against a real redis-server: a FIFO, a device node and a symbolic
//! link given as report files keep what they are (only regular files are
//! replaced by temporary file + rename), and a path that cannot take a report
//! (a missing directory, a read-only filesystem), or two reports aimed at one
//! file, exit 2 before any connection opens; so does a report aimed at a file
//! the command reads or at an HDR file ([`same_file`]).
//!
//! Every special file is created by the test in its own temporary directory;
//! no system path is ever written.

mod client_stats;
mod same_file;

use std::ffi::OsString;
use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{Redis, TempDir, kvbench_at, read_json, refused_before_connecting};

/// A short run: the report is what matters here, not the load.
const SHORT: &[&str] = &["-t", "1", "-c", "2", "-n", "200"];

fn make_fifo(path: &Path) {
    let mut bytes = path.as_os_str().as_bytes().to_vec();
    bytes.push(0);
    // SAFETY: a NUL-terminated path that outlives the call.
    let rc = unsafe { libc::mkfifo(bytes.as_ptr().cast(), 0o600) };
    assert_eq!(rc, 0, "mkfifo {}", path.display());
}

/// Makes a character device node like `/dev/null` (major 1, minor 3) at
/// `path`; false when this process may not (it is not root).
fn make_null_device(path: &Path) -> bool {
    make_char_device(path, 3)
}

/// Makes a device like `/dev/full` (major 1, minor 7), where every write
/// fails with ENOSPC: a disk that fills up after the start's checks.
fn make_full_device(path: &Path) -> bool {
    make_char_device(path, 7)
}

fn make_char_device(path: &Path, minor: u32) -> bool {
    let mut bytes = path.as_os_str().as_bytes().to_vec();
    bytes.push(0);
    // SAFETY: a NUL-terminated path that outlives the call.
    let rc = unsafe {
        libc::mknod(
            bytes.as_ptr().cast(),
            libc::S_IFCHR | 0o600,
            libc::makedev(1, minor),
        )
    };
    rc == 0
}

/// The names in `dir`, sorted: a leftover temporary file would show here.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_fifo_given_to_out_file_gets_the_report_and_stays_a_fifo() {
    let redis = Redis::start();
    let dir = TempDir::new("fifo");
    let fifo = dir.path("report.fifo");
    make_fifo(&fifo);
    // Opened without blocking before kvbench starts, so kvbench's open for
    // writing finds a reader, and the test never waits on a FIFO that is gone.
    let mut reader = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let mut child = kvbench_at(redis.port)
        .args(SHORT)
        .arg("-o")
        .arg(&fifo)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(60);
    let mut text = Vec::new();
    let mut chunk = [0u8; 65536];
    let status = loop {
        let exited = child.try_wait().unwrap();
        match reader.read(&mut chunk) {
            Ok(n) if n > 0 => text.extend_from_slice(&chunk[..n]),
            Ok(_) if exited.is_some() => break exited.unwrap(),
            Err(e) if e.kind() != ErrorKind::WouldBlock => panic!("read the FIFO: {e}"),
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
        assert!(Instant::now() < give_up, "kvbench did not finish in 60 s");
    };
    assert!(status.success(), "kvbench failed: {status}");
    let meta = fs::symlink_metadata(&fifo).unwrap();
    assert!(
        meta.file_type().is_fifo(),
        "the FIFO was replaced by {:?}",
        meta.file_type()
    );
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("ALL STATS"), "the FIFO got: {text:?}");
    // Written once, at the end: one report, not one per phase.
    assert_eq!(text.matches("ALL STATS").count(), 1, "{text}");
    assert_eq!(names_in(&dir.0), ["report.fifo"]);
}

#[test]
fn a_fifo_nobody_reads_is_a_report_not_written_instead_of_a_hang() {
    let redis = Redis::start();
    let dir = TempDir::new("fifo-unread");
    let fifo = dir.path("r.json");
    make_fifo(&fifo);
    let mut child = kvbench_at(redis.port)
        .args(SHORT)
        .arg("--json-out-file")
        .arg(&fifo)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Before, kvbench blocked at the end on opening the FIFO, for ever.
    let give_up = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > give_up {
            let _ = child.kill();
            panic!("kvbench still waits on a FIFO nobody reads after 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nothing is reading"), "{stderr}");
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn a_device_node_given_to_json_out_file_stays_a_device() {
    let redis = Redis::start();
    let dir = TempDir::new("device");
    let device = dir.path("null");
    if !make_null_device(&device) {
        eprintln!("skipped: mknod needs root");
        return;
    }
    let text = dir.path("r.txt");
    let out = kvbench_at(redis.port)
        .args(SHORT)
        .arg("--json-out-file")
        .arg(&device)
        .arg("-o")
        .arg(&text)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = fs::symlink_metadata(&device).unwrap();
    assert!(
        meta.file_type().is_char_device(),
        "the device node was replaced by {:?}",
        meta.file_type()
    );
    assert!(fs::read_to_string(&text).unwrap().contains("ALL STATS"));
    assert_eq!(names_in(&dir.0), ["null", "r.txt"]);
}

#[test]
fn a_json_file_that_cannot_be_written_keeps_no_other_report_from_being_written() {
    let redis = Redis::start();
    let dir = TempDir::new("full");
    let full = dir.path("full");
    if !make_full_device(&full) {
        eprintln!("skipped: mknod needs root");
        return;
    }
    // Reports of an earlier run: each must be replaced, none left looking current.
    let (text, page) = (dir.path("r.txt"), dir.path("r.html"));
    fs::write(&text, "an old report\n").unwrap();
    fs::write(&page, "an old page\n").unwrap();
    let out = kvbench_at(redis.port)
        .args(SHORT)
        .arg("--json-out-file")
        .arg(&full)
        .arg("-o")
        .arg(&text)
        .arg("--html-out-file")
        .arg(&page)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The failure is named, and only that one.
    let failed: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("cannot write"))
        .collect();
    assert_eq!(failed.len(), 1, "{stderr}");
    assert!(failed[0].contains("--json-out-file"), "{stderr}");
    let report = fs::read_to_string(&text).unwrap();
    assert!(report.contains("ALL STATS"), "{report}");
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..html.len().min(80)]
    );
}

#[test]
fn a_symbolic_link_is_followed_to_its_file_and_stays_a_link() {
    let redis = Redis::start();
    let dir = TempDir::new("link");
    fs::create_dir(dir.path("real")).unwrap();
    fs::write(dir.path("real/r.json"), b"old").unwrap();
    std::os::unix::fs::symlink("real/r.json", dir.path("r.json")).unwrap();
    let out = kvbench_at(redis.port)
        .args(SHORT)
        .arg("--json-out-file")
        .arg(dir.path("r.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = fs::symlink_metadata(dir.path("r.json")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    let doc = read_json(&dir.path("real/r.json"));
    assert_eq!(doc["kvbench"]["complete"], true);
    assert_eq!(names_in(&dir.path("real")), ["r.json"]);
}

/// Runs kvbench with `args` and asserts it exited 2 naming `flag`, without
/// opening a single connection to the server.
fn assert_refused_before_connecting(args: &[OsString], flag: &str) {
    let redis = Redis::start();
    let all: Vec<OsString> = SHORT
        .iter()
        .map(OsString::from)
        .chain(args.iter().cloned())
        .collect();
    let stderr = refused_before_connecting(&redis, all);
    assert!(stderr.contains(flag), "{stderr}");
}

#[test]
fn the_same_file_for_text_and_json_exits_2_before_connecting() {
    let dir = TempDir::new("same");
    let spelled_twice = [
        "-o".into(),
        dir.path("r").into(),
        "--json-out-file".into(),
        dir.0.join(".").join("r").into(),
    ];
    assert_refused_before_connecting(&spelled_twice, "--json-out-file");
    assert!(names_in(&dir.0).is_empty());
}

#[test]
fn an_output_in_a_missing_directory_exits_2_before_connecting() {
    let dir = TempDir::new("missing");
    let missing = dir.path("no/such/dir");
    for flag in ["-o", "--json-out-file", "--hdr-file-prefix"] {
        let path = missing.join("r");
        let named = if flag == "-o" { "--out-file" } else { flag };
        assert_refused_before_connecting(&[flag.into(), path.into()], named);
    }
}

/// A read-only tmpfs mounted on a directory of the test's own, unmounted on drop.
struct ReadOnlyMount(std::path::PathBuf);

impl ReadOnlyMount {
    /// `None` when this process may not mount (it is not root).
    fn at(dir: &Path) -> Option<ReadOnlyMount> {
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs"])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| ReadOnlyMount(dir.to_path_buf()))
    }
}

impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn an_output_on_a_read_only_filesystem_exits_2_before_connecting() {
    let dir = TempDir::new("read-only");
    let ro = dir.path("ro");
    fs::create_dir(&ro).unwrap();
    let Some(_mount) = ReadOnlyMount::at(&ro) else {
        eprintln!("skipped: mounting a read-only tmpfs needs root");
        return;
    };
    let redis = Redis::start();
    let mut args: Vec<OsString> = SHORT.iter().map(OsString::from).collect();
    args.push("--json-out-file".into());
    args.push(ro.join("r.json").into());
    let stderr = refused_before_connecting(&redis, args);
    assert!(
        stderr.contains("--json-out-file") && stderr.contains("Read-only file system"),
        "{stderr}"
    );
}

#[test]
fn json_on_stdout_is_one_whole_document_and_the_text_goes_to_stderr() {
    let redis = Redis::start();
    let out = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "2",
            "-n",
            "300",
            "-x",
            "2",
            "--json-out-file",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Read whole: one document, written once, after the last run.
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document: {e}"));
    assert_eq!(doc["kvbench"]["complete"], true);
    assert_eq!(doc["kvbench"]["runs"].as_array().map(Vec::len), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("AGGREGATED AVERAGE RESULTS"), "{stderr}");
    // With --out-file the text goes there, as ever.
    let dir = TempDir::new("stdout-json");
    let text = dir.path("run.txt");
    let out = kvbench_at(redis.port)
        .args(SHORT)
        .args(["--json-out-file", "-", "--out-file", text.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let _: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(fs::read_to_string(&text).unwrap().contains("ALL STATS"));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("ALL STATS"));
}
