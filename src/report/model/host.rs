//! `runs[i].client`: what the client machine did during a phase, as the
//! whitepaper method watches it beside the server's CPU and network (a
//! phase's `server.delta`): this process's CPU, the machine's, and the bytes
//! of the interface that carries the traffic (docs/output.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `client` of a phase summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientUse {
    /// The interface towards the target (`lo`, `eth0`); `null` for a UNIX
    /// socket, whose bytes no interface counts.
    pub interface: Option<String>,
    /// The machine's cores.
    pub cores: u32,
    /// This process's CPU seconds, user + system, every thread.
    #[schemars(range(min = 0))]
    pub process_cpu_s: f64,
    /// The same over the phase's time, percent of one core.
    #[schemars(range(min = 0))]
    pub process_cpu_percent: f64,
    /// The whole machine's busy share of all its cores, percent
    /// (`/proc/stat`; 100 = every core busy).
    #[schemars(range(min = 0, max = 100))]
    pub machine_cpu_percent: f64,
    /// Bytes per second received on the interface (`/proc/net/dev`).
    #[schemars(range(min = 0))]
    pub net_rx_bytes_per_sec: Option<f64>,
    /// Bytes per second sent on the interface.
    #[schemars(range(min = 0))]
    pub net_tx_bytes_per_sec: Option<f64>,
    /// The same, second by second.
    #[serde(default)]
    pub per_second: Vec<ClientSecond>,
}

/// One second of `client.per_second`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientSecond {
    /// Percent of one core.
    #[schemars(range(min = 0))]
    pub process_cpu_percent: f64,
    /// Percent of all cores.
    #[schemars(range(min = 0, max = 100))]
    pub machine_cpu_percent: f64,
    /// Bytes per second received.
    #[schemars(range(min = 0))]
    pub net_rx_bytes_per_sec: Option<f64>,
    /// Bytes per second sent.
    #[schemars(range(min = 0))]
    pub net_tx_bytes_per_sec: Option<f64>,
}
