//! The live metrics options, validated: `--metrics-listen` and
//! `--metrics-linger` (the Prometheus / OpenMetrics endpoint) and memtier's
//! `--statsd-*` flags. What they feed is in [`crate::report::metrics`].

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use crate::cli::Args;
use crate::config::seconds;
use crate::error::UsageError;

/// memtier's `--statsd-port` default.
pub const DEFAULT_STATSD_PORT: u16 = 8125;
/// memtier's `--statsd-prefix` default.
pub const DEFAULT_STATSD_PREFIX: &str = "memtier";
/// memtier's `--statsd-run-label` default.
pub const DEFAULT_STATSD_RUN_LABEL: &str = "default";

/// The `/metrics` endpoint's most connections at once: the open-file check
/// before the run reserves them beside the load's, so that idle scrapers
/// can never take the descriptors a reconnect needs.
pub const MAX_METRICS_CONNECTIONS: usize = 64;

/// Where the live metrics go; everything off by default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LiveMetrics {
    /// `--metrics-listen`: the address the `/metrics` endpoint binds.
    pub listen: Option<SocketAddr>,
    /// `--metrics-linger`: how long the final values stay served after the
    /// run (zero: the endpoint closes with the process).
    pub linger: Duration,
    /// `--statsd-host` and its companions.
    pub statsd: Option<StatsdTarget>,
    /// memtier 2.5's `--prometheus-run-label KEY=VALUE`: labels on every
    /// series the endpoint serves, in the order given.
    pub run_labels: Vec<(String, String)>,
    /// memtier 2.5's `--prometheus-latency-buckets`: the histogram's upper
    /// bounds, µs, ascending; `None` keeps kvbench's.
    pub latency_buckets_us: Option<Vec<u64>>,
}

/// A StatsD receiver and the names sent to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatsdTarget {
    /// `--statsd-host`, resolved when the run starts.
    pub host: String,
    /// `--statsd-port`.
    pub port: u16,
    /// `--statsd-prefix`, as typed (it may contain dots: `team1.memtier`).
    pub prefix: String,
    /// `--statsd-run-label`, with every character other than letters,
    /// digits, `_` and `-` replaced by `_`, as memtier does.
    pub run_label: String,
    /// `--graphite-port`: where the run's event annotations go, on `host`
    /// (`None`: none are sent).
    pub graphite_port: Option<u16>,
}

impl StatsdTarget {
    /// What every metric name starts with: `prefix.label.`, or `label.` for an
    /// empty prefix (memtier's rule).
    pub fn name_prefix(&self) -> String {
        if self.prefix.is_empty() {
            format!("{}.", self.run_label)
        } else {
            format!("{}.{}.", self.prefix, self.run_label)
        }
    }
}

/// Builds the live metrics options from the command line.
pub fn build_metrics(a: &Args) -> Result<LiveMetrics, UsageError> {
    let listen = a.metrics_listen.as_deref().map(parse_listen).transpose()?;
    let linger = match a.metrics_linger {
        Some(_) if listen.is_none() => {
            return Err(UsageError::new(
                "--metrics-linger",
                "only keeps the --metrics-listen endpoint open; add --metrics-listen ADDR:PORT or remove it",
            ));
        }
        Some(secs) => seconds("--metrics-linger", secs, true)?,
        None => Duration::ZERO,
    };
    Ok(LiveMetrics {
        listen,
        linger,
        statsd: build_statsd(a)?,
        run_labels: super::memtier25::build_run_labels(a, listen.is_some())?,
        latency_buckets_us: super::memtier25::build_latency_buckets(a, listen.is_some())?,
    })
}

/// `ADDR:PORT` (`[::1]:9464` for IPv6) or `NAME:PORT`, resolved here: a
/// name that does not resolve is a usage error before anything starts.
fn parse_listen(text: &str) -> Result<SocketAddr, UsageError> {
    let fail = |why: &str| {
        UsageError::new(
            "--metrics-listen",
            format!("{why}; give ADDR:PORT, e.g. 127.0.0.1:9464 (or [::1]:9464, 0.0.0.0:9464)"),
        )
    };
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(fail(&format!("`{text}` has no :PORT")));
    };
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(fail(&format!("`{text}` is not ADDR:PORT")));
    }
    match text.to_socket_addrs().map(|mut all| all.next()) {
        Ok(Some(addr)) => Ok(addr),
        Ok(None) | Err(_) => Err(fail(&format!("`{host}` does not resolve"))),
    }
}

fn build_statsd(a: &Args) -> Result<Option<StatsdTarget>, UsageError> {
    let Some(host) = a.statsd_host.clone() else {
        // The companions alone would send nothing, which is surely not meant.
        for (flag, given) in [
            ("--graphite-port", a.graphite_port.is_some()),
            ("--statsd-port", a.statsd_port.is_some()),
            ("--statsd-prefix", a.statsd_prefix.is_some()),
            ("--statsd-run-label", a.statsd_run_label.is_some()),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "names where StatsD metrics go, but none are sent without --statsd-host; add --statsd-host HOST or remove it",
                ));
            }
        }
        return Ok(None);
    };
    if host.is_empty() {
        return Err(UsageError::new(
            "--statsd-host",
            "is empty; give the StatsD server's name or address",
        ));
    }
    let port = a.statsd_port.unwrap_or(DEFAULT_STATSD_PORT);
    if port == 0 {
        return Err(UsageError::new(
            "--statsd-port",
            format!("must be 1-65535 (got 0); StatsD listens on {DEFAULT_STATSD_PORT}"),
        ));
    }
    let prefix = a
        .statsd_prefix
        .clone()
        .unwrap_or_else(|| DEFAULT_STATSD_PREFIX.to_string());
    // A `:`, `|` or line break would end the name early and corrupt the line.
    if let Some(bad) = prefix
        .chars()
        .find(|c| matches!(c, ':' | '|' | '@' | '#') || c.is_whitespace() || c.is_control())
    {
        return Err(UsageError::new(
            "--statsd-prefix",
            format!(
                "may not contain {bad:?}, which StatsD reads as part of the line format; use letters, digits, '.', '_' and '-'"
            ),
        ));
    }
    let run_label = match a.statsd_run_label.as_deref() {
        Some(label) if !label.is_empty() => sanitize_label(label),
        _ => DEFAULT_STATSD_RUN_LABEL.to_string(),
    };
    if a.graphite_port == Some(0) {
        return Err(UsageError::new(
            "--graphite-port",
            "must be 1-65535 (got 0); memtier's Graphite listens on 8080",
        ));
    }
    Ok(Some(StatsdTarget {
        host,
        port,
        prefix,
        run_label,
        graphite_port: a.graphite_port,
    }))
}

/// memtier's sanitizing of the run label: anything but an ASCII letter,
/// digit, `_` or `-` becomes `_`.
fn sanitize_label(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::Parser;

    fn build(line: &str) -> Result<LiveMetrics, UsageError> {
        let args = Cli::try_parse_from(std::iter::once("kvbench").chain(line.split_whitespace()))
            .map(|c| c.run);
        build_metrics(&args.unwrap())
    }

    #[test]
    fn everything_is_off_by_default() {
        assert_eq!(build("").unwrap(), LiveMetrics::default());
    }

    #[test]
    fn listen_takes_an_address_with_a_port() {
        let m = build("--metrics-listen 127.0.0.1:9464 --metrics-linger 2.5").unwrap();
        assert_eq!(m.listen, Some("127.0.0.1:9464".parse().unwrap()));
        assert_eq!(m.linger, Duration::from_millis(2500));
        let m = build("--metrics-listen [::1]:9464").unwrap();
        assert_eq!(m.listen, Some("[::1]:9464".parse().unwrap()));
        assert!(
            build("--metrics-listen localhost:9464")
                .unwrap()
                .listen
                .is_some()
        );
    }

    #[test]
    fn a_bad_listen_address_names_the_flag() {
        for bad in [
            "nonsense",
            "127.0.0.1",
            "127.0.0.1:99999",
            ":9464",
            "1.2.3.4:x",
        ] {
            let e = build(&format!("--metrics-listen {bad}")).unwrap_err();
            assert_eq!(e.flag, "--metrics-listen", "{bad}: {e}");
            assert!(e.message.contains("ADDR:PORT"), "{bad}: {e}");
        }
    }

    #[test]
    fn linger_needs_the_endpoint_and_a_sane_number() {
        let e = build("--metrics-linger 3").unwrap_err();
        assert_eq!(e.flag, "--metrics-linger");
        assert!(e.message.contains("--metrics-listen"), "{e}");
        let e = build("--metrics-listen 127.0.0.1:1 --metrics-linger -1").unwrap_err();
        assert_eq!(e.flag, "--metrics-linger");
    }

    #[test]
    fn statsd_takes_memtiers_defaults() {
        let s = build("--statsd-host localhost").unwrap().statsd.unwrap();
        assert_eq!((s.port, s.prefix.as_str()), (8125, "memtier"));
        assert_eq!(s.run_label, "default");
        assert_eq!(s.name_prefix(), "memtier.default.");
    }

    #[test]
    fn statsd_run_label_is_sanitized_as_memtier_does() {
        let line = "--statsd-host h --statsd-prefix team1.kv --statsd-run-label after.up/grade-2";
        let s = build(line).unwrap().statsd.unwrap();
        assert_eq!(s.run_label, "after_up_grade-2");
        assert_eq!(s.name_prefix(), "team1.kv.after_up_grade-2.");
    }

    #[test]
    fn statsd_companions_without_a_host_are_refused() {
        for line in [
            "--statsd-port 9000",
            "--statsd-prefix x",
            "--statsd-run-label y",
            "--graphite-port 8080",
        ] {
            let e = build(line).unwrap_err();
            assert!(line.starts_with(&e.flag), "{line}: {e}");
            assert!(e.message.contains("--statsd-host"), "{e}");
        }
        let e = build("--statsd-host h --statsd-port 0").unwrap_err();
        assert_eq!(e.flag, "--statsd-port");
        let e = build("--statsd-host h --graphite-port 0").unwrap_err();
        assert_eq!(e.flag, "--graphite-port");
        let s = build("--statsd-host h --graphite-port 81").unwrap().statsd;
        assert_eq!(s.unwrap().graphite_port, Some(81));
        let e = build("--statsd-host h --statsd-prefix a:b").unwrap_err();
        assert_eq!(e.flag, "--statsd-prefix");
    }
}
