//! How well a run's figures are known, against real servers: every measured
//! run carries the 95 % batch-means interval of its ops/sec and of each
//! printed percentile; `--test-time auto` against a steady server ends once
//! the figure named is known that well, before its maximum; against a
//! server made noisy on purpose (CLIENT PAUSE pulses of varying length) it
//! runs to `--max-test-time` and the verdict says `imprecise` with the
//! interval reached. The server's own counts witness the runs.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{
    Redis, TempDir, ask, decode_histogram, f, kvbench_at, machine, read_json,
    refused_before_connecting, u, wait_for_traffic,
};

/// The half-width `imprecise` says `whose` figure is known to, in `text`
/// that goes on with `then`. The JSON gives it to two decimals, the message
/// to one, each rounded from the exact value: the two agree to 0.1.
fn interval_said(text: &str, whose: &str, then: &str) -> f64 {
    text.split(&format!("imprecise: {whose} is known to ± "))
        .nth(1)
        .and_then(|rest| rest.split(&format!(" % (95 % interval), {then}")).next())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no '{whose} is known to ± N %, {then}' in {text}"))
}

/// The `Totals` p99's precision figure of run `i`.
fn totals_p99(doc: &serde_json::Value, i: usize) -> &serde_json::Value {
    &doc["kvbench"]["runs"][i]["precision"]["latency_ms"]["Totals"]["p99.00"]
}

#[test]
fn an_auto_run_against_a_steady_server_ends_once_its_p99_is_known_that_well() {
    let _alone = machine::alone();
    // The steadiest server there is: each request sleeps 10 ms in the
    // server, one at a time, so a second's p99 is that sleep plus the
    // loopback and this machine's scheduling. Against a plain redis-server
    // on a shared virtual machine the p99 of sub-millisecond requests
    // wanders by half over a minute (measured: 1.35 to 2.17 ms with a 1 ms
    // sleep, ± 10.5 % after 60 s) and an auto run rightly ends imprecise;
    // beside a 10 ms sleep the same wandering is a few per cent (measured:
    // met after 20 s at ± 1.4 to 3.8 %, also with both cores kept busy).
    let redis = Redis::start_with(&["--enable-debug-command", "yes"]);
    let report = crate::common::kvbench_json(
        redis.port,
        "-t 1 -c 1 --test-time auto --target-precision p99=5%,p50=5% --max-test-time 60",
        &["--command", "DEBUG SLEEP 0.01"],
    );
    let kv = &report.doc["kvbench"];
    let run = &kv["runs"][0];
    let precision = &run["precision"];
    let after = u(&precision["met_after_s"]);
    assert!(
        (20..60).contains(&after),
        "met after {after} s: {precision}"
    );
    // It ended when the targets were met, not at its maximum.
    let ran_ms = u(&run["duration_ms"]);
    assert!(
        ran_ms >= after * 1000 && ran_ms <= (after + 3) * 1000,
        "ran {ran_ms} ms, met after {after} s"
    );
    for (key, least, most) in [("p50.00", 10.0, 13.0), ("p99.00", 10.0, 30.0)] {
        let figure = &precision["latency_ms"]["Totals"][key];
        let reached = f(&figure["relative_percent"]);
        // Never below half the compact histograms' bucket (two significant
        // digits: 64 µs wide at 8–16 ms, so ± 0.2–0.4 %), even where every
        // batch's median fell in one bucket (± 0 before that floor, seen
        // once in a CI run).
        assert!((0.2..=5.0).contains(&reached), "{key}: {figure}");
        assert!(u(&figure["batches"]) >= 10, "{key}: {figure}");
        // The interval is around the percentile the report prints: the
        // sleep's 10 ms and a little more.
        let printed = f(&figure["value"]);
        let section = f(&report.doc["ALL STATS"]["Totals"]["Percentile Latencies"][key]);
        assert!((printed - section).abs() <= 0.001, "{printed} vs {section}");
        assert!((least..most).contains(&printed), "{key}: {figure}");
    }
    assert_eq!(kv["verdict"]["valid"], true, "{}", kv["verdict"]);
    assert_eq!(kv["config"]["test_time_auto"], true);
    assert_eq!(kv["config"]["target_precision"][0], "p99=5%");
    assert_eq!(kv["config"]["target_precision"][1], "p50=5%");
    // The server answered every DEBUG kvbench counted, no more.
    let delta = &run["server"]["delta"];
    assert_eq!(
        u(&delta["commands"]["debug"]["calls"]),
        u(&run["totals"]["DEBUG"]["count"]),
        "{delta}"
    );
    let line =
        format!("Test time auto: RUN #1 ended after {after} s, every --target-precision met.");
    assert!(report.stdout.contains(&line), "{}", report.stdout);
    assert!(
        report
            .stdout
            .contains("Precision of RUN #1 (95 % intervals"),
        "{}",
        report.stdout
    );
}

/// Per-op targets: a 1:1 run of a fast SET and a 1 ms `DEBUG SLEEP` is
/// judged on each op's own percentile, and the op a fixed run misses is the
/// one named. The SETs' p50 is their own (under a millisecond), not the
/// run's (between the two).
#[test]
fn a_per_op_target_judges_that_ops_own_percentile_and_names_it() {
    let _alone = machine::alone();
    let redis = Redis::start_with(&["--enable-debug-command", "yes"]);
    let dir = TempDir::new("precision");
    let json = dir.path("ops.json");
    let out = kvbench_at(redis.port)
        // 80 s: ten batches of 8 s where a busy machine makes the 4 s
        // ones autocorrelated (at 30 s a CI run had no SET interval, and
        // fixed 24 s and 40 s runs of other tests had none either).
        .args(["-t", "1", "-c", "1", "--test-time", "80"])
        .args([
            "--command",
            "SET __key__ __data__",
            "--command",
            "DEBUG SLEEP 0.001",
        ])
        .args(["--target-precision", "set:p50=50%,DEBUG:p99.9=0.001%"])
        .arg("--json-out-file")
        .arg(&json)
        .output()
        .unwrap();
    // The DEBUGs' p99.9 known to 0.001 % is asked for and not reached: exit
    // 3, naming the DEBUGs and not the SETs, whose loose target is met.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let doc = read_json(&json);
    let kv = &doc["kvbench"];
    assert_eq!(
        kv["config"]["target_precision"],
        serde_json::json!(["SET:p50=50%", "DEBUG:p99.9=0.001%"]),
        "{}",
        kv["config"]
    );
    let reasons = kv["verdict"]["reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    let message = reasons[0]["message"].as_str().unwrap();
    assert_eq!(reasons[0]["kind"], "imprecise", "{message}");
    let latency = &kv["runs"][0]["precision"]["latency_ms"];
    let debug = &latency["Debugs"]["p99.90"];
    let reached = f(&debug["relative_percent"]);
    let wider = "wider than --target-precision DEBUG:p99.9=0.001%";
    let said = interval_said(message, "its DEBUG p99.9", wider);
    assert!(
        (said - reached).abs() <= 0.1,
        "{said} vs {reached}: {message}"
    );
    assert!(stderr.contains(message), "{stderr}");
    // Each op's own p50: the SETs' under the sleep, the DEBUGs' over it;
    // the SETs' interval within its 50 %.
    let set = &latency["Sets"]["p50.00"];
    assert!(f(&set["value"]) < 1.0, "{set}");
    assert!(f(&set["relative_percent"]) <= 50.0, "{set}");
    let debug_p50 = f(&latency["Debugs"]["p50.00"]["value"]);
    assert!((1.0..3.0).contains(&debug_p50), "{latency}");
    // The text gives each named op's intervals on a line of its own.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let set_line = format!("\n  SET: p50 {:.3} ms ± ", f(&set["value"]));
    assert!(stdout.contains(&set_line), "{stdout}");
    assert!(
        stdout.contains(&format!("\n  DEBUG: p50 {debug_p50:.3} ms ± ")),
        "{stdout}"
    );
    // The server ran every command kvbench counted.
    let run = &kv["runs"][0];
    let delta = &run["server"]["delta"];
    let debugs = u(&delta["commands"]["debug"]["calls"]);
    assert_eq!(debugs, u(&run["totals"]["DEBUG"]["count"]), "{delta}");
    assert_eq!(
        u(&delta["set_calls"]),
        u(&run["totals"]["SET"]["count"]),
        "{delta}"
    );
}

#[test]
fn an_auto_run_against_a_server_pausing_at_random_reaches_its_maximum_imprecise() {
    let _alone = machine::alone();
    let redis = Redis::start();
    let dir = TempDir::new("precision");
    let json = dir.path("noisy.json");
    // An open loop: a request due during a pause waits through it, and its
    // latency counts from when it was due, so a second with a pause has a
    // p99 of the pause and a second without one a p99 of a fraction of a
    // millisecond.
    let mut kvbench = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "4",
            "--rate",
            "2000",
            "--ratio",
            "1:0",
            "--key-maximum",
            "10000",
            "--test-time",
            "auto",
            "--target-precision",
            "p99=5%",
            "--max-test-time",
            "30",
            "--json-out-file",
        ])
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut kvbench);
    // Pauses of 50 to 300 ms, 0.5 to 2.5 s apart (a fixed sequence).
    let started = Instant::now();
    let mut k: u64 = 0;
    while started.elapsed() < Duration::from_secs(40) {
        k += 1;
        let ms = (50 * (1 + k % 6)).to_string();
        assert_eq!(ask(redis.port, &["CLIENT", "PAUSE", &ms, "WRITE"]), "OK");
        std::thread::sleep(Duration::from_millis(500 + (k * 7919) % 2000));
        if kvbench.try_wait().unwrap().is_some() {
            break;
        }
    }
    let out = kvbench.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}\n{stdout}");
    let doc = read_json(&json);
    let kv = &doc["kvbench"];
    let run = &kv["runs"][0];
    // It ran to its maximum: the target was never met.
    let ran_ms = u(&run["duration_ms"]);
    assert!((29_000..=31_000).contains(&ran_ms), "ran {ran_ms} ms");
    assert!(
        run["precision"].get("met_after_s").is_none(),
        "{}",
        run["precision"]
    );
    let p99 = totals_p99(&doc, 0);
    let reached = f(&p99["relative_percent"]);
    assert!(reached > 5.0, "{p99}");
    let reasons = kv["verdict"]["reasons"].as_array().unwrap();
    let reason = reasons
        .iter()
        .find(|r| r["kind"] == "imprecise")
        .unwrap_or_else(|| panic!("no imprecise in {reasons:?}"));
    assert_eq!(reason["phase"], "RUN #1", "{reason}");
    let said = interval_said(&stderr, "its p99", "wider than --target-precision p99=5%");
    assert!(
        (said - reached).abs() <= 0.1,
        "{said} vs {reached}: {stderr}"
    );
    assert!(
        stderr.contains("after 30 s, the most --max-test-time allows"),
        "{stderr}"
    );
    // Every SET the run counted reached the server.
    let delta = &run["server"]["delta"];
    assert_eq!(
        u(&delta["set_calls"]),
        u(&run["totals"]["SET"]["count"]),
        "{delta}"
    );
}

#[test]
fn a_fixed_run_carries_its_intervals_and_a_short_one_says_they_are_not_known() {
    let _alone = machine::alone();
    let redis = Redis::start();
    // An open loop at a steady rate: its seconds' replies follow the
    // schedule, so its throughput has an interval on any machine. A closed
    // loop's follows the machine: on a busy CI host a 24 s one had its
    // throughput autocorrelated at every batch length that leaves ten
    // batches, and so, rightly, no interval (the 10-run test below covers
    // closed loops).
    let long =
        redis.kvbench_json("-t 1 -c 2 --ratio 1:1 --key-maximum 1000 --rate 1000 --test-time 24");
    let p = &long.doc["kvbench"]["runs"][0]["precision"];
    // 24 s whole seconds, the last partial one left out.
    let seconds = u(&p["seconds"]);
    assert!((22..=24).contains(&seconds), "{p}");
    let ops = &p["ops_per_sec"];
    let printed = f(&long.doc["kvbench"]["runs"][0]["ops_per_sec"]);
    assert!(
        (f(&ops["value"]) - printed).abs() < 0.01,
        "{ops} vs {printed}"
    );
    assert!(u(&ops["batches"]) >= 10 && u(&ops["batch_s"]) >= 1, "{ops}");
    // Every printed percentile of every row and of Totals.
    for row in ["Sets", "Gets", "Totals"] {
        for key in ["p50.00", "p99.00", "p99.90"] {
            assert!(p["latency_ms"][row].get(key).is_some(), "{row} {key}: {p}");
        }
    }
    // No target asked: the verdict does not judge precision.
    assert_eq!(long.doc["kvbench"]["verdict"]["valid"], true);
    let short = redis.kvbench_json("-t 1 -c 2 --ratio 1:1 --key-maximum 1000 --test-time 5");
    let p = &short.doc["kvbench"]["runs"][0]["precision"];
    assert!(p["ops_per_sec"].is_null(), "{p}");
    assert!(p["latency_ms"]["Totals"]["p99.00"].is_null(), "{p}");
    assert!(
        short.stdout.contains("ops/sec not known, p50 not known"),
        "{}",
        short.stdout
    );
    // Asked of a run too short to know it: imprecise, exit 3.
    let out = kvbench_at(redis.port)
        .args([
            "-t",
            "1",
            "-c",
            "2",
            "--test-time",
            "5",
            "--target-precision",
            "ops=50%",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("imprecise: its ops/sec has no interval (--target-precision ops=50%)"),
        "{stderr}"
    );
}

#[test]
fn precision_flags_that_cannot_work_are_refused_before_connecting() {
    let redis = Redis::start();
    for (args, says) in [
        (
            &["--test-time", "auto"][..],
            "--test-time: auto runs until the figures named by --target-precision",
        ),
        (
            &["--test-time", "10", "--max-test-time", "60"][..],
            "--max-test-time: bounds --test-time auto only",
        ),
        (
            &[
                "--test-time",
                "auto",
                "--target-precision",
                "p99=5%",
                "--max-test-time",
                "10",
            ][..],
            "--max-test-time: must be at least 20 seconds",
        ),
        (
            &["--target-precision", "p97=5%"][..],
            "'p97' is not among the printed percentiles (50,99,99.9)",
        ),
        (
            &["--target-precision", "p99"][..],
            "'p99' is not FIGURE=PCT",
        ),
        (
            &["--target-precision", "p99=0%"][..],
            "the bound is a percentage of the figure above 0",
        ),
        (
            &["--target-precision", "mean=5%"][..],
            "'mean' is no figure",
        ),
        (
            &["--target-precision", "HSET:p99=5%"][..],
            "'HSET' is no op of this run; name one of SET, GET before the colon",
        ),
        (
            &["--target-precision", "set:ops=5%"][..],
            "'SET:ops': an op's target names one of its percentiles (e.g. SET:p99=5%)",
        ),
        (
            &["-x", "auto"][..],
            "--run-count: auto repeats runs until the median run's figures",
        ),
        (
            &["-x", "3", "--max-run-count", "8"][..],
            "--max-run-count: bounds -x auto only",
        ),
        (
            &[
                "-x",
                "auto",
                "--target-precision",
                "ops=5%",
                "--max-run-count",
                "3",
            ][..],
            "--max-run-count: must be from 6 to 1000",
        ),
    ] {
        let stderr = refused_before_connecting(&redis, args);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// Ten runs of one workload: how often each run's p99 falls inside another
/// run's interval. For two equally precise estimates and exact 95 %
/// intervals that is 83 % of the pairs; runs minutes apart on a shared
/// machine also drift, which no interval within one run can see (measured
/// here: 73 % of the pairs on a quiet machine, 37 % on a busy one,
/// docs/precision.md). The interval that takes every latency as an
/// independent sample, from the order statistics of the run's own
/// histogram, holds far fewer (under 10 % measured), and the check this
/// test makes fails on it.
#[test]
fn over_ten_runs_the_batch_means_intervals_hold_the_other_runs_p99_where_independent_samples_ones_do_not()
 {
    let _alone = machine::alone();
    let redis = Redis::start();
    let report =
        redis.kvbench_json("-t 1 -c 2 --ratio 1:1 --key-maximum 10000 -x 10 --test-time 20");
    let runs = report.doc["kvbench"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10);
    // (p99, batch-means interval, independent-samples interval), ms.
    type Run = (f64, (f64, f64), (f64, f64));
    let mut each: Vec<Run> = Vec::new();
    for run in runs {
        let p99 = &run["precision"]["latency_ms"]["Totals"]["p99.00"];
        // A run whose p99 has no interval (its 2 s batches autocorrelated,
        // as a busy machine makes them) has nothing to check: left out.
        if p99.is_null() {
            continue;
        }
        let (value, half) = (f(&p99["value"]), f(&p99["half_width"]));
        let mut all = decode_histogram(run["histograms"]["SET"].as_str().unwrap());
        all.add(decode_histogram(run["histograms"]["GET"].as_str().unwrap()))
            .unwrap();
        let n = all.len() as f64;
        let spread = 1.96 * (n * 0.99 * 0.01).sqrt();
        let at = |rank: f64| all.value_at_quantile((rank / n).clamp(0.0, 1.0)) as f64 / 1000.0;
        let independent = (
            at((n * 0.99 - spread).floor()),
            at((n * 0.99 + spread).ceil()),
        );
        each.push((value, (value - half, value + half), independent));
    }
    let share = |pick: fn(&Run) -> (f64, f64)| {
        let mut inside = 0;
        for (i, a) in each.iter().enumerate() {
            for (j, b) in each.iter().enumerate() {
                let (lo, hi) = pick(a);
                inside += usize::from(i != j && lo <= b.0 && b.0 <= hi);
            }
        }
        inside as f64 / (each.len() * (each.len() - 1)) as f64
    };
    assert!(
        each.len() >= 6,
        "{} runs with an interval: {runs:?}",
        each.len()
    );
    let batch = share(|e| e.1);
    let independent = share(|e| e.2);
    assert!(
        (0.2..=1.0).contains(&batch),
        "batch means: {batch:.2} of the pairs; {each:?}"
    );
    assert!(
        independent <= 0.2 && independent * 2.5 <= batch,
        "independent samples: {independent:.2} of the pairs, batch means {batch:.2}; {each:?}"
    );
}

#[test]
fn repeated_runs_stop_at_six_on_a_steady_server_and_run_to_the_most_on_one_pausing() {
    let _alone = machine::alone();
    let redis = Redis::start();
    let args = "-t 1 -c 2 --ratio 1:0 --key-maximum 10000 --test-time 3 -x auto --max-run-count 8 --target-precision ops=40%";
    let steady = redis.kvbench_json(args);
    let k = &steady.doc["kvbench"];
    assert_eq!(k["runs"].as_array().unwrap().len(), 6, "{}", k["runs_auto"]);
    assert_eq!(k["runs_auto"]["met_after_runs"], 6, "{}", k["runs_auto"]);
    assert_eq!((u(&k["runs_planned"]), &k["complete"]), (8, &true.into()));
    let ops = &k["runs_auto"]["figures"][0]["median"];
    assert!(f(&ops["relative_percent"]) <= 40.0, "{ops}");
    assert!(
        f(&ops["low"]) <= f(&ops["value"]) && f(&ops["value"]) <= f(&ops["high"]),
        "{ops}"
    );
    // Six runs: the median's interval is the lowest to the highest run.
    let rates = k["variance"]["ops_per_sec"].as_array().unwrap();
    let lowest = rates.iter().map(f).fold(f64::INFINITY, f64::min);
    assert!((f(&ops["low"]) - lowest).abs() < 0.01, "{ops} {rates:?}");
    assert!((f(&k["variance"]["median_ci95_low"]) - lowest).abs() < 0.01);
    assert_eq!(k["verdict"]["valid"], true, "{}", k["verdict"]);
    assert!(
        steady
            .stdout
            .contains("Runs auto: the median run was known as asked after 6 runs"),
        "{}",
        steady.stdout
    );
    // Each run's SETs reached the server.
    for run in k["runs"].as_array().unwrap() {
        let delta = &run["server"]["delta"];
        assert_eq!(
            u(&delta["set_calls"]),
            u(&run["totals"]["SET"]["count"]),
            "{delta}"
        );
    }

    // The same against a server that holds every write for 3 s of every
    // 6 s: the 3 s runs, a little longer apart, fall anywhere from wholly
    // free to wholly held, the runs differ far more than 40 %, and all
    // eight run.
    let dir = TempDir::new("precision");
    let json = dir.path("runs.json");
    let mut kvbench = kvbench_at(redis.port)
        .args(args.split_whitespace())
        .arg("--json-out-file")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_traffic(redis.port, &mut kvbench);
    let started = Instant::now();
    loop {
        if kvbench.try_wait().unwrap().is_some() || started.elapsed() > Duration::from_secs(120) {
            break;
        }
        assert_eq!(ask(redis.port, &["CLIENT", "PAUSE", "3000", "WRITE"]), "OK");
        std::thread::sleep(Duration::from_millis(6000));
    }
    let out = kvbench.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    let doc = read_json(&json);
    let k = &doc["kvbench"];
    assert_eq!(k["runs"].as_array().unwrap().len(), 8, "{}", k["runs_auto"]);
    assert!(
        k["runs_auto"]["met_after_runs"].is_null(),
        "{}",
        k["runs_auto"]
    );
    let reached = f(&k["runs_auto"]["figures"][0]["median"]["relative_percent"]);
    assert!(reached > 40.0, "{}", k["runs_auto"]);
    let reasons = k["verdict"]["reasons"].as_array().unwrap();
    assert!(
        reasons
            .iter()
            .any(|r| r["kind"] == "imprecise" && r["phase"].is_null()),
        "{reasons:?}"
    );
    let wider = "wider than --target-precision ops=40% after 8 runs";
    let said = interval_said(&stderr, "the median run's ops/sec", wider);
    assert!(
        (said - reached).abs() <= 0.1,
        "{said} vs {reached}: {stderr}"
    );
}
