//! Runs that lose their connections, or whose server stays stalled past the
//! deadline, end to end against a real redis-server: the open-loop schedule of a
//! connection that is down is kept (its requests are sent late, or counted as
//! never sent with their wait reported beside the replies), a timed run lasts until its
//! deadline and says it is incomplete when connections were given up, and the
//! run time leaves the drain out.
//!
//! Each load here has the machine to itself (see [`machine::alone`]), so that
//! another test's CPU use does not show up as this run's lateness on a small
//! machine.

use std::fs::File;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Duration;

use crate::common::machine;
use crate::common::{
    Redis, TempDir, ask, decode_histogram, f, parse_commandstats, pipeline, read_json,
    row_histogram, u, wait_for_traffic,
};
use hdrhistogram::Histogram;
use serde_json::Value;

/// Every run here: 1 000 requests/s over two connections of one thread for 4 s,
/// constant arrivals, so exactly 4 000 requests fall due before the deadline.
const RATE_LOAD: &str = "--rate 1000 -t 1 -c 2 --test-time 4 --ratio 1:1";
const SCHEDULED: u64 = 4000;
const RUN_MS: u64 = 4000;

/// kvbench in the background (histograms kept in the JSON), writing `r.json`,
/// `r.txt` and its stderr into `dir`.
fn spawn(port: u16, args: &str, dir: &TempDir) -> Child {
    Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["-s", "127.0.0.1", "-p", &port.to_string()])
        .args(["--json-out-file", dir.path("r.json").to_str().unwrap()])
        .args(["-o", dir.path("r.txt").to_str().unwrap()])
        .args(args.split_whitespace())
        .env_remove("KVBENCH_AUTH")
        .stdout(Stdio::null())
        .stderr(File::create(dir.path("stderr.txt")).unwrap())
        .spawn()
        .expect("start kvbench")
}

/// Waits for kvbench. A run that still offered the load asked for exits 0;
/// one that did not (`invalid`: the verdict reason expected) is a finding
/// too, reported in full, and exits 3 with the verdict naming why.
fn finish(mut child: Child, dir: &TempDir, invalid: Option<&str>) -> (Value, String) {
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(dir.path("stderr.txt")).unwrap();
    let text = std::fs::read_to_string(dir.path("r.txt")).unwrap();
    let doc = read_json(&dir.path("r.json"));
    let verdict = &doc["kvbench"]["verdict"];
    match invalid {
        None => {
            assert!(status.success(), "kvbench exited {status}:\n{stderr}");
            assert_eq!(verdict["valid"], true, "{verdict}");
        }
        Some(kind) => {
            assert_eq!(status.code(), Some(3), "kvbench exited {status}:\n{stderr}");
            let reasons = verdict["reasons"].as_array().unwrap();
            assert!(reasons.iter().any(|r| r["kind"] == kind), "{verdict}");
            assert!(text.starts_with("INVALID RESULT:"), "{text}");
        }
    }
    (doc, text)
}

/// The ids of kvbench's benchmark connections (their last command was a SET or GET).
fn benchmark_clients(port: u16) -> Vec<String> {
    ask(port, &["CLIENT", "LIST"])
        .lines()
        .filter(|l| l.contains(" cmd=set ") || l.contains(" cmd=get "))
        .filter_map(|l| l.strip_prefix("id=")?.split(' ').next().map(String::from))
        .collect()
}

/// The server's SET + GET calls so far.
fn server_calls(port: u16) -> u64 {
    let stats = parse_commandstats(&ask(port, &["INFO", "commandstats"]));
    ["set", "get"]
        .iter()
        .map(|c| stats.get(*c).map_or(0, |s| s.0))
        .sum()
}

/// `open_loop.never_sent_wait.Totals` of a run, decoded.
fn never_sent_waits(run: &Value) -> Histogram<u64> {
    let block = &run["open_loop"]["never_sent_wait"]["Totals"];
    decode_histogram(block["Compressed Histogram"].as_str().unwrap())
}

/// Samples of `h` at or above `us` microseconds.
fn samples_at_least(h: &Histogram<u64>, us: u64) -> u64 {
    h.iter_recorded()
        .filter(|v| v.value_iterated_to() >= us)
        .map(|v| v.count_at_value())
        .sum()
}

/// What a finished rate run reports about its requests.
struct Accounting {
    replies: u64,
    never_sent: u64,
    lost: u64,
    run_ms: u64,
    /// The replies' response times (the memtier section's histogram).
    histogram: Histogram<u64>,
    /// The requests never sent: deadline − intended send time.
    never_sent_waits: Histogram<u64>,
}

impl Accounting {
    fn of(doc: &Value) -> Accounting {
        let run = &doc["kvbench"]["runs"][0];
        let totals = &doc["ALL STATS"]["Totals"];
        Accounting {
            replies: u(&totals["Count"]),
            never_sent: u(&run["open_loop"]["never_sent"]),
            lost: u(&run["errors"]["lost_requests"]),
            run_ms: u(&run["duration_ms"]),
            histogram: row_histogram(totals),
            never_sent_waits: never_sent_waits(run),
        }
    }

    /// Every request the schedule made due is a reply, lost in flight, or never
    /// sent, and the run time is the test time (the drain is apart).
    fn assert_balanced(&self, port: u16) {
        assert_eq!(
            self.replies + self.never_sent + self.lost,
            SCHEDULED,
            "replies {} + never sent {} + lost {} against {SCHEDULED} due",
            self.replies,
            self.never_sent,
            self.lost
        );
        assert!(
            self.run_ms.abs_diff(RUN_MS) <= 2,
            "run time {} ms for --test-time 4",
            self.run_ms
        );
        // The server executed every reply kvbench counted, and at most the lost
        // ones besides (executed, but their connection was killed first).
        let calls = server_calls(port);
        assert!(
            (self.replies..=self.replies + self.lost).contains(&calls),
            "server calls {calls} against {} replies and {} lost",
            self.replies,
            self.lost
        );
        // The section's histogram holds the replies; the requests never sent
        // are beside them, in kvbench's own block.
        assert_eq!(
            self.histogram.len(),
            self.replies,
            "response-time samples against replies"
        );
        assert_eq!(
            self.never_sent_waits.len(),
            self.never_sent,
            "never_sent_wait samples against never sent"
        );
    }
}

#[test]
fn a_connection_killed_in_a_rate_run_keeps_its_schedule_and_the_warning_names_it() {
    let _load = machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("lost-one");
    let mut child = spawn(redis.port, &format!("{RATE_LOAD} --no-reconnect"), &dir);
    wait_for_traffic(redis.port, &mut child);
    thread::sleep(Duration::from_millis(1500));
    let clients = benchmark_clients(redis.port);
    assert_eq!(clients.len(), 2, "benchmark connections: {clients:?}");
    assert_eq!(redis.command(&["CLIENT", "KILL", "ID", &clients[0]]), b"1");
    let (doc, text) = finish(child, &dir, Some("connections_lost"));
    let a = Accounting::of(&doc);
    a.assert_balanced(redis.port);
    // The killed connection had 500 requests/s due for the rest of the run.
    assert!(
        (500..=1900).contains(&a.never_sent),
        "never sent {}",
        a.never_sent
    );
    // Those due more than 1 s before the deadline waited at least 1 s; only
    // the last second's 500 did not.
    let slow = samples_at_least(&a.never_sent_waits, 1_000_000);
    assert!(
        slow + 510 >= a.never_sent && slow <= a.never_sent,
        "{slow} samples of 1 s or more, {} never sent",
        a.never_sent
    );
    let run = &doc["kvbench"]["runs"][0];
    assert_eq!(u(&run["connections_down_at_end"]), 1);
    assert_eq!(run["incomplete"]["reason"], "connections_lost", "{run}");
    assert_eq!(doc["kvbench"]["complete"], false);
    assert!(
        text.contains("Incomplete: RUN #1: 1 connection(s)"),
        "{text}"
    );
    let warning = doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "rate_not_met")
        .unwrap_or_else(|| panic!("no rate_not_met warning: {}", doc["kvbench"]["warnings"]));
    let message = warning["message"].as_str().unwrap();
    assert!(message.contains("Lost connections"), "{message}");
    assert!(
        !message.contains("The server (or the path to it)"),
        "{message}"
    );
}

#[test]
fn a_rate_run_whose_connections_all_died_lasts_its_test_time_and_is_incomplete() {
    let _load = machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("lost-all");
    let mut child = spawn(redis.port, &format!("{RATE_LOAD} --no-reconnect"), &dir);
    wait_for_traffic(redis.port, &mut child);
    thread::sleep(Duration::from_millis(1500));
    // Both benchmark connections and the control connection.
    assert_eq!(redis.command(&["CLIENT", "KILL", "TYPE", "normal"]), b"3");
    let (doc, text) = finish(child, &dir, Some("connections_lost"));
    let a = Accounting::of(&doc);
    a.assert_balanced(redis.port);
    assert!(
        (1000..=3600).contains(&a.never_sent),
        "never sent {}",
        a.never_sent
    );
    // The rate is over the whole test time, not over the 1.5 s that had replies.
    let achieved = f(&doc["kvbench"]["runs"][0]["open_loop"]["achieved_ops_per_sec"]);
    let expected = a.replies as f64 * 1000.0 / a.run_ms as f64;
    assert!(
        (achieved - expected).abs() <= 0.01 * expected && achieved < 750.0,
        "achieved {achieved} for {} replies in {} ms",
        a.replies,
        a.run_ms
    );
    assert_eq!(
        u(&doc["ALL STATS"]["Runtime"]["Total duration"]),
        a.run_ms,
        "Runtime"
    );
    // The backlog counts what fell due on the closed connections: at the end,
    // exactly the requests never sent.
    let backlog = doc["kvbench"]["runs"][0]["open_loop"]["backlog_per_second"]
        .as_array()
        .unwrap()
        .iter()
        .map(u)
        .collect::<Vec<_>>();
    assert!(
        backlog.last().unwrap().abs_diff(a.never_sent) <= 2,
        "backlog {backlog:?}, never sent {}",
        a.never_sent
    );
    assert!(backlog.windows(2).all(|w| w[0] <= w[1]), "{backlog:?}");
    assert_eq!(u(&doc["kvbench"]["runs"][0]["connections_down_at_end"]), 2);
    assert_eq!(doc["kvbench"]["complete"], false);
    assert!(
        text.contains("Incomplete: RUN #1: 2 connection(s)"),
        "{text}"
    );
}

#[test]
fn connections_killed_and_reconnected_send_what_fell_due_late_and_timed_from_its_schedule() {
    let _load = machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("lost-back");
    let mut child = spawn(redis.port, RATE_LOAD, &dir);
    wait_for_traffic(redis.port, &mut child);
    thread::sleep(Duration::from_millis(1500));
    // Both benchmark connections and the control connection.
    assert_eq!(redis.command(&["CLIENT", "KILL", "TYPE", "normal"]), b"3");
    let (doc, _) = finish(child, &dir, None);
    let a = Accounting::of(&doc);
    a.assert_balanced(redis.port);
    // Back after the first backoff (0.1 s): the requests due meanwhile (about 50
    // per connection) went out late, and those due in its first 80 ms waited
    // 20 ms or more, counted from their intended times.
    assert!(
        a.never_sent <= 2,
        "never sent {} after reconnecting",
        a.never_sent
    );
    let late = samples_at_least(&a.histogram, 20_000);
    assert!(
        (30..=1000).contains(&late),
        "{late} response times of 20 ms or more"
    );
    assert_eq!(u(&doc["kvbench"]["errors"]["reconnects"]), 2);
    assert_eq!(doc["kvbench"]["complete"], true);
    assert!(doc["kvbench"]["runs"][0]["incomplete"].is_null());
}

#[test]
fn the_backlog_counts_what_falls_due_while_connections_are_reconnecting() {
    let _load = machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("reconnecting");
    // 5 s, so that the connections come back (backoff 0.1, 0.2, 0.4, 0.8, 1.6 s)
    // well before the deadline.
    let load = "--rate 1000 -t 1 -c 2 --test-time 5 --ratio 1:1";
    let mut child = spawn(redis.port, load, &dir);
    wait_for_traffic(redis.port, &mut child);
    thread::sleep(Duration::from_millis(800));
    // A password makes every reconnect fail its handshake (-NOAUTH) until it
    // is removed 2 s later: meanwhile the connections are reconnecting.
    pipeline(
        redis.port,
        &[
            &["CONFIG", "SET", "requirepass", "secret"][..],
            &["CLIENT", "KILL", "TYPE", "normal"][..],
        ],
    );
    thread::sleep(Duration::from_millis(2000));
    pipeline(
        redis.port,
        &[
            &["AUTH", "secret"][..],
            &["CONFIG", "SET", "requirepass", ""][..],
        ],
    );
    let (doc, _) = finish(child, &dir, None);
    let run = &doc["kvbench"]["runs"][0];
    let backlog: Vec<u64> = run["open_loop"]["backlog_per_second"]
        .as_array()
        .unwrap()
        .iter()
        .map(u)
        .collect();
    // Down for about 2 s of 1 000 requests/s: at the end of a second in the
    // outage, its requests due so far were waiting (it read 0 while they did).
    let peak = backlog.iter().copied().max().unwrap();
    assert!((800..=3500).contains(&peak), "backlog {backlog:?}");
    // Back before the deadline: what fell due was sent late, not lost.
    assert!(u(&run["errors"]["refused"]) >= 2, "{}", run["errors"]);
    assert!(
        u(&run["open_loop"]["never_sent"]) <= 2 && *backlog.last().unwrap() <= 2,
        "backlog {backlog:?}, never sent {}",
        run["open_loop"]["never_sent"]
    );
    let replies = u(&doc["ALL STATS"]["Totals"]["Count"]);
    let lost = u(&run["errors"]["lost_requests"]);
    let never_sent = u(&run["open_loop"]["never_sent"]);
    assert_eq!(replies + lost + never_sent, 5000);
    // The late requests' response times count from their intended times.
    let late = samples_at_least(&row_histogram(&doc["ALL STATS"]["Totals"]), 1_000_000);
    assert!(
        (500..=3500).contains(&late),
        "{late} response times of 1 s or more"
    );
}

#[test]
fn requests_a_stalled_server_kept_unsent_past_the_deadline_are_reported_with_their_wait() {
    let _load = machine::alone();
    let redis = Redis::start_with(&["--enable-debug-command", "local"]);
    let dir = TempDir::new("stall-end");
    // One connection, pipeline 1: once its request is stuck, nothing else goes.
    let mut child = spawn(redis.port, "--rate 1000 -t 1 -c 1 --test-time 3", &dir);
    wait_for_traffic(redis.port, &mut child);
    thread::sleep(Duration::from_millis(800));
    // The server sleeps past the deadline; the stuck reply comes in the drain.
    assert_eq!(redis.command(&["DEBUG", "SLEEP", "2.6"]), b"OK");
    let (doc, text) = finish(child, &dir, Some("never_sent"));
    let run = &doc["kvbench"]["runs"][0];
    let totals = &doc["ALL STATS"]["Totals"];
    let never_sent = u(&run["open_loop"]["never_sent"]);
    let replies = u(&totals["Count"]);
    assert!(
        (1000..=2500).contains(&never_sent),
        "never sent {never_sent}"
    );
    assert_eq!(
        replies + never_sent + u(&run["errors"]["lost_requests"]),
        3000
    );
    // memtier's fields hold the replies; the requests never sent are beside
    // them with their wait, which shows the stall: most waited for the server.
    assert_eq!(row_histogram(totals).len(), replies);
    let waits = &run["open_loop"]["never_sent_wait"]["Totals"];
    assert_eq!(u(&waits["Count"]), never_sent);
    let p50 = f(&waits["p50.00"]);
    assert!(
        (100.0..=2700.0).contains(&p50),
        "never-sent wait p50 {p50} ms"
    );
    let mean = f(&waits["Average Latency"]);
    assert!(
        (100.0..=2700.0).contains(&mean),
        "never-sent wait mean {mean} ms"
    );
    assert!(
        text.contains(&format!(
            "never sent {never_sent} (waited until the deadline: mean "
        )),
        "{text}"
    );
    // The run time is the test time; the wait for the stuck reply is apart.
    let run_ms = u(&run["duration_ms"]);
    assert!(run_ms.abs_diff(3000) <= 2, "run time {run_ms} ms");
    let drain_ms = u(&run["drain_ms"]);
    assert!((100..=2700).contains(&drain_ms), "drain {drain_ms} ms");
    assert!(text.contains("Drain: RUN #1 waited"), "{text}");
}
