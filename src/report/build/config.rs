//! memtier's `configuration` object as the JSON report shows it: same keys
//! in memtier's order, memtier's spelling of values, the password redacted.
//! kvbench's own typed settings (`kvbench.config`) are in
//! [`crate::report::build::settings`].
//!
//! Both are written from typed structs; the model keeps them as open
//! maps ([`crate::report::model::Report::configuration`],
//! [`crate::report::model::kvbench::Kvbench::config`]) because what it reads
//! back follows other versions: memtier's keys follow memtier's releases, and
//! an older kvbench's `config` lacks the flags added since.

use std::path::PathBuf;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::target::{AddressFamily, Endpoint};
use crate::config::{Config, NO_CONNECT_TIMEOUT, RangeSharing, Stop, Verify};
use crate::workload::keys::memtier::allkeys_requests;
use crate::workload::values::SizeSpec;

/// What memtier writes for a setting kvbench does not have: the builder
/// writes these and the schema holds each to its value.
const NO_URI: &str = "";
const NO_RANGE: &str = "0:0";
const NO_WAIT_TIMEOUT: &str = "0-0";
const RANDOM_SIZES: &str = "R";
const NONE: u64 = 0;

/// memtier's switches, written as the strings `"true"` / `"false"`.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Switch {
    True,
    False,
}

impl From<bool> for Switch {
    fn from(b: bool) -> Self {
        if b { Switch::True } else { Switch::False }
    }
}

/// memtier's `configuration`: every key memtier writes, in its order and
/// with its JSON types (integers as integers, switches as `"true"`/`"false"`,
/// unset paths as `null`). Settings kvbench does not have keep memtier's
/// "off" value; docs/output.md lists each. The password is never written.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "memtierConfiguration")]
struct MemtierConfiguration {
    /// Host name or address; `null` with a UNIX socket.
    server: Option<String>,
    /// TCP port; `null` with a UNIX socket.
    port: Option<u16>,
    /// Always empty; the target is in `kvbench.target`.
    #[schemars(extend("const" = NO_URI))]
    uri: &'static str,
    /// UNIX socket path, or `null` over TCP.
    #[serde(rename = "unix socket")]
    unix_socket: Option<String>,
    /// `-4` (`AF_INET`), `-6` (`AF_INET6`) or neither (`Unspecified`).
    #[serde(rename = "address family")]
    #[schemars(schema_with = "crate::report::model::schema::address_family")]
    address_family: &'static str,
    /// `-P`, as memtier writes it.
    #[schemars(schema_with = "crate::report::model::schema::protocol")]
    protocol: &'static str,
    /// `--out-file`, or `null` when the text report goes to stdout.
    out_file: Option<String>,
    tls: Switch,
    cert: Option<String>,
    key: Option<String>,
    cacert: Option<String>,
    tls_skip_verify: Switch,
    sni: Option<String>,
    /// `--client-stats`: the prefix of the per-client files, or `null`.
    client_stats: Option<String>,
    /// `-x`, measured runs.
    #[schemars(range(min = 1))]
    run_count: u32,
    /// `-D`: how often it was given (0 without).
    debug: u64,
    /// `-n` per client per run; 0 when the runs are timed (`--test-time`);
    /// with `-n allkeys` the requests of the busiest connection (memtier's
    /// count under `--memtier-compat`: `max - min`, or its share for `P:P`).
    requests: u64,
    /// Per-connection rate (memtier's meaning), rounded to an integer:
    /// `--rate-limiting`, or `--rate` / connections; 0 in a closed loop. The
    /// exact rate is `kvbench.config.rate_ops_per_sec`.
    rate_limit: u64,
    /// Connections per thread (`-c`).
    #[schemars(range(min = 1))]
    clients: usize,
    /// Worker threads (`-t`).
    #[schemars(range(min = 1))]
    threads: usize,
    /// Seconds per run, rounded to an integer as memtier writes it (exact in
    /// `kvbench.config.test_time_s`); 0 when the runs are counted in
    /// requests.
    test_time: u64,
    /// SET:GET ratio.
    #[schemars(regex(pattern = "^[0-9]+:[0-9]+$"))]
    ratio: String,
    /// Requests in flight per connection.
    #[schemars(range(min = 1))]
    pipeline: usize,
    /// Fixed value size in bytes; 0 with `--data-size-range` or
    /// `--data-size-list`.
    data_size: usize,
    /// `--data-offset`: SETRANGE / GETRANGE at this byte; 0 when unused.
    data_offset: u64,
    random_data: Switch,
    /// `MIN:MAX` bytes, or `0:0` when unused.
    #[schemars(regex(pattern = "^[0-9]+:[0-9]+$"))]
    data_size_range: String,
    /// `SIZE:WEIGHT,...`, or empty when unused.
    data_size_list: String,
    /// `R` (random sizes, memtier's default) or `S` (spread over the key range).
    #[schemars(regex(pattern = "^[RS]$"))]
    data_size_pattern: &'static str,
    /// `--expiry-range` seconds as `MIN:MAX`, or `0:0` when unused.
    #[schemars(regex(pattern = "^[0-9]+:[0-9]+$"))]
    expiry_range: String,
    /// `--data-import`'s file as given; null without one.
    data_import: Option<String>,
    /// `--data-verify` (also true with `--verify-only`, as memtier).
    data_verify: Switch,
    /// `--verify-only`.
    verify_only: Switch,
    /// `--generate-keys`.
    generate_keys: Switch,
    key_prefix: String,
    key_minimum: u64,
    key_maximum: u64,
    /// SET:GET key patterns (`S`, `R`, `G`, `P`, `Z`).
    #[schemars(regex(pattern = "^[A-Z]:[A-Z]$"))]
    key_pattern: String,
    /// Standard deviation of the G pattern; 0 when unused.
    key_stddev: f64,
    /// Centre of the G pattern; 0 when unused.
    key_median: f64,
    /// Exponent of the Z pattern; 0 when unused.
    key_zipf_exp: f64,
    /// `--reconnect-interval`: requests per connection before a planned
    /// reconnect; 0 = never.
    reconnect_interval: u64,
    /// Seconds, an integer as in memtier; 0 means none (`--memtier-compat`'s
    /// default).
    connection_timeout: u64,
    /// `--thread-conn-start-min-jitter-micros`; 0 when unused.
    thread_conn_start_min_jitter_micros: u64,
    /// `--thread-conn-start-max-jitter-micros`; 0 when unused.
    thread_conn_start_max_jitter_micros: u64,
    /// `--multi-key-get`: keys per MGET; 0 when unused.
    multi_key_get: u64,
    /// Empty, `<redacted>` or `USER:<redacted>`; the password is never
    /// written.
    authenticate: String,
    #[serde(rename = "select-db")]
    select_db: u32,
    /// `--no-expiry`.
    #[serde(rename = "no-expiry")]
    no_expiry: Switch,
    /// `--wait-ratio` as `SET:WAIT`, or `0:0` when unused.
    #[serde(rename = "wait-ratio")]
    #[schemars(regex(pattern = "^[0-9]+:[0-9]+$"))]
    wait_ratio: String,
    /// `--num-slaves` as `MIN:MAX`.
    #[serde(rename = "num-slaves")]
    #[schemars(regex(pattern = "^[0-9]+:[0-9]+$"))]
    num_slaves: String,
    /// `--wait-timeout` milliseconds as `MIN-MAX` (memtier's dash).
    #[serde(rename = "wait-timeout")]
    #[schemars(regex(pattern = "^[0-9]+-[0-9]+$"))]
    wait_timeout: String,
    #[serde(rename = "print-all-runs")]
    print_all_runs: Switch,
    /// `--clients-start`; only with the staircase ramp-up, as memtier.
    #[serde(skip_serializing_if = "Option::is_none")]
    clients_start: Option<u64>,
    /// `--clients-step`; only with the staircase ramp-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    clients_step: Option<u64>,
    /// `--step-duration` in seconds; only with the staircase ramp-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    step_duration: Option<u64>,
}

/// memtier's name of `family`.
pub fn address_family_name(family: AddressFamily) -> &'static str {
    match family {
        AddressFamily::Any => "Unspecified",
        AddressFamily::V4 => "AF_INET",
        AddressFamily::V6 => "AF_INET6",
    }
}

/// The schema of memtier's `configuration` as kvbench writes it.
pub fn memtier_configuration_schema(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<MemtierConfiguration>()
}

/// A struct of these settings as the model's open map.
pub(super) fn object(settings: impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(settings) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A whole number of seconds or requests as memtier writes it (an integer); the
/// exact value is in `kvbench.config`.
fn whole(v: f64) -> u64 {
    v.round().max(0.0) as u64
}

pub(super) fn path(p: Option<&PathBuf>) -> Option<String> {
    p.map(|p| p.display().to_string())
}

/// memtier's `configuration` object of `c`.
pub fn memtier_configuration(c: &Config) -> Map<String, Value> {
    let (server, port, unix_socket) = match &c.target.endpoint {
        Endpoint::Tcp { host, port, .. } => (Some(host.clone()), Some(*port), None),
        Endpoint::Unix(p) => (None, None, Some(p.display().to_string())),
    };
    let address_family = match &c.target.endpoint {
        Endpoint::Tcp { family, .. } => address_family_name(*family),
        Endpoint::Unix(_) => address_family_name(AddressFamily::Any),
    };
    let (requests, test_time) = match c.stop {
        Stop::Requests(n) => (n, 0),
        Stop::AllKeys => (allkeys_per_connection(c), 0),
        Stop::Time(d) => (0, whole(d.as_secs_f64())),
    };
    let pair = &c.ops.pair;
    let (data_size_range, data_size_list) = match &c.values {
        SizeSpec::Range { min, max } | SizeSpec::Spread { min, max, .. } => {
            (format!("{min}:{max}"), String::new())
        }
        SizeSpec::List(_) => ("0:0".to_string(), c.values.to_string()),
        SizeSpec::Fixed(_) => ("0:0".to_string(), String::new()),
    };
    let (key_median, key_stddev, key_zipf_exp) = pattern_params(c);
    // memtier's connection_timeout 0 means none, which is what kvbench's
    // "no timeout" stands for.
    let connection_timeout = if c.target.connect_timeout >= NO_CONNECT_TIMEOUT {
        0
    } else {
        whole(c.target.connect_timeout.as_secs_f64())
    };
    let tls = c.target.tls.as_ref().map(|t| &t.settings);
    let stair = c.ramp.staircase;
    let import = c.import.as_ref();
    object(MemtierConfiguration {
        server,
        port,
        uri: NO_URI,
        unix_socket,
        address_family,
        protocol: c.target.protocol.name(),
        out_file: path(c.output.out_file.as_ref()),
        tls: tls.is_some().into(),
        cert: path(tls.and_then(|t| t.cert.as_ref())),
        key: path(tls.and_then(|t| t.key.as_ref())),
        cacert: path(tls.and_then(|t| t.cacert.as_ref())),
        tls_skip_verify: tls.is_some_and(|t| t.skip_verify).into(),
        sni: tls.and_then(|t| t.sni.clone()),
        client_stats: path(c.ramp.client_stats.as_ref()),
        run_count: c.run_count,
        debug: u64::from(c.ramp.debug),
        requests,
        rate_limit: c
            .rate
            .map_or(0, |r| whole(r.total_per_sec / c.connections() as f64)),
        clients: c.clients,
        threads: c.threads,
        test_time,
        ratio: c.ratio.to_string(),
        pipeline: c.pipeline,
        data_size: match c.values {
            SizeSpec::Fixed(n) => n,
            _ => 0,
        },
        data_offset: u64::from(pair.data_offset),
        random_data: c.random_data.into(),
        data_size_range,
        data_size_list,
        data_size_pattern: match c.values {
            SizeSpec::Spread { .. } => "S",
            _ => RANDOM_SIZES,
        },
        expiry_range: pair.expiry.map_or(NO_RANGE.to_string(), |(s, _)| {
            format!("{}:{}", s.min, s.max)
        }),
        data_import: import.map(|i| i.path.display().to_string()),
        data_verify: import.is_some_and(|i| i.verify != Verify::Off).into(),
        verify_only: import.is_some_and(|i| i.verify == Verify::Only).into(),
        generate_keys: import.is_some_and(|i| i.generate_keys).into(),
        key_prefix: c.keys.prefix.clone(),
        key_minimum: c.keys.range.min,
        key_maximum: c.keys.range.max,
        key_pattern: c.keys.pattern_letters.clone(),
        key_stddev,
        key_median,
        key_zipf_exp,
        reconnect_interval: c.faults.reconnect_interval,
        connection_timeout,
        thread_conn_start_min_jitter_micros: u64::from(c.ramp.jitter.min_us),
        thread_conn_start_max_jitter_micros: u64::from(c.ramp.jitter.max_us),
        multi_key_get: pair.multi_get.map_or(NONE, u64::from),
        authenticate: c
            .target
            .auth
            .as_ref()
            .map_or(String::new(), |a| a.redacted()),
        select_db: c.target.db,
        no_expiry: import.is_some_and(|i| i.no_expiry).into(),
        wait_ratio: pair
            .wait
            .map_or(NO_RANGE.to_string(), |w| format!("{}:{}", w.sets, w.waits)),
        num_slaves: pair.wait.map_or(NO_RANGE.to_string(), |w| {
            format!("{}:{}", w.replicas.min, w.replicas.max)
        }),
        wait_timeout: pair
            .wait
            .map_or(NO_WAIT_TIMEOUT.to_string(), |w| w.timeout_ms.to_string()),
        print_all_runs: c.output.print_all_runs.into(),
        clients_start: stair.map(|s| s.start as u64),
        clients_step: stair.map(|s| s.step as u64),
        step_duration: stair.map(|s| s.step_duration.as_secs()),
    })
}

/// Requests each connection sends with `-n allkeys`: memtier's count under
/// memtier's semantics (one short of the range, or its share for `P:P`),
/// else the largest slice (the first `len % n` slices hold one key more than
/// the rest).
pub fn allkeys_per_connection(c: &Config) -> u64 {
    let len = c.keys.range.len();
    match c.semantics.range_sharing {
        RangeSharing::Whole => {
            allkeys_requests(c.keys.range, c.keys.both_parallel(), c.total_slots())
        }
        // Split across the connections of every shard.
        RangeSharing::Split => len.div_ceil(c.total_slots().max(1)),
    }
}

pub(super) fn pattern_params(c: &Config) -> (f64, f64, f64) {
    use crate::workload::keys::KeyPattern;
    let mut out = (0.0, 0.0, 0.0);
    for p in [c.keys.set_pattern, c.keys.get_pattern] {
        match p {
            KeyPattern::Gaussian { median, stddev } => {
                out.0 = median;
                out.1 = stddev;
            }
            KeyPattern::Zipfian { exponent } => out.2 = exponent,
            _ => {}
        }
    }
    out
}
