//! A row's `Percentile Latencies`: one key per printed percentile
//! (`p50.00`, memtier's `p100.0`), and the row's whole histogram.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::report::json::percentile_key;
use crate::report::model::histogram::HistogramLog;
use crate::report::model::named::Named;

/// `Percentile Latencies`: one key per printed percentile, and the histogram.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Percentiles {
    /// `p50.00` → ms, in the file's order.
    pub values_ms: Named<f64>,
    /// The whole histogram; memtier and kvbench always write it.
    pub histogram: Option<HistogramLog>,
}

pub(crate) const HISTOGRAM_KEY: &str = "Histogram log format";

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
