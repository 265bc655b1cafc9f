//! `--target-precision`, `--test-time auto` and `--max-test-time`: the 95 %
//! interval each named figure of a run (or of one of its ops) must reach,
//! and whether the run lasts until it does (docs/precision.md).

use std::time::Duration;

use crate::cli::{Args, RunsArg, SecsOrAuto};
use crate::config::bounds::at_least_one;
use crate::config::seconds;
use crate::error::UsageError;
use crate::workload::ops::Row;

/// `--max-test-time`'s default, s.
pub const DEFAULT_MAX_TEST_SECS: u64 = 600;

/// The shortest `--test-time auto` run, s: ten batches of two seconds, the
/// least the batch-means interval is computed over.
pub const MIN_AUTO_SECS: u64 = 20;

/// The fewest runs whose median has a 95 % interval: with five, even the
/// lowest to the highest run holds the median only 94 % of the time.
pub const MIN_RUNS_FOR_MEDIAN: usize = 6;

/// A figure `--target-precision` names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Figure {
    /// `ops`: replies per second.
    OpsPerSec,
    /// `p99`: a printed percentile of every op together.
    Percentile(f64),
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::OpsPerSec => f.write_str("ops/sec"),
            Figure::Percentile(p) => write!(f, "p{p}"),
        }
    }
}

/// The op row a target's percentile is of (`SET:p99=5%`).
#[derive(Debug, Clone, PartialEq)]
pub struct OpRef {
    /// Its index in `Config::ops.rows` (and in a phase's op stats).
    pub row: usize,
    /// Its name as the report prints it (`SET`, `GET#2`).
    pub name: String,
}

/// One `--target-precision [OP:]FIGURE=PCT`.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The figure.
    pub figure: Figure,
    /// `OP:` before a percentile: that op's own; `None`, every op together.
    pub op: Option<OpRef>,
    /// Its interval's half-width at most, % of the figure.
    pub within_percent: f64,
}

impl Target {
    /// The figure as `--target-precision` names it: `p99`, `SET:p99`, `ops`.
    pub fn name(&self) -> String {
        let figure = match self.figure {
            Figure::OpsPerSec => "ops".to_string(),
            Figure::Percentile(p) => format!("p{p}"),
        };
        match &self.op {
            Some(op) => format!("{}:{figure}", op.name),
            None => figure,
        }
    }

    /// The figure in words: `p99`, `SET p99`, `ops/sec`.
    pub fn label(&self) -> String {
        match &self.op {
            Some(op) => format!("{} {}", op.name, self.figure),
            None => self.figure.to_string(),
        }
    }
}

impl std::fmt::Display for Target {
    /// As `--target-precision` takes it: `p99=5%`, `SET:p99=5%`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}%", self.name(), self.within_percent)
    }
}

/// What the runs' precision is judged by.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PrecisionPlan {
    /// The figures named, each with its bound; empty without
    /// `--target-precision`.
    pub targets: Vec<Target>,
    /// `--test-time auto`: each run ends once every target is met (at
    /// most the run's `Stop::Time`, `--max-test-time`).
    pub auto: bool,
    /// `-x auto`: runs repeat until every target is met by the median
    /// run's interval over the runs (at least [`MIN_RUNS_FOR_MEDIAN`], at
    /// most `Config::run_count`, `--max-run-count`).
    pub runs_auto: bool,
}

impl PrecisionPlan {
    /// Whether each run is judged against the targets: unless they are the
    /// median run's alone (`-x auto` with runs of a fixed length).
    pub fn judges_each_run(&self) -> bool {
        self.auto || !self.runs_auto
    }
}

/// `--max-run-count`'s default.
pub const DEFAULT_MAX_RUNS: u32 = 30;

/// The runs `-x` asks for: its number, or for `auto` its most,
/// `--max-run-count`.
pub(super) fn run_count(a: &Args) -> Result<u32, UsageError> {
    match (a.run_count, a.max_run_count) {
        (Some(RunsArg::Auto), max) => {
            let max = max.unwrap_or(DEFAULT_MAX_RUNS);
            let least = MIN_RUNS_FOR_MEDIAN as u32;
            if !(least..=1000).contains(&max) {
                return Err(UsageError::new(
                    "--max-run-count",
                    format!(
                        "must be from {least} to 1000 (got {max}): fewer than {least} runs give the median no 95 % interval; e.g. --max-run-count 30"
                    ),
                ));
            }
            Ok(max)
        }
        (_, Some(_)) => Err(UsageError::new(
            "--max-run-count",
            "bounds -x auto only; give -x auto, or drop --max-run-count",
        )),
        (Some(RunsArg::Count(n)), None) => Ok(at_least_one("--run-count", n)? as u32),
        (None, None) => Ok(1),
    }
}

/// The run length `--test-time` asks for: `Some(seconds)`, or for `auto`
/// its longest, `--max-test-time`; `None` without `--test-time`.
pub(super) fn test_time(a: &Args) -> Result<Option<f64>, UsageError> {
    match a.test_time {
        None | Some(SecsOrAuto::Secs(_)) if a.max_test_time.is_some() => Err(UsageError::new(
            "--max-test-time",
            "bounds --test-time auto only; give --test-time auto, or drop --max-test-time",
        )),
        None => Ok(None),
        Some(SecsOrAuto::Secs(secs)) => Ok(Some(secs)),
        Some(SecsOrAuto::Auto) => {
            let max = a.max_test_time.unwrap_or(DEFAULT_MAX_TEST_SECS as f64);
            let least = Duration::from_secs(MIN_AUTO_SECS);
            if seconds("--max-test-time", max, false)? < least {
                return Err(UsageError::new(
                    "--max-test-time",
                    format!(
                        "must be at least {MIN_AUTO_SECS} seconds (got {max}): the interval needs ten batches of two seconds; raise --max-test-time"
                    ),
                ));
            }
            Ok(Some(max))
        }
    }
}

/// The plan of `a`, its percentiles checked against the printed ones and
/// its ops against the run's op rows `rows`.
pub(super) fn build(
    a: &Args,
    percentiles: &[f64],
    rows: &[Row],
) -> Result<PrecisionPlan, UsageError> {
    let auto = matches!(a.test_time, Some(SecsOrAuto::Auto));
    let runs_auto = matches!(a.run_count, Some(RunsArg::Auto));
    let given = a.target_precision.as_deref().unwrap_or_default();
    let targets = given
        .iter()
        .flat_map(|v| v.split(','))
        .map(|v| target(v.trim(), percentiles, rows))
        .collect::<Result<Vec<_>, _>>()?;
    if runs_auto && targets.is_empty() {
        return Err(UsageError::new(
            "--run-count",
            "auto repeats runs until the median run's figures named by --target-precision are known that well; name one, e.g. --target-precision ops=2%",
        ));
    }
    if auto && targets.is_empty() {
        return Err(UsageError::new(
            "--test-time",
            "auto runs until the figures named by --target-precision are known that well; name one, e.g. --target-precision p99=5%",
        ));
    }
    if auto && a.start_at.is_some() {
        return Err(UsageError::new(
            "--test-time",
            "auto cannot be combined with --start-at: the machines' runs must start and end together; give --test-time in seconds",
        ));
    }
    Ok(PrecisionPlan {
        targets,
        auto,
        runs_auto,
    })
}

/// One `[OP:]FIGURE=PCT`.
fn target(v: &str, percentiles: &[f64], rows: &[Row]) -> Result<Target, UsageError> {
    let refuse = |why: String| UsageError::new("--target-precision", why);
    let Some((name, pct)) = v.split_once('=') else {
        return Err(refuse(format!(
            "'{v}' is not FIGURE=PCT; give e.g. p99=5%, SET:p99=5% or ops=2%"
        )));
    };
    let (op, name) = match name.split_once(':') {
        Some((op, figure)) => (Some(op_ref(op.trim(), rows)?), figure),
        None => (None, name),
    };
    let pct = pct.trim().trim_end_matches('%').trim();
    let within_percent = match pct.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => p,
        _ => {
            return Err(refuse(format!(
                "'{v}': the bound is a percentage of the figure above 0 and at most 100; give e.g. {name}=5%"
            )));
        }
    };
    let name = name.trim();
    let figure = match name.to_ascii_lowercase().as_str() {
        "ops" | "ops/sec" | "ops_per_sec" => Figure::OpsPerSec,
        p => match p.strip_prefix('p').and_then(|n| n.parse::<f64>().ok()) {
            Some(n) if percentiles.contains(&n) => Figure::Percentile(n),
            Some(_) => {
                let printed: Vec<String> = percentiles.iter().map(f64::to_string).collect();
                return Err(refuse(format!(
                    "'{name}' is not among the printed percentiles ({}); add it with --print-percentiles",
                    printed.join(",")
                )));
            }
            None => {
                return Err(refuse(format!(
                    "'{name}' is no figure; name ops (ops/sec) or a printed percentile such as p99"
                )));
            }
        },
    };
    if let (Some(op), Figure::OpsPerSec) = (&op, figure) {
        return Err(refuse(format!(
            "'{}:{name}': an op's target names one of its percentiles (e.g. {}:p99=5%); ops/sec is judged for every op together (ops=2%)",
            op.name, op.name
        )));
    }
    Ok(Target {
        figure,
        op,
        within_percent,
    })
}

/// The op row `name` names (its name as the report prints it, in any case).
fn op_ref(name: &str, rows: &[Row]) -> Result<OpRef, UsageError> {
    let found = rows
        .iter()
        .position(|r| r.name_key.eq_ignore_ascii_case(name));
    match found {
        Some(row) => Ok(OpRef {
            row,
            name: rows[row].name_key.clone(),
        }),
        None => {
            let names: Vec<&str> = rows.iter().map(|r| r.name_key.as_str()).collect();
            Err(UsageError::new(
                "--target-precision",
                format!(
                    "'{name}' is no op of this run; name one of {} before the colon, or leave OP: out for every op together",
                    names.join(", ")
                ),
            ))
        }
    }
}
