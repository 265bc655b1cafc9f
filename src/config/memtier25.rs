//! memtier 2.5's flags that a pasted line carries: `--read-preference-fallback`
//! (checked against what kvbench's `--read-from replica` does),
//! `--read-server` (refused: kvbench has no standalone read endpoint),
//! `--command-miss-tracking` (whether `--command` rows count hits and
//! misses), `--prometheus-run-label` (constant labels on every series
//! of the `/metrics` endpoint) and `--latency-window` (the seconds of
//! `--realtime-latencies`' sliding-window line).

use crate::cli::Args;
use crate::config::memtier24::ReadPreference;
use crate::error::UsageError;

/// Labels kvbench's own series carry: a run label of the same name would
/// make two values for one label, which Prometheus refuses.
const OWN_LABELS: [&str; 7] = ["phase", "run", "shard", "cell", "op", "kind", "le"];

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
    if a.read_server.as_ref().is_some_and(|s| !s.is_empty()) {
        return Err(UsageError::new(
            "--read-server",
            "names a standalone read endpoint, which kvbench does not route reads to; reads go to replicas only in a Redis Cluster (--cluster-mode --read-from replica), or run a second kvbench against the replica; remove it",
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
mod tests {
    use super::*;
    use crate::config::Config;
    use clap::Parser;

    fn config(line: &str) -> Result<Config, UsageError> {
        let args = Args::try_parse_from(std::iter::once("kvbench").chain(line.split_whitespace()));
        Config::from_args(args.unwrap())
    }

    #[test]
    fn read_preference_fallback_is_primary_or_refused_for_secondary() {
        let ok = "--cluster-mode --read-preference secondary --read-preference-fallback primary";
        assert!(config(ok).is_ok());
        for mode in ["error", "queue"] {
            let e = config(&format!(
                "--cluster-mode --read-preference secondary --read-preference-fallback {mode}"
            ))
            .unwrap_err();
            assert_eq!(e.flag, "--read-preference-fallback");
            // The other modes have no fallback, in memtier as here.
            assert!(
                config(&format!(
                    "--cluster-mode --read-preference secondaryPreferred --read-preference-fallback {mode}"
                ))
                .is_ok()
            );
        }
        let e = config("--read-preference-fallback primary").unwrap_err();
        assert_eq!(e.flag, "--read-preference-fallback");
        assert!(
            config("--cluster-mode --read-preference secondary --read-preference-fallback x")
                .is_err()
        );
    }

    #[test]
    fn read_server_is_refused_naming_the_cluster_path() {
        let e = config("--read-server 127.0.0.1:6380").unwrap_err();
        assert_eq!(e.flag, "--read-server");
        assert!(e.to_string().contains("--cluster-mode --read-from replica"));
    }

    #[test]
    fn command_miss_tracking_off_clears_every_command_row() {
        // A command of two words: Args directly, not the whitespace split.
        let args = Args::try_parse_from([
            "kvbench",
            "--command",
            "GET __key__",
            "--command-miss-tracking",
            "off",
        ])
        .unwrap();
        let c = Config::from_args(args).unwrap();
        assert!(c.ops.rows.iter().all(|r| !r.counts_hits));
        let args = Args::try_parse_from(["kvbench", "--command", "GET __key__"]).unwrap();
        assert!(Config::from_args(args).unwrap().ops.rows[0].counts_hits);
        assert_eq!(
            config("--command-miss-tracking off").unwrap_err().flag,
            "--command-miss-tracking"
        );
        assert!(config("--command-miss-tracking auto").is_ok());
        assert!(config("--command-miss-tracking sometimes").is_err());
    }

    #[test]
    fn latency_window_needs_realtime_latencies_and_at_most_an_hour() {
        assert_eq!(config("--realtime-latencies").unwrap().latency_window, None);
        let c = config("--realtime-latencies --latency-window 30").unwrap();
        assert_eq!(c.latency_window, Some(30));
        let c = config("--realtime-latencies --latency-window 0").unwrap();
        assert_eq!(c.latency_window, None);
        let c = config("--realtime-latencies --memtier-compat").unwrap();
        assert_eq!(c.latency_window, Some(MEMTIER_LATENCY_WINDOW_SECS));
        for bad in [
            "--latency-window 30",
            "--realtime-latencies --latency-window 3601",
        ] {
            assert_eq!(config(bad).unwrap_err().flag, "--latency-window", "{bad}");
        }
    }

    #[test]
    fn run_labels_are_prometheus_names_apart_from_kvbench_s_own() {
        let c = config(
            "--prometheus-port 0 --prometheus-run-label env=staging --prometheus-run-label name=a=b",
        )
        .unwrap();
        assert_eq!(
            c.metrics.run_labels,
            vec![
                ("env".to_string(), "staging".to_string()),
                ("name".to_string(), "a=b".to_string())
            ]
        );
        for bad in [
            "run=x",
            "9x=y",
            "__x=y",
            "novalue",
            "env=a --prometheus-run-label env=b",
        ] {
            let e =
                config(&format!("--prometheus-port 0 --prometheus-run-label {bad}")).unwrap_err();
            assert_eq!(e.flag, "--prometheus-run-label", "{bad}");
        }
        let e = config("--prometheus-run-label env=x").unwrap_err();
        assert_eq!(e.flag, "--prometheus-run-label");
    }
}
