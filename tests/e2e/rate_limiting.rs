//! memtier's `--rate-limiting` is a cap: at most N requests per second per
//! connection. A real redis-server is frozen (SIGSTOP) for 1 s mid-run; what
//! the freeze made the connections miss is skipped, as memtier skips it, so
//! no second of the per-second series carries more than N × connections
//! (it carried twice that when the missed requests were caught up), and the
//! seconds after the freeze are back at the cap.

use std::process::Stdio;
use std::thread;
use std::time::Duration;

use crate::common::machine;
use crate::common::{Redis, TempDir, info_u64, kvbench_at, read_json, u, wait_for_traffic};

const PER_CONNECTION: u64 = 200;
const CONNECTIONS: u64 = 2;
const SECONDS: u64 = 6;

fn signal(pid: u64, signal: libc::c_int) {
    // SAFETY: kill(2) on the pid of the redis-server this test started.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
}

#[test]
fn rate_limiting_skips_what_a_freeze_missed_and_no_second_exceeds_the_cap() {
    let _load = machine::alone();
    let redis = Redis::start();
    let pid = info_u64(redis.port, "server", "process_id");
    let dir = TempDir::new("rate-limiting-freeze");
    let json = dir.path("r.json");
    let load = format!(
        "-t 1 -c {CONNECTIONS} --rate-limiting {PER_CONNECTION} --test-time {SECONDS} --ratio 1:1 --key-maximum 1000"
    );
    let mut child = kvbench_at(redis.port)
        .args(load.split_whitespace())
        .args(["--json-out-file", json.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kvbench");
    wait_for_traffic(redis.port, &mut child);
    // About 1.5 s into the 6 s run: the freeze ends at about 2.5 s, leaving
    // three whole seconds after it.
    thread::sleep(Duration::from_millis(1500));
    signal(pid, libc::SIGSTOP);
    thread::sleep(Duration::from_secs(1));
    signal(pid, libc::SIGCONT);
    let out = child.wait_with_output().expect("wait for kvbench");
    // A freeze is a fault the verdict may name (its exit code is not this
    // test's matter), but the report is written.
    let doc = read_json(&json);
    let totals = &doc["ALL STATS"]["Totals"];
    let series: Vec<u64> = totals["Time-Serie"]
        .as_object()
        .unwrap()
        .values()
        .map(|s| u(&s["Count"]))
        .collect();
    eprintln!(
        "per-second counts: {series:?}; {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every reply the series counts, the server executed.
    let calls = redis.calls("set") + redis.calls("get");
    assert_eq!(
        series.iter().sum::<u64>(),
        calls,
        "series vs server: {series:?}"
    );

    // The cap: a connection sends at most its share in any second; the series
    // counts replies by their arrival, so a second may also hold the one
    // reply per connection (pipeline 1) sent in the second before it.
    let cap = PER_CONNECTION * CONNECTIONS;
    let bound = cap + CONNECTIONS;
    assert!(
        series.iter().all(|&n| n <= bound),
        "a second above {cap} (+{CONNECTIONS} carried over): {series:?}"
    );
    // The freeze shows: a second at most 3/4 full (1 s of freeze spans two).
    let lowest = series.iter().take(SECONDS as usize).min().copied().unwrap();
    assert!(
        lowest <= cap * 3 / 4,
        "no second shows the freeze: {series:?}"
    );
    // The seconds after it are back at the cap, not below it: the last two
    // whole seconds of the run.
    for n in &series[SECONDS as usize - 2..SECONDS as usize] {
        assert!(
            *n >= cap * 9 / 10,
            "a second after the freeze at {n}: {series:?}"
        );
    }
    // And in all: the run lost about one second's share to the freeze, not
    // more (the skip costs nothing after it), and caught none of it up.
    let total = series.iter().sum::<u64>();
    assert!(
        (cap * (SECONDS - 2)..=cap * (SECONDS - 1) + cap / 4).contains(&total),
        "{total} replies in {SECONDS} s with a 1 s freeze: {series:?}"
    );
}
