//! memtier's section built from sums: an op row per row of the op table,
//! memtier's empty `Waits`, `Totals` and the latency distributions. The one
//! builder behind a run's sections ([`super::section`]) and `kvbench merge`'s
//! (which adds several machines' files into the same [`RowSums`]): it takes
//! counts, latency sums, histograms and seconds, never a rate, a mean or a
//! percentile. The rates, KB/sec, the means and the distributions' percents
//! stay unrounded in the model: the JSON writes them rounded as memtier
//! does ([`crate::report::model::rounded`]), the text tables print them with
//! memtier's own precision ([`crate::report::text`]).

use hdrhistogram::Histogram;

use crate::engine::stats::{latency_histogram, max_us, percentile_us};
use crate::report::distribution;
use crate::report::json::{compressed, ms, percentile_key, round};
use crate::report::model::histogram::{CompressedHistogram, HistogramLog};
use crate::report::model::named::Named;
use crate::report::model::section::{
    DistributionPoint, OpRow, Percentiles, Runtime, Second, Section, TOTALS_ROW, WAITS_ROW,
};

/// The shape every section of a report takes.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionShape {
    /// `(row, command)`: `("Sets", "SET")`, in the op table's order.
    pub rows: Vec<(String, String)>,
    /// The printed percentiles (`--print-percentiles`).
    pub percentiles: Vec<f64>,
    /// The rows carry `MOVED/sec` and `ASK/sec` (`--cluster-mode`).
    pub cluster: bool,
    /// The section has memtier's empty `Waits` row: the SET/GET pair
    /// without `--wait-ratio`, which memtier's readers expect.
    pub waits: bool,
    /// The section has the latency distributions (no `--hide-histogram`).
    pub distributions: bool,
}

/// What an op row is made of.
#[derive(Debug, Clone)]
pub struct RowSums<'a> {
    /// Replies.
    pub count: u64,
    /// Hits.
    pub hits: u64,
    /// Misses.
    pub misses: u64,
    /// `-MOVED` redirects followed.
    pub moved: f64,
    /// `-ASK` redirects followed.
    pub ask: f64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// Request bytes.
    pub bytes_tx: u64,
    /// The sum of the latencies, µs.
    pub latency_sum_us: f64,
    /// Every latency, µs.
    pub histogram: &'a Histogram<u64>,
    /// The time the row's rates are over, s.
    pub over_s: f64,
    /// The seconds, by their index since the phase's start (none: the
    /// row has no `Time-Serie`).
    pub seconds: Vec<(u64, SecondSums<'a>)>,
}

/// One second of a row.
#[derive(Debug, Clone)]
pub struct SecondSums<'a> {
    /// Replies.
    pub count: u64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// Request bytes.
    pub bytes_tx: u64,
    /// The sum of the second's latencies, µs.
    pub latency_sum_us: f64,
    /// What is known of the second's latencies beyond their sum.
    pub latency: SecondLatency<'a>,
}

/// A second's minimum, maximum and percentiles, as its source knows them.
#[derive(Debug, Clone)]
pub enum SecondLatency<'a> {
    /// Not known (a merged second some machine wrote no histogram for).
    Unknown,
    /// Summarised when the second ended: a run keeps no histogram per second.
    Summary {
        /// Lowest, µs.
        min_us: u64,
        /// Highest, µs.
        max_us: u64,
        /// `(percentile, µs)`.
        percentiles_us: &'a [(f64, u64)],
    },
    /// The second's histogram (merge's, added from the machines' logs).
    Histogram(&'a Histogram<u64>),
}

/// memtier's section: `rows` in `shape`'s order, then `Waits` (when the
/// shape has it, with `totals`' seconds), then `Totals`.
pub fn section(
    shape: &SectionShape,
    runtime: Runtime,
    rows: &[RowSums<'_>],
    totals: &RowSums<'_>,
    connection_errors: u64,
) -> Section {
    let mut out = Vec::new();
    for ((key, _), sums) in shape.rows.iter().zip(rows) {
        out.push((key.clone(), shape.row(sums, 0)));
    }
    if shape.waits {
        let empty = latency_histogram().unwrap_or_else(|_| Histogram::new_from(totals.histogram));
        let seconds = totals.seconds.iter().map(|(index, _)| {
            let zero = SecondSums {
                count: 0,
                bytes_rx: 0,
                bytes_tx: 0,
                latency_sum_us: 0.0,
                latency: SecondLatency::Unknown,
            };
            (*index, zero)
        });
        let waits = RowSums {
            count: 0,
            hits: 0,
            misses: 0,
            moved: 0.0,
            ask: 0.0,
            bytes_rx: 0,
            bytes_tx: 0,
            latency_sum_us: 0.0,
            histogram: &empty,
            over_s: totals.over_s,
            seconds: seconds.collect(),
        };
        out.push((WAITS_ROW.to_string(), shape.row(&waits, 0)));
    }
    out.push((TOTALS_ROW.to_string(), shape.row(totals, connection_errors)));
    let mut distributions = Vec::new();
    if shape.distributions {
        for ((_, command), sums) in shape.rows.iter().zip(rows) {
            distributions.push((command.clone(), points(sums.histogram)));
        }
        if shape.waits {
            let all = DistributionPoint {
                at_most_ms: 0.0,
                percent: 100.0,
            };
            distributions.push(("WAIT".to_string(), vec![all]));
        }
    }
    Section {
        runtime,
        rows: Named(out),
        distributions: Named(distributions),
    }
}

/// memtier's distribution of `h`.
fn points(h: &Histogram<u64>) -> Vec<DistributionPoint> {
    distribution(h)
        .into_iter()
        .map(|(at_most_ms, percent)| DistributionPoint {
            at_most_ms: round(at_most_ms, 3),
            percent,
        })
        .collect()
}

impl SectionShape {
    fn row(&self, s: &RowSums<'_>, connection_errors: u64) -> OpRow {
        let h = s.histogram;
        let values_ms = self.percentiles.iter();
        let values_ms = values_ms.map(|&p| (percentile_key(p), ms(percentile_us(h, p) as f64)));
        // Rates, KB/sec and the mean unrounded: the JSON rounds them as
        // memtier writes them, the text as memtier prints them.
        let per_sec = |n: f64| if s.over_s > 0.0 { n / s.over_s } else { 0.0 };
        let kb = |bytes: u64| bytes as f64 / 1024.0 / s.over_s.max(1e-9);
        let mean = if s.count == 0 {
            0.0
        } else {
            s.latency_sum_us / s.count as f64 / 1000.0
        };
        OpRow {
            count: s.count,
            ops_per_sec: per_sec(s.count as f64),
            hits_per_sec: per_sec(s.hits as f64),
            misses_per_sec: per_sec(s.misses as f64),
            moved_per_sec: self.cluster.then(|| per_sec(s.moved)),
            ask_per_sec: self.cluster.then(|| per_sec(s.ask)),
            connection_errors_per_sec: per_sec(connection_errors as f64),
            connection_errors,
            latency_ms: mean,
            average_latency_ms: mean,
            accumulated_latency_ms: (s.latency_sum_us / 1000.0).round() as u64,
            min_latency_ms: if h.is_empty() {
                0.0
            } else {
                ms(h.min() as f64)
            },
            max_latency_ms: ms(max_us(h) as f64),
            kb_per_sec: kb(s.bytes_rx + s.bytes_tx),
            kb_per_sec_rx_tx: kb(s.bytes_rx + s.bytes_tx),
            kb_per_sec_rx: kb(s.bytes_rx),
            kb_per_sec_tx: kb(s.bytes_tx),
            time_serie: Named(s.seconds.iter().map(|(i, s)| self.second(*i, s)).collect()),
            percentiles: Percentiles {
                values_ms: Named(values_ms.collect()),
                histogram: Some(HistogramLog {
                    compressed: CompressedHistogram(compressed(h)),
                }),
            },
        }
    }

    /// One second of the `Time-Serie`. Its Ops/sec is its replies over the
    /// whole second, the partial last one included (the end of the run and
    /// the drain): scaling a few replies of a millisecond up to a second
    /// would invent a rate. memtier writes no latency for a second without
    /// replies: a 0.0 would read as an impossibly fast second.
    fn second(&self, index: u64, s: &SecondSums<'_>) -> (String, Second) {
        let replied = s.count > 0;
        let mut second = Second {
            bytes_rx: Some(s.bytes_rx),
            bytes_tx: Some(s.bytes_tx),
            count: s.count,
            ops_per_sec: Some(s.count as f64),
            average_latency_ms: replied.then(|| ms(s.latency_sum_us / s.count as f64)),
            accumulated_latency_ms: replied.then(|| (s.latency_sum_us / 1000.0).round() as u64),
            min_latency_ms: None,
            max_latency_ms: None,
            percentiles_ms: Named::default(),
        };
        if !replied {
            return (index.to_string(), second);
        }
        match s.latency {
            SecondLatency::Unknown => {}
            SecondLatency::Summary {
                min_us,
                max_us,
                percentiles_us,
            } => {
                second.min_latency_ms = Some(ms(min_us as f64));
                second.max_latency_ms = Some(ms(max_us as f64));
                let keyed = percentiles_us.iter();
                second.percentiles_ms = Named(
                    keyed
                        .map(|(p, v)| (percentile_key(*p), ms(*v as f64)))
                        .collect(),
                );
            }
            SecondLatency::Histogram(h) if !h.is_empty() => {
                second.min_latency_ms = Some(ms(h.min() as f64));
                second.max_latency_ms = Some(ms(max_us(h) as f64));
                let keyed = self.percentiles.iter();
                second.percentiles_ms = Named(
                    keyed
                        .map(|&p| (percentile_key(p), ms(percentile_us(h, p) as f64)))
                        .collect(),
                );
            }
            SecondLatency::Histogram(_) => {}
        }
        (index.to_string(), second)
    }
}
