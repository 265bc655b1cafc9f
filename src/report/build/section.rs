//! memtier's sections of a run, built from a [`results::Section`]: its op
//! stats and seconds given to the one section builder ([`super::rows`]) as
//! sums, in the shape the configuration sets ([`shape`]).

use crate::config::Config;
use crate::engine::master::results;
use crate::engine::stats::OpStats;
use crate::engine::stats::series::OpSecond;
use crate::report::build::rows::{self, RowSums, SecondLatency, SecondSums, SectionShape};
use crate::report::json::{connection_errors, millis};
use crate::report::model::section::{Runtime, Section};

/// The shape of `c`'s sections.
pub fn shape(c: &Config) -> SectionShape {
    let rows = c.ops.rows.iter();
    SectionShape {
        rows: rows
            .map(|r| (r.json_key.clone(), r.name_key.clone()))
            .collect(),
        percentiles: c.output.percentiles.clone(),
        cluster: c.cluster.is_some(),
        // Without --wait-ratio kvbench sends no WAIT; the row is kept because
        // memtier readers expect it.
        waits: c.ops.default_pair && c.ops.pair.wait.is_none(),
        // memtier leaves the distributions out with --hide-histogram.
        distributions: !c.output.hide_histogram,
    }
}

/// One memtier section of `s`.
pub fn section(s: &results::Section<'_>, c: &Config) -> Section {
    let runtime = Runtime {
        start_time_ms: millis(s.started_wall),
        finish_time_ms: millis(s.finished_wall),
        total_duration_ms: s.duration.as_millis() as u64,
        time_unit: crate::report::model::section::TIME_UNIT.into(),
        interrupted: s.interrupted,
    };
    let over_s = s.duration.as_secs_f64();
    let rows: Vec<RowSums<'_>> = (s.stats.ops.iter().enumerate())
        .map(|(i, op)| {
            let seconds = s.series.iter();
            let seconds = seconds.filter_map(|x| x.ops.get(i).map(|o| (x.second, o)));
            sums(op, over_s, seconds)
        })
        .collect();
    let all = s.stats.totals();
    let seconds = s.series.iter().map(|x| (x.second, &x.totals));
    let totals = sums(&all, over_s, seconds);
    let broken = connection_errors(&s.stats.errors);
    rows::section(&shape(c), runtime, &rows, &totals, broken)
}

fn sums<'a>(
    op: &'a OpStats,
    over_s: f64,
    seconds: impl Iterator<Item = (u64, &'a OpSecond)>,
) -> RowSums<'a> {
    let seconds = seconds.map(|(index, s)| {
        let second = SecondSums {
            count: s.count,
            bytes_rx: s.bytes_rx,
            bytes_tx: s.bytes_tx,
            latency_sum_us: s.accumulated_us,
            latency: SecondLatency::Summary {
                min_us: s.min_us,
                max_us: s.max_us,
                percentiles_us: &s.percentiles_us,
            },
        };
        (index, second)
    });
    RowSums {
        count: op.count,
        hits: op.hits,
        misses: op.misses,
        moved: op.moved as f64,
        ask: op.ask as f64,
        bytes_rx: op.bytes_rx,
        bytes_tx: op.bytes_tx,
        latency_sum_us: op.latency_sum_us as f64,
        histogram: &op.latency_us,
        over_s,
        seconds: seconds.collect(),
    }
}
