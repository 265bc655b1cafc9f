//! The typed report model on real files: reports written by runs against a
//! real redis-server read into the model, are written back unchanged, read
//! the same again, and their histograms decode to the server's own counts;
//! broken files are refused naming the file and the field.

use std::path::Path;

use crate::common::{Redis, TempDir, kvbench, kvbench_ok, read_json};
use kvbench::report::model::section::SectionTitle;
use kvbench::report::model::{self, Document, Report};
use serde_json::Value;

/// Runs kvbench with `args` against `redis`, writing `name` under `dir`.
fn run(redis: &Redis, dir: &TempDir, name: &str, args: &str) -> std::path::PathBuf {
    let path = dir.path(name);
    let mut full: Vec<&str> = args.split_whitespace().collect();
    full.extend(["--json-out-file", path.to_str().unwrap()]);
    kvbench_ok(redis.port, &full);
    path
}

/// The jq path of the first place where `a` and `b` differ, with both values.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let here = format!("{at}.{k:?}");
                match y.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, here) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{here}: dropped")),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{at}.{k:?}: added"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, format!("{at}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {a} became {b}")),
    }
}

/// Reads `path` into the model, writes it back and reads that again; asserts
/// that the written JSON equals the file's (nothing dropped or changed) and
/// that the second read equals the first.
fn round_trip(path: &Path) -> Document {
    let first = model::read(path).unwrap_or_else(|e| panic!("{e}"));
    let written = serde_json::to_string_pretty(&first).unwrap();
    let original = read_json(path);
    let rewritten: Value = serde_json::from_str(&written).unwrap();
    if let Some(at) = first_difference(&original, &rewritten, String::new()) {
        panic!(
            "{} changed on the way through the model at {at}",
            path.display()
        );
    }
    let second = model::parse("rewritten.json", &written).unwrap();
    assert_eq!(second, first);
    first
}

fn report(doc: Document) -> Report {
    match doc {
        Document::Report(r) => *r,
        Document::Sweep(_) | Document::Suite(_) => {
            panic!("a sweep or a suite where a report was expected")
        }
    }
}

#[test]
fn a_multi_run_report_with_warmup_round_trips_and_matches_the_server() {
    let redis = Redis::start();
    let dir = TempDir::new("model");
    redis.reset_stats();
    let path = run(
        &redis,
        &dir,
        "runs.json",
        "-t 2 -c 2 -n 400 -x 2 --ratio 1:3 --key-maximum 500 --prefill --warmup-time 0.3 --slowlog",
    );
    let sets_seen = redis.calls("set");
    let gets_seen = redis.calls("get");
    let r = report(round_trip(&path));
    let titles: Vec<SectionTitle> = r.sections.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        titles,
        [
            SectionTitle::Run(1),
            SectionTitle::Run(2),
            SectionTitle::Best,
            SectionTitle::Worst,
            SectionTitle::Aggregated(2)
        ]
    );
    let k = r.kvbench.as_ref().unwrap();
    assert!(k.complete);
    assert_eq!((k.runs_planned, k.runs_completed, k.runs.len()), (2, 2, 2));
    assert_eq!(k.variance.as_ref().unwrap().ops_per_sec.len(), 2);
    let warmup = k.warmup.as_ref().unwrap();
    assert!(warmup.all_stats.is_some());

    // 2 threads × 2 clients × 400 requests per run, 1:3 SET:GET.
    let agg = r.headline().unwrap();
    let totals = agg.row("Totals").unwrap();
    assert_eq!(totals.count, 2 * 2 * 2 * 400);
    let (sets, gets) = (agg.row("Sets").unwrap(), agg.row("Gets").unwrap());
    assert_eq!(sets.count + gets.count, totals.count);
    // The prefill wrote every key of the range 0..=500 once.
    let prefill = k.prefill.as_ref().unwrap();
    let prefilled = prefill.totals.get("SET").unwrap().count;
    assert_eq!(prefilled, 501);
    // The server saw the measured runs plus the prefill and the warm-up.
    let warm = warmup.totals.get("SET").unwrap().count;
    assert_eq!(sets_seen, sets.count + warm + prefilled);
    let warm = warmup.totals.get("GET").unwrap().count;
    assert_eq!(gets_seen, gets.count + warm);
    // Each phase's own witness.
    for run in &k.runs {
        let delta = &run.server.as_ref().unwrap().delta;
        assert_eq!(delta.set_calls, Some(run.totals.get("SET").unwrap().count));
        assert_eq!(delta.get_calls, Some(run.totals.get("GET").unwrap().count));
    }
    // The histograms decode on demand, to the rows' counts and percentiles.
    for row in [sets, gets, totals] {
        let h = row.histogram().unwrap().unwrap();
        assert_eq!(h.len(), row.count);
        let p99 = h.value_at_quantile(0.99) as f64 / 1000.0;
        let printed = row.percentiles.at_ms(99.0).unwrap();
        assert!(
            (p99 - printed).abs() <= 0.001 + printed * 0.001,
            "{p99} vs {printed}"
        );
    }
}

#[test]
fn sweep_and_open_loop_files_round_trip() {
    let redis = Redis::start();
    let dir = TempDir::new("model-sweep");
    let path = run(
        &redis,
        &dir,
        "sweep.json",
        "-t 1 -c 2 -n 200 --pipeline 1,4",
    );
    let Document::Sweep(sweep) = round_trip(&path) else {
        panic!("not read as a sweep");
    };
    assert_eq!(sweep.sweep.cells.len(), 2);
    assert_eq!(sweep.sweep.summary.len(), 2);
    let labels: Vec<&str> = sweep
        .sweep
        .cells
        .iter()
        .map(|c| {
            c.kvbench
                .as_ref()
                .unwrap()
                .cell
                .as_ref()
                .unwrap()
                .label
                .as_str()
        })
        .collect();
    assert_eq!(labels, ["pipeline=1", "pipeline=4"]);
    for (cell, row) in sweep.sweep.cells.iter().zip(&sweep.sweep.summary) {
        let totals = cell.headline().unwrap().row("Totals").unwrap();
        assert_eq!(totals.count, 2 * 200);
        assert_eq!(totals.ops_per_sec, row.ops_per_sec);
    }

    let path = run(
        &redis,
        &dir,
        "rate.json",
        "-t 1 -c 2 --test-time 1 --rate 400 --allow-invalid",
    );
    let r = report(round_trip(&path));
    let k = r.kvbench.unwrap();
    let open_loop = k.runs[0].open_loop.as_ref().unwrap();
    assert_eq!(open_loop.target_ops_per_sec, 400.0);
    assert!(open_loop.service_time.get("Totals").is_some());
    let achieved = open_loop.achieved_ops_per_sec;
    assert!((200.0..=440.0).contains(&achieved), "{achieved}");
}

/// `kvbench compare` on `broken` (with a good file first): exit 2, stderr.
fn compare_error(good: &Path, broken: &Path) -> String {
    let out = kvbench(&["compare", good.to_str().unwrap(), broken.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains(broken.to_str().unwrap()), "{stderr}");
    stderr
}

#[test]
fn truncated_or_mistyped_files_are_refused_naming_the_field() {
    let redis = Redis::start();
    let dir = TempDir::new("model-broken");
    let good = run(&redis, &dir, "good.json", "-t 1 -c 1 -n 100");
    let text = std::fs::read_to_string(&good).unwrap();

    // Cut inside a number of the Gets row: the error says where the file ends.
    let gets = text.find("\"Gets\"").unwrap();
    let cut = gets + text[gets..].find("\"Latency\": ").unwrap() + "\"Latency\": 0".len();
    let truncated = dir.path("truncated.json");
    std::fs::write(&truncated, &text[..cut]).unwrap();
    let stderr = compare_error(&good, &truncated);
    assert!(
        stderr.contains(r#"at .["ALL STATS"].Gets.Latency: EOF while parsing"#),
        "{stderr}"
    );

    // A number written as text.
    let mut doc = read_json(&good);
    doc["ALL STATS"]["Totals"]["Count"] = Value::from("many");
    let mistyped = dir.path("mistyped.json");
    std::fs::write(&mistyped, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let stderr = compare_error(&good, &mistyped);
    assert!(
        stderr.contains(r#"at .["ALL STATS"].Totals.Count: invalid type: string "many""#),
        "{stderr}"
    );

    // A required field removed from the kvbench object.
    let mut doc = read_json(&good);
    doc["kvbench"]["runs"][0]
        .as_object_mut()
        .unwrap()
        .remove("ops_per_sec");
    let missing = dir.path("missing.json");
    std::fs::write(&missing, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let stderr = compare_error(&good, &missing);
    assert!(
        stderr.contains("at .kvbench.runs[0]: missing field `ops_per_sec`"),
        "{stderr}"
    );

    // Unknown keys anywhere are read past (a newer kvbench's file).
    let mut doc = read_json(&good);
    doc["kvbench"]["a_new_field"] = Value::from(1);
    doc["ALL STATS"]["Totals"]["A New Figure"] = Value::from(2.5);
    doc["a new section"] = serde_json::json!({"x": 1});
    let newer = dir.path("newer.json");
    std::fs::write(&newer, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let r = report(model::read(&newer).unwrap());
    assert_eq!(r.other.keys().collect::<Vec<_>>(), ["a new section"]);
}

/// A memtier_benchmark sample under tests/data/memtier/.
fn memtier_sample(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/memtier")
        .join(name)
}

#[test]
fn memtier_files_read_without_a_kvbench_object_and_round_trip() {
    // runcount3: three runs; commands: `--command HSET … --command HGET …`,
    // whose rows are memtier's Hsets and Hgets.
    let runs = report(round_trip(&memtier_sample("runcount3.json")));
    assert!(runs.kvbench.is_none());
    assert_eq!(runs.sections.len(), 6);
    let agg = runs.section(SectionTitle::Aggregated(3)).unwrap();
    assert_eq!(
        agg.rows.keys().collect::<Vec<_>>(),
        ["Sets", "Gets", "Waits", "Totals"]
    );
    let commands = report(round_trip(&memtier_sample("commands.json")));
    let all = commands.headline().unwrap();
    assert_eq!(
        all.rows.keys().collect::<Vec<_>>(),
        ["Hsets", "Hgets", "Totals"]
    );
    assert_eq!(
        all.distributions.keys().collect::<Vec<_>>(),
        ["HSET", "HGET"]
    );
    let doc = read_json(&memtier_sample("commands.json"));
    for row in ["Hsets", "Hgets", "Totals"] {
        let count = doc["ALL STATS"][row]["Count"].as_u64().unwrap();
        assert_eq!(all.row(row).unwrap().count, count);
        let h = all.row(row).unwrap().histogram().unwrap().unwrap();
        assert_eq!(h.len(), count, "{row}");
    }
}

#[test]
fn compare_shows_a_row_per_command_of_memtier_files() {
    let smoke = memtier_sample("smoke.json");
    let commands = memtier_sample("commands.json");
    let out = kvbench(&[
        "compare",
        smoke.to_str().unwrap(),
        commands.to_str().unwrap(),
        "--layout",
        "columns",
        "--format",
        "csv",
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ops: Vec<&str> = csv
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("ops_per_sec,"))
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(ops, ["Sets", "Gets", "Hsets", "Hgets", "Totals"]);
    // A row one file lacks has a dash there, and no ratio to a missing base.
    let hsets = csv
        .lines()
        .find(|l| l.starts_with("ops_per_sec,Hsets,"))
        .unwrap();
    let doc = read_json(&commands);
    let ops = doc["ALL STATS"]["Hsets"]["Ops/sec"].as_f64().unwrap();
    assert_eq!(hsets, format!("ops_per_sec,Hsets,-,{ops:.2},n/a"));
    let totals = csv
        .lines()
        .find(|l| l.starts_with("ops_per_sec,Totals,"))
        .unwrap();
    let base = read_json(&smoke)["ALL STATS"]["Totals"]["Ops/sec"]
        .as_f64()
        .unwrap();
    let other = doc["ALL STATS"]["Totals"]["Ops/sec"].as_f64().unwrap();
    assert!(
        totals.ends_with(&format!(",1 : {:.2}", other / base)),
        "{totals}"
    );
}

/// Every numeric leaf of `v` with its jq path, as kvbench's reader prints it.
fn numeric_leaves(
    v: &Value,
    path: &str,
    out: &mut Vec<(String, Vec<PathStep>)>,
    steps: &mut Vec<PathStep>,
) {
    match v {
        Value::Number(_) => out.push((path.to_string(), steps.clone())),
        Value::Object(m) => {
            for (k, child) in m {
                let plain = k
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                let p = if plain {
                    format!("{path}.{k}")
                } else if path.is_empty() {
                    format!(".[{}]", Value::from(k.as_str()))
                } else {
                    format!("{path}[{}]", Value::from(k.as_str()))
                };
                steps.push(PathStep::Key(k.clone()));
                numeric_leaves(child, &p, out, steps);
                steps.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                let p = if path.is_empty() {
                    format!(".[{i}]")
                } else {
                    format!("{path}[{i}]")
                };
                steps.push(PathStep::Index(i));
                numeric_leaves(child, &p, out, steps);
                steps.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn leaf_mut<'a>(v: &'a mut Value, steps: &[PathStep]) -> &'a mut Value {
    steps.iter().fold(v, |v, s| match s {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

#[test]
fn every_mistyped_number_is_refused_naming_its_path() {
    let redis = Redis::start();
    let dir = TempDir::new("model-leaves");
    let good = run(
        &redis,
        &dir,
        "good.json",
        "-t 1 -c 1 -n 50 --warmup-time 0.1",
    );
    let doc = read_json(&good);
    let mut leaves = Vec::new();
    numeric_leaves(&doc, "", &mut leaves, &mut Vec::new());
    assert!(leaves.len() > 300, "{}", leaves.len());
    // Objects whose fields are the server's or one per flag: any value reads.
    let open = [
        ".configuration",
        ".kvbench.config",
        ".info_before",
        ".info_after",
    ];
    let (mut exact, mut refused) = (0, 0);
    for (path, steps) in &leaves {
        let mut broken = doc.clone();
        *leaf_mut(&mut broken, steps) = Value::from("x");
        let text = serde_json::to_string_pretty(&broken).unwrap();
        match model::parse("broken.json", &text) {
            Ok(_) => assert!(open.iter().any(|o| path.contains(o)), "{path} read as text"),
            Err(e) => {
                refused += 1;
                assert!(
                    e.message.contains("invalid type: string \"x\""),
                    "{path}: {e}"
                );
                // A per-second entry is read whole (its percentile keys are
                // open), so its error names the second; every other field is
                // named exactly.
                if e.path == *path {
                    exact += 1;
                } else {
                    assert!(
                        path.starts_with(&e.path) && path.contains("Time-Serie"),
                        "{path} reported at {}",
                        e.path
                    );
                }
            }
        }
    }
    assert!(
        refused > 300 && exact > 100,
        "{refused} refused, {exact} exact"
    );
}

/// memtier writes 0.0 as its Totals row's `Average Latency`; compare shows
/// the mean its `Accumulated Latency` over its `Count` gives.
#[test]
fn compare_shows_a_memtier_totals_mean_from_its_accumulated_latency() {
    let smoke = memtier_sample("smoke.json");
    let doc = read_json(&smoke);
    let totals = &doc["ALL STATS"]["Totals"];
    assert_eq!(totals["Average Latency"].as_f64(), Some(0.0));
    let mean = totals["Accumulated Latency"].as_f64().unwrap() / totals["Count"].as_f64().unwrap();
    let out = kvbench(&[
        "compare",
        smoke.to_str().unwrap(),
        smoke.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = csv.lines().find(|l| l.starts_with("Totals,")).unwrap();
    let avg = row.split(',').nth(4).unwrap();
    assert_eq!(avg, format!("{mean:.3}"), "{row}");
    assert!(mean > 0.05, "{mean}");
}
