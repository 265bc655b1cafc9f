//! The whitepaper workflow without its traps: `--prefill` fills exactly the key
//! range so GETs hit, sweeps run every cell and the server counts each one, the
//! server's INFO travels with the results (its slow log: tests/e2e/slowlog.rs),
//! and several runs report their spread. The server's own counters (INFO, DBSIZE, commandstats, read
//! here over a separate connection) are the witness of what kvbench reports.

use crate::common::{Redis, f, info, u, warning_kinds};
use serde_json::Value;

fn exists(redis: &Redis, key: &str) -> bool {
    redis.command(&["EXISTS", key]) == b"1"
}

#[test]
fn prefill_writes_exactly_the_key_range_so_every_get_hits() {
    let redis = Redis::start();
    let run = redis.kvbench_json(
        "-t 1 -c 2 --key-minimum 1 --key-maximum 3000 -d 100 --prefill --ratio 0:1 -n 500",
    );
    let kv = &run.doc["kvbench"];

    // The server's own counts first (the lookups below count as hits and misses).
    assert_eq!(info(redis.port, "stats", "keyspace_misses"), "0");
    assert_eq!(info(redis.port, "stats", "keyspace_hits"), "1000");
    assert_eq!(redis.calls("set"), 3000, "one SET per key, no more");
    assert_eq!(redis.calls("get"), 1000);
    // The server holds the range, all of it and nothing else.
    assert_eq!(redis.dbsize(), 3000);
    assert!(exists(&redis, "memtier-1") && exists(&redis, "memtier-3000"));
    assert!(!exists(&redis, "memtier-0") && !exists(&redis, "memtier-3001"));
    assert_eq!(redis.command(&["STRLEN", "memtier-1500"]), b"100");

    // The prefill's own summary, and the server's account of it.
    let prefill = &kv["prefill"];
    assert_eq!(prefill["phase"], "PREFILL");
    assert_eq!(u(&prefill["totals"]["SET"]["count"]), 3000);
    assert_eq!(u(&prefill["totals"]["GET"]["count"]), 0);
    let delta = &prefill["server"]["delta"];
    assert_eq!(u(&delta["set_calls"]), 3000);
    assert_eq!(u(&delta["keys_before"]), 0);
    assert_eq!(u(&delta["keys_after"]), 3000);

    // The measured run: GETs only, every one a hit, the prefill excluded.
    assert_eq!(f(&kv["hit_rate_percent"]), 100.0);
    assert_eq!(u(&kv["totals"]["GET"]["hits"]), 1000);
    assert_eq!(u(&kv["totals"]["SET"]["count"]), 0);
    assert_eq!(u(&run.doc["ALL STATS"]["Sets"]["Count"]), 0);
    let run_delta = &kv["runs"][0]["server"]["delta"];
    assert_eq!(u(&run_delta["get_calls"]), 1000);
    assert_eq!(u(&run_delta["keyspace_hits"]), 1000);
    assert_eq!(u(&run_delta["keyspace_misses"]), 0);
    assert_eq!(u(&run_delta["keys_before"]), 3000);
    assert!(
        !warning_kinds(&run.doc).contains(&"gets_mostly_miss"),
        "{:?}",
        kv["warnings"]
    );
    // One run: no spread to report.
    assert!(kv["variance"].is_null());

    assert!(
        run.stdout
            .contains("Prefill (excluded above): 3000 keys in "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("GET hit rate: 100.00 % (1000 hits, 0 misses)"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("Run-to-run"));
}

/// The rows of the text's sweep summary table, as whitespace-separated fields.
fn summary_rows(text: &str) -> (String, Vec<Vec<&str>>) {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("SWEEP SUMMARY"));
    let title = lines
        .next()
        .unwrap_or_else(|| panic!("no SWEEP SUMMARY in\n{text}"))
        .to_string();
    let header = lines.next().unwrap();
    assert!(header.starts_with("Cell"), "{header:?}");
    let rows = lines
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    (title, rows)
}

#[test]
fn a_pipeline_sweep_runs_every_cell_and_the_server_counts_each_one() {
    let redis = Redis::start();
    let run = redis
        .kvbench_json("-t 1 -c 4 --key-maximum 10000 --pipeline 1,4,16,64 -n 2000 --ratio 1:1");
    let pipelines = [1, 4, 16, 64];

    // Text: one CELL header per cell, in order, then the summary table.
    let headers: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("CELL "))
        .collect();
    let expected: Vec<String> = pipelines
        .iter()
        .enumerate()
        .map(|(i, p)| format!("CELL {}/4: pipeline={p}", i + 1))
        .collect();
    assert_eq!(headers, expected);
    let (title, rows) = summary_rows(&run.stdout);
    assert_eq!(title, "SWEEP SUMMARY (4 of 4 cells)");
    assert_eq!(rows.len(), 4, "{rows:?}");
    for (row, p) in rows.iter().zip(pipelines) {
        assert_eq!(row[0], format!("pipeline={p}"));
    }
    assert_eq!(*rows[0].last().unwrap(), "1.000");

    // JSON: every cell a complete report, the summary, completeness.
    let doc = &run.doc;
    assert_eq!(doc["sweep"]["parameters"], serde_json::json!(["pipeline"]));
    assert_eq!(doc["kvbench"]["complete"], true);
    assert_eq!(u(&doc["kvbench"]["cells_planned"]), 4);
    assert_eq!(u(&doc["kvbench"]["cells_completed"]), 4);
    let cells = doc["sweep"]["cells"].as_array().unwrap();
    let summary = doc["sweep"]["summary"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert_eq!(summary.len(), 4);

    let (mut server_set, mut server_get) = (0, 0);
    for (i, (cell, p)) in cells.iter().zip(pipelines).enumerate() {
        let kv = &cell["kvbench"];
        let label = format!("pipeline={p}");
        assert_eq!(u(&kv["cell"]["index"]), i as u64);
        assert_eq!(kv["cell"]["label"], label.as_str());
        assert_eq!(kv["cell"]["parameters"]["pipeline"], p.to_string().as_str());
        assert_eq!(u(&cell["configuration"]["pipeline"]), p);
        assert_eq!(summary[i]["cell"], label.as_str());

        // kvbench's counts are the server's, cell by cell.
        let sets = u(&kv["totals"]["SET"]["count"]);
        let gets = u(&kv["totals"]["GET"]["count"]);
        assert_eq!(sets + gets, 4 * 2000, "{label}: 4 clients × 2000 requests");
        assert!(sets > 0 && gets > 0, "{label}: {sets} SETs, {gets} GETs");
        let delta = &kv["runs"][0]["server"]["delta"];
        assert_eq!(u(&delta["set_calls"]), sets, "{label}");
        assert_eq!(u(&delta["get_calls"]), gets, "{label}");
        server_set += u(&delta["set_calls"]);
        server_get += u(&delta["get_calls"]);

        // The summary row is the cell's own headline.
        let ops = f(&cell["ALL STATS"]["Totals"]["Ops/sec"]);
        assert!(
            (f(&summary[i]["ops_per_sec"]) - ops).abs() <= 0.011,
            "{label}: summary {} vs cell {ops}",
            summary[i]["ops_per_sec"]
        );
        assert!(kv["prefill"].is_null() && kv["warmup"].is_null());
    }
    // Together the cells are everything the server saw.
    assert_eq!(redis.calls("set"), server_set);
    assert_eq!(redis.calls("get"), server_get);

    assert_eq!(f(&summary[0]["ratio_to_first"]), 1.0);
    let (p1, p16) = (f(&summary[0]["ops_per_sec"]), f(&summary[2]["ops_per_sec"]));
    assert!(
        p16 > p1,
        "pipeline 16 ({p16} ops/sec) is not faster than 1 ({p1})"
    );
    assert!(
        (f(&summary[2]["ratio_to_first"]) - p16 / p1).abs() < 0.001,
        "{summary:?}"
    );
}

#[test]
fn a_sweep_prefills_once_before_the_first_cell_and_warms_up_only_the_first_when_asked() {
    let redis = Redis::start();
    let run = redis.kvbench_json(
        "-t 1 -c 2 --key-minimum 1 --key-maximum 1000 --prefill --ratio 0:1,1:1 -n 200 \
         --warmup-time 0.2 --sweep-warmup first",
    );
    let cells = run.doc["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let (first, second) = (&cells[0]["kvbench"], &cells[1]["kvbench"]);
    assert_eq!(u(&first["prefill"]["totals"]["SET"]["count"]), 1000);
    assert!(second["prefill"].is_null(), "{}", second["prefill"]);
    assert!(first["warmup"].is_object());
    assert!(second["warmup"].is_null(), "{}", second["warmup"]);

    // Every SET the server saw is the prefill's, the warm-up's or a run's.
    let warm_sets = u(&first["warmup"]["totals"]["SET"]["count"]);
    assert_eq!(warm_sets, 0, "the first cell is GET-only");
    let run_sets: u64 = cells
        .iter()
        .map(|c| u(&c["kvbench"]["totals"]["SET"]["count"]))
        .sum();
    assert_eq!(redis.calls("set"), 1000 + run_sets);
    assert_eq!(redis.dbsize(), 1000);
    // Filled once, both cells hit every time.
    for row in run.doc["sweep"]["summary"].as_array().unwrap() {
        assert_eq!(f(&row["hit_rate_percent"]), 100.0, "{row}");
    }
}

#[test]
fn sweep_warmup_each_warms_up_before_every_cell() {
    let redis = Redis::start();
    let run = redis.kvbench_json(
        "-t 1 --key-maximum 5000 --clients 1,2 -n 100 --ratio 1:1 --warmup-time 0.2 \
         --sweep-warmup each",
    );
    let cells = run.doc["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let mut sets = 0;
    for cell in cells {
        let kv = &cell["kvbench"];
        let warm = &kv["warmup"];
        assert!(warm.is_object(), "{}: no warm-up", kv["cell"]["label"]);
        assert_eq!(warm["phase"], "WARM-UP");
        sets += u(&warm["totals"]["SET"]["count"]) + u(&kv["totals"]["SET"]["count"]);
    }
    // The warm-ups really ran: the server counted their SETs with the runs'.
    assert_eq!(redis.calls("set"), sets);
    assert_eq!(run.stdout.matches("Warm-up (excluded above)").count(), 2);
}

#[test]
fn info_before_and_after_every_phase_travels_with_the_results() {
    let redis = Redis::start_with(&["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"]);
    let server_cpu = || {
        ["used_cpu_user", "used_cpu_sys"]
            .iter()
            .map(|field| info(redis.port, "cpu", field).parse::<f64>().unwrap())
            .sum::<f64>()
    };
    let cpu_before_kvbench = server_cpu();
    let run =
        redis.kvbench_json("-t 1 -c 2 --key-maximum 5000 -n 300 --ratio 1:1 --warmup-time 0.2");
    let cpu_during_kvbench = server_cpu() - cpu_before_kvbench;
    let kv = &run.doc["kvbench"];
    let version = info(redis.port, "server", "redis_version");

    // What the server is.
    let server = &kv["server"];
    assert_eq!(server["version"], version.as_str());
    assert_eq!(server["mode"], "standalone");
    assert_eq!(u(&server["maxmemory"]), 64 * 1024 * 1024);
    assert_eq!(server["maxmemory_policy"], "allkeys-lru");
    assert_eq!(server["appendonly"], false);
    assert_eq!(server["appendfsync"], "everysec");
    assert_eq!(server["save"], "");

    // INFO around the run, by section.
    let evidence = &kv["runs"][0]["server"];
    let before = &evidence["info_before"];
    let after = &evidence["info_after"];
    assert_eq!(before["server"]["redis_version"], version.as_str());
    assert!(before["server"]["redis_version"].is_string());
    let processed = |info: &Value| u(&info["stats"]["total_commands_processed"]);
    assert!(
        processed(after) >= processed(before) + 600,
        "{} -> {}",
        processed(before),
        processed(after)
    );
    for section in [
        "server",
        "memory",
        "persistence",
        "stats",
        "cpu",
        "keyspace",
        "commandstats",
    ] {
        assert!(after[section].is_object(), "no {section} in {after}");
    }
    let dbsize = redis.dbsize();
    assert_eq!(u(&evidence["delta"]["keys_after"]), dbsize);
    let db0 = after["keyspace"]["db0"].as_str().unwrap();
    assert!(db0.starts_with(&format!("keys={dbsize},")), "{db0}");
    assert!(after["commandstats"]["cmdstat_set"].is_string());

    // The run's deltas are the server's calls minus the warm-up's.
    let warm = &kv["warmup"];
    assert!(warm["server"]["info_before"].is_object());
    assert_eq!(u(&warm["server"]["delta"]["keys_before"]), 0);
    for (op, command) in [("SET", "set"), ("GET", "get")] {
        let field = format!("{command}_calls");
        let run_calls = u(&evidence["delta"][&field]);
        let warm_calls = u(&warm["server"]["delta"][&field]);
        assert_eq!(run_calls, u(&kv["totals"][op]["count"]), "{op}");
        assert_eq!(warm_calls, u(&warm["totals"][op]["count"]), "{op}");
        assert_eq!(redis.calls(command), run_calls + warm_calls, "{op}");
    }
    // The run's server CPU is INFO cpu's difference around it: positive (600
    // commands cost some), within what the server used while kvbench ran at
    // all, and equal to the difference of the INFO it carries.
    let cpu_s = f(&evidence["delta"]["cpu_s"]);
    let cpu_of = |info: &Value| -> f64 {
        ["used_cpu_user", "used_cpu_sys"]
            .iter()
            .map(|field| f(&info["cpu"][field]))
            .sum()
    };
    let carried = cpu_of(after) - cpu_of(before);
    assert!(
        (cpu_s - carried).abs() < 1e-5,
        "cpu_s {cpu_s} vs INFO {carried}"
    );
    assert!(
        cpu_s > 0.0 && cpu_s <= cpu_during_kvbench + 1e-5,
        "cpu_s {cpu_s}, the server used {cpu_during_kvbench} s while kvbench ran"
    );

    // The text says the same.
    let sets = kv["totals"]["SET"]["count"].to_string();
    let line = format!("Server RUN #1: SET calls {sets} (kvbench {sets}), GET calls ");
    assert!(run.stdout.contains(&line), "no {line:?} in\n{}", run.stdout);
    let context = format!(
        "Server: Redis {version} (standalone), maxmemory 67108864 bytes, appendonly no, appendfsync everysec"
    );
    assert!(run.stdout.contains(&context), "no {context:?}");
    assert!(run.stdout.contains("Server WARM-UP: SET calls "));
}

#[test]
fn several_runs_report_their_spread_in_the_text_and_the_json() {
    let redis = Redis::start();
    let run = redis.kvbench_json("-t 1 -c 2 --key-maximum 5000 -x 3 -n 1000");
    let kv = &run.doc["kvbench"];
    let v = &kv["variance"];
    let rates: Vec<f64> = v["ops_per_sec"].as_array().unwrap().iter().map(f).collect();
    let runs: Vec<f64> = kv["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| f(&r["ops_per_sec"]))
        .collect();
    assert_eq!(rates, runs, "variance lists each run's rate, in order");
    assert_eq!(rates.len(), 3);

    let mut sorted = rates.clone();
    sorted.sort_by(f64::total_cmp);
    let (min, median, max) = (sorted[0], sorted[1], sorted[2]);
    assert_eq!(f(&v["min"]), min);
    assert_eq!(f(&v["max"]), max);
    assert_eq!(f(&v["median"]), median);
    let mean = f(&v["mean"]);
    assert!((mean - rates.iter().sum::<f64>() / 3.0).abs() < 0.02, "{v}");
    let max_over_min = f(&v["max_over_min"]);
    assert!((max_over_min - max / min).abs() < 0.0002, "{v}");
    assert_eq!(v["noisy"], max_over_min > 1.10, "{v}");
    assert!(
        f(&v["ci95_low"]) <= mean && mean <= f(&v["ci95_high"]),
        "{v}"
    );
    // CV is the sample standard deviation over the mean.
    let sd = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    assert!((f(&v["cv"]) - sd / mean).abs() < 1e-5, "{v}");

    // The text line carries the same figures.
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Run-to-run (3 runs): ops/sec "))
        .unwrap_or_else(|| panic!("no Run-to-run line in\n{}", run.stdout));
    let listed: Vec<String> = rates.iter().map(|r| format!("{r:.2}")).collect();
    let expected = format!(
        "Run-to-run (3 runs): ops/sec {}; median {median:.2}, min {min:.2}, max {max:.2}, max/min ",
        listed.join(", ")
    );
    assert!(line.starts_with(&expected), "{line:?} vs {expected:?}");
    assert!(line.contains(", CV ") && line.contains(" %, 95 % CI of the mean "));
    assert!(line.contains(" ± "), "{line}");

    // The server saw all three runs.
    let requests: u64 = ["SET", "GET"]
        .iter()
        .map(|op| u(&kv["totals"][op]["count"]))
        .sum();
    assert_eq!(requests, 3 * 2 * 1000);
    assert_eq!(redis.calls("set") + redis.calls("get"), requests);
}
