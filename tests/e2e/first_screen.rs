//! The first screen after a run: on an 80×40 terminal (stdout and stderr on
//! one pseudo-terminal, python3's `pty`) the report ends with the verdict,
//! the headline figures and every warning, all on the last screen, and no
//! line is wider than the terminal; the latency distribution is not
//! printed there. Piped, stdout is memtier's layout, unchanged.

use std::process::Command;

use crate::common::Redis;

const COLUMNS: usize = 80;
const ROWS: usize = 40;

/// A 2 s run at 1:1 against `port` (short, so it draws warnings), on a
/// pseudo-terminal of `ROWS` × `COLUMNS`; what the terminal showed, one
/// entry per line as it reads (a carriage return rewrites its line).
fn on_terminal(port: u16) -> Vec<String> {
    const DRIVER: &str = r#"
import fcntl, os, pty, struct, subprocess, sys, termios
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", int(sys.argv[1]), int(sys.argv[2]), 0, 0))
child = subprocess.Popen(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
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
    let out = Command::new("python3")
        .args(["-c", DRIVER, &ROWS.to_string(), &COLUMNS.to_string()])
        .arg(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &port.to_string()])
        .args(["-t", "1", "-c", "2", "--test-time", "2", "--ratio", "1:1"])
        .env_remove("COLUMNS")
        .env_remove("KVBENCH_AUTH")
        .output()
        .expect("python3 runs the pseudo-terminal");
    assert!(
        out.status.success(),
        "kvbench on a terminal: {}",
        out.status
    );
    screen_lines(&String::from_utf8_lossy(&out.stdout))
}

/// The lines a terminal shows for `raw`: control sequences dropped, each
/// line what follows its last carriage return.
fn screen_lines(raw: &str) -> Vec<String> {
    let text = crate::common::without_csi(raw);
    let mut lines: Vec<String> = text
        .split('\n')
        .map(|l| {
            l.rsplit('\r')
                .find(|p| !p.is_empty())
                .unwrap_or("")
                .to_string()
        })
        .collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

#[test]
fn the_verdict_and_every_warning_are_on_the_last_screen_of_a_terminal() {
    let redis = Redis::start();
    let lines = on_terminal(redis.port);
    let all = lines.join("\n");
    for line in &lines {
        assert!(
            line.chars().count() <= COLUMNS,
            "a line of {} columns: {line:?}\n{all}",
            line.chars().count()
        );
    }
    assert!(!all.contains("Request Latency Distribution"), "{all}");
    let last: Vec<&String> = lines.iter().rev().take(ROWS).collect();
    let last_screen: String = last.iter().rev().map(|l| format!("{l}\n")).collect();
    let warnings = all.matches("Warning: ").count();
    // A 2 s run against a server on this machine: short_run and same_machine.
    assert!(warnings >= 2, "{all}");
    assert_eq!(
        last_screen.matches("Warning: ").count(),
        warnings,
        "every warning on the last screen:\n{last_screen}"
    );
    assert!(last_screen.contains("Verdict: valid."), "{last_screen}");
    assert!(last_screen.contains("Result (ALL STATS):"), "{last_screen}");
    // The headline's Totals rate is the table's.
    let table_totals = lines
        .iter()
        .find(|l| l.starts_with("Totals ") && l.contains('.'))
        .expect("the table's Totals row");
    let rate = table_totals.split_whitespace().nth(1).unwrap();
    let headline = last_screen
        .lines()
        .rev()
        .find(|l| l.starts_with("Totals "))
        .expect("the headline's Totals row");
    assert_eq!(
        headline.split_whitespace().nth(1),
        Some(rate),
        "{last_screen}"
    );
}

#[test]
fn piped_stdout_keeps_memtiers_layout() {
    let redis = Redis::start();
    // Not `kvbench_at`, which hides the distribution.
    let out = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &redis.port.to_string()])
        .args(["-t", "1", "-c", "2", "--test-time", "2", "--ratio", "1:1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    // memtier's 124-column header, one line, and its distribution after
    // the warnings.
    let header = "Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency     p99 Latency   p99.9 Latency       KB/sec ";
    assert!(stdout.lines().any(|l| l == header), "{stdout}");
    let distribution = stdout
        .find("Request Latency Distribution")
        .expect("the distribution");
    let warning = stdout.find("Warning: ").expect("a warning");
    assert!(warning < distribution, "{stdout}");
    assert!(!stdout.contains("Verdict: valid."), "{stdout}");
}
