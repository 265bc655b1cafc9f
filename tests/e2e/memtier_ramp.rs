//! memtier's connection options against a real redis-server: the staircase
//! ramp-up (`--clients-start`, `--clients-step`, `--step-duration`) sampled
//! in `CLIENT LIST` while it climbs (and in `--cluster-mode`, where a late
//! client opens a link to every master), the pause between a thread's
//! connections (`--thread-conn-start-*-jitter-micros`) in the connections'
//! ages, `--client-stats`' files summed against `INFO commandstats`, `-D`'s
//! lines, and the refusals of what these flags cannot do.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::{
    Redis, TempDir, ask, assert_success, kvbench_at, machine, read_json, refused_before_connecting,
    u, wait_for_traffic,
};

/// The ages (seconds) of the connections of `CLIENT LIST` that have sent a
/// GET or SET: kvbench's load connections, not the control connection nor
/// this one, nor a connection still in its handshake.
fn load_connection_ages(port: u16) -> Vec<u64> {
    ask(port, &["CLIENT", "LIST"])
        .lines()
        .filter(|l| l.contains(" cmd=get ") || l.contains(" cmd=set "))
        .map(|l| {
            l.split(' ')
                .find_map(|f| f.strip_prefix("age="))
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect()
}

/// kvbench against `redis` with `args`, its stderr piped, running.
fn spawn(redis: &Redis, args: &str, extra: &[&str]) -> Child {
    kvbench_at(redis.port)
        .args(args.split_whitespace())
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Each `--client-stats` file under `dir`: its name and its data rows, the
/// header lines checked.
fn client_stats_files(dir: &Path, header: &str) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("cs-") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(header), "{name}");
        assert!(lines.next().unwrap().starts_with("Second,"), "{name}");
        let rows = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        files.insert(name, rows);
    }
    files
}

/// The sum of column `col` over every row of every file.
fn column_sum(files: &BTreeMap<String, Vec<Vec<String>>>, col: usize) -> u64 {
    files
        .values()
        .flatten()
        .map(|row| row[col].parse::<u64>().unwrap())
        .sum()
}

#[test]
fn the_staircase_opens_each_threads_clients_step_by_step() {
    let redis = Redis::start();
    let _share = machine::share();
    let dir = TempDir::new("staircase");
    let json = dir.path("r.json");
    let prefix = dir.path("cs");
    // 2 threads of 1, 2, 3 then 4 clients, a step every 2 s.
    let mut child = spawn(
        &redis,
        "-t 2 -c 4 --clients-start 1 --clients-step 1 --step-duration 2 --test-time 8 \
         --ratio 1:1 --key-maximum 999",
        &[
            "--json-out-file",
            json.to_str().unwrap(),
            "--client-stats",
            prefix.to_str().unwrap(),
        ],
    );
    wait_for_traffic(redis.port, &mut child);
    let mut samples = Vec::new();
    let mut full = None;
    while child.try_wait().unwrap().is_none() {
        let ages = load_connection_ages(redis.port);
        samples.push(ages.len());
        if ages.len() == 8 && full.is_none() {
            full = Some(ages);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    assert_success(&out, "staircase");
    // Up to the top the count never falls, and never exceeds -t x -c.
    let peak = samples.iter().position(|&n| n == 8).expect("reached 8");
    assert!(
        samples[..=peak].windows(2).all(|w| w[0] <= w[1]),
        "{samples:?}"
    );
    assert!(samples.iter().all(|&n| n <= 8), "{samples:?}");
    // Each step is held: a step lasts 2 s and the samples come every 0.1 s
    // or slower, so at least 3 of each, at most the whole run's.
    for step in [2, 4, 6, 8] {
        let held = samples.iter().filter(|&&n| n == step).count();
        assert!(
            (3..=samples.len()).contains(&held),
            "{step}: {held} in {samples:?}"
        );
    }
    // Ages tell when each connection opened: two per step (one per
    // thread), the steps 2 s apart on the phase's clock. Ages are whole
    // seconds, so each gap may read one less or (a late timer) one more.
    let mut ages = full.expect("a sample with all 8 connections");
    ages.sort_unstable_by(|a, b| b.cmp(a));
    let step1 = ages[2].max(ages[3]);
    assert!(ages[1] > step1, "step 0 opened before the run: {ages:?}");
    for k in 2..4 {
        for age in [ages[2 * k], ages[2 * k + 1]] {
            let gap = step1 - age;
            let planned = 2 * (k as u64 - 1);
            assert!(
                (planned - 1..=planned + 2).contains(&gap),
                "step {k}: {ages:?}"
            );
        }
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[RUN #1] Client staircase pattern (per thread x 2 threads):"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Total max connections: 4 x 2 = 8"),
        "{stderr}"
    );
    let doc = read_json(&json);
    let validator = crate::json_schema::validator();
    crate::json_schema::assert_valid(&validator, &doc, "a staircase run");
    let config = &doc["configuration"];
    assert_eq!(
        (
            u(&config["clients_start"]),
            u(&config["clients_step"]),
            u(&config["step_duration"])
        ),
        (1, 1, 2)
    );
    // One stats file per client, all 8 having run; a client of step k
    // replies first in second 2k (or, late, the next).
    let files = client_stats_files(&dir.0, "Per-Second Benchmark Data");
    assert_eq!(files.len(), 8, "{:?}", files.keys());
    for thread in 0..2 {
        for client in 0..4u64 {
            let rows = &files[&format!("cs-1-{thread}-{client}.csv")];
            let first: u64 = rows[0][0].parse().unwrap();
            assert!(
                (2 * client..=2 * client + 1).contains(&first),
                "client {client} of thread {thread} starts at second {first}"
            );
        }
    }
    assert_eq!(column_sum(&files, 1), redis.calls("set"));
    assert_eq!(column_sum(&files, 6), redis.calls("get"));
}

#[test]
fn jitter_spreads_the_connections_a_thread_opens() {
    let redis = Redis::start();
    let _share = machine::share();
    // The spread of the connections' ages once they all send.
    let spread = |extra: &[&str]| {
        let mut child = spawn(&redis, "-t 1 -c 5 --test-time 2 --ratio 0:1", extra);
        wait_for_traffic(redis.port, &mut child);
        let mut ages = load_connection_ages(redis.port);
        while ages.len() < 5 && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(20));
            ages = load_connection_ages(redis.port);
        }
        assert_success(&child.wait_with_output().unwrap(), "jitter");
        assert_eq!(ages.len(), 5, "{ages:?}");
        ages.iter().max().unwrap() - ages.iter().min().unwrap()
    };
    // Four pauses of 0.6 to 0.7 s: 2.4 to 2.8 s between the first and the
    // last, read in whole seconds; a loaded machine may sleep longer.
    let jittered = spread(&[
        "--thread-conn-start-min-jitter-micros",
        "600000",
        "--thread-conn-start-max-jitter-micros",
        "700000",
    ]);
    assert!((2..=6).contains(&jittered), "spread {jittered} s");
    // Without: the five open within one second.
    assert!(spread(&[]) <= 1);
}

#[test]
fn client_stats_writes_one_file_per_client_summing_to_the_servers_counts() {
    let redis = Redis::start();
    let dir = TempDir::new("client-stats");
    let prefix = dir.path("cs");
    let out = kvbench_at(redis.port)
        .args("-t 2 -c 2 --test-time 2 --ratio 1:4 --key-maximum 999".split_whitespace())
        .args(["--client-stats", prefix.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out, "--client-stats");
    let files = client_stats_files(&dir.0, "Per-Second Benchmark Data");
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "cs-1-0-0.csv",
            "cs-1-0-1.csv",
            "cs-1-1-0.csv",
            "cs-1-1-1.csv"
        ]
    );
    for (name, rows) in &files {
        // Seconds 0 and 1, and the drain's last partial second at most (a
        // thread starved for a whole second on a loaded machine has fewer).
        assert!((1..=3).contains(&rows.len()), "{name}: {rows:?}");
        assert!(rows.iter().all(|r| r.len() == 15), "{name}");
        let seconds: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
        assert!(
            seconds.windows(2).all(|w| w[0] < w[1]),
            "{name}: {seconds:?}"
        );
    }
    let (sets, gets) = (column_sum(&files, 1), column_sum(&files, 6));
    assert_eq!(sets, redis.calls("set"));
    assert_eq!(gets, redis.calls("get"));
    assert!(sets > 0 && gets > 2 * sets, "{sets} SETs, {gets} GETs");
    // Misses and hits add up to the GETs.
    assert_eq!(column_sum(&files, 11) + column_sum(&files, 12), gets);

    // --command lines: memtier's arbitrary-commands table, one column group
    // per command, each row ending in a comma.
    redis.reset_stats();
    let dir = TempDir::new("client-stats-commands");
    let prefix = dir.path("cs");
    let out = kvbench_at(redis.port)
        .args("-t 1 -c 2 --test-time 2 --command".split_whitespace())
        .args(["INCR __key__", "--client-stats", prefix.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out, "--client-stats --command");
    let files = client_stats_files(&dir.0, "Per-Second Benchmark Arbitrary Commands Data");
    assert_eq!(files.len(), 2);
    assert!(
        files
            .values()
            .flatten()
            .all(|r| r.len() == 7 && r[6].is_empty())
    );
    assert_eq!(column_sum(&files, 1), redis.calls("incr"));
}

#[test]
fn debug_prints_connections_and_phases_and_nothing_per_request() {
    let redis = Redis::start();
    let out = kvbench_at(redis.port)
        .args("-t 2 -c 3 -n 2000 -D".split_whitespace())
        .output()
        .unwrap();
    assert_success(&out, "-D");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let debug: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("kvbench: debug: "))
        .collect();
    let connected = format!("connected to 127.0.0.1:{}", redis.port);
    assert_eq!(
        debug.iter().filter(|l| l.ends_with(&connected)).count(),
        6,
        "{stderr}"
    );
    assert_eq!(
        debug
            .iter()
            .filter(|l| l.contains(": run 1 starts with 3 of 3 clients"))
            .count(),
        2,
        "{stderr}"
    );
    // 12 000 requests, and only the lines above.
    assert!(debug.len() <= 10, "{stderr}");
    assert_eq!(redis.calls("set") + redis.calls("get"), 12_000);
}

#[test]
fn the_ramp_flags_refuse_what_they_cannot_do_naming_the_flag() {
    let redis = Redis::start();
    for (args, flag) in [
        (
            "--test-time 2 -c 4 --clients-start 1 --clients-step 1",
            "--step-duration",
        ),
        (
            "--test-time 2 -c 4 --clients-start 0 --clients-step 1 --step-duration 1",
            "--clients-start",
        ),
        (
            "--test-time 2 -c 4 --clients-start 4 --clients-step 1 --step-duration 1",
            "--clients-start",
        ),
        (
            "-n 100 -c 4 --clients-start 1 --clients-step 1 --step-duration 1",
            "--clients-start",
        ),
        (
            "--test-time 2 -c 4 --clients-start 1 --clients-step 1 --step-duration 1 --rate 100",
            "--rate",
        ),
        (
            "--thread-conn-start-min-jitter-micros 10 --thread-conn-start-max-jitter-micros 5",
            "--thread-conn-start-min-jitter-micros",
        ),
        ("-c 1,2 --client-stats x", "--client-stats"),
    ] {
        let stderr = refused_before_connecting(&redis, args.split_whitespace());
        assert!(stderr.contains(&format!("{flag}:")), "{args}: {stderr}");
    }
    let stderr = refused_before_connecting(
        &redis,
        "--thread-conn-start-min-jitter-micros 10 --thread-conn-start-max-jitter-micros 5"
            .split_whitespace(),
    );
    assert!(
        stderr.contains("--thread-conn-start-max-jitter-micros (5)"),
        "{stderr}"
    );
}

#[test]
fn the_staircase_opens_a_late_clients_links_to_every_master() {
    let cluster = crate::common::cluster::Cluster::start(3);
    cluster.reset_stats();
    let dir = TempDir::new("staircase-cluster");
    let prefix = dir.path("cs");
    let report = crate::common::cluster::kvbench::kvbench_cluster(
        &cluster,
        "-t 1 -c 3 --clients-start 1 --clients-step 1 --step-duration 1 --test-time 3 \
         --ratio 1:1 --key-minimum 1 --key-maximum 10000",
        &["--client-stats", prefix.to_str().unwrap()],
    );
    let files = client_stats_files(&dir.0, "Per-Second Benchmark Data");
    assert_eq!(files.len(), 3, "{:?}", files.keys());
    // Client 2 joins 2 s in: its first reply falls in second 2 (3 if late).
    let first: u64 = files["cs-1-0-2.csv"][0][0].parse().unwrap();
    assert!(
        (2..=3).contains(&first),
        "client 2 starts at second {first}"
    );
    // Every client's requests reached the masters, and each master got
    // its share (uniform keys over a slot map cut in thirds).
    assert_eq!(column_sum(&files, 1), cluster.sum_calls("set"));
    assert_eq!(column_sum(&files, 6), cluster.sum_calls("get"));
    for &port in &cluster.masters() {
        assert!(cluster.calls(port, "get") > 0, "master {port}");
    }
    assert_eq!(u(&report.doc["configuration"]["clients_start"]), 1);
}
