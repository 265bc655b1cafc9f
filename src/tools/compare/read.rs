//! Reading result files into compare's entries: a report's headline rows
//! with the run-to-run spread of each judged figure (from its `RUN #n
//! RESULTS` sections), its settings, hit rate and verdict; a sweep's cells
//! (each with its own verdict); a suite's tests.

use std::path::Path;

use serde_json::Value;

use crate::error::UsageError;
use crate::report::json::percentile_key;
use crate::report::model::kvbench::Verdict;
use crate::report::model::section::TOTALS_ROW;
use crate::report::model::section::{self, Section, SectionTitle};
use crate::report::model::suite::SuiteDocument;
use crate::report::model::{self, Document, Report};
use crate::report::spread;
use crate::tools::compare::verdict::Judged;
use crate::tools::compare::{Entry, OpRow};
use crate::tools::compare::{Fleet, PERCENTILES};

/// The entries of the file at `path`, labelled `label`: one for a report or
/// a suite, one per cell for a sweep. A sweep given `alone` labels its
/// entries by the cell only.
pub fn entries(path: &Path, label: &str, alone: bool) -> Result<Vec<Entry>, UsageError> {
    let shown = path.display().to_string();
    if let Some(entry) = suite(path, label)? {
        return Ok(vec![entry]);
    }
    let document = model::read(path).map_err(|e| {
        UsageError::new(
            &e.file,
            format!(
                "at {}: {}; give files written by --json-out-file",
                e.path, e.message
            ),
        )
    })?;
    match document {
        Document::Sweep(sweep) => sweep
            .sweep
            .cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let name = cell
                    .kvbench
                    .as_ref()
                    .and_then(|k| k.cell.as_ref())
                    .map_or(format!("cell {}", i + 1), |c| c.label.clone());
                let label = if alone {
                    name
                } else {
                    format!("{label} [{name}]")
                };
                entry(cell, label, &shown)
            })
            .collect(),
        Document::Report(report) => Ok(vec![entry(&report, label.to_string(), &shown)?]),
        Document::Suite(suite) => Ok(vec![suite_entry(*suite, label)]),
    }
}

/// A `kvbench suite` file as one entry with a row per test, or `None` for
/// any other file.
fn suite(path: &Path, label: &str) -> Result<Option<Entry>, UsageError> {
    let suite = crate::report::suite::json::read(path).map_err(|e| {
        UsageError::new(
            &e.file,
            format!(
                "at {}: {}; give files written by kvbench suite --json-out-file",
                e.path, e.message
            ),
        )
    })?;
    Ok(suite.map(|suite| suite_entry(suite, label)))
}

/// A suite's entry: a row per test.
fn suite_entry(suite: SuiteDocument, label: &str) -> Entry {
    let tests = &suite.suite.tests;
    let named = tests
        .iter()
        .filter_map(|t| t.report.headline().map(|s| (t.test.as_str(), s)));
    let mut entry = Entry::per_test(label.to_string(), named);
    // Each test's row is judged against that test's own runs.
    for (name, row) in &mut entry.rows {
        if let Some(test) = tests.iter().find(|t| t.test == *name) {
            row.spread = spreads(&test.report, "Totals");
            row.half_width = half_widths(&test.report, "Totals");
        }
    }
    // The settings are the suite's, the same for every test but the command.
    if let Some(first) = tests.first() {
        entry.settings = settings(&first.report);
    }
    // Each test's row is as valid as that test; the notice holds the suite's
    // verdict, every test's reasons named by the test.
    entry.verdict = suite.kvbench.and_then(|k| k.verdict);
    entry.invalid_rows = tests
        .iter()
        .filter(|t| invalid(t.report.kvbench.as_ref().and_then(|k| k.verdict.as_ref())))
        .map(|t| t.test.clone())
        .collect();
    if entry.invalid_rows.is_empty() && invalid(entry.verdict.as_ref()) {
        // A suite judged invalid whose tests carry no verdict of their own:
        // no row of it is known to be sound.
        entry.invalid_rows = entry.rows.iter().map(|(n, _)| n.clone()).collect();
    }
    entry
}

/// The headline section of one report, with its spreads and settings.
fn entry(report: &Report, label: String, shown: &str) -> Result<Entry, UsageError> {
    let section: &Section = report.headline().ok_or_else(|| {
        UsageError::new(
            shown,
            "has no ALL STATS or AGGREGATED AVERAGE RESULTS section; is it a finished kvbench or memtier report?",
        )
    })?;
    let rows: Vec<(String, OpRow)> = section
        .rows
        .iter()
        .map(|(name, row)| {
            let mut figures = OpRow::of(row);
            figures.spread = spreads(report, name);
            figures.half_width = half_widths(report, name);
            (name.to_string(), figures)
        })
        .collect();
    let verdict = report.kvbench.as_ref().and_then(|k| k.verdict.clone());
    // The whole result is judged: one run of refusals spoils its aggregate.
    let invalid_rows = if invalid(verdict.as_ref()) {
        rows.iter().map(|(n, _)| n.clone()).collect()
    } else {
        Vec::new()
    };
    let fleet = fleet(report, &rows);
    Ok(Entry {
        fleet,
        label,
        rows,
        settings: settings(report),
        hit_rate_percent: report.kvbench.as_ref().and_then(|k| k.hit_rate_percent),
        verdict,
        invalid_rows,
    })
}

/// The machines, threads and connections of a kvbench report; `None` for a
/// memtier file.
fn fleet(report: &Report, rows: &[(String, OpRow)]) -> Option<Fleet> {
    let k = report.kvbench.as_ref()?;
    let setting = |key: &str| k.config.get(key).and_then(serde_json::Value::as_u64);
    let machines = k.machines();
    let totals = rows
        .iter()
        .find(|(n, _)| n == "Totals")
        .map(|(_, r)| r.ops_per_sec);
    let servers = k.server_shards();
    let total = totals.unwrap_or(0.0);
    Some(Fleet {
        machines,
        threads: setting("threads")?,
        clients: setting("clients_per_thread")?,
        ops_per_machine: total / machines as f64,
        servers,
        ops_per_server: total / servers as f64,
    })
}

/// True for a verdict that is there and says not valid; a missing one is
/// not known, never invalid.
fn invalid(verdict: Option<&Verdict>) -> bool {
    verdict.is_some_and(|v| !v.valid)
}

/// The latency at percentile `p` of a row, ms: the printed one, or else the
/// row's histogram's (a report written with `--print-percentiles 50,95`
/// still has p99 in its histogram).
pub fn percentile_ms(row: &section::OpRow, p: f64) -> Option<f64> {
    if let Some(v) = row.percentiles.at_ms(p) {
        return Some(v);
    }
    let histogram = row.histogram().ok().flatten()?;
    (!histogram.is_empty()).then(|| histogram.value_at_quantile(p / 100.0) as f64 / 1000.0)
}

/// Run-to-run max/min of each judged figure of row `name`, over the
/// report's completed `RUN #n RESULTS` sections.
fn spreads(report: &Report, name: &str) -> [Option<f64>; 4] {
    let runs: Vec<OpRow> = report
        .sections
        .iter()
        .filter(|(title, s)| matches!(title, SectionTitle::Run(_)) && !s.runtime.interrupted)
        .filter_map(|(_, s)| s.row(name).map(OpRow::of))
        .collect();
    Judged::ALL.map(|metric| spread(runs.iter().map(|r| metric.of(r))))
}

/// Half the width of the 95 % interval of each judged figure of row `name`
/// (ops/sec for `Totals` only, the run's throughput being all rows'), from
/// the report's `kvbench.runs[0].precision` when it has exactly one
/// measured run. A file of several runs has none: their spread judges it,
/// and one run's interval leaves out the drift between runs.
fn half_widths(report: &Report, name: &str) -> [Option<f64>; 4] {
    let precision = report
        .kvbench
        .as_ref()
        .and_then(|k| match k.runs.as_slice() {
            [run] => run.precision.as_ref(),
            _ => None,
        });
    let Some(precision) = precision else {
        return [None; 4];
    };
    let latency = |p: f64| {
        let row = precision.latency_ms.get(name)?;
        row.get(&percentile_key(p))?.as_ref().map(|f| f.half_width)
    };
    let ops = precision.ops_per_sec.filter(|_| name == TOTALS_ROW);
    [
        ops.map(|f| f.half_width),
        latency(PERCENTILES[0]),
        latency(PERCENTILES[1]),
        latency(PERCENTILES[2]),
    ]
}

/// Highest over lowest of two values or more; `None` for fewer or when one
/// is missing. Two zeros do not differ; a zero beside a positive value is an
/// unbounded spread.
pub fn spread(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let values: Option<Vec<f64>> = values.collect();
    let values = values.filter(|v| v.len() >= 2)?;
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(spread::max_over_min(min, max))
}

/// Keys of `kvbench.config` that say nothing about the workload: the seed
/// (different for every run), and the settings that only name or shape an
/// output (which percentiles are printed, where files and metrics go).
const UNCOMPARED: [&str; 7] = [
    "seed",
    "percentiles",
    "hdr_file_prefix",
    "html_out_file",
    "metrics_listen",
    "metrics_linger_s",
    "statsd",
];

/// memtier's `configuration` keys that name a workload setting, with the
/// `kvbench.config` key that holds the same setting.
const MEMTIER_SETTINGS: [(&str, &str); 13] = [
    ("protocol", "protocol"),
    ("threads", "threads"),
    ("clients", "clients_per_thread"),
    ("pipeline", "pipeline"),
    ("ratio", "ratio"),
    ("run_count", "run_count"),
    ("key_prefix", "key_prefix"),
    ("key_minimum", "key_minimum"),
    ("key_maximum", "key_maximum"),
    ("key_pattern", "key_pattern"),
    ("key_stddev", "key_stddev"),
    ("key_median", "key_median"),
    ("select-db", "select_db"),
];

/// A memtier file's settings from its `configuration`, under kvbench's
/// names and in kvbench's forms (`test_time 0` is no test time, `random_data
/// "false"` a boolean, the data size as text), so that a memtier file and a
/// kvbench file of one workload show no difference.
fn memtier_settings(c: &serde_json::Map<String, serde_json::Value>) -> Vec<(String, String)> {
    use serde_json::Value;
    let mut out: Vec<(String, String)> = Vec::new();
    if let (Some(server), Some(port)) = (c.get("server").and_then(Value::as_str), c.get("port")) {
        out.push(("target".into(), format!("{server}:{port}")));
    }
    for (theirs, ours) in MEMTIER_SETTINGS {
        if let Some(v) = c.get(theirs) {
            out.push((ours.into(), shown(v)));
        }
    }
    let positive = |key: &str| c.get(key).and_then(Value::as_u64).filter(|v| *v > 0);
    if c.contains_key("test_time") {
        let t = positive("test_time").map(|t| Value::from(t as f64));
        out.push(("test_time_s".into(), shown(&t.unwrap_or(Value::Null))));
    }
    if c.contains_key("requests") {
        let n = positive("requests").map(Value::from);
        out.push((
            "requests_per_client".into(),
            shown(&n.unwrap_or(Value::Null)),
        ));
    }
    if let Some(d) = c.get("data_size").and_then(Value::as_u64) {
        out.push(("data_size".into(), d.to_string()));
    }
    if let Some(r) = c.get("random_data").and_then(Value::as_str) {
        out.push(("random_data".into(), (r == "true").to_string()));
    }
    out
}

/// `kvbench.config` and `kvbench.server` as `key → shown value`; for a
/// memtier file, the workload settings of its `configuration`.
fn settings(report: &Report) -> Vec<(String, String)> {
    let Some(kv) = report.kvbench.as_ref() else {
        return report
            .configuration
            .as_ref()
            .map(memtier_settings)
            .unwrap_or_default();
    };
    let mut out: Vec<(String, String)> = kv
        .config
        .iter()
        .filter(|(k, _)| !UNCOMPARED.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), shown(v)))
        .collect();
    if let Some(s) = &kv.server {
        let text = |v: &Option<String>| match v.as_deref() {
            None => "-".to_string(),
            Some("") => "\"\"".to_string(),
            Some(s) => s.to_string(),
        };
        let number = |v: Option<u64>| v.map_or("-".into(), |v| v.to_string());
        let flag = |v: Option<bool>| v.map_or("-".into(), |v| if v { "yes" } else { "no" }.into());
        out.extend([
            ("server.version".to_string(), text(&s.version)),
            ("server.mode".to_string(), text(&s.mode)),
            ("server.os".to_string(), text(&s.os)),
            ("server.maxmemory".to_string(), number(s.maxmemory)),
            (
                "server.maxmemory_policy".to_string(),
                text(&s.maxmemory_policy),
            ),
            ("server.appendonly".to_string(), flag(s.appendonly)),
            ("server.appendfsync".to_string(), text(&s.appendfsync)),
            ("server.save".to_string(), text(&s.save)),
            (
                "server.io_threads_active".to_string(),
                number(s.io_threads_active),
            ),
        ]);
    }
    out
}

/// A setting as people read it: strings bare, `null` as `-`, lists joined
/// with commas, objects as compact JSON.
fn shown(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) if s.is_empty() => "\"\"".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(shown).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}
