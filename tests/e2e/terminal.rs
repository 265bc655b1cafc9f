//! kvbench in an 80-column pseudo-terminal (python3's `pty`, the window size
//! set with `TIOCSWINSZ`, `COLUMNS` unset) against a real redis-server: no
//! line kvbench writes — progress redraws, phase lines, warnings, compare,
//! suite, sweep and merge — is wider than 80 columns, except the rows of
//! memtier's report table, and each warning appears once. Off a terminal
//! (a pipe, a file) every item stays one line.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Redis, TempDir, kvbench, kvbench_ok, read_json};

/// The terminal's width in every test here.
const COLUMNS: usize = 80;

/// Runs argv[2:] on a new pseudo-terminal of argv[1] columns; prints what it
/// wrote (stdout and stderr, as a terminal shows both) and exits with its code.
const PTY_RUN: &str = r#"
import os, pty, sys, struct, fcntl, termios
cols = int(sys.argv[1])
os.environ.pop("COLUMNS", None)
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
"#;

/// What kvbench wrote on an 80-column terminal; asserts it exited 0.
fn on_terminal(args: &[&str]) -> String {
    let out = Command::new("python3")
        .args(["-c", PTY_RUN, &COLUMNS.to_string()])
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args(args)
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("run python3");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "kvbench {args:?} on a terminal: {text}"
    );
    text
}

/// The lines a reader sees: the terminal's `\r\n` made `\n`, and each
/// progress redraw (`\r`, clear to the end of the line) a line of its own.
fn screen_lines(text: &str) -> Vec<String> {
    text.replace("\r\n", "\n")
        .split(['\n', '\r'])
        .map(|l| l.replace("\x1b[K", ""))
        .collect()
}

/// Asserts that every line fits the terminal, memtier's report table (from
/// its `====` rule to the blank line after it) left out.
fn assert_fits(text: &str, what: &str) {
    let mut in_memtier_table = false;
    let mut checked = 0;
    for line in screen_lines(text) {
        if line.starts_with("=====") {
            in_memtier_table = true;
        }
        if line.trim().is_empty() {
            in_memtier_table = false;
        }
        if in_memtier_table {
            continue;
        }
        checked += 1;
        assert!(
            line.chars().count() <= COLUMNS,
            "{what}: a line of {} columns on an {COLUMNS}-column terminal:\n{line}\n\nall of it:\n{text}",
            line.chars().count()
        );
    }
    assert!(checked > 3, "{what}: hardly any lines: {text}");
}

/// The text with every run of whitespace one space: a wrapped line read back
/// as the line it was.
fn flat(text: &str) -> String {
    text.replace("\x1b[K", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The messages of a document's warnings (a sweep's: its first cell's).
fn warning_messages(doc: &Value) -> Vec<String> {
    let warnings = doc["kvbench"]["warnings"]
        .as_array()
        .or_else(|| doc["sweep"]["cells"][0]["kvbench"]["warnings"].as_array())
        .expect("warnings in the JSON");
    warnings
        .iter()
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

/// Asserts that each of `doc`'s warnings is on the screen exactly once.
fn assert_each_warning_once(text: &str, doc: &Value, what: &str) {
    let messages = warning_messages(doc);
    assert!(!messages.is_empty(), "{what}: no warnings to count");
    let screen = flat(text);
    for m in messages {
        let m = flat(&m);
        assert_eq!(
            screen.matches(m.as_str()).count(),
            1,
            "{what}: warning not shown exactly once: {m}\n\n{text}"
        );
    }
}

/// A benchmark with warnings (6 keys for 400 requests, a run under a second).
fn warned_args<'a>(redis: &'a str, json: &'a str) -> Vec<&'a str> {
    vec![
        "-p",
        redis,
        "-t",
        "1",
        "-c",
        "2",
        "-n",
        "200",
        "--key-maximum",
        "5",
        "--hide-histogram",
        "--json-out-file",
        json,
    ]
}

#[test]
fn a_run_with_warnings_fits_the_terminal_and_says_each_warning_once() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-terminal-run");
    let json = dir.path("run.json");
    let port = redis.port.to_string();
    let text = on_terminal(&warned_args(&port, json.to_str().unwrap()));
    assert_fits(&text, "a run");
    let doc = read_json(&json);
    assert_each_warning_once(&text, &doc, "a run");
    // The prose was wrapped, not cut: a continuation line under a warning.
    assert!(text.contains("\n  "), "{text}");
    // memtier's 124-column table is stacked to fit: every rule fits.
    let rules: Vec<String> = screen_lines(&text)
        .into_iter()
        .filter(|l| l.starts_with("====="))
        .collect();
    assert!(rules.len() >= 2, "{text}");
    assert!(rules.iter().all(|r| r.len() <= COLUMNS), "{rules:?}");
}

#[test]
fn off_a_terminal_each_item_stays_one_line() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-terminal-file");
    let json = dir.path("run.json");
    let port = redis.port.to_string();
    let out = kvbench(&warned_args(&port, json.to_str().unwrap()));
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc = read_json(&json);
    for m in warning_messages(&doc) {
        // Whole, on one line, in the report and in stderr's log both.
        assert!(
            stdout.lines().any(|l| l == format!("Warning: {m}")),
            "{m}\n{stdout}"
        );
        assert!(
            stderr
                .lines()
                .any(|l| l == format!("kvbench: warning: {m}")),
            "{m}\n{stderr}"
        );
    }
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("Placement: ") && l.len() > COLUMNS)
    );
}

/// Two result files of the same workload against `redis`, in `dir`.
fn two_results(redis: &Redis, dir: &TempDir) -> (String, String) {
    let paths: Vec<String> = ["a.json", "b.json"]
        .iter()
        .map(|name| {
            let path = dir.path(name);
            kvbench_ok(
                redis.port,
                &["-t", "1", "-c", "2", "-n", "300", "--key-maximum", "500"]
                    .into_iter()
                    .chain(["--json-out-file", path.to_str().unwrap()])
                    .collect::<Vec<_>>(),
            );
            path.to_str().unwrap().to_string()
        })
        .collect();
    (paths[0].clone(), paths[1].clone())
}

#[test]
fn compare_fits_the_terminal_and_widens_with_wide_or_in_a_pipe() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-terminal-compare");
    let (a, b) = two_results(&redis, &dir);
    for layout in ["rows", "columns"] {
        let text = on_terminal(&["compare", "--layout", layout, &a, &b]);
        assert_fits(&text, &format!("compare --layout {layout}"));
        assert!(text.contains("vs baseline"), "{text}");
        assert!(text.contains("a.json") && text.contains("b.json"), "{text}");
    }
    // Stacked: the rows layout's figures and its verdicts in separate tables,
    // each row named by op and file.
    let text = on_terminal(&["compare", &a, &b]);
    let headers = screen_lines(&text)
        .into_iter()
        .filter(|l| l.starts_with("op "))
        .count();
    assert!(headers >= 2, "{text}");
    // --wide, and a pipe: the header on one line, wider than the terminal.
    let wide = on_terminal(&["compare", "--wide", &a, &b]);
    let piped = kvbench(&["compare", &a, &b]);
    let piped = String::from_utf8_lossy(&piped.stdout).into_owned();
    for (what, text) in [("--wide", &wide), ("a pipe", &piped)] {
        let header = screen_lines(text)
            .into_iter()
            .find(|l| l.starts_with("op "))
            .unwrap_or_else(|| panic!("{what}: no header: {text}"));
        assert!(
            header.len() > COLUMNS && header.ends_with("vs baseline"),
            "{what}: {header}"
        );
    }
}

#[test]
fn a_suite_fits_the_terminal() {
    let redis = Redis::start();
    let port = redis.port.to_string();
    let text = on_terminal(&[
        "suite", "-p", &port, "-t", "set,get", "-n", "2000", "-c", "2",
    ]);
    assert_fits(&text, "suite");
    let lines = screen_lines(&text);
    for test in ["SET", "GET"] {
        assert!(
            lines.iter().any(|l| l.starts_with(&format!("{test} "))),
            "{test}: {text}"
        );
    }
    // The plan's warning, once.
    assert_eq!(
        flat(&text).matches("without -r every __rand_int__").count(),
        1,
        "{text}"
    );
    // A pipe keeps the wide table, one line per test.
    let piped = kvbench(&["suite", "-p", &port, "-t", "set", "-n", "500", "-c", "2"]);
    let piped = String::from_utf8_lossy(&piped.stdout).into_owned();
    assert!(
        piped
            .lines()
            .any(|l| l.starts_with("SET ") && l.len() > COLUMNS),
        "{piped}"
    );
}

#[test]
fn a_sweep_fits_the_terminal_and_says_each_warning_once() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-terminal-sweep");
    let json = dir.path("sweep.json");
    let port = redis.port.to_string();
    let text = on_terminal(&[
        "-p",
        &port,
        "-t",
        "1",
        "-c",
        "1",
        "-n",
        "100",
        "--key-maximum",
        "10",
        "--pipeline",
        "1,4",
        "--hide-histogram",
        "--json-out-file",
        json.to_str().unwrap(),
    ]);
    assert_fits(&text, "a sweep");
    assert!(text.contains("SWEEP SUMMARY (2 of 2 cells)"), "{text}");
    assert!(text.contains("pipeline=4"), "{text}");
    assert_each_warning_once(&text, &read_json(&json), "a sweep");
}

/// Makes `doc` shard `index` of `count`, as the shard flags would.
fn set_shard(path: &Path, index: usize, count: usize) {
    let mut doc = read_json(path);
    doc["kvbench"]["shard"] = json!({
        "index": index, "count": count, "source": "flags", "host": format!("client{index}"),
        "start_at_ms": 1_700_000_000_000u64, "start_lag_ms": 0.25 * index as f64,
        "clock": {"offset_start_ms": 0.5, "offset_end_ms": 0.6, "rtt_ms": 0.1, "samples": 8},
    });
    doc["kvbench"]["runs"][0]["start_lag_ms"] = json!(0.25 * index as f64);
    std::fs::write(path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

#[test]
fn merge_fits_the_terminal() {
    let redis = Redis::start();
    let dir = TempDir::new("e2e-terminal-merge");
    let (a, b) = two_results(&redis, &dir);
    set_shard(Path::new(&a), 0, 2);
    set_shard(Path::new(&b), 1, 2);
    let text = on_terminal(&["merge", &a, &b]);
    assert_fits(&text, "merge");
    assert!(text.contains("Total QPS"), "{text}");
    assert!(
        text.contains("RUN #1") || text.contains("ALL STATS"),
        "{text}"
    );
}
