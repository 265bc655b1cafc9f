//! What the charts plot, read from the typed report model: the phases of a
//! report on one time line, the whole seconds of their `Time-Serie`, the
//! latency spectrum of each op from the compressed histograms, and a sweep's
//! cells.
//!
//! Only whole seconds are plotted: the last entry of a phase's `Time-Serie`
//! is the partial second of replies drained after the deadline, whose
//! `Ops/sec` reads low by design (docs/output.md), and a dip at the end of
//! every run would look like a fault. A second `k` is whole when `k + 1`
//! seconds fit in the section's `Total duration`.

use hdrhistogram::Histogram;

use crate::report::html::verdict;
use crate::report::model::Report;
use crate::report::model::histogram::HistogramError;
use crate::report::model::kvbench::LatencyBlock;
use crate::report::model::named::Named;
use crate::report::model::section::{OpRow, Second, Section, SectionTitle};
use crate::report::model::{SweepDocument, SweepParameter};

/// One phase of a report on the report's time line.
#[derive(Debug, Clone)]
pub struct Phase<'a> {
    /// `WARM-UP`, `RUN #1`, …
    pub name: String,
    /// Seconds from the start of the report's first phase.
    pub offset_s: f64,
    /// Run time, seconds.
    pub duration_s: f64,
    /// Seconds of the `Time-Serie` that are whole.
    pub whole_seconds: u64,
    /// Its memtier section.
    pub section: &'a Section,
}

/// The warm-up (when the file has its section) and every run, in time order.
/// A single run's section is `ALL STATS`; several runs have `RUN #n RESULTS`.
pub fn phases(report: &Report) -> Vec<Phase<'_>> {
    let mut list: Vec<(String, &Section)> = Vec::new();
    if let Some(section) = report
        .kvbench
        .as_ref()
        .and_then(|k| k.warmup.as_ref())
        .and_then(|w| w.all_stats.as_ref())
    {
        list.push(("WARM-UP".into(), section));
    }
    let mut runs: Vec<(u32, &Section)> = report
        .sections
        .iter()
        .filter_map(|(title, s)| match title {
            SectionTitle::Run(n) => Some((*n, s)),
            _ => None,
        })
        .collect();
    runs.sort_by_key(|(n, _)| *n);
    if runs.is_empty() {
        if let Some(s) = report.section(SectionTitle::AllStats) {
            runs.push((1, s));
        }
    }
    list.extend(runs.into_iter().map(|(n, s)| (format!("RUN #{n}"), s)));
    let start = list
        .iter()
        .map(|(_, s)| s.runtime.start_time_ms)
        .min()
        .unwrap_or(0);
    list.into_iter()
        .map(|(name, section)| Phase {
            name,
            offset_s: (section.runtime.start_time_ms - start) as f64 / 1000.0,
            duration_s: section.runtime.total_duration_ms as f64 / 1000.0,
            whole_seconds: section.runtime.total_duration_ms / 1000,
            section,
        })
        .collect()
}

/// The rows worth a series: those with replies (memtier's `Waits` is zeros).
pub fn rows_with_replies(section: &Section) -> impl Iterator<Item = (&str, &OpRow)> {
    section.rows.iter().filter(|(_, row)| row.count > 0)
}

/// `(x, y)` for each whole second of `row` in `phase` that has a `value`;
/// x is the middle of the second on the report's time line.
pub fn per_second(
    phase: &Phase<'_>,
    row: &OpRow,
    value: impl Fn(&Second) -> Option<f64>,
) -> Vec<(f64, f64)> {
    row.time_serie
        .iter()
        .filter_map(|(key, second)| {
            let k: u64 = key.parse().ok()?;
            if k >= phase.whole_seconds {
                return None;
            }
            value(second).map(|v| (phase.offset_s + k as f64 + 0.5, v))
        })
        .collect()
}

/// A second's rate: kvbench's `Ops/sec`, or memtier's `Count` (over one second).
pub fn ops_per_sec(second: &Second) -> Option<f64> {
    Some(second.ops_per_sec.unwrap_or(second.count as f64))
}

/// Reads one latency of a second, ms.
pub type SecondLatency = fn(&Second) -> Option<f64>;

/// The latencies plotted per second: a name and how to read it.
pub const PER_SECOND_LATENCIES: [(&str, SecondLatency); 4] = [
    ("p50", |s| s.percentiles_ms.get("p50.00").copied()),
    ("p99", |s| s.percentiles_ms.get("p99.00").copied()),
    ("p99.9", |s| s.percentiles_ms.get("p99.90").copied()),
    ("max", |s| s.max_latency_ms),
];

/// HdrHistogram's percentile plot of `h` (µs): x = 1/(1-q), y = latency in ms,
/// five points per halving of the distance to 100 %. The last point (the
/// maximum, q = 1) sits at x = count: with N samples the maximum is the
/// 1 - 1/N quantile, and 1/(1-q) is capped there throughout.
pub fn spectrum_points(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    let count = h.len() as f64;
    let mut points = Vec::new();
    if h.is_empty() {
        return points;
    }
    for v in h.iter_quantiles(5) {
        let q = v.quantile_iterated_to();
        let x = if q >= 1.0 {
            count
        } else {
            (1.0 / (1.0 - q)).min(count)
        };
        let ms = h.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0;
        points.push((x.max(1.0), ms));
        if q >= 1.0 {
            break;
        }
    }
    points
}

/// One op's whole-report histogram.
pub struct Spectrum {
    /// `SET`, `Gets response time`.
    pub name: String,
    /// Every measured run added up.
    pub histogram: Histogram<u64>,
}

/// The spectra of a report: per op, every run's histogram added (one run's
/// spectrum would hide the others'). With `--rate` or `--rate-limiting`,
/// each op's response time and service time instead, from `open_loop`. A
/// memtier file, which has no `kvbench.runs`, gives its headline section's
/// histograms. Histograms that do not decode are named in `notes`.
pub fn spectra(report: &Report, notes: &mut Vec<String>) -> Vec<Spectrum> {
    let mut out: Vec<Spectrum> = Vec::new();
    let mut add = |name: String, decoded: Result<Histogram<u64>, HistogramError>| match decoded {
        Ok(h) => match out.iter_mut().find(|s| s.name == name) {
            Some(s) => {
                if let Err(e) = s.histogram.add(&h) {
                    notes.push(format!("{name}: a run's histogram was left out ({e:?})"));
                }
            }
            None => out.push(Spectrum { name, histogram: h }),
        },
        Err(e) => notes.push(format!("{name}: {e}")),
    };
    let runs = report
        .kvbench
        .as_ref()
        .map(|k| k.runs.as_slice())
        .unwrap_or_default();
    let open_loop = runs.iter().any(|r| r.open_loop.is_some());
    for run in runs {
        if let Some(ol) = run.open_loop.as_ref().filter(|_| open_loop) {
            for (row, kind, blocks) in interleave(&ol.response_time, &ol.service_time) {
                add(format!("{row} {kind}"), blocks.compressed.decode());
            }
        } else if let Some(histograms) = &run.histograms {
            for (op, compressed) in histograms.iter() {
                add(op.to_string(), compressed.decode());
            }
        }
    }
    if runs.is_empty() {
        if let Some(section) = report.headline() {
            for (name, row) in rows_with_replies(section).filter(|(n, _)| *n != "Totals") {
                if let Some(decoded) = row.histogram().transpose() {
                    add(name.to_string(), decoded);
                }
            }
        }
    }
    out
}

/// Each op row's response and service time side by side, `Totals` left out
/// (it is the ops together, drawn already).
fn interleave<'a>(
    response: &'a Named<LatencyBlock>,
    service: &'a Named<Option<LatencyBlock>>,
) -> Vec<(&'a str, &'static str, &'a LatencyBlock)> {
    let mut out = Vec::new();
    for (row, block) in response.iter().filter(|(r, _)| *r != "Totals") {
        out.push((row, "response time", block));
        if let Some(Some(s)) = service.get(row) {
            out.push((row, "service time", s));
        }
    }
    out
}

/// A sweep's cells as chart points: x is the cell's index.
pub struct SweepPoints {
    /// The swept flags, for the axis title.
    pub parameter: String,
    /// Each cell's value of the swept flags (`4`, or `pipeline=4,clients=2`),
    /// marked `(INVALID)` when the cell's own verdict is not valid.
    pub labels: Vec<String>,
    /// `(cell, total ops/s)`.
    pub ops_per_sec: Vec<(f64, f64)>,
    /// `(cell, p99 ms)`.
    pub p99_ms: Vec<(f64, f64)>,
}

/// The summary rows of a sweep, one point per finished cell.
pub fn sweep_points(sweep: &SweepDocument) -> SweepPoints {
    let parameter = sweep
        .sweep
        .parameters
        .iter()
        .map(|p| parameter_flag(*p))
        .collect::<Vec<_>>()
        .join(", ");
    let single = sweep.sweep.parameters.len() == 1;
    let labels = sweep
        .sweep
        .summary
        .iter()
        .map(|row| {
            let label = match row.cell.split_once('=') {
                Some((_, value)) if single => value.to_string(),
                _ => row.cell.clone(),
            };
            verdict::marked(&label, cell_invalid(sweep, &row.cell))
        })
        .collect();
    let indexed = |f: fn(&crate::report::model::SweepRow) -> f64| {
        sweep
            .sweep
            .summary
            .iter()
            .enumerate()
            .map(|(i, row)| (i as f64, f(row)))
            .collect()
    };
    SweepPoints {
        parameter,
        labels,
        ops_per_sec: indexed(|r| r.ops_per_sec),
        p99_ms: indexed(|r| r.p99_latency_ms),
    }
}

/// True when the cell labelled `cell` (`pipeline=4`) has a verdict that
/// says it is not valid.
fn cell_invalid(sweep: &SweepDocument, cell: &str) -> bool {
    sweep.sweep.cells.iter().any(|report| {
        let labelled = report
            .kvbench
            .as_ref()
            .and_then(|k| k.cell.as_ref())
            .is_some_and(|c| c.label == cell);
        labelled && verdict::is_invalid(verdict::of_report(report))
    })
}

/// The flag a swept parameter came from.
pub fn parameter_flag(p: SweepParameter) -> &'static str {
    match p {
        SweepParameter::Threads => "--threads",
        SweepParameter::Clients => "--clients",
        SweepParameter::Pipeline => "--pipeline",
        SweepParameter::DataSize => "--data-size",
        SweepParameter::Ratio => "--ratio",
    }
}
