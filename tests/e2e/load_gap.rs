//! The load-gap measure against real redis-servers: a server killed mid-run
//! and left down, and one frozen by SIGSTOP, leave a time-bound closed-loop
//! run not valid (exit 3) with the gap's start, length and cause in the JSON
//! (`runs[i].load_gap`), the verdict and the text; a steady run has none.
//! The witness is the server's own clock of the fault: the test kills or
//! stops it, and the gap must sit where the test put the fault.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::{
    Redis, TempDir, f, free_port, kvbench_at, machine, read_json, redis_server, try_pipeline, u,
    wait_for_traffic,
};
use kvbench::protocol::value::Value as Reply;
use serde_json::Value;

/// A redis-server whose process the test holds, to kill or stop it.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let port = free_port();
        let child = redis_server(port, dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server ({e}); install it with `apt-get install -y redis-server`"));
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if try_pipeline(port, &[["PING"]]).is_ok_and(|r| r[0] == Reply::Simple("PONG".into())) {
                return server;
            }
            thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server on port {port} did not answer PING within 10 s");
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(
            unsafe { libc::kill(self.child.id() as libc::pid_t, signal) },
            0
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.signal(libc::SIGCONT);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// kvbench against `port` with `args`, in the background, writing `r.json`
/// and `r.txt` into `dir`.
fn spawn(port: u16, args: &str, dir: &TempDir) -> Child {
    kvbench_at(port)
        .args(["--json-out-file", dir.path("r.json").to_str().unwrap()])
        .args(["-o", dir.path("r.txt").to_str().unwrap()])
        .args(args.split_whitespace())
        .stdout(Stdio::null())
        .stderr(File::create(dir.path("stderr.txt")).unwrap())
        .spawn()
        .expect("start kvbench")
}

/// Exit code, JSON, text and stderr of a finished kvbench.
fn finish(mut child: Child, dir: &TempDir) -> (Option<i32>, Value, String, String) {
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(dir.path("stderr.txt")).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let text = std::fs::read_to_string(dir.path("r.txt")).unwrap_or_default();
    (status.code(), read_json(&dir.path("r.json")), text, stderr)
}

fn reasons(doc: &Value) -> Vec<&str> {
    doc["kvbench"]["verdict"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect()
}

/// The one gap of `RUN #1`, checked against the fault the test made.
fn the_gap(doc: &Value) -> &Value {
    let gaps = doc["kvbench"]["runs"][0]["load_gap"]["gaps"]
        .as_array()
        .unwrap_or_else(|| panic!("no load_gap: {}", doc["kvbench"]["runs"][0]));
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    &gaps[0]
}

fn kill_and_leave_down(engine: &str) {
    let dir = TempDir::new("gap-kill");
    let mut server = Server::start(&dir.0);
    let args = format!("-t 1 -c 4 --test-time 8 --io-engine {engine}");
    let mut kv = spawn(server.port, &args, &dir);
    wait_for_traffic(server.port, &mut kv);
    thread::sleep(Duration::from_secs(2));
    let killed = Instant::now();
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let (code, doc, text, stderr) = finish(kv, &dir);
    let after_kill = killed.elapsed().as_secs_f64();
    assert_eq!(code, Some(3), "{stderr}\n{text}");
    assert!(reasons(&doc).contains(&"load_gap"), "{:?}", reasons(&doc));
    let lg = &doc["kvbench"]["runs"][0]["load_gap"];
    let gap = the_gap(&doc);
    assert_eq!(gap["cause"], "server_down", "{lg}");
    assert_eq!(lg["open_at_end"], true, "{lg}");
    // Killed ~2 s in (later on a loaded machine), down to the 8 s deadline.
    let (start, length) = (f(&gap["start_s"]), f(&gap["length_s"]));
    assert!((1.5..=6.0).contains(&start), "gap starts at {start} s");
    assert!(
        (8.0 - start - 0.5..=8.0 - start + 0.5).contains(&length),
        "gap {length} s from {start} s in an 8 s run"
    );
    assert!(
        length <= after_kill,
        "gap {length} s, killed {after_kill} s ago"
    );
    // Every connection lost the rest of the run: share = length / 8 s.
    let share = f(&lg["share_percent"]);
    let expected = 100.0 * length / 8.0;
    assert!(
        (expected - 8.0..=expected + 8.0).contains(&share),
        "share {share} %, the gap alone is {expected} %"
    );
    assert_eq!(u(&lg["connection_gaps"]), 4, "{lg}");
    // Said in words where people look.
    assert!(text.contains("no load was applied"), "{text}");
    assert!(stderr.contains("server was down"), "{stderr}");
}

#[test]
fn a_server_killed_mid_run_and_left_down_is_a_load_gap_and_not_valid() {
    kill_and_leave_down("epoll");
}

#[test]
fn a_server_killed_mid_run_is_a_load_gap_under_io_uring_too() {
    let dir = TempDir::new("gap-ring-probe");
    let probe = kvbench_at(1)
        .args(["--io-engine", "uring", "-n", "1", "-o"])
        .arg(dir.path("x.txt"))
        .output()
        .unwrap();
    if String::from_utf8_lossy(&probe.stderr).contains("refuses io_uring") {
        eprintln!("skipped: this kernel refuses io_uring");
        return;
    }
    kill_and_leave_down("uring");
}

#[test]
fn a_three_second_freeze_in_a_five_second_run_is_named_and_not_valid() {
    let _alone = machine::alone();
    let dir = TempDir::new("gap-stop");
    let server = Server::start(&dir.0);
    let mut kv = spawn(server.port, "-t 1 -c 500 --test-time 6", &dir);
    wait_for_traffic(server.port, &mut kv);
    thread::sleep(Duration::from_secs(1));
    server.signal(libc::SIGSTOP);
    thread::sleep(Duration::from_secs(3));
    server.signal(libc::SIGCONT);
    let (code, doc, text, stderr) = finish(kv, &dir);
    assert_eq!(code, Some(3), "{stderr}\n{text}");
    assert!(reasons(&doc).contains(&"load_gap"), "{:?}", reasons(&doc));
    let gap = the_gap(&doc);
    assert_eq!(gap["cause"], "stalled");
    let length = f(&gap["length_s"]);
    // Stopped for 3 s as the test's clock saw it; the last reply before and
    // the first after add a little, a loaded machine's scheduling more.
    assert!((2.5..=4.0).contains(&length), "gap of {length} s");
    let lg = &doc["kvbench"]["runs"][0]["load_gap"];
    assert_eq!(lg["open_at_end"], false);
    let share = f(&lg["share_percent"]);
    assert!((30.0..=70.0).contains(&share), "share {share} %");
    assert!(stderr.contains("the run stalled"), "{stderr}");
    assert!(stderr.contains("no reply for"), "{stderr}");
}

#[test]
fn a_steady_run_has_no_load_gap_and_stays_valid() {
    let redis = Redis::start();
    let dir = TempDir::new("gap-steady");
    let kv = spawn(redis.port, "-t 1 -c 10 --test-time 3", &dir);
    let (code, doc, text, stderr) = finish(kv, &dir);
    assert_eq!(code, Some(0), "{stderr}\n{text}");
    let lg = &doc["kvbench"]["runs"][0]["load_gap"];
    assert_eq!(f(&lg["share_percent"]), 0.0, "{lg}");
    assert_eq!(u(&lg["connection_gaps"]), 0, "{lg}");
    assert_eq!(lg["gaps"].as_array().map(Vec::len), Some(0), "{lg}");
    // Connection time is 10 connections over the run time.
    let secs = f(&doc["kvbench"]["runs"][0]["duration_ms"]) / 1000.0;
    let time = f(&lg["connection_time_s"]);
    assert!(
        (10.0 * secs - 0.1..=10.0 * secs + 0.1).contains(&time),
        "{time} s of connection time over {secs} s"
    );
    assert!(!reasons(&doc).contains(&"load_gap"));
}
