//! `kvbench.capacity`: what `kvbench capacity` found (docs/capacity.md): the
//! capacity with its interval, the SLOs it is for, the knee, every step of
//! the search (the latency–throughput curve) and the confirmation run.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The search's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "capacity")]
pub struct Capacity {
    /// The capacity: the highest asked rate (ops/s, in total) whose step met
    /// every SLO; `null` when none did, and when its confirmation run missed
    /// the SLOs (outcome `unconfirmed`: the file has no confirmed answer).
    pub ops_per_sec: Option<f64>,
    /// The interval's lower end: the highest asked rate whose step met every
    /// SLO, the same rate as `ops_per_sec` unless the outcome is
    /// `unconfirmed` (then the rate the last confirmation run missed at).
    pub low: Option<f64>,
    /// The interval's upper end: the lowest asked rate whose step failed an
    /// SLO; `null` when every step met them.
    pub high: Option<f64>,
    /// How the search ended.
    pub outcome: CapacityOutcome,
    /// The objectives, all to hold.
    pub slo: Vec<SloTarget>,
    /// `--resolution`, percent of `low`.
    pub resolution_percent: f64,
    /// The knee: the step of the lowest asked rate whose p99 exceeds twice
    /// the p99 of the step of the lowest asked rate; `null` when no step
    /// does.
    pub knee: Option<Knee>,
    /// Every step, in the order run.
    pub steps: Vec<CapacityStep>,
    /// The confirmation run at the capacity (the report's runs hold it);
    /// `null` when there was no capacity to confirm.
    pub confirmation: Option<CapacityStep>,
}

/// How the search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CapacityOutcome {
    /// The interval is within `--resolution`.
    Found,
    /// `--max-steps` ended the search first; `low`/`high` are what is known.
    Unfinished,
    /// No rate tried met the SLOs.
    NoneMeets,
    /// A signal or `--max-errors` stopped the search.
    Interrupted,
    /// The search ended with a rate whose steps met the SLOs (`low`), but
    /// the confirmation run at that rate missed them, the last of
    /// `MAX_CONFIRMATIONS` (exit code 5): no capacity is confirmed, and
    /// `ops_per_sec` is `null`. A longer `--step-time` or a larger
    /// `--resolution` helps (docs/capacity.md).
    Unconfirmed,
}

/// One objective.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SloTarget {
    /// The percentile, e.g. 99.
    pub percentile: f64,
    /// Its limit, ms.
    pub limit_ms: f64,
}

/// The knee of the curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Knee {
    /// The step's asked rate, ops/s.
    pub rate: f64,
    /// Its achieved rate, ops/s.
    pub ops_per_sec: f64,
    /// Its p99, ms.
    pub p99_ms: f64,
    /// The p99 of the lowest-load step, ms.
    pub low_load_p99_ms: f64,
}

/// One step: a rate asked, what it achieved, and whether it met the SLOs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CapacityStep {
    /// The asked rate, ops/s in total.
    pub rate: f64,
    /// Replies per second achieved, over the step's measured seconds
    /// (pooled over its repeats).
    pub ops_per_sec: f64,
    /// Response-time percentiles (from each request's intended send time),
    /// ms, the requests never sent counted with their least wait: `p50`,
    /// `p99`, `p99.9`, each SLO's, and `max`.
    pub percentiles_ms: BTreeMap<String, f64>,
    /// Replies measured (all repeats).
    pub replies: u64,
    /// Requests due that were never sent (all repeats).
    pub never_sent: u64,
    /// Error replies and requests lost (all repeats).
    pub errors: u64,
    /// Times the step ran: 1, plus a repeat each time its bound held a limit.
    pub runs: u32,
    /// Each SLO's percentile with its 95 % interval.
    pub bounds: Vec<SloBound>,
    /// What decided the step.
    pub decided_by: Decision,
    /// The step met every SLO and its rate.
    pub meets: bool,
}

/// A percentile's 95 % interval (batch means over the step's seconds,
/// docs/precision.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SloBound {
    /// The percentile.
    pub percentile: f64,
    /// The interval's lower end, ms; `null` when the step had too few
    /// seconds for an interval (ten batches).
    pub low_ms: Option<f64>,
    /// The point estimate, ms.
    pub estimate_ms: f64,
    /// The interval's upper end, ms; `null` as `low_ms`.
    pub high_ms: Option<f64>,
}

/// What decided a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Every bound was on one side of its limit.
    Bound,
    /// A bound still held its limit after `--max-repeats`: the point
    /// estimates decided.
    Estimate,
    /// The achieved rate fell short of the asked rate (below 95 %, or more
    /// than 1 % never sent), whatever the latencies.
    RateNotMet,
    /// Errors above `--max-error-share`.
    Errors,
}
