//! One memtier-compatible section (`ALL STATS`, `RUN #n RESULTS`, …): its
//! `Runtime`, its op rows (`Sets`, `Gets`, `Waits`, `Totals`, or memtier's
//! `Hsets` for `--command`), and its latency distributions (`SET`, `GET`).
//!
//! Rows are kept by name, in the file's order, because the set of rows is
//! data: memtier names a row after its command, and a reader that knew only
//! Sets and Gets would drop the rest.

use std::fmt;

use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::protocol::command::CURSOR_TEXT;
use crate::report::model::histogram::HistogramError;
use crate::report::model::named::Named;
pub use crate::report::model::percentiles::Percentiles;
use crate::report::model::{rounded, schema};

/// `Runtime`'s `Time unit`.
pub const TIME_UNIT: &str = "MILLISECONDS";
/// The row of every command together.
pub const TOTALS_ROW: &str = "Totals";
/// memtier's row for WAIT, which kvbench never sends.
pub const WAITS_ROW: &str = "Waits";

/// Which section of a report a top-level key is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionTitle {
    /// `ALL STATS`: the single run.
    AllStats,
    /// `RUN #n RESULTS`, `n` from 1.
    Run(u32),
    /// `BEST RUN RESULTS`.
    Best,
    /// `WORST RUN RESULTS`.
    Worst,
    /// `AGGREGATED AVERAGE RESULTS (n runs)`.
    Aggregated(u32),
}

impl SectionTitle {
    /// The title's section, or `None` for a key that is not a section.
    pub fn parse(key: &str) -> Option<SectionTitle> {
        match key {
            "ALL STATS" => Some(SectionTitle::AllStats),
            "BEST RUN RESULTS" => Some(SectionTitle::Best),
            "WORST RUN RESULTS" => Some(SectionTitle::Worst),
            _ => {
                if let Some(n) = key
                    .strip_prefix("RUN #")
                    .and_then(|k| k.strip_suffix(" RESULTS"))
                {
                    return n.parse().ok().map(SectionTitle::Run);
                }
                key.strip_prefix("AGGREGATED AVERAGE RESULTS (")
                    .and_then(|k| k.strip_suffix(" runs)"))
                    .and_then(|n| n.parse().ok())
                    .map(SectionTitle::Aggregated)
            }
        }
    }
}

impl fmt::Display for SectionTitle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SectionTitle::AllStats => f.write_str("ALL STATS"),
            SectionTitle::Run(n) => write!(f, "RUN #{n} RESULTS"),
            SectionTitle::Best => f.write_str("BEST RUN RESULTS"),
            SectionTitle::Worst => f.write_str("WORST RUN RESULTS"),
            SectionTitle::Aggregated(n) => write!(f, "AGGREGATED AVERAGE RESULTS ({n} runs)"),
        }
    }
}

/// memtier's switches written as the strings `"true"` / `"false"`.
pub mod text_bool {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    /// Writes `"true"` or `"false"`.
    pub fn serialize<S: Serializer>(value: &bool, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(if *value { "true" } else { "false" })
    }

    struct TextBool;

    impl Visitor<'_> for TextBool {
        type Value = bool;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(r#""true" or "false""#)
        }

        // Refused inside the visitor, so that serde_json places the error at
        // the string itself rather than at the end of the enclosing object.
        fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
            match v {
                "true" => Ok(true),
                "false" => Ok(false),
                other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
            }
        }
    }

    /// Reads `"true"` or `"false"`.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(TextBool)
    }
}

/// A section's `Runtime`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "runtime")]
pub struct Runtime {
    /// Wall-clock start, ms since the Unix epoch.
    #[serde(rename = "Start time")]
    pub start_time_ms: u64,
    /// Wall-clock end of the phase (for the aggregate: the end of the last
    /// run), ms since the epoch.
    #[serde(rename = "Finish time")]
    pub finish_time_ms: u64,
    /// Run time, ms; for the aggregate, the sum of the runs' durations.
    #[serde(rename = "Total duration")]
    pub total_duration_ms: u64,
    /// `"MILLISECONDS"`.
    #[serde(rename = "Time unit")]
    #[schemars(extend("const" = TIME_UNIT))]
    pub time_unit: String,
    /// `"true"` when a signal or `--max-errors` cut this phase short (see
    /// `kvbench.interrupted`); otherwise `"false"`.
    #[serde(rename = "Interrupted", with = "text_bool")]
    #[schemars(schema_with = "schema::text_bool")]
    pub interrupted: bool,
}

/// One point of memtier's latency distribution: percent of requests at or
/// below a latency, at percentile steps that halve towards 100 (first point
/// 0 percent, last 100).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "distributionPoint")]
pub struct DistributionPoint {
    /// Latency, ms.
    #[serde(rename = "<=msec")]
    #[schemars(range(min = 0))]
    pub at_most_ms: f64,
    /// Percent of requests at or below it.
    #[serde(serialize_with = "rounded::places3")]
    #[schemars(range(min = 0, max = 100))]
    pub percent: f64,
}

/// One second of a row's `Time-Serie`. memtier writes no `Ops/sec` there,
/// and neither tool writes latencies for a second without replies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "timeSerieSecond")]
// memtier's files may lack the byte counts and `Ops/sec`; kvbench writes them
// for every second.
#[schemars(extend("required" = ["Bytes RX", "Bytes TX", "Count", "Ops/sec"]))]
pub struct Second {
    /// Reply bytes received that second.
    #[serde(rename = "Bytes RX", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub bytes_rx: Option<u64>,
    /// Request bytes queued that second.
    #[serde(rename = "Bytes TX", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub bytes_tx: Option<u64>,
    /// Replies received that second.
    #[serde(rename = "Count")]
    pub count: u64,
    /// `Count` over the whole second, the partial last one included (never
    /// scaled up), so it equals `Count` (kvbench only).
    #[serde(rename = "Ops/sec", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64", range(min = 0))]
    pub ops_per_sec: Option<f64>,
    /// Mean latency, ms.
    #[serde(
        rename = "Average Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub average_latency_ms: Option<f64>,
    /// Sum of latencies, ms, rounded to an integer.
    #[serde(
        rename = "Accumulated Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "u64")]
    pub accumulated_latency_ms: Option<u64>,
    /// Lowest latency that second, ms.
    #[serde(
        rename = "Min Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub min_latency_ms: Option<f64>,
    /// Highest latency that second, ms.
    #[serde(
        rename = "Max Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub max_latency_ms: Option<f64>,
    /// `p50.00` → ms, for that second.
    #[serde(flatten)]
    #[schemars(schema_with = "schema::percentiles_ms")]
    pub percentiles_ms: Named<f64>,
}

/// An op row (`Sets`, `Gets`, `Waits`, `Totals`, `Hsets`, …): an
/// operation's counts, rates, latencies, per-second series and percentiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "op")]
pub struct OpRow {
    /// Replies received, error replies included.
    #[serde(rename = "Count")]
    pub count: u64,
    /// `Count` per second of the section's duration.
    #[serde(rename = "Ops/sec", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub ops_per_sec: f64,
    /// Replies carrying a value, per second.
    #[serde(rename = "Hits/sec", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub hits_per_sec: f64,
    /// Nil replies, per second.
    #[serde(rename = "Misses/sec", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub misses_per_sec: f64,
    /// `--cluster-mode` only, as memtier: `-MOVED` redirects followed, per
    /// second (the request counts once, at the node that answered it).
    #[serde(
        rename = "MOVED/sec",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "rounded::opt_places::<2, _>"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub moved_per_sec: Option<f64>,
    /// `--cluster-mode` only: `-ASK` redirects followed, per second.
    #[serde(
        rename = "ASK/sec",
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "rounded::opt_places::<2, _>"
    )]
    #[schemars(with = "f64", range(min = 0))]
    pub ask_per_sec: Option<f64>,
    /// `Connection Errors` over the section's duration; 0 in every row but
    /// `Totals`, as memtier.
    #[serde(rename = "Connection Errors/sec", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub connection_errors_per_sec: f64,
    /// `Totals` row: connections lost (closed or reset by the peer),
    /// reconnects refused and request timeouts (each resets its connection),
    /// as memtier counts every reconnect it has to attempt; 0 in the other
    /// rows, as memtier. The kinds are apart in `kvbench.errors`.
    #[serde(rename = "Connection Errors")]
    pub connection_errors: u64,
    /// Mean latency, ms (also for `Totals`, where memtier writes 0.0).
    #[serde(rename = "Latency", serialize_with = "rounded::places3")]
    #[schemars(range(min = 0))]
    pub latency_ms: f64,
    /// Mean latency, ms (the same value as `Latency` in kvbench's files).
    #[serde(rename = "Average Latency", serialize_with = "rounded::places3")]
    #[schemars(range(min = 0))]
    pub average_latency_ms: f64,
    /// Sum of all latencies, ms, rounded to an integer.
    #[serde(rename = "Accumulated Latency")]
    pub accumulated_latency_ms: u64,
    /// Lowest latency, ms; 0 when `Count` is 0.
    #[serde(rename = "Min Latency")]
    #[schemars(range(min = 0))]
    pub min_latency_ms: f64,
    /// Highest latency, ms; 0 when `Count` is 0.
    #[serde(rename = "Max Latency")]
    #[schemars(range(min = 0))]
    pub max_latency_ms: f64,
    /// Received plus sent, KB per second.
    #[serde(rename = "KB/sec", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub kb_per_sec: f64,
    /// The same as `KB/sec`.
    #[serde(rename = "KB/sec RX/TX", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub kb_per_sec_rx_tx: f64,
    /// Received, KB per second.
    #[serde(rename = "KB/sec RX", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub kb_per_sec_rx: f64,
    /// Sent, KB per second.
    #[serde(rename = "KB/sec TX", serialize_with = "rounded::places2")]
    #[schemars(range(min = 0))]
    pub kb_per_sec_tx: f64,
    /// Per-second series keyed by the second since the start of the phase
    /// (`"0"`, `"1"`, …), merged over all connections of all threads. The
    /// last second may be partial (replies drained after the deadline).
    /// Empty for the aggregate and for `Waits`.
    #[serde(rename = "Time-Serie")]
    #[schemars(schema_with = "schema::by_second::<Second>")]
    pub time_serie: Named<Second>,
    /// Latency at each `--print-percentiles` value, ms, and the whole
    /// histogram.
    #[serde(rename = "Percentile Latencies")]
    pub percentiles: Percentiles,
}

impl OpRow {
    /// The mean latency, ms: `Average Latency`, or, where a file writes 0
    /// for a row that had replies (memtier's `Totals`), its `Accumulated
    /// Latency` over its `Count`.
    pub fn mean_ms(&self) -> f64 {
        if self.average_latency_ms > 0.0 || self.count == 0 {
            self.average_latency_ms
        } else {
            self.accumulated_latency_ms as f64 / self.count as f64
        }
    }

    /// The row's whole latency histogram (µs), decoded.
    pub fn histogram(&self) -> Result<Option<Histogram<u64>>, HistogramError> {
        self.percentiles
            .histogram
            .as_ref()
            .map(|h| h.compressed.decode())
            .transpose()
    }

    /// The row's whole histogram when it decodes and holds a reply: what
    /// a percentile the report did not print is read from.
    pub fn recorded(&self) -> Option<Histogram<u64>> {
        self.histogram().ok().flatten().filter(|h| !h.is_empty())
    }
}

/// One section.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// When it ran.
    pub runtime: Runtime,
    /// Op rows by name, in the file's order.
    pub rows: Named<OpRow>,
    /// Latency distributions by command (`SET`, `GET`, `WAIT`, `HSET`).
    pub distributions: Named<Vec<DistributionPoint>>,
}

pub(crate) const RUNTIME_KEY: &str = "Runtime";

/// A distribution is keyed by the command in capitals (`SET`, `HSET`,
/// `--scan-incremental-iteration`'s `SCAN <cursor>`); a row by memtier's
/// capitalised plural (`Sets`, `Hsets`, `Totals`, `Scan <cursor>s`).
fn is_distribution_key(key: &str) -> bool {
    key.split(CURSOR_TEXT)
        .all(|part| !part.chars().any(|c| c.is_ascii_lowercase()))
}

impl Section {
    /// The row named `name` (`"Totals"`).
    pub fn row(&self, name: &str) -> Option<&OpRow> {
        self.rows.get(name)
    }
}

impl Serialize for Section {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(RUNTIME_KEY, &self.runtime)?;
        for (k, v) in self.rows.iter() {
            map.serialize_entry(k, v)?;
        }
        for (k, v) in self.distributions.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Section {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SectionVisitor;

        impl<'de> Visitor<'de> for SectionVisitor {
            type Value = Section;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a section object (Runtime and op rows)")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Section, A::Error> {
                let mut runtime = None;
                let mut rows = Named::default();
                let mut distributions = Named::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == RUNTIME_KEY {
                        runtime = Some(map.next_value()?);
                    } else if is_distribution_key(&key) {
                        distributions.0.push((key, map.next_value()?));
                    } else {
                        rows.0.push((key, map.next_value()?));
                    }
                }
                Ok(Section {
                    runtime: runtime.ok_or_else(|| de::Error::missing_field(RUNTIME_KEY))?,
                    rows,
                    distributions,
                })
            }
        }

        deserializer.deserialize_map(SectionVisitor)
    }
}
