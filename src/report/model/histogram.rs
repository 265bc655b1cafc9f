//! A report's compressed HdrHistograms (`Compressed Histogram`: V2 +
//! deflate, base64; values in µs), kept as text and decoded on demand.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer as HistogramDeserializer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A compressed HdrHistogram as the report carries it (V2 + deflate,
/// base64; values in µs), decoded only when asked: most readers want the
/// printed percentiles, and decoding every row of a big file costs.
///
/// The text is standard base64, padded; the bytes are an HdrHistogram's V2
/// encoding compressed with deflate (zlib), starting `HISTF`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct CompressedHistogram(
    #[schemars(regex(pattern = r"^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"))]
    pub String,
);

/// Why a compressed histogram did not decode.
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    /// The text is not base64.
    #[error("the compressed histogram is not base64 ({0})")]
    NotBase64(#[from] base64::DecodeError),
    /// The bytes are not a V2 (deflate) HdrHistogram.
    #[error("the compressed histogram is not a V2 HdrHistogram ({0:?})")]
    NotHistogram(hdrhistogram::serialization::DeserializeError),
}

impl CompressedHistogram {
    /// The histogram, values in microseconds.
    pub fn decode(&self) -> Result<Histogram<u64>, HistogramError> {
        let bytes = STANDARD.decode(self.0.as_bytes())?;
        HistogramDeserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(HistogramError::NotHistogram)
    }
}

/// `Histogram log format`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistogramLog {
    /// The HdrHistogram of the row's latencies, values in MICROSECONDS: V2
    /// encoding compressed with deflate (zlib), then base64 (standard
    /// alphabet, padded); starts with `HISTF`.
    #[serde(rename = "Compressed Histogram")]
    pub compressed: CompressedHistogram,
}
