//! Shards on several hosts: three client network namespaces, each with its
//! own address and its own host name (a UTS namespace), run one kvbench shard
//! each against a redis-server listening on its own address in a fourth
//! namespace (tests/e2e/common/netns.rs). Each shard names its host in its file
//! name (`{host}`) and in `kvbench.shard.host`, and `kvbench merge` of the
//! three counts exactly what the server executed.
//!
//! The per-round table's columns against witnesses the test reads itself,
//! within 5 % both ways: two shards and a redis-server in one private
//! network namespace (so its loopback counts their traffic only), each
//! shard's CPU against the rusage `wait4` returns for it, its interface's
//! bytes against the namespace's `lo` counters, and the server's CPU and
//! network against INFO read before and after the set.
//!
//! The server's side of what the method watches: each run's `server_use`,
//! the server's CPU and network second by second read on the control
//! connection, agrees with the INFO (memcached's `stats`) the test reads
//! itself before and after the run.

use std::process::{Child, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::memcached::Memcached;
use crate::common::netns::{Lan, SERVER_ADDR};
use crate::common::{
    Redis, TempDir, f, info, info_u64, kvbench, kvbench_at, parse_commandstats, read_json, total, u,
};

const CLIENTS: usize = 3;

/// The server's port inside its namespace: nothing else listens there.
const PORT: u16 = 6379;

#[test]
fn three_hosts_in_network_namespaces_merge_into_the_servers_counts() {
    let dir = TempDir::new("hosts");
    let mut lan = Lan::new(CLIENTS);
    lan.start_redis(PORT, &dir.0);
    assert_eq!(lan.redis_cli(PORT, &["CONFIG", "RESETSTAT"]).trim(), "OK");

    let pattern = dir.path("{host}-{shard}.json");
    let at = (SystemTime::now() + Duration::from_secs(3))
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let at = format!("{at:.3}");
    let children: Vec<Child> = lan
        .clients
        .iter()
        .enumerate()
        .map(|(i, ns)| {
            Lan::exec_as_host(ns, &format!("client{i}"), env!("CARGO_BIN_EXE_kvbench"))
                .args(["-s", SERVER_ADDR, "-p", &PORT.to_string()])
                .args(["--shard-count", &CLIENTS.to_string()])
                .args(["--shard-index", &i.to_string()])
                .args([
                    "-t",
                    "1",
                    "-c",
                    "2",
                    "--ratio",
                    "1:1",
                    "--key-maximum",
                    "1000",
                ])
                .args(["--hide-histogram", "--test-time", "2", "--start-at", &at])
                .arg("--json-out-file")
                .arg(&pattern)
                .env_remove("KVBENCH_AUTH")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run kvbench in a client namespace")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "shard {i}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // `{host}` became each namespace's host name, not this machine's.
    let files: Vec<String> = (0..CLIENTS)
        .map(|i| {
            let path = dir.path(&format!("client{i}-{i}.json"));
            assert!(path.exists(), "no {}", path.display());
            path.to_str().unwrap().to_string()
        })
        .collect();
    let docs: Vec<Value> = files.iter().map(|f| read_json(f.as_ref())).collect();
    for (i, doc) in docs.iter().enumerate() {
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["host"], format!("client{i}").as_str(), "{shard}");
        assert_eq!(shard["source"], "flags", "{shard}");
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert!(shard["late"].is_null(), "{shard}");
        assert!(total(doc, "GET", "count") > 0, "shard {i} sent GETs");
    }

    let merged = dir.path("total.json");
    let mut args = vec!["merge"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", merged.to_str().unwrap()]);
    let out = kvbench(&args);
    assert!(
        out.status.success(),
        "kvbench merge: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    for i in 0..CLIENTS {
        assert!(table.contains(&format!("client{i}")), "{table}");
    }
    let doc = read_json(&merged);
    let text = lan
        .redis_cli(PORT, &["INFO", "commandstats"])
        .replace('\r', "");
    let stats = parse_commandstats(&text);
    let calls = |name: &str| stats.get(name).map_or(0, |c| c.0);
    assert!(calls("set") > 0 && calls("get") > 0, "{stats:?}");
    assert_eq!(total(&doc, "SET", "count"), calls("set"));
    assert_eq!(total(&doc, "GET", "count"), calls("get"));
}

/// A 3 s run against `port` with `protocol`; its JSON report.
fn three_seconds(port: u16, protocol: &str, dir: &TempDir) -> Value {
    let json = dir.path(&format!("{protocol}.json"));
    let out = kvbench_at(port)
        .args(["-P", protocol, "-t", "1", "-c", "2", "--ratio", "1:1"])
        .args(["--key-maximum", "1000", "-d", "2000", "--test-time", "3"])
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_json(&json)
}

/// Each completed second of the run's one server: 2 or 3 of a 3 s run.
fn server_seconds(doc: &Value) -> &Vec<Value> {
    let uses = doc["kvbench"]["runs"][0]["server_use"].as_array().unwrap();
    assert_eq!(uses.len(), 1, "{uses:?}");
    let seconds = uses[0]["per_second"].as_array().unwrap();
    assert!((2..=3).contains(&seconds.len()), "{seconds:?}");
    seconds
}

/// The seconds' sum of `field` (each a rate over the time between two
/// readings, about one second: a rate over a second the loaded master read
/// late and the next one early reads high, so the sum may pass the bytes by
/// some percent) is at most a fifth above the run's own delta and at least
/// a third of it (the run's last, partial second is in the delta only); and
/// the delta is within the test's own.
fn bounded_by(seconds: &[Value], field: &str, run_delta: f64, test_delta: f64) {
    let sum: f64 = seconds.iter().map(|s| f(&s[field])).sum();
    assert!(
        run_delta > 0.0 && run_delta <= test_delta,
        "{field}: {run_delta} vs {test_delta}"
    );
    assert!(
        sum >= run_delta / 3.0 && sum <= run_delta * 1.2,
        "{field}: the seconds sum to {sum}, the run's delta is {run_delta}"
    );
}

#[test]
fn the_servers_cpu_and_network_per_second_agree_with_its_own_counters() {
    let dir = TempDir::new("server-use");
    let redis = Redis::start();
    let cpu = |port| {
        info(port, "cpu", "used_cpu_user").parse::<f64>().unwrap()
            + info(port, "cpu", "used_cpu_sys").parse::<f64>().unwrap()
    };
    let net = |port| {
        (
            info_u64(port, "stats", "total_net_input_bytes"),
            info_u64(port, "stats", "total_net_output_bytes"),
        )
    };
    let (cpu0, net0) = (cpu(redis.port), net(redis.port));
    let doc = three_seconds(redis.port, "redis", &dir);
    let (cpu1, net1) = (cpu(redis.port), net(redis.port));
    let seconds = server_seconds(&doc);
    assert_eq!(
        doc["kvbench"]["runs"][0]["server_use"][0]["run_id"],
        info(redis.port, "server", "run_id").as_str()
    );
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    // CPU: percent of one core per second, against CPU seconds.
    let cpu_sum: f64 = seconds.iter().map(|s| f(&s["cpu_percent"]) / 100.0).sum();
    let run_cpu = f(&delta["cpu_s"]);
    assert!(
        run_cpu > 0.0 && run_cpu <= cpu1 - cpu0 + 0.01,
        "{run_cpu} vs {}",
        cpu1 - cpu0
    );
    assert!(cpu_sum <= run_cpu * 1.2 + 0.02, "{cpu_sum} vs {run_cpu}");
    bounded_by(
        seconds,
        "net_input_bytes_per_sec",
        f(&delta["net_input_bytes"]),
        (net1.0 - net0.0) as f64,
    );
    bounded_by(
        seconds,
        "net_output_bytes_per_sec",
        f(&delta["net_output_bytes"]),
        (net1.1 - net0.1) as f64,
    );

    // memcached's `stats`: bytes_read and bytes_written.
    let m = Memcached::start();
    let read0 = (m.stat("bytes_read"), m.stat("bytes_written"));
    let doc = three_seconds(m.port, "memcache_text", &dir);
    let read1 = (m.stat("bytes_read"), m.stat("bytes_written"));
    let seconds = server_seconds(&doc);
    assert!(
        seconds.iter().all(|s| s["cpu_percent"].is_number()),
        "{seconds:?}"
    );
    let delta = &doc["kvbench"]["runs"][0]["server"]["delta"];
    bounded_by(
        seconds,
        "net_input_bytes_per_sec",
        f(&delta["net_input_bytes"]),
        (read1.0 - read0.0) as f64,
    );
    bounded_by(
        seconds,
        "net_output_bytes_per_sec",
        f(&delta["net_output_bytes"]),
        (read1.1 - read0.1) as f64,
    );
}

/// `INFO all` of the redis-server on 127.0.0.1:`port` in namespace `ns`.
fn info_in(ns: &str, port: u16) -> std::collections::HashMap<String, String> {
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
    let cpu = |i: &std::collections::HashMap<String, String>| {
        i["used_cpu_user"].parse::<f64>().unwrap() + i["used_cpu_sys"].parse::<f64>().unwrap()
    };
    let bytes = |i: &std::collections::HashMap<String, String>| {
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
