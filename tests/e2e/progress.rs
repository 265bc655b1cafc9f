//! The progress display against a real redis-server: without a terminal a
//! plain line every `--progress-interval` seconds and none with 0; in a
//! pseudo-terminal of 80 columns a line redrawn in place that never grows
//! past the width, and keeps every field on a wide one.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{Redis, assert_success, kvbench_at};

/// A light load: one connection; progress does not depend on the rate.
const LOAD: [&str; 4] = ["-t", "1", "-c", "1"];

/// The periodic lines of a one-run plan (the phase summary reads `[RUN #1]`).
fn progress_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("[RUN #1 of 1"))
        .collect()
}

/// The `NN%` of a progress line.
fn percent(line: &str) -> f64 {
    let end = line.find("%]").unwrap();
    let start = line[..end].rfind(' ').unwrap() + 1;
    line[start..end].parse().unwrap()
}

#[test]
fn a_log_gets_a_line_every_interval() {
    let redis = Redis::start();
    let out = kvbench_at(redis.port)
        .args(LOAD)
        .args(["--test-time", "20", "--progress-interval", "5"])
        .output()
        .unwrap();
    assert_success(&out, "--test-time 20 --progress-interval 5");
    let stderr = String::from_utf8(out.stderr).unwrap();
    // Due at 5, 10 and 15 s from the per-second reports, and at 20 s when the
    // run ends: the last full second's report comes with the end of the run,
    // so the end of the phase writes that line.
    let lines = progress_lines(&stderr);
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(
        !stderr.contains('\r'),
        "a log gets no carriage returns: {stderr:?}"
    );
    for line in &lines {
        assert!(
            line.contains(" ops/s") && line.contains("ETA") && line.contains("plan "),
            "{line}"
        );
    }
    let percents: Vec<f64> = lines.iter().map(|l| percent(l)).collect();
    assert!((20.0..=30.0).contains(&percents[0]), "{percents:?}");
    assert!(percents.windows(2).all(|w| w[0] < w[1]), "{percents:?}");
    assert_eq!(percents[3], 100.0, "{percents:?}");
    // The phase summary is still there, once.
    assert_eq!(stderr.matches("[RUN #1] ").count(), 1, "{stderr}");
}

#[test]
fn an_interval_of_zero_writes_no_lines_but_the_summary() {
    let redis = Redis::start();
    let out = kvbench_at(redis.port)
        .args(LOAD)
        .args(["--test-time", "3", "--progress-interval", "0"])
        .output()
        .unwrap();
    assert_success(&out, "--progress-interval 0");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(progress_lines(&stderr).len(), 0, "{stderr}");
    assert_eq!(stderr.matches("[RUN #1] ").count(), 1, "{stderr}");
}

/// Runs kvbench with stderr on a pseudo-terminal of `columns` columns (python3's
/// `pty`, the size set with `TIOCSWINSZ`) and returns what the terminal got.
fn on_terminal(port: u16, columns: u16, args: &[&str]) -> String {
    const DRIVER: &str = r#"
import fcntl, os, pty, struct, subprocess, sys, termios
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(sys.argv[1]), 0, 0))
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
seen = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
sys.stdout.buffer.write(seen)
sys.exit(child.wait())
"#;
    let mut command = Command::new("python3");
    command
        .args([
            "-c",
            DRIVER,
            &columns.to_string(),
            env!("CARGO_BIN_EXE_kvbench"),
        ])
        .args([
            "-s",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "--hide-histogram",
        ])
        .args(LOAD)
        .args(args)
        .env_remove("KVBENCH_AUTH")
        .stderr(Stdio::inherit());
    let out = command.output().expect("python3 runs the pseudo-terminal");
    let _ = std::io::stderr().flush();
    assert!(
        out.status.success(),
        "kvbench on a terminal failed: {}",
        out.status
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The terminal's text without ANSI control sequences, cut at `\r` and `\n`.
fn visible_pieces(raw: &str) -> Vec<String> {
    let mut text = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, then one final letter.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        text.push(c);
    }
    text.split(['\r', '\n'])
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_terminal_line_never_grows_past_80_columns() {
    let redis = Redis::start();
    let raw = on_terminal(redis.port, 80, &["--test-time", "4"]);
    assert!(raw.contains("\x1b[K"), "redrawn in place: {raw:?}");
    let pieces = visible_pieces(&raw);
    let live: Vec<&String> = pieces
        .iter()
        .filter(|p| p.starts_with("[RUN #1 of 1"))
        .collect();
    // A redraw after each of seconds 1 to 3 (the 4th ends the run).
    assert!((2..=4).contains(&live.len()), "{pieces:#?}");
    for line in &live {
        let width = line.chars().count();
        assert!(width <= 80, "{width} columns: {line}");
        // The most important fields stay; the least important went.
        assert!(line.contains(" ops/s"), "{line}");
        assert!(!line.contains(" conns"), "{line}");
    }
}

#[test]
fn a_wide_terminal_gets_every_field() {
    let redis = Redis::start();
    let raw = on_terminal(redis.port, 200, &["--test-time", "3"]);
    let pieces = visible_pieces(&raw);
    let live: Vec<&String> = pieces
        .iter()
        .filter(|p| p.starts_with("[RUN #1 of 1"))
        .collect();
    assert!((1..=3).contains(&live.len()), "{pieces:#?}");
    for line in &live {
        assert!(line.chars().count() <= 200, "{line}");
        for field in ["ETA", " ops/s", "p99 ", "plan ", " ops |", " thr 1 conns"] {
            assert!(line.contains(field), "{field:?} missing: {line}");
        }
    }
}
