//! The text report's precision lines: each measured run's ops/sec and the
//! printed percentiles of every op together, each with its 95 % interval
//! (`p99 0.811 ms ± 3.2 %`), and how long `--test-time auto` ran; read from
//! the document's `runs[i].precision` (docs/precision.md).

use std::fmt::Write;

use crate::report::model::kvbench::Kvbench;
use crate::report::model::precision::Figure;
use crate::report::model::section::TOTALS_ROW;
use crate::report::percentile_label;

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
        for (key, figure) in totals.map(|(_, t)| t.0.as_slice()).unwrap_or_default() {
            // `p99.00` reads p99, `p99.90` p99.9.
            let number = key[1..].parse::<f64>().map(percentile_label);
            let key = format!("p{}", number.as_deref().unwrap_or(&key[1..]));
            figures.push(match figure {
                Some(f) => format!("{key} {:.3} ms ± {}", f.value, relative(f)),
                None => format!("{key} not known"),
            });
        }
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
        if figures.iter().any(|f| f.ends_with("not known")) {
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
