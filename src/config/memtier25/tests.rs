//! memtier 2.5's flags, each checked where it is built.

use super::MEMTIER_LATENCY_WINDOW_SECS;
use crate::cli::Args;
use crate::config::Config;
use crate::error::UsageError;
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
        config("--cluster-mode --read-preference secondary --read-preference-fallback x").is_err()
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
        let args = Args::try_parse_from(["kvbench"].into_iter().chain(line.split(' ')));
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
