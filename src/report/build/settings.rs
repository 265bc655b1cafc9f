//! `kvbench.config` and `--show-config`: every effective setting, typed,
//! one key per flag, the password redacted.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::tls::TlsVersion;
use crate::config::{Config, Pinning, RangeSharing, Seeding, Stop};
use crate::report::build::config::{object, path, pattern_params};

/// `-n`: a count, `allkeys`, or nothing for a timed run.
#[derive(Serialize)]
#[serde(untagged)]
enum Requests {
    Count(u64),
    Word(&'static str),
}

/// `--cpus`: `off`, `auto` or the CPUs.
#[derive(Serialize)]
#[serde(untagged)]
enum PinningSetting<'a> {
    Word(&'static str),
    Cpus(&'a [usize]),
}

/// Every effective setting, typed: the `kvbench.config` object and
/// `--show-config`.
#[derive(Serialize)]
struct KvbenchConfig<'a> {
    target: String,
    protocol: &'static str,
    authenticate: Option<String>,
    select_db: u32,
    connection_timeout_s: f64,
    threads: usize,
    clients_per_thread: usize,
    connections: usize,
    pipeline: usize,
    ratio: String,
    requests_per_client: Option<Requests>,
    test_time_s: Option<f64>,
    run_count: u32,
    warmup_time_s: f64,
    prefill: bool,
    key_prefix: &'a str,
    key_minimum: u64,
    key_maximum: u64,
    key_pattern: &'a str,
    key_median: f64,
    key_stddev: f64,
    key_zipf_exp: f64,
    data_size: String,
    mean_value_bytes: f64,
    random_data: bool,
    percentiles: &'a [f64],
    seed: u64,
    rate_ops_per_sec: Option<f64>,
    arrival: Option<&'static str>,
    hdr_file_prefix: Option<String>,
    memtier_compat: bool,
    seeding: &'static str,
    range_sharing: &'static str,
    reconnect: bool,
    max_reconnect_attempts: u32,
    tls: Option<TlsSetting>,
    pinning: PinningSetting<'a>,
    commands: Option<Vec<CommandLine<'a>>>,
    command_stats_breakdown: Option<&'static str>,
    cluster_mode: bool,
    max_redirects: Option<u32>,
    read_from: Option<&'static str>,
    start_tolerance_s: Option<f64>,
    run_gap_s: Option<f64>,
    html_out_file: Option<String>,
    metrics_listen: Option<String>,
    metrics_linger_s: f64,
    statsd: Option<Statsd<'a>>,
}

/// `--tls` as `kvbench.config.tls`: what was verified and offered.
#[derive(Serialize)]
struct TlsSetting {
    server_name: String,
    verify: bool,
    client_certificate: bool,
    protocols: Vec<&'static str>,
}

/// A `--command` line as given, with what was made of it.
#[derive(Serialize)]
struct CommandLine<'a> {
    command: &'a str,
    ratio: u32,
    key_pattern: String,
    row: Option<&'a str>,
}

/// `--statsd-host`'s target.
#[derive(Serialize)]
struct Statsd<'a> {
    host: &'a str,
    port: u16,
    prefix: &'a str,
    run_label: &'a str,
}

/// Every effective setting of `c`, for the `kvbench.config` object.
pub fn kvbench_config(c: &Config) -> Map<String, Value> {
    object(kvbench_settings(c))
}

/// The effective configuration for `--show-config`, password redacted.
pub fn show_config(c: &Config) -> String {
    serde_json::to_string_pretty(&kvbench_settings(c)).unwrap_or_default()
}

fn kvbench_settings(c: &Config) -> KvbenchConfig<'_> {
    let (key_median, key_stddev, key_zipf_exp) = pattern_params(c);
    let tls = c.target.tls.as_ref().map(|tls| TlsSetting {
        server_name: tls.server_name(),
        verify: !tls.settings.skip_verify,
        client_certificate: tls.settings.cert.is_some(),
        protocols: match tls.settings.protocols.as_slice() {
            [] => vec![TlsVersion::Tls12.name(), TlsVersion::Tls13.name()],
            given => given.iter().map(|v| v.name()).collect(),
        },
    });
    let commands = (!c.ops.default_pair).then(|| {
        let lines = c.ops.ops.iter().map(|op| CommandLine {
            command: &op.spec.text,
            ratio: op.weight,
            key_pattern: op.pattern.kind().letter().to_string(),
            row: c
                .ops
                .rows
                .get(usize::from(op.row))
                .map(|r| r.json_key.as_str()),
        });
        lines.collect()
    });
    KvbenchConfig {
        target: c.target.endpoint.to_string(),
        protocol: c.target.protocol.name(),
        authenticate: c.target.auth.as_ref().map(|a| a.redacted()),
        select_db: c.target.db,
        connection_timeout_s: c.target.connect_timeout.as_secs_f64(),
        threads: c.threads,
        clients_per_thread: c.clients,
        connections: c.connections(),
        pipeline: c.pipeline,
        ratio: c.ratio.to_string(),
        requests_per_client: match c.stop {
            Stop::Requests(n) => Some(Requests::Count(n)),
            Stop::AllKeys => Some(Requests::Word("allkeys")),
            Stop::Time(_) => None,
        },
        test_time_s: match c.stop {
            Stop::Time(d) => Some(d.as_secs_f64()),
            _ => None,
        },
        run_count: c.run_count,
        warmup_time_s: c.warmup.as_secs_f64(),
        prefill: c.prefill,
        key_prefix: &c.keys.prefix,
        key_minimum: c.keys.range.min,
        key_maximum: c.keys.range.max,
        key_pattern: &c.keys.pattern_letters,
        key_median,
        key_stddev,
        key_zipf_exp,
        data_size: c.values.to_string(),
        mean_value_bytes: c.values.mean_size(),
        random_data: c.random_data,
        percentiles: &c.output.percentiles,
        seed: c.seed,
        rate_ops_per_sec: c.rate.map(|r| r.total_per_sec),
        arrival: c.rate.map(|r| r.arrival.name()),
        hdr_file_prefix: path(c.output.hdr_file_prefix.as_ref()),
        memtier_compat: c.semantics.memtier_compat,
        seeding: match c.semantics.seeding {
            Seeding::PerConnection => "per-connection",
            Seeding::Shared => "shared",
            Seeding::PerClient => "per-client",
        },
        range_sharing: match c.semantics.range_sharing {
            RangeSharing::Split => "split",
            RangeSharing::Whole => "whole",
        },
        reconnect: c.faults.reconnect,
        max_reconnect_attempts: c.faults.max_reconnect_attempts,
        tls,
        pinning: match &c.pinning {
            Pinning::Off => PinningSetting::Word("off"),
            Pinning::Auto => PinningSetting::Word("auto"),
            Pinning::Cpus(v) => PinningSetting::Cpus(v),
        },
        commands,
        command_stats_breakdown: (!c.ops.default_pair).then(|| c.ops.breakdown.name()),
        cluster_mode: c.cluster.is_some(),
        max_redirects: c.cluster.map(|o| o.max_redirects),
        read_from: c.cluster.map(|o| o.read_from.as_str()),
        start_tolerance_s: c.start_at.as_ref().map(|s| s.tolerance.as_secs_f64()),
        run_gap_s: c.start_at.as_ref().map(|s| s.run_gap.as_secs_f64()),
        html_out_file: path(c.output.html_out_file.as_ref()),
        metrics_listen: c.metrics.listen.map(|a| a.to_string()),
        metrics_linger_s: c.metrics.linger.as_secs_f64(),
        statsd: c.metrics.statsd.as_ref().map(|t| Statsd {
            host: &t.host,
            port: t.port,
            prefix: &t.prefix,
            run_label: &t.run_label,
        }),
    }
}
