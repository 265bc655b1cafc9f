//! `make bench` works: its tiny variant runs both clients against a private
//! server and prints the side-by-side table. No number is asserted beyond being
//! a measurement (performance lives in `make bench`, not in tests).

use std::process::Command;

#[test]
fn the_bench_script_runs_both_tools_and_prints_the_table() {
    let out = Command::new("python3")
        .args([
            concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench.py"),
            "--quick",
            "--kvbench",
            env!("CARGO_BIN_EXE_kvbench"),
        ])
        .output()
        .expect("python3 is needed for scripts/bench.py; make test installs it");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bench.py failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    for workload in ["p1-50conns", "p16-50conns"] {
        for tool in ["kvbench", "redis-benchmark"] {
            let row = stdout
                .lines()
                .find(|l| l.starts_with(&format!("| {workload} | {tool} |")))
                .unwrap_or_else(|| panic!("no {workload} row for {tool}:\n{stdout}"));
            let ops: f64 = row.split('|').nth(3).unwrap().trim().parse().unwrap();
            assert!(ops > 0.0, "{row}");
        }
    }
    assert!(stdout.contains("kvbench / redis-benchmark"), "{stdout}");
    assert!(
        stdout.contains("| 2 |"),
        "the scaling table lacks the 2-thread row:\n{stdout}"
    );
}
