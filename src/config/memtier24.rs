//! memtier 2.4's flags that name something kvbench already has:
//! `--read-preference` (onto `--read-from`), `--prometheus-port` and
//! `--prometheus-bind-addr` (onto `--metrics-listen`) and
//! `--connection-stage-timeout` (onto `--connection-timeout`), rewritten
//! onto kvbench's own flags before validation; and `--miss-rate-threshold`,
//! checked here and kept for the warning it raises.
//!
//! Each alias and its kvbench flag together is refused unless they agree:
//! two values for one setting is a typo, not a wish.

use crate::cli::Args;
use crate::config::cluster::ReadFrom;
use crate::config::compat::NO_CONNECT_TIMEOUT;
use crate::error::UsageError;

/// memtier's `--prometheus-bind-addr` default: its exporter serves this
/// machine only unless told otherwise.
pub const DEFAULT_PROMETHEUS_BIND_ADDR: &str = "127.0.0.1";

/// memtier 2.4's read preference, by its names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadPreference {
    /// Every read on the slot's master.
    Primary,
    /// Reads on a replica (memtier: strictly; kvbench: the master of a
    /// shard that has none, as with `secondaryPreferred`).
    Secondary,
    /// Reads on a replica, the master of a shard without one.
    SecondaryPreferred,
    /// Reads on the node of the shard that answered PING fastest at the start.
    Nearest,
}

impl ReadPreference {
    const ALL: [ReadPreference; 4] = [
        ReadPreference::Primary,
        ReadPreference::Secondary,
        ReadPreference::SecondaryPreferred,
        ReadPreference::Nearest,
    ];

    /// memtier's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadPreference::Primary => "primary",
            ReadPreference::Secondary => "secondary",
            ReadPreference::SecondaryPreferred => "secondaryPreferred",
            ReadPreference::Nearest => "nearest",
        }
    }

    /// The `--read-from` it means.
    pub fn read_from(self) -> ReadFrom {
        match self {
            ReadPreference::Primary => ReadFrom::Primary,
            ReadPreference::Secondary | ReadPreference::SecondaryPreferred => ReadFrom::Replica,
            ReadPreference::Nearest => ReadFrom::Nearest,
        }
    }

    /// The value as typed.
    pub fn parse(text: &str) -> Option<ReadPreference> {
        Self::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

/// Rewrites memtier 2.4's aliases onto kvbench's flags.
pub(super) fn translate(mut a: Args) -> Result<Args, UsageError> {
    if let Some(text) = a.read_preference.as_deref() {
        let preference = ReadPreference::parse(text).ok_or_else(|| {
            UsageError::new(
                "--read-preference",
                format!(
                    "'{text}' is not a choice; use primary, secondary, secondaryPreferred or nearest"
                ),
            )
        })?;
        let read_from = preference.read_from();
        let read_server = a.read_server.as_ref().is_some_and(|s| !s.is_empty());
        if !a.cluster_mode && !read_server && preference != ReadPreference::Primary {
            return Err(UsageError::new(
                "--read-preference",
                "routes reads to replicas: add --cluster-mode (a Redis Cluster's replicas) or --read-server HOST:PORT (a standalone read endpoint)",
            ));
        }
        match a.read_from.as_deref().map(ReadFrom::parse) {
            Some(Some(given)) if given == read_from => {}
            Some(_) => {
                return Err(UsageError::new(
                    "--read-preference",
                    format!(
                        "{text} means --read-from {}, but --read-from {} is given too; keep one of them",
                        read_from.as_str(),
                        a.read_from.as_deref().unwrap_or_default()
                    ),
                ));
            }
            // Primary without --cluster-mode is memtier's default: nothing to
            // set (with --read-server it was refused before the rewrite).
            None if a.cluster_mode || read_server => {
                a.read_from = Some(read_from.as_str().to_string());
            }
            None => {}
        }
    }
    translate_prometheus(&mut a)?;
    translate_stage_timeout(&mut a)?;
    if let Some(p) = a.miss_rate_threshold {
        miss_rate_threshold(p)?;
    }
    Ok(a)
}

fn translate_prometheus(a: &mut Args) -> Result<(), UsageError> {
    let Some(port) = a.prometheus_port else {
        if a.prometheus_bind_addr.is_some() {
            return Err(UsageError::new(
                "--prometheus-bind-addr",
                "names where --prometheus-port listens; add --prometheus-port PORT or remove it",
            ));
        }
        return Ok(());
    };
    let addr = a
        .prometheus_bind_addr
        .as_deref()
        .unwrap_or(DEFAULT_PROMETHEUS_BIND_ADDR);
    // memtier takes numeric addresses only; so does this, with IPv6 bracketed.
    let ip: std::net::IpAddr = addr.parse().map_err(|_| {
        UsageError::new(
            "--prometheus-bind-addr",
            format!("`{addr}` is not a numeric IPv4 or IPv6 address; give e.g. 127.0.0.1 or ::1"),
        )
    })?;
    let listen = std::net::SocketAddr::new(ip, port).to_string();
    if let Some(given) = a.metrics_listen.as_deref().filter(|g| **g != listen) {
        return Err(UsageError::new(
            "--prometheus-port",
            format!(
                "means --metrics-listen {listen}, but --metrics-listen {given} is given too; keep one of them"
            ),
        ));
    }
    a.metrics_listen = Some(listen);
    Ok(())
}

fn translate_stage_timeout(a: &mut Args) -> Result<(), UsageError> {
    let Some(secs) = a.connection_stage_timeout else {
        return Ok(());
    };
    if !secs.is_finite() || secs < 0.0 {
        return Err(UsageError::new(
            "--connection-stage-timeout",
            format!(
                "must be 0 (no bound) or a number of seconds (got {})",
                super::bounds::shown(secs)
            ),
        ));
    }
    // 0 is memtier's "no bound": kvbench's longest wait, which it reports as none.
    let secs = if secs == 0.0 {
        NO_CONNECT_TIMEOUT.as_secs_f64()
    } else {
        secs
    };
    if let Some(given) = a.connection_timeout.filter(|g| *g != secs) {
        return Err(UsageError::new(
            "--connection-stage-timeout",
            format!(
                "sets kvbench's one deadline for the whole connection setup, which --connection-timeout {given} sets too; keep one of them"
            ),
        ));
    }
    a.connection_timeout = Some(secs);
    Ok(())
}

/// `--miss-rate-threshold`, a percentage of GETs: 0 to 100.
pub fn miss_rate_threshold(percent: f64) -> Result<f64, UsageError> {
    if percent.is_finite() && (0.0..=100.0).contains(&percent) {
        Ok(percent)
    } else {
        Err(UsageError::new(
            "--miss-rate-threshold",
            format!(
                "must be a percentage from 0 to 100 (got {}), e.g. 1 for 1 % of GETs",
                super::bounds::shown(percent)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::config::Config;
    use clap::Parser;
    use std::time::Duration;

    fn config(line: &str) -> Result<Config, UsageError> {
        let args = Cli::try_parse_from(std::iter::once("kvbench").chain(line.split_whitespace()))
            .map(|c| c.run);
        Config::from_args(args.unwrap())
    }

    #[test]
    fn read_preference_names_read_from_modes() {
        for (name, mode) in [
            ("primary", ReadFrom::Primary),
            ("secondary", ReadFrom::Replica),
            ("secondaryPreferred", ReadFrom::Replica),
            ("nearest", ReadFrom::Nearest),
        ] {
            let c = config(&format!("--cluster-mode --read-preference {name}")).unwrap();
            assert_eq!(c.cluster.unwrap().read_from, mode, "{name}");
        }
        assert!(
            config("--read-preference primary")
                .unwrap()
                .cluster
                .is_none()
        );
    }

    #[test]
    fn read_preference_refuses_what_it_cannot_do() {
        let e = config("--cluster-mode --read-preference farthest").unwrap_err();
        assert_eq!(e.flag, "--read-preference");
        assert!(e.message.contains("secondaryPreferred"), "{e}");
        let e = config("--read-preference secondary").unwrap_err();
        assert!(e.message.contains("--cluster-mode"), "{e}");
        let e = config("--cluster-mode --read-preference nearest --read-from replica").unwrap_err();
        assert!(e.message.contains("--read-from nearest"), "{e}");
        assert!(config("--cluster-mode --read-preference secondary --read-from replica").is_ok());
    }

    #[test]
    fn prometheus_port_binds_loopback_unless_told() {
        let c = config("--prometheus-port 9464").unwrap();
        assert_eq!(c.metrics.listen, Some("127.0.0.1:9464".parse().unwrap()));
        let c = config("--prometheus-port 9464 --prometheus-bind-addr ::1").unwrap();
        assert_eq!(c.metrics.listen, Some("[::1]:9464".parse().unwrap()));
        let e = config("--prometheus-port 1 --prometheus-bind-addr localhost").unwrap_err();
        assert_eq!(e.flag, "--prometheus-bind-addr");
        let e = config("--prometheus-bind-addr 0.0.0.0").unwrap_err();
        assert!(e.message.contains("--prometheus-port"), "{e}");
        let e = config("--prometheus-port 9 --metrics-listen 127.0.0.1:10").unwrap_err();
        assert_eq!(e.flag, "--prometheus-port");
    }

    #[test]
    fn connection_stage_timeout_is_the_connection_deadline() {
        let c = config("--connection-stage-timeout 2.5").unwrap();
        assert_eq!(c.target.connect_timeout, Duration::from_millis(2500));
        let c = config("--connection-stage-timeout 0").unwrap();
        assert_eq!(c.target.connect_timeout, NO_CONNECT_TIMEOUT);
        for bad in ["-1", "NaN", "inf"] {
            let e = config(&format!("--connection-stage-timeout {bad}")).unwrap_err();
            assert_eq!(e.flag, "--connection-stage-timeout", "{bad}");
        }
        let e = config("--connection-stage-timeout 2 --connection-timeout 3").unwrap_err();
        assert!(e.message.contains("--connection-timeout 3"), "{e}");
    }

    #[test]
    fn miss_rate_threshold_is_a_percentage() {
        assert_eq!(
            config("--miss-rate-threshold 0")
                .unwrap()
                .miss_rate_threshold,
            Some(0.0)
        );
        for bad in ["-0.5", "100.5", "NaN"] {
            let e = config(&format!("--miss-rate-threshold {bad}")).unwrap_err();
            assert_eq!(e.flag, "--miss-rate-threshold", "{bad}");
        }
    }
}
