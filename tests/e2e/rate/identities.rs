//! memtier's identities in a `--rate` run that falls behind: in every section
//! and every op row, `Average Latency` is `Accumulated Latency` / `Count`,
//! `Ops/sec` is `Count` over the section's seconds, the `Time-Serie` seconds
//! add up to the row, and the percentiles, minimum, maximum and mean come from
//! the row's own histogram. The requests never sent are reported apart, in
//! `kvbench.runs[].open_loop.never_sent_wait`, so none of those fields mixes
//! them in.

use serde_json::Value;

use crate::common::{Redis, decode_histogram, f, row_histogram, u};

/// One connection at pipeline 1 answers a few ten thousand requests a
/// second, far below this schedule: requests are still due at every deadline.
/// The rate is not offered, so the verdict is not valid; `--allow-invalid`
/// keeps the exit code 0 the harness asserts (tests/e2e/verdict.rs checks the 3).
const BEHIND_LOAD: &str =
    "--rate 1000000 -t 1 -c 1 --pipeline 1 --test-time 1 -x 2 --ratio 1:1 --allow-invalid";

/// The rows every section of the default SET/GET pair has.
const ROWS: [&str; 3] = ["Sets", "Gets", "Totals"];

/// Asserts `|actual - expected| <= allowance`, naming what was compared.
fn assert_within(actual: f64, expected: f64, allowance: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= allowance,
        "{what}: {actual}, want {expected} ± {allowance}"
    );
}

/// The identities of one op row of section `title` lasting `secs` seconds.
fn assert_row_identities(title: &str, name: &str, row: &Value, secs: f64) {
    let what = |field: &str| format!("{title} {name} {field}");
    let count = u(&row["Count"]);
    assert!(count > 0, "{}: no replies", what("Count"));
    let accumulated_ms = u(&row["Accumulated Latency"]) as f64;
    let average_ms = f(&row["Average Latency"]);
    // Average is rounded to the µs, Accumulated to the whole ms.
    assert_within(
        average_ms,
        accumulated_ms / count as f64,
        0.0005 + 0.5 / count as f64 + 1e-9,
        &what("Average Latency vs Accumulated Latency / Count"),
    );
    assert_eq!(
        row["Latency"],
        row["Average Latency"],
        "{}",
        what("Latency")
    );
    // Ops/sec is rounded to 0.01; Total duration is whole ms, cut down.
    let ops = f(&row["Ops/sec"]);
    let low = count as f64 / (secs + 0.001);
    let high = count as f64 / secs;
    assert!(
        ops >= low - 0.005 && ops <= high + 0.005,
        "{}: {ops}, want Count {count} over {secs} s: {low}..={high}",
        what("Ops/sec")
    );

    // The histogram holds exactly the replies, and the row's figures are its own.
    let h = row_histogram(row);
    assert_eq!(h.len(), count, "{}", what("histogram samples vs Count"));
    let exact_mean_ms = h.mean() / 1000.0;
    // A histogram bucket is within 0.1 % of its values.
    assert_within(
        average_ms,
        exact_mean_ms,
        0.001 * exact_mean_ms + 0.0015,
        &what("Average Latency vs the histogram's mean"),
    );
    for (key, p) in [("p50.00", 50.0), ("p99.00", 99.0), ("p99.90", 99.9)] {
        let shown = f(&row["Percentile Latencies"][key]);
        let from_histogram = h.value_at_percentile(p) as f64 / 1000.0;
        assert_within(shown, from_histogram, 0.0005, &what(key));
    }
    assert_within(
        f(&row["Max Latency"]),
        h.max() as f64 / 1000.0,
        0.0005,
        &what("Max Latency"),
    );
    assert_within(
        f(&row["Min Latency"]),
        h.min() as f64 / 1000.0,
        0.0005,
        &what("Min Latency"),
    );

    // The seconds add up to the row (the aggregate has none, as memtier's).
    let seconds = row["Time-Serie"].as_object().unwrap();
    if seconds.is_empty() {
        assert!(title.starts_with("AGGREGATED"), "{}", what("Time-Serie"));
        return;
    }
    let counted: u64 = seconds.values().map(|s| u(&s["Count"])).sum();
    assert_eq!(counted, count, "{}", what("Time-Serie Count sum"));
    let accumulated: Vec<f64> = seconds
        .values()
        .filter_map(|s| s.get("Accumulated Latency"))
        .map(|v| u(v) as f64)
        .collect();
    // Each second is rounded to the whole ms, and so is the row.
    assert_within(
        accumulated.iter().sum(),
        accumulated_ms,
        0.5 * accumulated.len() as f64 + 0.5,
        &what("Time-Serie Accumulated Latency sum"),
    );
    for (second, s) in seconds {
        let n = u(&s["Count"]);
        if n == 0 {
            continue;
        }
        assert_within(
            f(&s["Average Latency"]),
            u(&s["Accumulated Latency"]) as f64 / n as f64,
            0.0005 + 0.5 / n as f64 + 1e-9,
            &what(&format!(
                "Time-Serie {second} Average vs Accumulated / Count"
            )),
        );
    }
}

#[test]
fn a_rate_run_that_falls_behind_keeps_memtiers_identities_in_every_section_and_row() {
    let _load = crate::common::machine::alone();
    let redis = Redis::start();
    let doc = redis.kvbench_json(BEHIND_LOAD).doc;
    let titles = [
        "RUN #1 RESULTS",
        "RUN #2 RESULTS",
        "BEST RUN RESULTS",
        "WORST RUN RESULTS",
        "AGGREGATED AVERAGE RESULTS (2 runs)",
    ];
    for title in titles {
        let section = &doc[title];
        assert!(section.is_object(), "no {title} section");
        let secs = u(&section["Runtime"]["Total duration"]) as f64 / 1000.0;
        assert!(secs >= 1.0, "{title} lasted {secs} s");
        for name in ROWS {
            assert_row_identities(title, name, &section[name], secs);
        }
    }

    // Every run fell behind, and its requests never sent are reported beside
    // the replies, in kvbench's own block, with their wait until the deadline.
    for (i, run) in doc["kvbench"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let ol = &run["open_loop"];
        let never_sent = u(&ol["never_sent"]);
        assert!(never_sent > 1000, "run {i}: only {never_sent} never sent");
        let waits = &ol["never_sent_wait"];
        let per_row: u64 = ["Sets", "Gets"].iter().map(|r| u(&waits[r]["Count"])).sum();
        assert_eq!(per_row, never_sent, "run {i}: never_sent_wait rows");
        let totals = &waits["Totals"];
        assert_eq!(u(&totals["Count"]), never_sent, "run {i}: never_sent_wait");
        let h = decode_histogram(totals["Compressed Histogram"].as_str().unwrap());
        assert_eq!(h.len(), never_sent, "run {i}: never_sent_wait histogram");
        // Each waited from its intended send time to the deadline: at most the
        // run's length, and for most of them far more than a reply takes.
        let max_ms = f(&totals["Max Latency"]);
        assert!(
            max_ms > 100.0 && max_ms <= 1100.0,
            "run {i}: the longest wait of a request never sent is {max_ms} ms"
        );
        // The run's response time counts the replies only, as the section does.
        let section = &doc[format!("RUN #{} RESULTS", i + 1).as_str()];
        let replies = u(&section["Totals"]["Count"]);
        assert_eq!(
            u(&ol["response_time"]["Totals"]["Count"]),
            replies,
            "run {i}: response_time"
        );
        assert_eq!(
            u(&ol["service_time"]["Totals"]["Count"]),
            replies,
            "run {i}: service_time"
        );
    }
}
