//! `kvbench.config` and `--show-config`: every effective setting, typed,
//! one key per flag, the password redacted.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::tls::TlsVersion;
use crate::config::{Config, Pinning, RangeSharing, Seeding, Stop};
use crate::report::build::config::{object, path, pattern_params};

/// `-n`: a count, `allkeys`, or nothing for a timed run.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum Requests {
    Count(u64),
    #[schemars(extend("const" = ALLKEYS))]
    Word(&'static str),
}

const ALLKEYS: &str = "allkeys";

/// `--cpus`: `off` (`--no-pin`), `auto` (round-robin over the allowed CPUs)
/// or the CPU list of `--cpus`.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
enum PinningSetting<'a> {
    Word(&'static str),
    Cpus(&'a [usize]),
}

/// Every effective setting, typed: the `kvbench.config` object and
/// `--show-config`. The password is never written.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "kvbenchConfig")]
struct KvbenchConfig<'a> {
    /// `host:port`, `[v6]:port` or `unix:PATH`.
    target: String,
    /// `-P`: the wire protocol.
    #[schemars(schema_with = "crate::report::model::schema::protocol")]
    protocol: &'static str,
    /// `null`, `<redacted>` or `USER:<redacted>`.
    authenticate: Option<String>,
    select_db: u32,
    /// Seconds.
    #[schemars(range(min = 0))]
    connection_timeout_s: f64,
    #[schemars(range(min = 1))]
    threads: usize,
    #[schemars(range(min = 1))]
    clients_per_thread: usize,
    /// threads x clients_per_thread.
    #[schemars(range(min = 1))]
    connections: usize,
    #[schemars(range(min = 1))]
    pipeline: usize,
    /// SET:GET.
    #[schemars(regex(pattern = "^[0-9]+:[0-9]+$"))]
    ratio: String,
    /// Per client per run; `null` when the runs are timed.
    requests_per_client: Option<Requests>,
    /// Seconds per run; `null` when the runs are counted in requests.
    #[schemars(range(min = 0))]
    test_time_s: Option<f64>,
    /// `--test-time auto`: each run lasted until every `target_precision`
    /// was met, at most `test_time_s` (absent otherwise).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    test_time_auto: bool,
    /// `--target-precision`: `p99=5%`, `ops=2%` (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    target_precision: Vec<String>,
    #[schemars(range(min = 1))]
    run_count: u32,
    /// Seconds; 0 for none.
    #[schemars(range(min = 0))]
    warmup_time_s: f64,
    /// `--prefill`: the key range was written before the first measured
    /// phase.
    prefill: bool,
    key_prefix: &'a str,
    key_minimum: u64,
    key_maximum: u64,
    #[schemars(regex(pattern = "^[A-Z]:[A-Z]$"))]
    key_pattern: &'a str,
    key_median: f64,
    key_stddev: f64,
    key_zipf_exp: f64,
    /// Value sizes: `32`, `MIN-MAX` or `SIZE:WEIGHT,...`.
    data_size: String,
    #[schemars(range(min = 0))]
    mean_value_bytes: f64,
    random_data: bool,
    #[schemars(length(min = 1))]
    percentiles: &'a [f64],
    #[schemars(range(max = 9007199254740991u64))]
    seed: u64,
    /// `--rate` in total requests per second; `null` in a closed loop.
    rate_ops_per_sec: Option<f64>,
    /// `--arrival`; `null` in a closed loop.
    #[schemars(schema_with = "crate::report::model::schema::arrival_or_null")]
    arrival: Option<&'static str>,
    /// `--hdr-file-prefix`, or `null`.
    hdr_file_prefix: Option<String>,
    /// `--memtier-compat`: memtier's semantics (docs/memtier-compat.md).
    memtier_compat: bool,
    /// `per-connection` (kvbench: every connection and phase its own seed),
    /// `shared` (memtier's default: every connection the same seed in every
    /// run), `per-client` (memtier's `--distinct-client-seed`).
    #[schemars(schema_with = "crate::report::model::schema::seeding")]
    seeding: &'static str,
    /// How S and `-n allkeys` share the key range: `split` (kvbench: each
    /// connection its slice) or `whole` (memtier: each connection the whole
    /// range).
    #[schemars(schema_with = "crate::report::model::schema::range_sharing")]
    range_sharing: &'static str,
    /// Broken connections are reconnected.
    reconnect: bool,
    /// Attempts per outage; 0 = no limit.
    max_reconnect_attempts: u32,
    /// `--max-error-share`, percent: error replies or requests lost above
    /// it make the result not valid.
    max_error_share_percent: f64,
    /// `--tls` (or `rediss://`): what was verified and offered; `null` in
    /// plain text.
    tls: Option<TlsSetting>,
    pinning: PinningSetting<'a>,
    /// `--io-engine`: `epoll` or `uring`.
    io_engine: &'static str,
    /// The `--command` lines with their weight, key pattern letter and report
    /// row (memtier's name); `null` for the SET/GET pair.
    commands: Option<Vec<CommandLine<'a>>>,
    /// `--command-stats-breakdown` (`command` or `line`); `null` for the
    /// SET/GET pair.
    #[schemars(schema_with = "crate::report::model::schema::breakdown_or_null")]
    command_stats_breakdown: Option<&'static str>,
    /// `--scan-incremental-iteration`: the `--command` SCAN follows the
    /// cursor of each reply (rows `Scan 0s` and `Scan <cursor>s`).
    scan_incremental_iteration: bool,
    /// `--scan-incremental-max-iterations`: the most cursor-following SCANs
    /// per cycle, 0 for "until the cursor is 0"; `null` without
    /// `--scan-incremental-iteration`.
    scan_incremental_max_iterations: Option<u32>,
    /// `--cluster-mode`.
    cluster_mode: bool,
    /// `--max-redirects`; `null` without `--cluster-mode`.
    max_redirects: Option<u32>,
    /// `--read-from` (`primary`, `replica`, `any`); `null` without
    /// `--cluster-mode` or `--read-server`.
    #[schemars(schema_with = "crate::report::model::schema::read_from_or_null")]
    read_from: Option<&'static str>,
    /// `--read-server`: the `host:port` reads went to (writes to the
    /// target); `null` without it.
    read_server: Option<String>,
    /// `--start-tolerance`: how late a shard may reach a planned start;
    /// `null` without `--start-at`.
    start_tolerance_s: Option<f64>,
    /// `--run-gap`: seconds between one run's planned end and the next run's
    /// planned start; `null` without `--start-at`.
    run_gap_s: Option<f64>,
    /// `--html-out-file`, or `null`.
    html_out_file: Option<String>,
    /// `--metrics-listen`: the address /metrics was served on, or `null`.
    metrics_listen: Option<String>,
    /// `--metrics-linger`: seconds the endpoint kept serving after the run.
    #[schemars(range(min = 0))]
    metrics_linger_s: f64,
    /// `--statsd-host` and its companions, or `null`.
    statsd: Option<Statsd<'a>>,
}

/// `--tls` as `kvbench.config.tls`: what was verified and offered.
#[derive(Serialize, JsonSchema)]
struct TlsSetting {
    /// The name the certificate is checked against: `--sni`, else the host.
    server_name: String,
    /// `false` with `--tls-skip-verify`.
    verify: bool,
    /// `--cert`/`--key` given (mutual TLS).
    client_certificate: bool,
    /// `TLSv1.2`, `TLSv1.3`.
    #[schemars(schema_with = "crate::report::model::schema::tls_versions")]
    protocols: Vec<&'static str>,
}

/// A `--command` line as given, with what was made of it.
#[derive(Serialize, JsonSchema)]
struct CommandLine<'a> {
    command: &'a str,
    ratio: u32,
    key_pattern: String,
    row: Option<&'a str>,
}

/// `--statsd-host`'s target.
#[derive(Serialize, JsonSchema)]
struct Statsd<'a> {
    host: &'a str,
    port: u16,
    prefix: &'a str,
    run_label: &'a str,
}

/// `config.seeding`'s name of `s`.
pub fn seeding_name(s: Seeding) -> &'static str {
    match s {
        Seeding::PerConnection => "per-connection",
        Seeding::Shared => "shared",
        Seeding::PerClient => "per-client",
    }
}

/// `config.range_sharing`'s name of `r`.
pub fn range_sharing_name(r: RangeSharing) -> &'static str {
    match r {
        RangeSharing::Split => "split",
        RangeSharing::Whole => "whole",
    }
}

/// The schema of `kvbench.config` as kvbench writes it.
pub fn kvbench_config_schema(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<KvbenchConfig<'static>>()
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
            Stop::AllKeys => Some(Requests::Word(ALLKEYS)),
            Stop::Time(_) => None,
        },
        test_time_s: match c.stop {
            Stop::Time(d) => Some(d.as_secs_f64()),
            _ => None,
        },
        test_time_auto: c.precision.auto,
        target_precision: c.precision.targets.iter().map(|t| t.to_string()).collect(),
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
        seeding: seeding_name(c.semantics.seeding),
        range_sharing: range_sharing_name(c.semantics.range_sharing),
        reconnect: c.faults.reconnect,
        max_reconnect_attempts: c.faults.max_reconnect_attempts,
        max_error_share_percent: 100.0 * c.faults.max_error_share,
        tls,
        pinning: match &c.pinning {
            Pinning::Off => PinningSetting::Word("off"),
            Pinning::Auto => PinningSetting::Word("auto"),
            Pinning::Cpus(v) => PinningSetting::Cpus(v),
        },
        io_engine: c.io_engine.name(),
        commands,
        command_stats_breakdown: (!c.ops.default_pair).then(|| c.ops.breakdown.name()),
        scan_incremental_iteration: c.ops.scan.is_some(),
        scan_incremental_max_iterations: c.ops.scan.map(|s| s.max_iterations()),
        cluster_mode: c.cluster.is_some(),
        max_redirects: c.cluster.map(|o| o.max_redirects),
        read_from: c.routing().map(|o| o.read_from.as_str()),
        read_server: c.read_server.as_ref().map(|r| r.address()),
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
