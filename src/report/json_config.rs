//! The configuration as the JSON report shows it: memtier's `configuration`
//! object (same keys, memtier's spelling of values) and kvbench's own, complete
//! and typed. The password is always redacted.

use serde_json::{Value, json};

use crate::config::{Config, Pinning, Stop};
use crate::target::Endpoint;
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

/// memtier's `configuration` object, with the keys its readers look for.
pub fn memtier_configuration(c: &Config) -> Value {
    let (server, port, unix) = host_port(c);
    let (requests, test_time) = match c.stop {
        Stop::Requests(n) => (json!(n), json!(0)),
        Stop::AllKeys => (json!("allkeys"), json!(0)),
        Stop::Time(d) => (json!(0), json!(d.as_secs_f64())),
    };
    let (range, list) = match &c.values {
        SizeSpec::Range { min, max } => (format!("{min}:{max}"), String::new()),
        SizeSpec::List(_) => ("0:0".to_string(), c.values.to_string()),
        SizeSpec::Fixed(_) => ("0:0".to_string(), String::new()),
    };
    let (median, stddev, zipf) = pattern_params(c);
    json!({
        "server": server,
        "port": port,
        "unix socket": unix,
        "protocol": "redis",
        "out_file": c.output.out_file.as_ref().map(|p| p.display().to_string()),
        "tls": "false",
        "run_count": c.run_count,
        "requests": requests,
        // memtier's rate_limit is per connection.
        "rate_limit": c.rate.map_or(0.0, |r| r.total_per_sec / c.connections() as f64),
        "clients": c.clients,
        "threads": c.threads,
        "test_time": test_time,
        "ratio": c.ratio.to_string(),
        "pipeline": c.pipeline,
        "data_size": match c.values { SizeSpec::Fixed(n) => n, _ => 0 },
        "random_data": bool_text(c.random_data),
        "data_size_range": range,
        "data_size_list": list,
        "key_prefix": c.keys.prefix,
        "key_minimum": c.keys.range.min,
        "key_maximum": c.keys.range.max,
        "key_pattern": c.keys.pattern_letters,
        "key_stddev": stddev,
        "key_median": median,
        "key_zipf_exp": zipf,
        "connection_timeout": c.target.connect_timeout.as_secs_f64(),
        "authenticate": c.target.auth.as_ref().map_or(String::new(), |a| a.redacted()),
        "select-db": c.target.db,
        "print-all-runs": "false",
    })
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
    json!({
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
        "pinning": match &c.pinning { Pinning::Off => json!("off"), Pinning::Auto => json!("auto"), Pinning::Cpus(v) => json!(v) },
    })
}
