//! Validation of how the load runs: its length (`-n`, `--test-time`), the
//! sweepable lists, the open-loop rate and the fault policy.

use crate::cli::{Args, RequestsArg};
use crate::config::compat::memtier_reconnects;
use crate::config::data::{build_values, list_of};
use crate::config::{Arrival, FaultPolicy, Missed, Rate, Stop, Sweep, seconds};
use crate::error::UsageError;
use crate::workload::mix::Ratio;

/// The deepest `--pipeline` accepted. The in-flight queue holds one entry per
/// request in the window, so this bounds it at `MAX_PIPELINE` ×
/// [`crate::engine::worker::conn::IN_FLIGHT_BYTES`]
/// per connection (3.5 MiB).
pub const MAX_PIPELINE: usize = 65_536;

/// `--max-error-share`'s default, percent: one error reply in a hundred
/// already means the rate counts refusals as well as work.
pub const DEFAULT_MAX_ERROR_PERCENT: f64 = 1.0;

pub(super) fn build_faults(a: &Args) -> Result<FaultPolicy, UsageError> {
    if a.no_reconnect && a.reconnect_on_error {
        return Err(UsageError::new(
            "--no-reconnect",
            "contradicts --reconnect-on-error; give one",
        ));
    }
    let (reconnect, max_attempts, factor) = if a.memtier_compat {
        memtier_reconnects(a)
    } else {
        (
            !a.no_reconnect,
            a.max_reconnect_attempts.unwrap_or(20),
            a.reconnect_backoff_factor,
        )
    };
    let backoff_factor = factor.unwrap_or(2.0);
    if !(backoff_factor.is_finite() && (1.0..=100.0).contains(&backoff_factor)) {
        return Err(UsageError::new(
            "--reconnect-backoff-factor",
            format!(
                "must be between 1 and 100 (got {}); 2 doubles the wait each time",
                super::bounds::shown(backoff_factor)
            ),
        ));
    }
    let request_timeout = match a.request_timeout {
        Some(secs) => Some(seconds("--request-timeout", secs, false)?),
        None => None,
    };
    let max_error_share = a.max_error_share.unwrap_or(DEFAULT_MAX_ERROR_PERCENT);
    if !(max_error_share.is_finite() && (0.0..=100.0).contains(&max_error_share)) {
        return Err(UsageError::new(
            "--max-error-share",
            format!(
                "is a percentage of the requests, from 0 to 100 (got {}); 1 allows one error in a hundred",
                super::bounds::shown(max_error_share)
            ),
        ));
    }
    Ok(FaultPolicy {
        reconnect,
        max_reconnect_attempts: max_attempts,
        backoff_factor,
        reconnect_interval: a.reconnect_interval.unwrap_or(0),
        request_timeout,
        max_errors: a.max_errors,
        max_error_share: max_error_share / 100.0,
        allow_invalid: a.allow_invalid,
    })
}

/// The lists of the sweepable flags (single values when nothing is swept).
pub(super) fn build_sweep(a: &Args) -> Result<Sweep, UsageError> {
    let counts = |flag, arg, default| -> Result<Vec<usize>, UsageError> {
        Ok(list_of(flag, arg, default)?
            .into_iter()
            .map(|n| n as usize)
            .collect())
    };
    let ratios = a
        .ratio
        .as_deref()
        .unwrap_or("1:10")
        .split(',')
        .map(|r| {
            r.parse::<Ratio>()
                .map_err(|e| UsageError::new("--ratio", e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let warmup_each_cell = match a.sweep_warmup.as_deref().unwrap_or("each") {
        "each" => true,
        "first" => false,
        other => {
            return Err(UsageError::new(
                "--sweep-warmup",
                format!("'{other}' is not each or first"),
            ));
        }
    };
    Ok(Sweep {
        threads: counts("--threads", &a.threads, 4)?,
        clients: counts("--clients", &a.clients, 50)?,
        pipelines: pipelines(counts("--pipeline", &a.pipeline, 1)?)?,
        data_sizes: build_values(a)?,
        ratios,
        warmup_each_cell,
    })
}

/// `--pipeline` within [`MAX_PIPELINE`]: every request in the window has an
/// entry in its connection's in-flight queue, so the depth bounds memory.
fn pipelines(depths: Vec<usize>) -> Result<Vec<usize>, UsageError> {
    match depths.iter().find(|&&d| d > MAX_PIPELINE) {
        Some(depth) => Err(UsageError::new(
            "--pipeline",
            format!(
                "must be at most {MAX_PIPELINE} (got {depth}); a deeper window only queues requests in memory"
            ),
        )),
        None => Ok(depths),
    }
}

/// `--rate` (total) or memtier's `--rate-limiting` (per connection), and `--arrival`.
pub(super) fn build_rate(a: &Args, connections: usize) -> Result<Option<Rate>, UsageError> {
    let total = match (a.rate, a.rate_limiting) {
        (Some(_), Some(_)) => {
            return Err(UsageError::new(
                "--rate",
                "give --rate (total) or --rate-limiting (per connection), not both",
            ));
        }
        (Some(total), None) => ("--rate", total, Missed::Kept),
        (None, Some(per_conn)) => (
            "--rate-limiting",
            per_conn * connections as f64,
            Missed::Skipped,
        ),
        (None, None) => {
            if a.arrival.is_some() {
                return Err(UsageError::new(
                    "--arrival",
                    "needs --rate; a closed loop has no schedule",
                ));
            }
            return Ok(None);
        }
    };
    let (flag, total_per_sec, missed) = total;
    if !(total_per_sec.is_finite() && total_per_sec > 0.0 && total_per_sec <= 1e9) {
        let got = super::bounds::shown(total_per_sec);
        return Err(UsageError::new(
            flag,
            format!("must be a rate above 0 and at most 1e9 requests per second (got {got})"),
        ));
    }
    let arrival = match a.arrival.as_deref().unwrap_or("constant") {
        "constant" => Arrival::Constant,
        "poisson" => Arrival::Poisson,
        other => {
            return Err(UsageError::new(
                "--arrival",
                format!("'{other}' is not an arrival kind; use constant or poisson"),
            ));
        }
    };
    Ok(Some(Rate {
        total_per_sec,
        arrival,
        missed,
    }))
}

/// The shortest `--test-time`, s: memtier's shortest timed run (it takes whole
/// seconds), and the least that holds one whole second of the per-second
/// series. A run of microseconds is no rate: its few replies, divided by a
/// sliver of time, scale up to millions of requests per second nobody sent.
pub const MIN_TEST_TIME_SECS: f64 = 1.0;

pub(super) fn build_stop(a: &Args) -> Result<Stop, UsageError> {
    // memtier lets --test-time replace --requests; so do we.
    if let Some(secs) = super::precision::test_time(a)? {
        let time = seconds("--test-time", secs, false)?;
        if secs < MIN_TEST_TIME_SECS {
            return Err(UsageError::new(
                "--test-time",
                format!(
                    "must be at least {MIN_TEST_TIME_SECS} second (got {secs}): a shorter run is no rate, its few replies over a sliver of time scale up to a number nobody sent; give e.g. --test-time {MIN_TEST_TIME_SECS}, or count requests with -n instead"
                ),
            ));
        }
        return Ok(Stop::Time(time));
    }
    match a.requests.clone().unwrap_or(RequestsArg::Count(10_000)) {
        RequestsArg::Count(0) => Err(UsageError::new(
            "--requests",
            "must be at least 1, or allkeys",
        )),
        RequestsArg::Count(n) => Ok(Stop::Requests(n)),
        RequestsArg::Word(w) if w.eq_ignore_ascii_case("allkeys") => Ok(Stop::AllKeys),
        RequestsArg::Word(w) => Err(UsageError::new(
            "--requests",
            format!("'{w}' is neither a number nor allkeys; e.g. -n 10000 or -n allkeys"),
        )),
    }
}
