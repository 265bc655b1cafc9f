//! `runs[i].load_gap`: the time during which the plan asked for load and
//! none was applied (connections waiting a second or more for a reply, or
//! down with requests to send), measured by the workers as the run went
//! (docs/output.md, "load_gap"). In a closed loop more than 10 % of the
//! connection time, or a gap that lasted until sending stopped, makes the
//! result not valid (`load_gap` in the verdict).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::stats::gaps::LoadGaps;

/// A phase's load gaps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "loadGap")]
pub struct LoadGap {
    /// Connection time in gaps, % of connections × run time.
    #[schemars(range(min = 0, max = 100))]
    pub share_percent: f64,
    /// Each connection's gaps (1 s or more), summed, seconds.
    #[schemars(range(min = 0))]
    pub connection_seconds: f64,
    /// Connections × run time, seconds: what `share_percent` is a share of
    /// (a merge sums both).
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub connection_time_s: f64,
    /// How many connection gaps there were.
    pub connection_gaps: u64,
    /// The longest connection gap, seconds.
    #[schemars(range(min = 0))]
    pub longest_connection_gap_s: f64,
    /// The spans of 1 s or more with no reply on any connection while load
    /// was due, in order.
    pub gaps: Vec<Gap>,
    /// The last span lasted until sending stopped.
    pub open_at_end: bool,
}

/// One span with no reply at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Gap {
    /// Seconds from the phase's start.
    #[schemars(range(min = 0))]
    pub start_s: f64,
    /// Seconds.
    #[schemars(range(min = 0))]
    pub length_s: f64,
    /// What the connections were doing: `stalled` (open, requests
    /// outstanding), `server_down` (closed or reconnecting) or
    /// `descriptors_exhausted` (reconnects failed for lack of file
    /// descriptors here).
    #[schemars(regex(pattern = r"^(stalled|server_down|descriptors_exhausted)$"))]
    pub cause: String,
}

fn round(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

impl LoadGap {
    /// The JSON form of `g`.
    pub fn of(g: &LoadGaps) -> LoadGap {
        LoadGap {
            share_percent: round(100.0 * g.share, 3),
            connection_seconds: round(g.connection_secs, 3),
            connection_time_s: round(g.connection_time_s, 3),
            connection_gaps: g.connection_gaps,
            longest_connection_gap_s: round(g.longest_connection_gap_s, 3),
            gaps: g
                .spans
                .iter()
                .map(|s| Gap {
                    start_s: round(s.start_s, 3),
                    length_s: round(s.length_s, 3),
                    cause: s.cause.kind().to_string(),
                })
                .collect(),
            open_at_end: g.open_at_end,
        }
    }
}
