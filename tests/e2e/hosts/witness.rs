//! The per-round table's columns against witnesses the test reads itself,
//! within 5 % both ways: two shards and a redis-server in one private
//! network namespace (so its loopback counts their traffic only), each
//! shard's CPU against `/proc/PID/stat` over the phase (and the rusage
//! `wait4` returns for the whole process as its upper bound), its
//! interface's bytes against the namespace's `lo` counters over the phase,
//! and the server's CPU and network against INFO read before and after the
//! set.

use std::collections::HashMap;
use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::netns::Lan;
use crate::common::{TempDir, f, read_json, u};

/// `INFO all` of the redis-server on 127.0.0.1:`port` in namespace `ns`.
fn info_in(ns: &str, port: u16) -> HashMap<String, String> {
    let out = Lan::exec(ns, "redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "INFO", "all"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().split_once(':'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The namespace's loopback bytes received (on `lo`, every byte sent is
/// also received).
fn lo_bytes(ns: &str) -> u64 {
    let out = Lan::exec(ns, "cat").arg("/proc/net/dev").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("lo:"))
        .unwrap_or_else(|| panic!("no lo in {text}"));
    line.split_whitespace().next().unwrap().parse().unwrap()
}

/// Waits for `child` with `wait4`: its exit status and its CPU seconds
/// (user + system), as the kernel accounted them.
fn wait_rusage(child: Child) -> (i32, f64) {
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on the pid of our own child, which nothing else waits for.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (status, secs(usage.ru_utime) + secs(usage.ru_stime))
}

/// One sample of a running shard: the wall clock (ms since the epoch), its
/// CPU seconds (utime + stime of `/proc/PID/stat`) and its network
/// namespace's loopback bytes (`/proc/PID/net/dev`).
type Sample = (f64, f64, f64);

/// Samples `pid` every 10 ms until it exits.
fn sample(pid: u32) -> std::thread::JoinHandle<Vec<Sample>> {
    // SAFETY: sysconf has no preconditions.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    std::thread::spawn(move || {
        let mut out = Vec::new();
        loop {
            let (Ok(stat), Ok(dev)) = (
                std::fs::read_to_string(format!("/proc/{pid}/stat")),
                std::fs::read_to_string(format!("/proc/{pid}/net/dev")),
            ) else {
                return out;
            };
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            // The fields after the command name, which may hold spaces.
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .unwrap()
                .1
                .split_whitespace()
                .collect();
            if fields[0] == "Z" {
                return out;
            }
            let ticks: f64 =
                fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
            let lo: f64 = dev
                .lines()
                .find_map(|l| l.trim().strip_prefix("lo:"))
                .and_then(|l| l.split_whitespace().next()?.parse().ok())
                .unwrap_or(0.0);
            out.push((now.as_secs_f64() * 1000.0, ticks / tick, lo));
            std::thread::sleep(Duration::from_millis(10));
        }
    })
}

/// `field` of the samples at `ms` (since the epoch), between the samples
/// around it.
fn at(samples: &[Sample], ms: f64, field: fn(&Sample) -> f64) -> f64 {
    let after = samples
        .iter()
        .position(|s| s.0 >= ms)
        .unwrap_or(samples.len() - 1);
    let (one, zero) = (&samples[after], &samples[after.saturating_sub(1)]);
    if one.0 <= zero.0 {
        return field(one);
    }
    field(zero) + (field(one) - field(zero)) * ((ms - zero.0) / (one.0 - zero.0)).clamp(0.0, 1.0)
}

/// Asserts `value` within 5 % of `witness`, both ways.
fn within_5_percent(what: &str, value: f64, witness: f64) {
    assert!(witness > 0.0, "{what}: the witness saw nothing");
    let ratio = value / witness;
    assert!(
        (0.95..=1.05).contains(&ratio),
        "{what}: {value:.4} against the witness's {witness:.4} (ratio {ratio:.4})"
    );
}

#[test]
fn the_rounds_client_and_server_columns_agree_with_proc_and_info_within_5_percent() {
    let dir = TempDir::new("witness");
    let mut lan = Lan::new(0);
    let ns = lan.server.clone();
    let port = 6390;
    let mut redis = Lan::exec(&ns, "redis-server");
    redis
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args([
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.0.to_str().unwrap(),
        ]);
    lan.keep(&mut redis);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !info_in(&ns, port).contains_key("run_id") {
        assert!(
            std::time::Instant::now() < deadline,
            "redis-server in {ns} never answered"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let cpu = |i: &HashMap<String, String>| {
        i["used_cpu_user"].parse::<f64>().unwrap() + i["used_cpu_sys"].parse::<f64>().unwrap()
    };
    let bytes = |i: &HashMap<String, String>| {
        i["total_net_input_bytes"].parse::<f64>().unwrap()
            + i["total_net_output_bytes"].parse::<f64>().unwrap()
    };
    let (info0, lo0) = (info_in(&ns, port), lo_bytes(&ns));
    // Values of 4 kB, 16 in flight: the writes fill loopback's 64 kB
    // packets, whose headers (which the interface counts and INFO does
    // not) are a fraction of a percent of the bytes; and kvbench is busy
    // enough that its CPU outside the phase (start, barrier, report) is a
    // small part of its whole.
    let files: Vec<String> = (0..2)
        .map(|i| dir.path(&format!("w{i}.json")).display().to_string())
        .collect();
    let children: Vec<Child> = (0..2)
        .map(|i| {
            Lan::exec(&ns, env!("CARGO_BIN_EXE_kvbench"))
                .args(["-s", "127.0.0.1", "-p", &port.to_string()])
                .args([
                    "-t",
                    "1",
                    "-c",
                    "2",
                    "--ratio",
                    "1:1",
                    "--key-maximum",
                    "100",
                ])
                .args(["-d", "4000", "--pipeline", "16", "--test-time", "4"])
                .arg("--hide-histogram")
                .args(["--shard-count", "2", "--shard-index", &i.to_string()])
                .args(["--start-at", "barrier", "--run-id", "witness"])
                .args(["--json-out-file", &files[i]])
                .env_remove("KVBENCH_AUTH")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let samplers: Vec<_> = children.iter().map(|c| sample(c.id())).collect();
    let client_cpu: Vec<f64> = children
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let (status, cpu) = wait_rusage(c);
            assert_eq!(status, 0, "shard {i} exited with wait status {status}");
            cpu
        })
        .collect();
    let samples: Vec<Vec<Sample>> = samplers.into_iter().map(|s| s.join().unwrap()).collect();
    let (info1, lo1) = (info_in(&ns, port), lo_bytes(&ns));

    let merged = dir.path("witness-total.json");
    let doc = crate::common::launch::merge_ok(&files, &merged, &[]);
    let round = &doc["kvbench"]["rounds"][0];
    let lo = (lo1 - lo0) as f64;
    for (i, file) in files.iter().enumerate() {
        let shard = read_json(file.as_ref());
        let run = &shard["kvbench"]["runs"][0];
        // The column is a rate over the phase: its start to its last reply.
        let seconds = (u(&run["duration_ms"]) + u(&run["drain_ms"])) as f64 / 1000.0;
        let column = &round["clients"][i];
        assert_eq!(u(&column["index"]), i as u64);
        let cpu_s = f(&column["process_cpu_percent"]) / 100.0 * seconds;
        // The phase is a part of the process's life: never more than the
        // rusage of the whole.
        assert!(
            cpu_s <= client_cpu[i] * 1.01,
            "shard {i}: {cpu_s} of {}",
            client_cpu[i]
        );
        // /proc over the phase's own window: from its start to its last
        // reply. /proc counts in ticks (10 ms), read every 10 ms: the
        // witness is only that exact at each end.
        let start = u(&run["start_time_ms"]) as f64;
        let end = start + seconds * 1000.0;
        let over =
            |field: fn(&Sample) -> f64| at(&samples[i], end, field) - at(&samples[i], start, field);
        let window = over(|s| s.1);
        let slack = (0.05 * window).max(0.04);
        assert!(
            (cpu_s - window).abs() <= slack,
            "shard {i} CPU s: {cpu_s:.4} against /proc's {window:.4} over the phase (rusage of the whole process {:.4})",
            client_cpu[i]
        );
        // Both shards' traffic crosses this namespace's lo, and both ran
        // in the same window: each one's interface saw all of it, and the
        // test's own reading of lo over the phase is the witness; over the
        // whole set, the lo bytes bound it.
        let rx = f(&column["net_rx_bytes_per_sec"]) * seconds;
        within_5_percent(&format!("shard {i} lo bytes"), rx, over(|s| s.2));
        assert!(rx <= lo, "shard {i}: {rx} of the set's {lo}");
    }
    let server = &round["servers"][0];
    assert_eq!(server["run_id"], info1["run_id"].as_str());
    let seconds = f(&server["seconds"]);
    within_5_percent(
        "server CPU s",
        f(&server["cpu_percent"]) / 100.0 * seconds,
        cpu(&info1) - cpu(&info0),
    );
    let server_bytes =
        (f(&server["net_input_bytes_per_sec"]) + f(&server["net_output_bytes_per_sec"])) * seconds;
    within_5_percent("server bytes", server_bytes, bytes(&info1) - bytes(&info0));
}
