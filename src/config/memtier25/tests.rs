//! memtier 2.5's flags, each checked where it is built.

use super::MEMTIER_LATENCY_WINDOW_SECS;
use crate::cli::Cli;
use crate::config::Config;
use crate::error::UsageError;
use clap::Parser;

fn config(line: &str) -> Result<Config, UsageError> {
    let args = Cli::try_parse_from(std::iter::once("kvbench").chain(line.split_whitespace()))
        .map(|c| c.run);
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
        config("--cluster-mode --read-preference secondary --read-preference-fallback x").is_err()
    );
}

#[test]
fn read_server_sends_reads_to_the_endpoint_unless_the_preference_is_primary() {
    use crate::config::ReadFrom;
    let c = config("--read-server 127.0.0.1:6380").unwrap();
    let read = c.read_server.clone().unwrap();
    assert_eq!((read.host.as_str(), read.port), ("127.0.0.1", 6380));
    // --read-server alone: reads to it, as --read-from replica.
    assert_eq!(read.read_from, ReadFrom::Replica);
    assert_eq!(c.routing().unwrap().read_from, ReadFrom::Replica);
    assert!(c.cluster.is_none());
    for (preference, read_from) in [
        ("secondary", ReadFrom::Replica),
        ("secondaryPreferred", ReadFrom::Replica),
        ("nearest", ReadFrom::Nearest),
    ] {
        let line = format!("--read-server [::1]:6380 --read-preference {preference}");
        let read = config(&line).unwrap().read_server.unwrap();
        assert_eq!((read.host.as_str(), read.read_from), ("::1", read_from));
    }
    let any = config("--read-server 127.0.0.1:6380 --read-from any").unwrap();
    assert_eq!(any.read_server.unwrap().read_from, ReadFrom::Any);
    // Without --read-server nothing is routed.
    assert!(config("").unwrap().routing().is_none());
    // memtier's default preference is primary: under --memtier-compat the
    // endpoint carries nothing unless a preference sends reads to it.
    let compat = config("--read-server 127.0.0.1:6380 --memtier-compat").unwrap();
    assert!(compat.read_server.is_none() && compat.routing().is_none());
    let compat =
        config("--read-server 127.0.0.1:6380 --memtier-compat --read-preference secondary");
    assert_eq!(
        compat.unwrap().read_server.unwrap().read_from,
        ReadFrom::Replica
    );
}

#[test]
fn read_server_refusals_name_the_flag_and_the_fix() {
    for (line, flag, says) in [
        ("--read-server 6380", "--read-server", "is not HOST:PORT"),
        (
            "--read-server host:99999",
            "--read-server",
            "is not HOST:PORT",
        ),
        (
            "--read-server 127.0.0.1:6380 --cluster-mode",
            "--read-server",
            "drop --cluster-mode",
        ),
        (
            "--read-server 127.0.0.1:6380 -P memcache_binary",
            "--read-server",
            "use -P redis",
        ),
        (
            "--read-server 127.0.0.1:6380 -S /tmp/r.sock",
            "--read-server",
            "over TCP",
        ),
        (
            "--read-server 127.0.0.1:6380 --read-preference primary",
            "--read-preference",
            "leaving --read-server unused",
        ),
        (
            "--read-server 127.0.0.1:6380 --read-from primary",
            "--read-from",
            "leaving --read-server unused",
        ),
        (
            "--read-server 127.0.0.1:6380 --read-from x",
            "--read-from",
            "not a choice",
        ),
        // Without an endpoint, a preference other than primary still needs
        // somewhere to read from.
        (
            "--read-preference secondary",
            "--read-preference",
            "--read-server HOST:PORT",
        ),
        (
            "--read-from replica",
            "--read-from",
            "--read-server HOST:PORT",
        ),
    ] {
        let e = config(line).unwrap_err();
        assert_eq!(e.flag, flag, "{line}: {e}");
        assert!(e.to_string().contains(says), "{line}: {e}");
    }
    // A command of two words: Args directly, not the whitespace split.
    let args = Cli::try_parse_from([
        "kvbench",
        "--read-server",
        "127.0.0.1:6380",
        "--command",
        "SCAN 0",
        "--scan-incremental-iteration",
    ])
    .unwrap()
    .run;
    let e = Config::from_args(args).unwrap_err();
    assert_eq!(e.flag, "--read-server", "{e}");
    assert!(
        e.to_string().contains("--scan-incremental-iteration"),
        "{e}"
    );
}

#[test]
fn command_miss_tracking_off_clears_every_command_row() {
    // A command of two words: Args directly, not the whitespace split.
    let args = Cli::try_parse_from([
        "kvbench",
        "--command",
        "GET __key__",
        "--command-miss-tracking",
        "off",
    ])
    .unwrap()
    .run;
    let c = Config::from_args(args).unwrap();
    assert!(c.ops.rows.iter().all(|r| !r.counts_hits));
    let args = Cli::try_parse_from(["kvbench", "--command", "GET __key__"])
        .unwrap()
        .run;
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
fn latency_buckets_are_ascending_seconds_for_the_endpoint() {
    let c = config("--prometheus-port 0 --prometheus-latency-buckets 0.001,0.0025,0.01,1").unwrap();
    assert_eq!(
        c.metrics.latency_buckets_us,
        Some(vec![1_000, 2_500, 10_000, 1_000_000])
    );
    assert_eq!(
        config("--prometheus-port 0")
            .unwrap()
            .metrics
            .latency_buckets_us,
        None
    );
    for bad in [
        "0.01,0.001",
        "0.001,0.001",
        "1,1.0005",
        "0",
        "x",
        "",
        "0.001,+Inf",
        "90000",
    ] {
        let line = format!("--prometheus-port 0 --prometheus-latency-buckets={bad}");
        let args =
            Cli::try_parse_from(["kvbench"].into_iter().chain(line.split(' '))).map(|c| c.run);
        let e = Config::from_args(args.unwrap()).unwrap_err();
        assert_eq!(e.flag, "--prometheus-latency-buckets", "{bad}");
    }
    let many: Vec<String> = (1..=65).map(|i| format!("{}", i as f64 / 100.0)).collect();
    let line = format!(
        "--prometheus-port 0 --prometheus-latency-buckets {}",
        many.join(",")
    );
    assert!(config(&line).is_err());
    let e = config("--prometheus-latency-buckets 0.001").unwrap_err();
    assert_eq!(e.flag, "--prometheus-latency-buckets");
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
        let e = config(&format!("--prometheus-port 0 --prometheus-run-label {bad}")).unwrap_err();
        assert_eq!(e.flag, "--prometheus-run-label", "{bad}");
    }
    let e = config("--prometheus-run-label env=x").unwrap_err();
    assert_eq!(e.flag, "--prometheus-run-label");
}
