//! The progress display against a real redis-server: without a terminal a
//! plain line after the first second of each phase and then every
//! `--progress-interval` seconds, none with 0; every line labels its times
//! (`run 1/3 1s/5s · all 7s/18s`: the phase's elapsed and planned, the whole
//! plan's); in a pseudo-terminal of 80 columns a line redrawn in place that
//! never grows past the width, and keeps every field on a wide one.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{Redis, assert_success, kvbench_at};

/// A light load: one connection; progress does not depend on the rate.
const LOAD: [&str; 4] = ["-t", "1", "-c", "1"];

/// The periodic lines of a one-run plan (the phase summary reads `[RUN #1]`).
fn progress_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("run 1/1 "))
        .collect()
}

/// Seconds of `12s` or `1m05s`.
fn seconds(text: &str) -> u64 {
    let text = text.trim_start_matches('~');
    match text.split_once('m') {
        Some((m, s)) => m.parse::<u64>().unwrap() * 60 + seconds(s),
        None => text.strip_suffix('s').unwrap().parse().unwrap(),
    }
}

/// The times of a progress line: the phase's name, its elapsed and planned
/// seconds, and the plan's.
#[derive(Debug, PartialEq)]
struct Times {
    phase: String,
    elapsed: u64,
    planned: u64,
    all_elapsed: u64,
    all_planned: u64,
}

fn times(line: &str) -> Times {
    let head = line.split(" | ").next().unwrap();
    let (phase_part, all_part) = head
        .split_once(" · all ")
        .unwrap_or_else(|| panic!("no ' · all ' in {line:?}"));
    let (phase, pair) = phase_part.rsplit_once(' ').unwrap();
    let split = |pair: &str| {
        let (a, b) = pair.split_once('/').unwrap_or_else(|| panic!("{line:?}"));
        (seconds(a), seconds(b))
    };
    let (elapsed, planned) = split(pair);
    let (all_elapsed, all_planned) = split(all_part);
    Times {
        phase: phase.to_string(),
        elapsed,
        planned,
        all_elapsed,
        all_planned,
    }
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
    // After the first second, then due at 5, 10 and 15 s from the per-second
    // reports, and at 20 s when the run ends: the last full second's report
    // comes with the end of the run, so the end of the phase writes that line.
    let lines = progress_lines(&stderr);
    assert_eq!(lines.len(), 5, "{stderr}");
    assert!(
        !stderr.contains('\r'),
        "a log gets no carriage returns: {stderr:?}"
    );
    for line in &lines {
        assert!(line.contains(" ops/s") && line.contains("p99 "), "{line}");
        assert!(!line.contains("ETA"), "{line}");
    }
    let times: Vec<Times> = lines.iter().map(|l| times(l)).collect();
    // The phase's planned length is its --test-time, the plan's the same
    // (one run, no warm-up), give or take the second the start takes.
    for t in &times {
        assert_eq!((t.phase.as_str(), t.planned), ("run 1/1", 20), "{t:?}");
        assert!((20..=21).contains(&t.all_planned), "{t:?}");
        assert!(t.all_elapsed >= t.elapsed && t.elapsed <= 20, "{t:?}");
    }
    let elapsed: Vec<u64> = times.iter().map(|t| t.elapsed).collect();
    assert!((1..=2).contains(&elapsed[0]), "{elapsed:?}");
    assert!((4..=6).contains(&elapsed[1]), "{elapsed:?}");
    assert!(elapsed.windows(2).all(|w| w[0] < w[1]), "{elapsed:?}");
    assert!((19..=20).contains(&elapsed[4]), "{elapsed:?}");
    // The phase summary is still there, once.
    assert_eq!(stderr.matches("[RUN #1] ").count(), 1, "{stderr}");
}

#[test]
fn a_log_gets_a_line_after_the_first_second_of_each_phase() {
    let redis = Redis::start();
    // Shorter than the default 10 s interval: only the phases' first lines.
    let out = kvbench_at(redis.port)
        .args(LOAD)
        .args(["--warmup-time", "2", "--test-time", "3", "-x", "2"])
        .output()
        .unwrap();
    assert_success(&out, "--warmup-time 2 --test-time 3 -x 2");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<Times> = stderr
        .lines()
        .filter(|l| l.contains(" · all "))
        .map(times)
        .collect();
    let phases: Vec<(&str, u64)> = lines
        .iter()
        .map(|t| (t.phase.as_str(), t.planned))
        .collect();
    assert_eq!(
        phases,
        [("warm-up", 2), ("run 1/2", 3), ("run 2/2", 3)],
        "{stderr}"
    );
    for t in &lines {
        assert!((1..=2).contains(&t.elapsed), "{t:?}");
        // 2 + 3 + 3 s of phases, plus the pauses between them.
        assert!((8..=14).contains(&t.all_planned), "{t:?}");
    }
    assert!(
        lines
            .windows(2)
            .all(|w| w[0].all_elapsed < w[1].all_elapsed),
        "{lines:?}"
    );
    // Each phase's summary, once.
    for summary in ["[WARM-UP] ", "[RUN #1] ", "[RUN #2] "] {
        assert_eq!(stderr.matches(summary).count(), 1, "{summary}: {stderr}");
    }
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
    crate::common::without_csi(raw)
        .split(['\r', '\n'])
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
        .filter(|p| p.starts_with("run 1/1 "))
        .collect();
    // A redraw after each of seconds 1 to 3 (the 4th ends the run).
    assert!((2..=4).contains(&live.len()), "{pieces:#?}");
    for line in &live {
        let width = line.chars().count();
        assert!(width <= 80, "{width} columns: {line}");
        // The most important fields stay; the least important went.
        assert!(line.contains(" ops/s"), "{line}");
        let t = times(line);
        assert_eq!(t.planned, 4, "{line}");
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
        .filter(|p| p.starts_with("run 1/1 "))
        .collect();
    assert!((1..=3).contains(&live.len()), "{pieces:#?}");
    for line in &live {
        assert!(line.chars().count() <= 200, "{line}");
        for field in ["/3s · all ", " ops/s", "p99 ", " ops |", " thr 1 conns"] {
            assert!(line.contains(field), "{field:?} missing: {line}");
        }
    }
}
