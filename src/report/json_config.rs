//! The configuration as the JSON report shows it: memtier's `configuration`
//! object (same keys, memtier's spelling of values) and kvbench's own, complete
//! and typed. The password is always redacted.

use serde_json::{Map, Value, json};

use crate::config::target::{AddressFamily, Endpoint};
use crate::config::tls::TlsVersion;
use crate::config::{Config, NO_CONNECT_TIMEOUT, Pinning, RangeSharing, Seeding, Stop};
use crate::workload::values::SizeSpec;

fn host_port(c: &Config) -> (Value, Value, Value) {
    match &c.target.endpoint {
        Endpoint::Tcp { host, port, .. } => (json!(host), json!(port), Value::Null),
        Endpoint::Unix(path) => (Value::Null, Value::Null, json!(path.display().to_string())),
    }
}

fn bool_text(b: bool) -> &'static str {
    if b { "true" } else { "false" }
}

/// A whole number of seconds or requests as memtier writes it (an integer); the
/// exact value is in `kvbench.config`.
fn whole(v: f64) -> u64 {
    v.round().max(0.0) as u64
}

/// memtier's `configuration` object: every key memtier writes, in its order and
/// with its JSON types (integers as integers, switches as `"true"`/`"false"`,
/// unset paths as `null`). Settings kvbench does not have keep memtier's
/// "off" value; docs/output.md lists each.
pub fn memtier_configuration(c: &Config) -> Value {
    let (server, port, unix) = host_port(c);
    let family = match &c.target.endpoint {
        Endpoint::Tcp { family, .. } => match family {
            AddressFamily::Any => "Unspecified",
            AddressFamily::V4 => "AF_INET",
            AddressFamily::V6 => "AF_INET6",
        },
        Endpoint::Unix(_) => "Unspecified",
    };
    let (requests, test_time) = match c.stop {
        Stop::Requests(n) => (n, 0),
        Stop::AllKeys => (allkeys_per_connection(c), 0),
        Stop::Time(d) => (0, whole(d.as_secs_f64())),
    };
    let (range, list) = match &c.values {
        SizeSpec::Range { min, max } => (format!("{min}:{max}"), String::new()),
        SizeSpec::List(_) => ("0:0".to_string(), c.values.to_string()),
        SizeSpec::Fixed(_) => ("0:0".to_string(), String::new()),
    };
    let (median, stddev, zipf) = pattern_params(c);
    // memtier's connection_timeout 0 means none, which is what kvbench's
    // "no timeout" stands for.
    let connection_timeout = if c.target.connect_timeout >= NO_CONNECT_TIMEOUT {
        0
    } else {
        whole(c.target.connect_timeout.as_secs_f64())
    };
    let mut m = Map::new();
    let mut put = |key: &str, value: Value| {
        m.insert(key.to_string(), value);
    };
    put("server", server);
    put("port", port);
    put("uri", json!(""));
    put("unix socket", unix);
    put("address family", json!(family));
    put("protocol", json!(c.target.protocol.name()));
    put(
        "out_file",
        json!(c.output.out_file.as_ref().map(|p| p.display().to_string())),
    );
    // memtier writes its switches as the strings "true" / "false".
    let tls = c.target.tls.as_ref().map(|t| &t.settings);
    let path = |p: Option<&std::path::PathBuf>| json!(p.map(|p| p.display().to_string()));
    put("tls", json!(tls.is_some().to_string()));
    put("cert", path(tls.and_then(|t| t.cert.as_ref())));
    put("key", path(tls.and_then(|t| t.key.as_ref())));
    put("cacert", path(tls.and_then(|t| t.cacert.as_ref())));
    put(
        "tls_skip_verify",
        json!(tls.is_some_and(|t| t.skip_verify).to_string()),
    );
    put("sni", json!(tls.and_then(|t| t.sni.clone())));
    put("client_stats", Value::Null);
    put("run_count", json!(c.run_count));
    put("debug", json!(0));
    put("requests", json!(requests));
    // memtier's rate_limit is per connection.
    put(
        "rate_limit",
        json!(
            c.rate
                .map_or(0, |r| whole(r.total_per_sec / c.connections() as f64))
        ),
    );
    put("clients", json!(c.clients));
    put("threads", json!(c.threads));
    put("test_time", json!(test_time));
    put("ratio", json!(c.ratio.to_string()));
    put("pipeline", json!(c.pipeline));
    put(
        "data_size",
        json!(match c.values {
            SizeSpec::Fixed(n) => n,
            _ => 0,
        }),
    );
    put("data_offset", json!(0));
    put("random_data", json!(bool_text(c.random_data)));
    put("data_size_range", json!(range));
    put("data_size_list", json!(list));
    put("data_size_pattern", json!("R"));
    put("expiry_range", json!("0:0"));
    put("data_import", Value::Null);
    for key in ["data_verify", "verify_only", "generate_keys"] {
        put(key, json!("false"));
    }
    put("key_prefix", json!(c.keys.prefix));
    put("key_minimum", json!(c.keys.range.min));
    put("key_maximum", json!(c.keys.range.max));
    put("key_pattern", json!(c.keys.pattern_letters));
    put("key_stddev", json!(stddev));
    put("key_median", json!(median));
    put("key_zipf_exp", json!(zipf));
    put("reconnect_interval", json!(c.faults.reconnect_interval));
    put("connection_timeout", json!(connection_timeout));
    put("thread_conn_start_min_jitter_micros", json!(0));
    put("thread_conn_start_max_jitter_micros", json!(0));
    put("multi_key_get", json!(0));
    put(
        "authenticate",
        json!(
            c.target
                .auth
                .as_ref()
                .map_or(String::new(), |a| a.redacted())
        ),
    );
    put("select-db", json!(c.target.db));
    put("no-expiry", json!("false"));
    put("wait-ratio", json!("0:0"));
    put("num-slaves", json!("0:0"));
    put("wait-timeout", json!("0-0"));
    put("print-all-runs", json!(bool_text(c.output.print_all_runs)));
    Value::Object(m)
}

/// Requests each connection sends with `-n allkeys`: the whole range under
/// memtier's semantics, else the largest slice (the first `len % n` slices hold
/// one key more than the rest).
pub fn allkeys_per_connection(c: &Config) -> u64 {
    let len = c.keys.range.len();
    match c.semantics.range_sharing {
        RangeSharing::Whole => len,
        // Split across the connections of every shard.
        RangeSharing::Split => len.div_ceil(c.total_slots().max(1)),
    }
}

fn pattern_params(c: &Config) -> (f64, f64, f64) {
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

/// Every effective setting, typed, for the `kvbench.config` object.
pub fn kvbench_config(c: &Config) -> Value {
    let (median, stddev, zipf) = pattern_params(c);
    let mut v = json!({
        "target": c.target.endpoint.to_string(),
        "authenticate": c.target.auth.as_ref().map(|a| a.redacted()),
        "select_db": c.target.db,
        "connection_timeout_s": c.target.connect_timeout.as_secs_f64(),
        "threads": c.threads,
        "clients_per_thread": c.clients,
        "connections": c.connections(),
        "pipeline": c.pipeline,
        "ratio": c.ratio.to_string(),
        "requests_per_client": match c.stop { Stop::Requests(n) => json!(n), Stop::AllKeys => json!("allkeys"), Stop::Time(_) => Value::Null },
        "test_time_s": match c.stop { Stop::Time(d) => json!(d.as_secs_f64()), _ => Value::Null },
        "run_count": c.run_count,
        "warmup_time_s": c.warmup.as_secs_f64(),
        "key_prefix": c.keys.prefix,
        "key_minimum": c.keys.range.min,
        "key_maximum": c.keys.range.max,
        "key_pattern": c.keys.pattern_letters,
        "key_median": median,
        "key_stddev": stddev,
        "key_zipf_exp": zipf,
        "data_size": c.values.to_string(),
        "mean_value_bytes": c.values.mean_size(),
        "random_data": c.random_data,
        "percentiles": c.output.percentiles,
        "seed": c.seed,
        "rate_ops_per_sec": c.rate.map(|r| r.total_per_sec),
        "arrival": c.rate.map(|r| r.arrival.name()),
        "hdr_file_prefix": c.output.hdr_file_prefix.as_ref().map(|p| p.display().to_string()),
        "memtier_compat": c.semantics.memtier_compat,
        "seeding": match c.semantics.seeding {
            Seeding::PerConnection => "per-connection",
            Seeding::Shared => "shared",
            Seeding::PerClient => "per-client",
        },
        "range_sharing": match c.semantics.range_sharing {
            RangeSharing::Split => "split",
            RangeSharing::Whole => "whole",
        },
        "reconnect": c.faults.reconnect,
        "max_reconnect_attempts": c.faults.max_reconnect_attempts,
        "tls": tls_config(c),
        "pinning": match &c.pinning { Pinning::Off => json!("off"), Pinning::Auto => json!("auto"), Pinning::Cpus(v) => json!(v) },
        "commands": commands(c),
        "command_stats_breakdown": (!c.ops.default_pair).then(|| c.ops.breakdown.name()),
        "cluster_mode": c.cluster.is_some(),
        "max_redirects": c.cluster.map(|o| o.max_redirects),
        "read_from": c.cluster.map(|o| o.read_from.as_str()),
    });
    // Added apart: one more key in the macro above passes serde_json's recursion limit.
    if let Value::Object(map) = &mut v {
        map.insert(
            "start_tolerance_s".into(),
            json!(c.start_at.map(|s| s.tolerance.as_secs_f64())),
        );
        map.insert(
            "run_gap_s".into(),
            json!(c.start_at.map(|s| s.run_gap.as_secs_f64())),
        );
        let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
        map.insert("html_out_file".into(), json!(path(&c.output.html_out_file)));
        map.insert(
            "metrics_listen".into(),
            json!(c.metrics.listen.map(|a| a.to_string())),
        );
        map.insert(
            "metrics_linger_s".into(),
            json!(c.metrics.linger.as_secs_f64()),
        );
        map.insert(
            "statsd".into(),
            json!(c.metrics.statsd.as_ref().map(|t| json!({
                "host": t.host, "port": t.port, "prefix": t.prefix, "run_label": t.run_label,
            }))),
        );
    }
    v
}

/// The `--command` lines as given, with what was made of them; `null` for the
/// SET/GET pair.
fn commands(c: &Config) -> Value {
    if c.ops.default_pair {
        return Value::Null;
    }
    let lines = c.ops.ops.iter().map(|op| {
        json!({
            "command": op.spec.text,
            "ratio": op.weight,
            "key_pattern": op.pattern.kind().letter().to_string(),
            "row": c.ops.rows.get(usize::from(op.row)).map(|r| r.json_key.as_str()),
        })
    });
    Value::Array(lines.collect())
}

/// `--tls` as `kvbench.config.tls`: what was verified and offered; `null` for
/// plain text.
fn tls_config(c: &Config) -> Value {
    let Some(tls) = &c.target.tls else {
        return Value::Null;
    };
    let protocols: Vec<&str> = match tls.settings.protocols.as_slice() {
        [] => vec![TlsVersion::Tls12.name(), TlsVersion::Tls13.name()],
        given => given.iter().map(|v| v.name()).collect(),
    };
    json!({
        "server_name": tls.server_name(),
        "verify": !tls.settings.skip_verify,
        "client_certificate": tls.settings.cert.is_some(),
        "protocols": protocols,
    })
}
