//! The text report's precision lines: each measured run's ops/sec and the
//! printed percentiles of every op together, each with its 95 % interval
//! (`p99 0.811 ms ± 3.2 %`), those of each op a target names, and how long
//! `--test-time auto` ran; read from
//! the document's `runs[i].precision` (docs/precision.md).

use std::fmt::Write;

use crate::report::key_label;
use crate::report::model::kvbench::Kvbench;
use crate::report::model::named::Named;
use crate::report::model::precision::Figure;
use crate::report::model::section::TOTALS_ROW;

/// One line per measured run that has `precision`.
pub(super) fn lines(out: &mut String, k: &Kvbench) {
    for run in &k.runs {
        let Some(p) = &run.precision else {
            continue;
        };
        let mut figures = vec![match &p.ops_per_sec {
            Some(f) => format!("ops/sec {:.2} ± {}", f.value, relative(f)),
            None => "ops/sec not known".to_string(),
        }];
        let totals = p.latency_ms.0.iter().find(|(row, _)| row == TOTALS_ROW);
        figures.extend(percentiles(totals.map(|(_, t)| t)));
        let batches = p.ops_per_sec.map_or(String::new(), |f| {
            format!(", {} batches of {} s", f.batches, f.batch_s)
        });
        let _ = writeln!(
            out,
            "Precision of {} (95 % intervals, batch means over {} s{batches}): {}.",
            run.phase,
            p.seconds,
            figures.join(", ")
        );
        // The ops a target names (`SET:p99=5%`), each on its own line: the
        // op rows of `precision` are in the order of `totals`.
        let mut ops: Vec<String> = Vec::new();
        for op in named_ops(k) {
            let row = run.totals.0.iter().position(|(name, _)| *name == op);
            let own = row.and_then(|i| p.latency_ms.0.get(i)).map(|(_, t)| t);
            let own = percentiles(own);
            let _ = writeln!(out, "  {op}: {}.", own.join(", "));
            ops.extend(own);
        }
        if figures.iter().chain(&ops).any(|f| f.ends_with("not known")) {
            let _ = writeln!(
                out,
                "  Not known: fewer than ten batches whose values are not autocorrelated (a run under 20 s, or one that trends throughout); docs/precision.md."
            );
        }
        if let Some(secs) = p.met_after_s {
            let _ = writeln!(
                out,
                "Test time auto: {} ended after {secs} s, every --target-precision met.",
                run.phase
            );
        }
    }
}

/// `p50 0.123 ms ± 1.2 %` for each percentile of one row of `precision`.
fn percentiles(row: Option<&Named<Option<Figure>>>) -> Vec<String> {
    let each = row.map(|t| t.0.as_slice()).unwrap_or_default();
    each.iter()
        .map(|(key, figure)| {
            let key = key_label(key);
            match figure {
                Some(f) => format!("{key} {:.3} ms ± {}", f.value, relative(f)),
                None => format!("{key} not known"),
            }
        })
        .collect()
}

/// The ops `--target-precision` names (`SET` of `SET:p99=5%`), once each,
/// in the order given.
fn named_ops(k: &Kvbench) -> Vec<String> {
    let given = k.config.get("target_precision").and_then(|v| v.as_array());
    let mut ops: Vec<String> = Vec::new();
    for target in given.into_iter().flatten().filter_map(|v| v.as_str()) {
        let Some((op, _)) = target.split_once(':') else {
            continue;
        };
        if !ops.iter().any(|o| o == op) {
            ops.push(op.to_string());
        }
    }
    ops
}

/// `-x auto`: how many runs it took, and each named figure's median run
/// with its interval.
pub(super) fn runs_auto(out: &mut String, k: &Kvbench) {
    let Some(auto) = &k.runs_auto else {
        return;
    };
    let figures: Vec<String> = auto
        .figures
        .iter()
        .map(|f| {
            let unit = if f.figure == "ops" { "ops/sec" } else { "ms" };
            match &f.median {
                Some(m) => format!(
                    "{} {:.3} {unit} (95 % interval {:.3} to {:.3}, ± {:.1} %)",
                    f.figure, m.value, m.low, m.high, m.relative_percent
                ),
                None => format!(
                    "{} not known (six runs or more give a median an interval)",
                    f.figure
                ),
            }
        })
        .collect();
    let how = match auto.met_after_runs {
        Some(n) => format!("was known as asked after {n} runs"),
        None => format!(
            "not known as asked after the most runs --max-run-count allows ({})",
            auto.max_runs
        ),
    };
    let _ = writeln!(
        out,
        "Runs auto: the median run {how}: {}.",
        figures.join(", ")
    );
}

/// The half-width as a percentage of the figure: `3.2 %`, `150 %`.
fn relative(f: &Figure) -> String {
    let r = f.relative_percent;
    if r >= 100.0 {
        format!("{r:.0} %")
    } else {
        format!("{r:.1} %")
    }
}
