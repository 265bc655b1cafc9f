//! Reports: the input every exporter renders ([`ReportInput`]), the
//! renderers (text, JSON, HdrHistogram), the one exporter manager that writes
//! them ([`export`]), the progress line, and the live sinks.
//!
//! Regular files are written to a temporary name and renamed into place, so a
//! crash mid-write never leaves a truncated result; devices and FIFOs are
//! written in place ([`files`]).

pub mod build;
pub mod capacity;
#[cfg(test)]
pub(crate) mod cluster_fixture;
#[cfg(test)]
mod cluster_tests;
pub mod evidence;
pub mod export;
pub mod files;
pub mod hdr;
pub mod hdr_files;
pub mod html;
pub mod json;
pub mod latency_window;
pub mod limit;
pub mod metrics;
pub mod model;
pub mod open_loop;
mod precision_text;
pub mod progress;
pub mod realtime;
pub mod server_time;
pub mod shards;
pub mod spread;
pub mod suite;
pub mod sweep;
pub mod table;
pub mod text;
pub mod text_screen;
pub mod text_summary;
pub mod verdict;
pub mod verification;
pub mod warnings;
pub mod watched_text;

use hdrhistogram::Histogram;

use crate::config::Config;
use crate::engine::master::results::Results;
use crate::engine::stats::{OpStats, Stats};
use crate::report::verdict::Verdict;
use crate::report::warnings::Warning;

/// What every exporter gets.
pub struct ReportInput<'a> {
    /// The validated configuration.
    pub config: &'a Config,
    /// Everything measured so far.
    pub results: &'a Results,
    /// False while runs are still to come (or the run was cut short).
    pub complete: bool,
    /// The result's warnings, computed once (some checks look the server's
    /// address up) and handed to every exporter.
    pub warnings: Vec<Warning>,
    /// Whether the result measures the workload asked for.
    pub verdict: Verdict,
}

impl<'a> ReportInput<'a> {
    /// The input of every exporter for this result, its warnings computed here.
    pub fn new(config: &'a Config, results: &'a Results, complete: bool) -> Self {
        ReportInput {
            config,
            results,
            complete,
            warnings: crate::report::warnings::collect(config, results),
            verdict: Verdict::of_results(config, results),
        }
    }
}

/// The effective configuration for `--show-config`, password redacted.
pub fn show_config(config: &Config) -> String {
    build::settings::show_config(config)
}

/// GET hits as a percentage of GET replies that were hits or misses; `None`
/// when no GET was answered.
pub fn hit_rate_percent(get: &OpStats) -> Option<f64> {
    let answered = get.hits + get.misses;
    (answered > 0).then(|| 100.0 * get.hits as f64 / answered as f64)
}

/// The GET-like rows of `stats` merged, for a hit rate; `None` when the op
/// table has no command whose nil reply is a miss.
pub fn hit_stats(config: &Config, stats: &Stats) -> Option<OpStats> {
    stats.merged(config.ops.hit_rows())
}

/// memtier's latency distribution: `(latency ms, percent of requests at or
/// below it)` at percentile steps that halve towards 100 % (10 steps per halving).
pub fn distribution(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    // The iterator starts at the lowest recorded value (0 %), as memtier's table does.
    let mut points = Vec::new();
    for v in h.iter_quantiles(10) {
        let percent = v.quantile_iterated_to() * 100.0;
        points.push((
            h.highest_equivalent(v.value_iterated_to()) as f64 / 1000.0,
            percent,
        ));
        if percent >= 100.0 {
            break;
        }
    }
    points
}

/// Formats a percentile for a column title: 50 → "50", 99.9 → "99.9".
pub fn percentile_label(p: f64) -> String {
    format!("{p}")
}

/// A JSON percentile key as the text names it: `p99.00` → `p99`,
/// `p99.90` → `p99.9`.
pub fn key_label(key: &str) -> String {
    let number = key.get(1..).unwrap_or_default();
    match number.parse::<f64>() {
        Ok(p) => format!("p{}", percentile_label(p)),
        Err(_) => key.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stats::latency_histogram;

    #[test]
    fn distribution_ends_at_one_hundred_percent_and_rises() {
        let mut h = latency_histogram().unwrap();
        for v in 1..=10_000u64 {
            h.record(v).unwrap();
        }
        let d = distribution(&h);
        assert_eq!(d.first().unwrap().1, 0.0);
        assert_eq!(d.last().unwrap().1, 100.0);
        assert!(d.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
    }

    #[test]
    fn hit_rate_is_none_without_gets() {
        let mut get = OpStats::new().unwrap();
        assert_eq!(hit_rate_percent(&get), None);
        get.hits = 3;
        get.misses = 1;
        assert_eq!(hit_rate_percent(&get), Some(75.0));
    }
}
