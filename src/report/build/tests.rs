//! The permanent guard of the JSON report: over synthetic results of every
//! report shape (runs, aggregate, `--rate`, cluster, shards, `--command`,
//! memcached, prefill, warm-up, server evidence, placement, interrupts),
//! the written file reads back into the model and is written again byte for
//! byte, so every key the builder writes is a typed field that survives
//! `compare`, `merge` and `kvbench report`.

use std::time::{Duration, SystemTime};

use crate::config::Config;
use crate::engine::master::placement::{Placement, Reason, ServerCpus};
use crate::engine::master::results::cluster::NodeRole;
use crate::engine::master::results::{Phase, PhaseResult, Results, ServerContext};
use crate::engine::master::run::Timing;
use crate::engine::master::run::clock::ClockSample;
use crate::engine::master::server::info::{Info, Software};
use crate::engine::master::server::{PhaseEvidence, SlowlogEntry};
use crate::engine::master::warmup::{Steadiness, Trend, WarmupEnd};
use crate::engine::stats::Stats;
use crate::engine::stats::series::{OpSecond, Second};
use crate::report::ReportInput;
use crate::report::cluster_fixture::{
    EVEN_SLOTS, cluster_config, cluster_results, standalone_config,
};
use crate::report::json::pretty;
use crate::report::model::parse;

fn stats(c: &Config, scale: u64) -> Stats {
    let open = c.rate.is_some();
    let mut s = Stats::for_config(c).unwrap();
    for (i, op) in s.ops.iter_mut().enumerate() {
        for v in 1..=(50 * scale + i as u64 * 7) {
            let us = 100 + (v * 37) % 5000;
            if open {
                op.record_open_loop(us + 200, us);
            } else {
                op.record(us);
            }
        }
        op.hits = 10 * scale;
        op.misses = 3;
        op.bytes_rx = 12345 * scale;
        op.bytes_tx = 6789;
        op.errors = i as u64;
        op.errors_by_kind[0] = i as u64;
    }
    if let Some(h) = s.lag_us.as_mut() {
        for v in 1..100 {
            h.record(v * 3).unwrap();
        }
    }
    s.errors.connection = 2;
    s.errors.timeouts = 1;
    s.errors.server[1] = 4;
    s
}

fn phase(c: &Config, phase: Phase, scale: u64) -> PhaseResult {
    let s = stats(c, scale);
    let mut p = PhaseResult::of_stats(phase, s, Duration::from_micros(3_333_456 + scale));
    p.drain = Duration::from_micros(125_456 * scale);
    p.started_wall = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
    let pct = &c.output.percentiles;
    let second = |n: u64, empty: bool| {
        let empty_stats = Stats::for_config(c).unwrap();
        let from = if empty { &empty_stats } else { &p.stats };
        Second {
            second: n,
            ops: from
                .ops
                .iter()
                .map(|o| OpSecond::from_stats(o, pct))
                .collect(),
            totals: OpSecond::from_stats(&from.totals(), pct),
            backlog: n * 2,
            moved: 0,
            ask: 0,
            retries: 0,
        }
    };
    p.series = vec![second(0, false), second(1, true), second(2, false)];
    p.thread_cpu = vec![Duration::from_micros(1_234_567), Duration::from_millis(3)];
    p.unsent = 4;
    p
}

fn info(sets: u64, extra: &str) -> Info {
    Info::parse(&info_text(sets, extra), SystemTime::UNIX_EPOCH)
}

fn info_text(sets: u64, extra: &str) -> String {
    format!(
        "# Server\r\nredis_version:7.2.4\r\nredis_mode:standalone\r\nos:Linux\r\nrun_id:abc\r\n# Memory\r\nused_memory:{}\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n# Persistence\r\naof_enabled:0\r\n# Stats\r\ntotal_commands_processed:{sets}\r\nkeyspace_hits:3\r\nkeyspace_misses:1\r\ntotal_forks:0\r\n# CPU\r\nused_cpu_sys:0.{sets}\r\nused_cpu_user:1.5\r\n# Keyspace\r\ndb0:keys={sets},expires=0\r\n# Commandstats\r\ncmdstat_set:calls={sets},usec=1,rejected_calls=1,failed_calls=0\r\ncmdstat_get:calls={sets},usec=1\r\n{extra}",
        1000 + sets
    )
}

fn with_evidence(mut p: PhaseResult) -> PhaseResult {
    p.server = Some(PhaseEvidence {
        before: info(1, ""),
        after: info(900, "cmdstat_hset:calls=5,usec=1\r\n"),
        slowlog: Some(vec![SlowlogEntry {
            id: 7,
            timestamp: 1_700_000_000,
            duration_us: 15_000,
            command: vec!["SET".into(), "k".into()],
        }]),
    });
    p
}

fn results(c: &Config, runs: u32) -> Results {
    Results {
        runs: (1..=runs)
            .map(|n| phase(c, Phase::Run(n), n as u64))
            .collect(),
        planned_runs: runs,
        ..Results::default()
    }
}

fn same(name: &str, c: &Config, r: &Results, complete: bool) {
    let input = ReportInput::new(c, r, complete);
    let written = pretty(&crate::report::build::report(&input));
    let text = String::from_utf8(written.clone()).unwrap();
    let read = parse(name, &text).unwrap_or_else(|e| panic!("{e}"));
    let again = pretty(&read);
    if written != again {
        let again = String::from_utf8_lossy(&again);
        let line = text.lines().zip(again.lines()).position(|(a, b)| a != b);
        let at = line.unwrap_or(text.lines().count().min(again.lines().count()));
        let show = |t: &str| {
            t.lines()
                .skip(at.saturating_sub(3))
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{name}: changed at line {at}\nwritten:\n{}\nread and written again:\n{}",
            show(&text),
            show(&again)
        );
    }
}

#[test]
fn every_report_shape_reads_back_and_is_written_again_byte_for_byte() {
    let warm0 = standalone_config(&["-n", "10"]);
    let mut r0 = results(&warm0, 1);
    r0.runs[0] = with_evidence(r0.runs[0].clone());
    same("evidence first", &warm0, &r0, true);
    let plain = standalone_config(&["-n", "100"]);
    same("all stats", &plain, &results(&plain, 1), true);

    let three = standalone_config(&["-x", "3", "--test-time", "3"]);
    same("three runs", &three, &results(&three, 3), true);
    same("snapshot", &three, &results(&three, 2), false);

    let pct = standalone_config(&[
        "--print-percentiles",
        "50,99.9,99.999,100",
        "--hide-histogram",
    ]);
    same("percentiles", &pct, &results(&pct, 1), true);

    let rate = standalone_config(&["--rate", "1000", "--test-time", "3", "--prefill"]);
    let mut r = results(&rate, 1);
    let closed = standalone_config(&["-n", "100"]);
    r.prefill = Some(phase(&closed, Phase::Prefill, 2));
    same("rate with prefill", &rate, &r, true);
    let limit = standalone_config(&["--rate-limiting", "50", "--test-time", "3"]);
    same("rate limiting", &limit, &results(&limit, 2), true);
    let rates = standalone_config(&["--rate", "1000", "--test-time", "3", "-x", "3"]);
    same("rate three runs", &rates, &results(&rates, 3), true);

    let cluster = cluster_config(&["--test-time", "10"]);
    let mut r = cluster_results([3000, 2000, 1000], EVEN_SLOTS);
    r.runs[0].server = with_evidence(r.runs[0].clone()).server;
    same("cluster", &cluster, &r, true);
    let twice = cluster_config(&["--test-time", "10", "-x", "2"]);
    let mut two = r.clone();
    let mut second = two.runs[0].clone();
    second.phase = Phase::Run(2);
    second.duration += Duration::from_millis(1234);
    second.server = None;
    two.runs.push(second);
    two.planned_runs = 2;
    same("cluster two runs", &twice, &two, true);
    // A failover during the run, beside a replica throughout.
    r.runs[0].nodes[1].role_after = NodeRole::Replica;
    let mut replica = r.runs[0].nodes[0].clone();
    replica.address = "127.0.0.1:7009".into();
    replica.role_before = NodeRole::Replica;
    replica.role_after = NodeRole::Replica;
    r.runs[0].nodes.push(replica);
    same("cluster failover", &cluster, &r, true);

    let shard = standalone_config(&["--shard-index", "1", "--shard-count", "2", "-n", "50"]);
    let mut r = results(&shard, 1);
    r.timing = Some(Timing {
        start_at: Some(SystemTime::UNIX_EPOCH),
        lags: vec![(Phase::Run(1), 1.23456)],
        late: None,
        clock_start: Some(ClockSample {
            offset_ms: 0.123456,
            rtt_ms: 0.5,
        }),
        clock_end: None,
        barrier: None,
    });
    same("shard", &shard, &r, true);

    let commands = standalone_config(&[
        "--command",
        "HSET __key__ f __data__",
        "--command",
        "HGET __key__ f",
        "-n",
        "10",
    ]);
    let mut r = results(&commands, 1);
    r.runs[0] = with_evidence(r.runs[0].clone());
    same("commands", &commands, &r, true);

    let memcached = standalone_config(&["--protocol", "memcache_text", "-n", "10"]);
    let mut r = results(&memcached, 1);
    let mut p = with_evidence(r.runs[0].clone());
    if let Some(e) = p.server.as_mut() {
        e.before = Info::parse("version:1.6.21\r\nthreads:4\r\n", SystemTime::UNIX_EPOCH);
        e.after = Info::parse("version:1.6.21\r\nthreads:4\r\n", SystemTime::UNIX_EPOCH);
        e.slowlog = None;
    }
    r.runs[0] = p;
    let mut stats = Info::parse(
        "version:1.6.21\r\nlimit_maxbytes:67108864\r\nthreads:4\r\n",
        SystemTime::UNIX_EPOCH,
    );
    stats.software = Software::Memcached;
    r.server = Some(ServerContext {
        info: stats,
        appendfsync: None,
        save: None,
    });
    same("memcached", &memcached, &r, true);

    // A server that restarted and forked during the run and refused SETs;
    // then one whose control connection failed.
    let mut r = results(&plain, 1);
    let mut p = with_evidence(r.runs[0].clone());
    if let Some(e) = p.server.as_mut() {
        let after = info_text(900, "")
            .replace("run_id:abc", "run_id:def")
            .replace("total_forks:0", "total_forks:2")
            .replace("rejected_calls=1", "rejected_calls=3");
        e.after = Info::parse(&after, SystemTime::UNIX_EPOCH);
    }
    r.runs[0] = p;
    same("restarted", &plain, &r, true);
    r.runs[0].server = None;
    r.runs[0].evidence_lost = Some("the control connection closed (connection reset)".into());
    same("evidence lost", &plain, &r, true);

    let warm = standalone_config(&["--warmup-time", "1", "-x", "2", "--test-time", "3"]);
    let mut r = results(&warm, 2);
    r.warmup = Some(phase(&warm, Phase::Warmup, 1));
    r.server = Some(ServerContext {
        info: info(1, ""),
        appendfsync: Some("always".into()),
        save: Some("3600 1".into()),
    });
    r.runs[1] = with_evidence(r.runs[1].clone());
    r.placement = Some(Placement {
        threads: vec![Some(1), None],
        available: vec![0, 1, 2],
        local_server: true,
        server: Some(ServerCpus {
            pid: 42,
            cpus: vec![0, 1],
            threads: 5,
        }),
        reason: Reason::ServerMayUseEveryCpu,
    });
    same("warm-up, evidence, placement", &warm, &r, true);
    // Every way a warm-up can end: auto and steady, auto at its maximum,
    // fixed and steady, fixed and too short to judge, fixed and trending.
    let trend = Trend {
        mean: 1234.5678,
        slope: 12.345,
        half_width: 3.21,
        points: 10,
    };
    let ends = [
        (WarmupEnd::Steady, true, Some(11), Some(trend)),
        (WarmupEnd::Steady, false, None, Some(trend)),
        (WarmupEnd::Fixed, true, None, Some(trend)),
        (WarmupEnd::Fixed, false, None, None),
        (WarmupEnd::Fixed, false, None, Some(trend)),
    ];
    for (i, (end, steady, steady_after_s, throughput)) in ends.into_iter().enumerate() {
        let mut warmup = phase(&warm, Phase::Warmup, 1);
        warmup.steadiness = Some(Steadiness {
            end,
            steady,
            steady_after_s,
            window_s: 10,
            throughput,
            p99: throughput,
        });
        r.warmup = Some(warmup);
        same(&format!("warm-up end {i}"), &warm, &r, true);
    }

    let cut = standalone_config(&["-x", "2", "--test-time", "3", "--max-errors", "5"]);
    let mut r = results(&cut, 2);
    r.runs[1].interrupted = true;
    r.interrupted = Some((Phase::Run(2), 0));
    same("interrupted", &cut, &r, false);
    r.interrupted = Some((Phase::Run(2), 15));
    r.runs[0].connections_down = 2;
    same("signal", &cut, &r, false);
}
