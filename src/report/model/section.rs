//! One memtier-compatible section (`ALL STATS`, `RUN #n RESULTS`, …): its
//! `Runtime`, its op rows (`Sets`, `Gets`, `Waits`, `Totals`, or memtier's
//! `Hsets` for `--command`), and its latency distributions (`SET`, `GET`).
//!
//! Rows are kept by name, in the file's order, because the set of rows is
//! data: memtier names a row after its command, and a reader that knew only
//! Sets and Gets would drop the rest.

use std::fmt;

use hdrhistogram::Histogram;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::report::json::percentile_key;
use crate::report::model::histogram::{HistogramError, HistogramLog};
use crate::report::model::named::Named;

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Runtime {
    /// Milliseconds since the Unix epoch.
    #[serde(rename = "Start time")]
    pub start_time_ms: u64,
    /// Start plus duration, ms since the epoch.
    #[serde(rename = "Finish time")]
    pub finish_time_ms: u64,
    /// Run time, ms.
    #[serde(rename = "Total duration")]
    pub total_duration_ms: u64,
    /// `"MILLISECONDS"`.
    #[serde(rename = "Time unit")]
    pub time_unit: String,
    /// Whether the phase was cut short.
    #[serde(rename = "Interrupted", with = "text_bool")]
    pub interrupted: bool,
}

/// One point of a latency distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DistributionPoint {
    /// Latency, ms.
    #[serde(rename = "<=msec")]
    pub at_most_ms: f64,
    /// Percent of requests at or below it.
    pub percent: f64,
}

/// `Percentile Latencies`: one key per printed percentile, and the histogram.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Percentiles {
    /// `p50.00` → ms, in the file's order.
    pub values_ms: Named<f64>,
    /// The whole histogram; memtier and kvbench always write it.
    pub histogram: Option<HistogramLog>,
}

const HISTOGRAM_KEY: &str = "Histogram log format";

impl Percentiles {
    /// The latency at percentile `p` (`99.0`), ms, if the report printed it.
    pub fn at_ms(&self, p: f64) -> Option<f64> {
        // Files written before kvbench cut p100.00 to memtier's p100.0 keep
        // the longer key.
        self.values_ms
            .get(&percentile_key(p))
            .or_else(|| self.values_ms.get(&format!("p{p:.2}")))
            .copied()
    }
}

impl Serialize for Percentiles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (k, v) in self.values_ms.iter() {
            map.serialize_entry(k, v)?;
        }
        if let Some(h) = &self.histogram {
            map.serialize_entry(HISTOGRAM_KEY, h)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Percentiles {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PercentilesVisitor;

        impl<'de> Visitor<'de> for PercentilesVisitor {
            type Value = Percentiles;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of percentiles and a histogram")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Percentiles, A::Error> {
                let mut out = Percentiles::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == HISTOGRAM_KEY {
                        out.histogram = Some(map.next_value()?);
                    } else {
                        out.values_ms.0.push((key, map.next_value()?));
                    }
                }
                Ok(out)
            }
        }

        deserializer.deserialize_map(PercentilesVisitor)
    }
}

/// One second of a row's `Time-Serie`. memtier writes no `Ops/sec` there,
/// and neither tool writes latencies for a second without replies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Second {
    /// Reply bytes received that second.
    #[serde(rename = "Bytes RX", default, skip_serializing_if = "Option::is_none")]
    pub bytes_rx: Option<u64>,
    /// Request bytes queued that second.
    #[serde(rename = "Bytes TX", default, skip_serializing_if = "Option::is_none")]
    pub bytes_tx: Option<u64>,
    /// Replies received that second.
    #[serde(rename = "Count")]
    pub count: u64,
    /// `Count` over one whole second (kvbench only).
    #[serde(rename = "Ops/sec", default, skip_serializing_if = "Option::is_none")]
    pub ops_per_sec: Option<f64>,
    /// Mean latency, ms.
    #[serde(
        rename = "Average Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub average_latency_ms: Option<f64>,
    /// Sum of latencies, ms.
    #[serde(
        rename = "Accumulated Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub accumulated_latency_ms: Option<u64>,
    /// ms.
    #[serde(
        rename = "Min Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub min_latency_ms: Option<f64>,
    /// ms.
    #[serde(
        rename = "Max Latency",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub max_latency_ms: Option<f64>,
    /// `p50.00` → ms, for that second.
    #[serde(flatten)]
    pub percentiles_ms: Named<f64>,
}

/// An op row (`Sets`, `Gets`, `Waits`, `Totals`, `Hsets`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpRow {
    /// Replies received, error replies included.
    #[serde(rename = "Count")]
    pub count: u64,
    /// `Count` per second of the section's duration.
    #[serde(rename = "Ops/sec")]
    pub ops_per_sec: f64,
    /// Replies carrying a value, per second.
    #[serde(rename = "Hits/sec")]
    pub hits_per_sec: f64,
    /// Nil replies, per second.
    #[serde(rename = "Misses/sec")]
    pub misses_per_sec: f64,
    /// `--cluster-mode` only: `-MOVED` redirects followed, per second.
    #[serde(rename = "MOVED/sec", default, skip_serializing_if = "Option::is_none")]
    pub moved_per_sec: Option<f64>,
    /// `--cluster-mode` only: `-ASK` redirects followed, per second.
    #[serde(rename = "ASK/sec", default, skip_serializing_if = "Option::is_none")]
    pub ask_per_sec: Option<f64>,
    /// Connection errors per second (`Totals` only; 0 elsewhere).
    #[serde(rename = "Connection Errors/sec")]
    pub connection_errors_per_sec: f64,
    /// Connection errors.
    #[serde(rename = "Connection Errors")]
    pub connection_errors: u64,
    /// Mean latency, ms.
    #[serde(rename = "Latency")]
    pub latency_ms: f64,
    /// Mean latency, ms (the same value as `Latency` in kvbench's files).
    #[serde(rename = "Average Latency")]
    pub average_latency_ms: f64,
    /// Sum of latencies, ms.
    #[serde(rename = "Accumulated Latency")]
    pub accumulated_latency_ms: u64,
    /// ms; 0 when `Count` is 0.
    #[serde(rename = "Min Latency")]
    pub min_latency_ms: f64,
    /// ms.
    #[serde(rename = "Max Latency")]
    pub max_latency_ms: f64,
    /// Received plus sent, KB per second.
    #[serde(rename = "KB/sec")]
    pub kb_per_sec: f64,
    /// The same as `KB/sec`.
    #[serde(rename = "KB/sec RX/TX")]
    pub kb_per_sec_rx_tx: f64,
    /// Received, KB per second.
    #[serde(rename = "KB/sec RX")]
    pub kb_per_sec_rx: f64,
    /// Sent, KB per second.
    #[serde(rename = "KB/sec TX")]
    pub kb_per_sec_tx: f64,
    /// Per-second series keyed by the second since the phase's start.
    #[serde(rename = "Time-Serie")]
    pub time_serie: Named<Second>,
    /// Printed percentiles and the whole histogram.
    #[serde(rename = "Percentile Latencies")]
    pub percentiles: Percentiles,
}

impl OpRow {
    /// The row's whole latency histogram (µs), decoded.
    pub fn histogram(&self) -> Result<Option<Histogram<u64>>, HistogramError> {
        self.percentiles
            .histogram
            .as_ref()
            .map(|h| h.compressed.decode())
            .transpose()
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

const RUNTIME_KEY: &str = "Runtime";

/// A distribution is keyed by the command in capitals (`SET`, `HSET`); a row
/// by memtier's capitalised plural (`Sets`, `Hsets`, `Totals`).
fn is_distribution_key(key: &str) -> bool {
    !key.chars().any(|c| c.is_ascii_lowercase())
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
