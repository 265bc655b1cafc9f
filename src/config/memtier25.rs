//! memtier 2.5's flags that a pasted line carries: `--read-preference-fallback`
//! (checked against what kvbench's `--read-from replica` does),
//! `--read-server` with `--read-preference primary` (refused: every read
//! would go to `--server`; the endpoint itself is `config::read_server`),
//! `--command-miss-tracking` (whether `--command` rows count hits and
//! misses), `--prometheus-run-label` (constant labels on every series
//! of the `/metrics` endpoint), `--prometheus-latency-buckets` (its
//! histogram's bounds) and `--latency-window` (the seconds of
//! `--realtime-latencies`' sliding-window line).

use crate::cli::Args;
use crate::config::memtier24::ReadPreference;
use crate::error::UsageError;

/// Labels kvbench's own series carry (a run label of the same name would
/// make two values for one label, which Prometheus refuses), and the names
/// memtier reserves besides (`quantile`, `version`, `git_sha`).
const OWN_LABELS: [&str; 10] = [
    "phase", "run", "shard", "cell", "op", "kind", "le", "quantile", "version", "git_sha",
];

/// memtier's limits on `--prometheus-run-label`: labels, and bytes of a
/// name and of a value.
const MAX_RUN_LABELS: usize = 16;
const MAX_LABEL_NAME_BYTES: usize = 128;
const MAX_LABEL_VALUE_BYTES: usize = 256;

/// memtier's limits on `--prometheus-latency-buckets`: at most 64 bounds,
/// each from 1 µs to a day.
const MAX_LATENCY_BUCKETS: usize = 64;
const MAX_BUCKET_BOUND_US: u64 = 86_400_000_000;

/// The longest `--latency-window` memtier takes, in seconds.
pub const MAX_LATENCY_WINDOW_SECS: u32 = 3600;

/// memtier's `--latency-window` default, which `--memtier-compat` restores.
pub const MEMTIER_LATENCY_WINDOW_SECS: u32 = 60;

/// memtier 2.5's `--read-preference-fallback`: where a strict `secondary`
/// read goes when its shard has no live replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFallback {
    /// memtier's default: the read fails.
    Error,
    /// The read waits until a replica is live.
    Queue,
    /// The read goes to the shard's master (what kvbench always does).
    Primary,
}

impl ReadFallback {
    const ALL: [ReadFallback; 3] = [
        ReadFallback::Error,
        ReadFallback::Queue,
        ReadFallback::Primary,
    ];

    /// memtier's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadFallback::Error => "error",
            ReadFallback::Queue => "queue",
            ReadFallback::Primary => "primary",
        }
    }

    fn parse(text: &str) -> Option<ReadFallback> {
        Self::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

/// `--command-miss-tracking`: whether `--command` rows count hits and misses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissTracking {
    /// GET-like commands count a nil reply as a miss, a value as a hit.
    #[default]
    Auto,
    /// No `--command` row counts hits or misses.
    Off,
}

impl MissTracking {
    fn parse(text: &str) -> Option<MissTracking> {
        match text {
            "auto" => Some(MissTracking::Auto),
            "off" => Some(MissTracking::Off),
            _ => None,
        }
    }
}

/// Checks `--read-server` and `--read-preference-fallback` (before
/// `--read-preference` is rewritten onto `--read-from`).
pub(super) fn check_read_routing(a: &Args) -> Result<(), UsageError> {
    let read_server = a.read_server.as_ref().is_some_and(|s| !s.is_empty());
    // memtier sends reads to --read-server only when the preference is not
    // primary: with primary the endpoint would carry nothing.
    if read_server && a.read_preference.as_deref() == Some(ReadPreference::Primary.as_str()) {
        return Err(UsageError::new(
            "--read-preference",
            "primary sends every read to --server, leaving --read-server unused; drop --read-server, or use secondary (kvbench's default with --read-server), secondaryPreferred or nearest",
        ));
    }
    let Some(text) = a.read_preference_fallback.as_deref() else {
        return Ok(());
    };
    let fallback = ReadFallback::parse(text).ok_or_else(|| {
        UsageError::new(
            "--read-preference-fallback",
            format!("'{text}' is not a choice; use error, queue or primary"),
        )
    })?;
    let Some(preference) = a.read_preference.as_deref().and_then(ReadPreference::parse) else {
        return Err(UsageError::new(
            "--read-preference-fallback",
            "applies to --read-preference secondary; add it or remove this flag",
        ));
    };
    // Only strict secondary has a fallback in memtier; the other modes
    // ignore it, and so does kvbench.
    if preference == ReadPreference::Secondary && fallback != ReadFallback::Primary {
        return Err(UsageError::new(
            "--read-preference-fallback",
            format!(
                "'{}': kvbench serves the reads of a shard without a replica from its master, memtier's 'primary'; it can neither fail them nor hold them; use primary",
                fallback.as_str()
            ),
        ));
    }
    Ok(())
}

/// `--command-miss-tracking`, which only `--command` rows take.
pub(super) fn build_miss_tracking(a: &Args, commands: bool) -> Result<MissTracking, UsageError> {
    let Some(text) = a.command_miss_tracking.as_deref() else {
        return Ok(MissTracking::Auto);
    };
    let tracking = MissTracking::parse(text).ok_or_else(|| {
        UsageError::new(
            "--command-miss-tracking",
            format!("'{text}' is not a choice; use auto or off"),
        )
    })?;
    if tracking == MissTracking::Off && !commands {
        return Err(UsageError::new(
            "--command-miss-tracking",
            "off applies to --command rows (the SET/GET pair always counts GET hits); add --command or remove it",
        ));
    }
    Ok(tracking)
}

/// `--latency-window SECS`: `None` for 0 or, without it, unless
/// `--memtier-compat` asks for memtier's 60 s.
pub(super) fn build_latency_window(a: &Args) -> Result<Option<u32>, UsageError> {
    let Some(secs) = a.latency_window else {
        let compat = a.memtier_compat && a.realtime_latencies;
        return Ok(compat.then_some(MEMTIER_LATENCY_WINDOW_SECS));
    };
    if !a.realtime_latencies {
        return Err(UsageError::new(
            "--latency-window",
            "adds a line to --realtime-latencies' block; add --realtime-latencies or remove it",
        ));
    }
    if secs > MAX_LATENCY_WINDOW_SECS {
        return Err(UsageError::new(
            "--latency-window",
            format!(
                "must be 0 (none) to {MAX_LATENCY_WINDOW_SECS} seconds (got {secs}), e.g. --latency-window 60"
            ),
        ));
    }
    Ok((secs > 0).then_some(secs))
}

/// `--prometheus-run-label KEY=VALUE`, each a constant label of every
/// series the `/metrics` endpoint serves.
pub(super) fn build_run_labels(
    a: &Args,
    serving: bool,
) -> Result<Vec<(String, String)>, UsageError> {
    let given = a.prometheus_run_label.as_deref().unwrap_or_default();
    if given.is_empty() {
        return Ok(Vec::new());
    }
    let fail = |why: String| UsageError::new("--prometheus-run-label", why);
    if !serving {
        return Err(fail(
            "labels the /metrics endpoint's series; add --prometheus-port PORT (or --metrics-listen ADDR:PORT) or remove it".into(),
        ));
    }
    if given.len() > MAX_RUN_LABELS {
        return Err(fail(format!(
            "{} labels given; memtier takes at most {MAX_RUN_LABELS}",
            given.len()
        )));
    }
    let mut labels: Vec<(String, String)> = Vec::with_capacity(given.len());
    for text in given {
        let Some((key, value)) = text.split_once('=') else {
            return Err(fail(format!("`{text}` is not KEY=VALUE, e.g. env=staging")));
        };
        if !is_label_name(key) {
            return Err(fail(format!(
                "`{key}` is not a Prometheus label name: a letter or _ then letters, digits or _, not starting with __"
            )));
        }
        if key.len() > MAX_LABEL_NAME_BYTES || value.len() > MAX_LABEL_VALUE_BYTES {
            return Err(fail(format!(
                "`{key}`: a name takes at most {MAX_LABEL_NAME_BYTES} bytes and a value {MAX_LABEL_VALUE_BYTES}, as in memtier"
            )));
        }
        if OWN_LABELS.contains(&key) {
            return Err(fail(format!(
                "`{key}` is a label of kvbench's own series ({}); choose another name, e.g. name={value}",
                OWN_LABELS.join(", ")
            )));
        }
        if labels.iter().any(|(k, _)| k == key) {
            return Err(fail(format!(
                "`{key}` is given twice; give each label once"
            )));
        }
        labels.push((key.to_string(), value.to_string()));
    }
    Ok(labels)
}

/// `--prometheus-latency-buckets LIST`: 1 to 64 strictly ascending upper
/// bounds in seconds, from 1 µs (kvbench's resolution) to 86400, `+Inf`
/// implied; `None` keeps kvbench's buckets.
pub(super) fn build_latency_buckets(
    a: &Args,
    serving: bool,
) -> Result<Option<Vec<u64>>, UsageError> {
    let Some(text) = a.prometheus_latency_buckets.as_deref() else {
        return Ok(None);
    };
    let fail = |why: String| {
        UsageError::new(
            "--prometheus-latency-buckets",
            format!(
                "{why}; give 1 to {MAX_LATENCY_BUCKETS} ascending bounds in seconds, e.g. 0.001,0.005,0.05 (+Inf is implied)"
            ),
        )
    };
    if !serving {
        return Err(UsageError::new(
            "--prometheus-latency-buckets",
            "sets the /metrics endpoint's histogram; add --prometheus-port PORT (or --metrics-listen ADDR:PORT) or remove it",
        ));
    }
    let mut bounds: Vec<u64> = Vec::new();
    for part in text.split(',') {
        let secs: f64 = part
            .trim()
            .parse()
            .map_err(|_| fail(format!("`{part}` is not a number of seconds")))?;
        let us = (secs * 1e6).round();
        if !secs.is_finite() || us < 1.0 || us > MAX_BUCKET_BOUND_US as f64 {
            return Err(fail(format!(
                "`{part}` is not from 0.000001 to 86400 seconds"
            )));
        }
        let us = us as u64;
        // kvbench's histograms keep 3 significant digits: bounds closer
        // than 0.1 % would share one of their buckets.
        if bounds
            .last()
            .is_some_and(|&last| us as f64 <= last as f64 * 1.001)
        {
            return Err(fail(format!(
                "`{part}` is not above the bound before it by 0.1 % or more (the histogram's precision)"
            )));
        }
        bounds.push(us);
    }
    if bounds.len() > MAX_LATENCY_BUCKETS {
        return Err(fail(format!("{} bounds given", bounds.len())));
    }
    Ok(Some(bounds))
}

/// Prometheus' label names: `[a-zA-Z_][a-zA-Z0-9_]*`, `__` reserved.
fn is_label_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with("__")
}

#[cfg(test)]
mod tests;
