//! `kvbench merge` is exact: samples split across N synthetic shard files
//! merge (JSON in, JSON out, through the real merge code) into percentiles
//! identical to those of one histogram of all the samples, for the whole
//! run and, from the shards' `.hlog` interval logs, for each second.

use std::path::PathBuf;

use hdrhistogram::Histogram;
use serde_json::{Map, Value, json};

use crate::common::{TempDir, decode_histogram, read_json};
use clap::Parser;
use kvbench::cli::MergeArgs;
use kvbench::config::MergeOptions;
use kvbench::engine::stats::latency_histogram;
use kvbench::report::json::{compressed, ms, percentile_key};

const PERCENTILES: [f64; 6] = [50.0, 90.0, 99.0, 99.9, 99.99, 100.0];
const SECONDS: u64 = 3;
const OPS: [(&str, &str); 2] = [("Sets", "SET"), ("Gets", "GET")];

/// A deterministic latency stream (µs): a linear congruential generator
/// shaped so that shards differ, with a long tail.
struct Samples(u64);

impl Samples {
    fn next(&mut self, shard: usize) -> (u64, u64) {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let r = (self.0 >> 33) % 1_000_000;
        // Shard k is (k + 1) times slower, and one sample in 200 is a tail.
        let base = 20 + r % 400;
        let tail = if r % 200 == 0 { 50_000 + r % 30_000 } else { 0 };
        let second = (self.0 >> 13) % SECONDS;
        ((base + tail) * (shard as u64 + 1), second)
    }
}

/// One op's samples of one shard: whole and per second.
struct OpSamples {
    whole: Histogram<u64>,
    seconds: Vec<Histogram<u64>>,
    sum_us: u64,
}

impl OpSamples {
    fn new() -> OpSamples {
        OpSamples {
            whole: latency_histogram().unwrap(),
            seconds: (0..SECONDS).map(|_| latency_histogram().unwrap()).collect(),
            sum_us: 0,
        }
    }

    fn record(&mut self, v: u64, second: u64) {
        self.whole.record(v).unwrap();
        self.seconds[second as usize].record(v).unwrap();
        self.sum_us += v;
    }
}

fn percentiles_json(h: &Histogram<u64>) -> Map<String, Value> {
    PERCENTILES
        .iter()
        .map(|&p| {
            (
                percentile_key(p),
                json!(ms(h.value_at_percentile(p) as f64)),
            )
        })
        .collect()
}

fn row_json(o: &OpSamples, duration_s: f64) -> Value {
    let h = &o.whole;
    let n = h.len();
    let mut series = Map::new();
    for (s, sh) in o.seconds.iter().enumerate() {
        let mut e = percentiles_json(sh);
        e.insert("Count".into(), json!(sh.len()));
        e.insert("Bytes RX".into(), json!(sh.len() * 5));
        e.insert("Bytes TX".into(), json!(sh.len() * 40));
        e.insert("Average Latency".into(), json!(ms(sh.mean())));
        series.insert(s.to_string(), Value::Object(e));
    }
    let mut pct = percentiles_json(h);
    pct.insert(
        "Histogram log format".into(),
        json!({"Compressed Histogram": compressed(h)}),
    );
    json!({
        "Count": n, "Ops/sec": n as f64 / duration_s, "Hits/sec": 0.0, "Misses/sec": 0.0,
        "Connection Errors/sec": 0.0, "Connection Errors": 0,
        "Latency": ms(o.sum_us as f64 / n as f64), "Average Latency": ms(o.sum_us as f64 / n as f64),
        "Accumulated Latency": o.sum_us / 1000, "Min Latency": ms(h.min() as f64),
        "Max Latency": ms(h.max() as f64), "KB/sec": 0.0, "KB/sec RX/TX": 0.0,
        "KB/sec RX": 0.0, "KB/sec TX": 0.0, "Time-Serie": series, "Percentile Latencies": pct,
    })
}

/// Writes `prefix_<COMMAND>_command_run_1.hlog` for each op, as a run with
/// `--hdr-file-prefix prefix` does: second `s` tagged with the command.
fn write_logs(prefix: &std::path::Path, ops: &[OpSamples]) {
    use hdrhistogram::serialization::V2DeflateSerializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
    for ((_, command), o) in OPS.iter().zip(ops) {
        let mut name = prefix.as_os_str().to_os_string();
        name.push(format!("_{command}_command_run_1.hlog"));
        let mut file = std::fs::File::create(PathBuf::from(name)).unwrap();
        let mut serializer = V2DeflateSerializer::new();
        let mut log = IntervalLogWriterBuilder::new()
            .with_base_time(std::time::SystemTime::now())
            .begin_log_with(&mut file, &mut serializer)
            .unwrap();
        for (s, h) in o.seconds.iter().enumerate() {
            let start = std::time::Duration::from_secs(s as u64);
            log.write_histogram(
                h,
                start,
                std::time::Duration::from_secs(1),
                Tag::new(command),
            )
            .unwrap();
        }
    }
}

/// One shard's file: a single run, its rows and histograms, with
/// `kvbench.shard` set; `prefix`: the `--hdr-file-prefix` its run had.
fn shard_file(
    index: usize,
    count: usize,
    ops: &[OpSamples],
    duration_ms: u64,
    prefix: Option<&std::path::Path>,
) -> Value {
    let d = duration_ms as f64 / 1000.0;
    let mut section = Map::new();
    section.insert(
        "Runtime".into(),
        json!({"Start time": 1_000_000 + index as u64, "Finish time": 1_000_000 + duration_ms,
               "Total duration": duration_ms, "Time unit": "MILLISECONDS", "Interrupted": "false"}),
    );
    let mut totals = OpSamples::new();
    let mut run_totals = Map::new();
    let mut histograms = Map::new();
    for ((row, command), o) in OPS.iter().zip(ops) {
        section.insert(row.to_string(), row_json(o, d));
        totals.whole.add(&o.whole).unwrap();
        for (a, b) in totals.seconds.iter_mut().zip(&o.seconds) {
            a.add(b).unwrap();
        }
        totals.sum_us += o.sum_us;
        let n = o.whole.len();
        run_totals.insert(
            command.to_string(),
            json!({"count": n, "hits": 0, "misses": 0, "errors": 0, "bytes_tx": n * 40,
                   "bytes_rx": n * 5, "latency_sum_us": o.sum_us}),
        );
        histograms.insert(command.to_string(), json!(compressed(&o.whole)));
    }
    section.insert("Totals".into(), row_json(&totals, d));
    let errors = json!({"server": {}, "connection": 0, "refused": 0, "timeouts": 0,
                        "reconnects": 0, "protocol": 0, "lost_requests": 0});
    json!({
        "ALL STATS": section,
        "kvbench": {
            "schema_version": 1, "tool_version": "0", "complete": true, "runs_planned": 1,
            "runs_completed": 1, "seed": index, "target": "127.0.0.1:6379",
            "latency": "service time", "latency_unit_of_histograms": "microseconds",
            "config": {"threads": 4, "clients_per_thread": 50, "percentiles": PERCENTILES, "seed": index,
                       "hdr_file_prefix": prefix.map(|p| p.display().to_string())},
            "runs": [{
                "phase": "RUN #1", "start_time_ms": 1_000_000 + index as u64,
                "duration_ms": duration_ms, "ops_per_sec": 0.0, "thread_cpu_s": [0.5],
                "totals": run_totals, "errors": errors, "open_loop": null, "server": null,
                "histograms": histograms,
            }],
            "warmup": null, "prefill": null, "totals": null, "hit_rate_percent": null,
            "errors": errors, "server": null, "variance": null, "interrupted": null,
            "warnings": [],
            "shard": {"index": index, "count": count, "source": "flags", "host": format!("m{index}"),
                      "start_at_ms": 999_000, "start_lag_ms": 0.1, "clock": null},
        }
    })
}

/// Splits a stream into `n` shards, merges their files, and returns the
/// merged document with the union of every op's samples (whole, per second).
/// A shard's start, run time and replies per second.
struct ShardRun {
    start_ms: f64,
    duration_ms: f64,
    per_second: Vec<u64>,
}

fn merge_split(n: usize, per_shard: usize) -> (Value, Vec<OpSamples>, Vec<ShardRun>) {
    merge_split_logged(n, per_shard, |_| true)
}

/// [`merge_split`], shard `k` having run with `--hdr-file-prefix` when
/// `logged(k)`.
fn merge_split_logged(
    n: usize,
    per_shard: usize,
    logged: impl Fn(usize) -> bool,
) -> (Value, Vec<OpSamples>, Vec<ShardRun>) {
    let dir = TempDir::new("merge-exact");
    let mut union: Vec<OpSamples> = OPS.iter().map(|_| OpSamples::new()).collect();
    let mut samples = Samples(n as u64 * 7919);
    let mut files: Vec<PathBuf> = Vec::new();
    let mut durations = Vec::new();
    for shard in 0..n {
        let mut ops: Vec<OpSamples> = OPS.iter().map(|_| OpSamples::new()).collect();
        for i in 0..per_shard {
            let (v, second) = samples.next(shard);
            // One SET for nine GETs.
            let op = usize::from(i % 10 != 0);
            ops[op].record(v, second);
            union[op].record(v, second);
        }
        let duration_ms = 3000 + 10 * shard as u64;
        durations.push(ShardRun {
            start_ms: 1_000_000.0 + shard as f64,
            duration_ms: duration_ms as f64,
            per_second: (0..SECONDS as usize)
                .map(|s| ops.iter().map(|o| o.seconds[s].len()).sum())
                .collect(),
        });
        let path = dir.path(&format!("shard{shard}.json"));
        let prefix = dir.path(&format!("shard{shard}"));
        let prefix = logged(shard).then_some(prefix.as_path());
        if let Some(p) = prefix {
            write_logs(p, &ops);
        }
        let doc = shard_file(shard, n, &ops, duration_ms, prefix);
        std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
        files.push(path);
    }
    let out = dir.path("merged.json");
    let mut argv: Vec<String> = vec!["kvbench merge".into()];
    argv.extend(files.iter().map(|f| f.display().to_string()));
    argv.extend(["-o".into(), out.display().to_string()]);
    let args = MergeArgs::try_parse_from(argv).unwrap();
    kvbench::tools::merge::run(&MergeOptions::from_args(&args)).unwrap();
    (read_json(&out), union, durations)
}

fn assert_percentiles(row: &Value, h: &Histogram<u64>, what: &str) {
    for p in PERCENTILES {
        let key = percentile_key(p);
        let want = ms(h.value_at_percentile(p) as f64);
        assert_eq!(
            row[&key].as_f64(),
            Some(want),
            "{what} {key}: merged {} vs all samples {want}",
            row[&key]
        );
    }
}

#[test]
fn merged_percentiles_equal_those_of_all_samples_for_any_number_of_shards() {
    for n in [1, 2, 3, 5, 8] {
        let (doc, union, durations) = merge_split(n, 4000);
        let section = &doc["ALL STATS"];
        let mut all = latency_histogram().unwrap();
        for ((row, command), u) in OPS.iter().zip(&union) {
            let r = &section[row];
            assert_eq!(r["Count"].as_u64(), Some(u.whole.len()), "{n} shards {row}");
            assert_percentiles(
                &r["Percentile Latencies"],
                &u.whole,
                &format!("{n} shards {row}"),
            );
            // The merged histogram is the union, count for count.
            let merged = decode_histogram(
                doc["kvbench"]["runs"][0]["histograms"][command]
                    .as_str()
                    .unwrap(),
            );
            assert_eq!(merged, u.whole, "{n} shards {command}: merged histogram");
            // The mean is exact: the sum of latencies over the count.
            let mean = ms(u.sum_us as f64 / u.whole.len() as f64);
            assert_eq!(
                r["Average Latency"].as_f64(),
                Some(mean),
                "{n} shards {row} mean"
            );
            for s in 0..SECONDS {
                let second = &r["Time-Serie"][s.to_string()];
                let h = &u.seconds[s as usize];
                assert_eq!(second["Count"].as_u64(), Some(h.len()));
                assert_percentiles(second, h, &format!("{n} shards {row} second {s}"));
            }
            all.add(&u.whole).unwrap();
        }
        let totals = &section["Totals"];
        assert_percentiles(
            &totals["Percentile Latencies"],
            &all,
            &format!("{n} shards Totals"),
        );
        // The rate is the replies inside the common window (the latest
        // start to the earliest end), a second cut by its edge counting in
        // proportion, over the window's length.
        let from = durations
            .iter()
            .map(|r| r.start_ms)
            .fold(f64::MIN, f64::max);
        let to = durations
            .iter()
            .map(|r| r.start_ms + r.duration_ms)
            .fold(f64::MAX, f64::min);
        let inside: f64 = durations
            .iter()
            .flat_map(|r| {
                let end = r.start_ms + r.duration_ms;
                r.per_second.iter().enumerate().map(move |(k, &c)| {
                    let a = r.start_ms + 1000.0 * k as f64;
                    // Second k is [k s, k + 1 s) of the run, cut by its end.
                    let b = (a + 1000.0).min(end);
                    c as f64 * ((b.min(to) - a.max(from)).max(0.0) / (b - a))
                })
            })
            .sum();
        let want = (inside / ((to - from) / 1000.0) * 100.0).round() / 100.0;
        assert_eq!(totals["Ops/sec"].as_f64(), Some(want), "{n} shards Ops/sec");
        // Longer than the window, the plain sum's rate is lower here: the
        // window leaves out no second in which a shard sent alone, only the
        // ends of the longer runs' last seconds.
        let longest_s = durations.iter().map(|r| r.duration_ms).fold(0.0, f64::max) / 1000.0;
        let plain = all.len() as f64 / longest_s;
        assert!(
            want >= plain * 0.99 && want <= plain * 1.05,
            "{n} shards: window rate {want} vs plain {plain}"
        );
        assert_eq!(
            doc["kvbench"]["merged"]["common_window_s"][0].as_f64(),
            Some(((to - from) / 1000.0 * 1000.0).round() / 1000.0)
        );
        assert_eq!(doc["kvbench"]["shards"].as_array().map(Vec::len), Some(n));
        assert_eq!(doc["kvbench"]["merged"]["partial"], false);
    }
}

#[test]
fn averaging_the_shards_p99_would_be_wrong_and_the_merge_does_not() {
    let (doc, union, _) = merge_split(4, 4000);
    let mut all = latency_histogram().unwrap();
    for u in &union {
        all.add(&u.whole).unwrap();
    }
    let merged = doc["ALL STATS"]["Totals"]["Percentile Latencies"]["p99.00"]
        .as_f64()
        .unwrap();
    let shards = doc["kvbench"]["shards"].as_array().unwrap();
    let mean_of_p99: f64 = shards
        .iter()
        .map(|s| s["p99_ms"].as_f64().unwrap())
        .sum::<f64>()
        / shards.len() as f64;
    assert_eq!(merged, ms(all.value_at_percentile(99.0) as f64));
    // The shards differ 1× to 4×: the mean of their p99s is another number.
    assert!(
        (merged - mean_of_p99).abs() > 0.05 * merged,
        "merged p99 {merged} vs mean of shard p99s {mean_of_p99}"
    );
    // Each shard row is its own: the slowest shard's p99 is above the fastest's.
    let p99s: Vec<f64> = shards
        .iter()
        .map(|s| s["p99_ms"].as_f64().unwrap())
        .collect();
    assert!(p99s[3] > p99s[0], "{p99s:?}");
    assert!(p99s[3] < 10.0 * p99s[0] && p99s[0] > 0.0, "{p99s:?}");
}

#[test]
fn a_set_where_one_shard_wrote_no_interval_log_has_no_per_second_percentiles() {
    // Shard 1 ran without --hdr-file-prefix: the seconds' histograms of the
    // others alone would give percentiles of part of the samples.
    let (doc, union, _) = merge_split_logged(3, 3000, |k| k != 1);
    let section = &doc["ALL STATS"];
    for ((row, _), u) in OPS.iter().zip(&union) {
        let r = &section[row];
        assert_percentiles(&r["Percentile Latencies"], &u.whole, row);
        for s in 0..SECONDS {
            let second = &r["Time-Serie"][s.to_string()];
            assert_eq!(second["Count"].as_u64(), Some(u.seconds[s as usize].len()));
            assert!(second["p99.00"].is_null(), "{row} second {s}: {second}");
            assert!(second["Average Latency"].as_f64().is_some(), "{second}");
        }
    }
}
