//! docs/output.schema.json, generated from the model: the JSON Schema of
//! what this version of kvbench writes.
//!
//! The model's types derive `JsonSchema` (their doc comments become the
//! `description`s); the types with hand-written serde impls (`Document`,
//! `Report`, `Section`, `Percentiles`, `Named`) get hand-written schemas
//! (`documents.rs`) that say what their serializers write. The schema is
//! strict where reading is tolerant: every object of kvbench's lists its
//! keys and refuses others, so a test that validates a real report
//! catches a key written by mistake, while a newer file still reads.
//!
//! `make schema` rewrites docs/output.schema.json; a unit test fails when
//! the file is not what the model generates.

mod documents;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema, json_schema};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::config::target::AddressFamily;
use crate::config::tls::TlsVersion;
use crate::config::{Arrival, Headline, RangeSharing, ReadFrom, Seeding, ShardSource};
use crate::engine::master::placement::Reason;
use crate::engine::master::results::Phase;
use crate::protocol::error_kind::ServerErrorKind;
use crate::protocol::wire::Protocol;
use crate::report::build;
use crate::report::json::SCHEMA_VERSION;
use crate::report::model::kvbench::PhaseSummary;
use crate::report::model::section::SectionTitle;
use crate::report::model::{FORMAT_VERSION, KVBENCH, Report};
use crate::workload::ops::Breakdown;

/// A percentile's key (`p50.00`, `p99.999`, memtier's `p100.0`), as
/// [`crate::report::json::percentile_key`] writes it.
pub const PERCENTILE_KEY: &str = r"^p([0-9]+\.[0-9]{2,}|100\.0)$";
/// An op row's key: memtier's capitalised plural of the command (`Sets`,
/// `Hsets`, `Totals`), numbered for a repeated `--command` line (`Gets#2`);
/// `--scan-incremental-iteration`'s `Scan 0s` and `Scan <cursor>s`.
pub const ROW_KEY: &str = r"^[A-Z][a-z0-9_|.-]*( 0| <cursor>)?s(#[0-9]+)?$";
/// A command's key, in capitals (`SET`, `HSET`, `GET#2`): the latency
/// distributions and the exact totals; `--scan-incremental-iteration`'s
/// `SCAN 0` and `SCAN <cursor>`.
pub const COMMAND_KEY: &str = r"^[A-Z][A-Z0-9_|.-]*( 0| <cursor>)?(#[0-9]+)?$";
/// A `Time-Serie` key: the second since the phase's start (`"0"`, `"1"`).
pub const SECOND_KEY: &str = r"^[0-9]+$";

/// docs/output.schema.json: the schema of every document `--json-out-file`
/// writes, pretty-printed with a final newline.
pub fn document_schema() -> String {
    let settings = SchemaSettings::draft2020_12()
        .for_serialize()
        .with_transform(RecursiveTransform(strict));
    let schema = settings
        .into_generator()
        .into_root_schema_for::<documents::Written>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// An object schema that lists its keys refuses any other: what kvbench
/// writes is exactly what the schema names. Open maps (INFO, `config`'s
/// values) list no keys and stay open. A description keeps its doc
/// comment's paragraphs, not its line breaks.
fn strict(schema: &mut Schema) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::String(d)) = obj.get_mut("description") {
        let paragraphs: Vec<String> = d.split("\n\n").map(|p| p.replace('\n', " ")).collect();
        *d = paragraphs.join("\n\n");
    }
    let is_object = match obj.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    let lists_keys = obj.contains_key("properties") || obj.contains_key("patternProperties");
    if is_object
        && lists_keys
        && !obj.contains_key("additionalProperties")
        && !obj.contains_key("unevaluatedProperties")
    {
        obj.insert("additionalProperties".into(), false.into());
    }
}

/// An object whose keys match `pattern`, each holding a `T`.
fn keyed<T: JsonSchema>(generator: &mut SchemaGenerator, pattern: &str) -> Schema {
    json_schema!({
        "type": "object",
        "patternProperties": { pattern: generator.subschema_for::<T>() }
    })
}

/// Op rows by name (`Sets`, `Totals`).
pub fn by_row<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    keyed::<T>(generator, ROW_KEY)
}

/// Counts by command (`SET`, `HSET`).
pub fn by_command<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    keyed::<T>(generator, COMMAND_KEY)
}

/// Op rows by name, each an object of percentiles (`p99.00`) holding a
/// `T` or `null`.
pub fn by_row_percentile<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    let each = json_schema!({
        "type": "object",
        "patternProperties": { PERCENTILE_KEY: generator.subschema_for::<Option<T>>() }
    });
    json_schema!({
        "type": "object",
        "patternProperties": { ROW_KEY: each }
    })
}

/// A `Time-Serie`: one entry per second of the phase.
pub fn by_second<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    keyed::<T>(generator, SECOND_KEY)
}

/// `p50.00` → ms: the printed percentiles, flattened into their object.
pub fn percentiles_ms(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "patternProperties": { PERCENTILE_KEY: ms("Latency at this percentile, ms.") }
    })
}

/// A latency in ms.
fn ms(description: &str) -> Value {
    serde_json::json!({ "type": "number", "minimum": 0, "description": description })
}

/// `Format version`: memtier's, as kvbench writes it.
pub fn format_version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "const": FORMAT_VERSION })
}

/// Requires `keys` of an object: fields kvbench always writes, kept absent
/// when a file read back lacked them (so serde skips them when `None`).
fn require(schema: &mut Schema, keys: &[&str]) {
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.extend(keys.iter().map(|k| Value::from(*k)));
    }
}

/// `kvbench.verdict`, always written.
pub fn require_verdict(schema: &mut Schema) {
    require(schema, &["verdict"]);
}

/// A sweep row's SET and GET rates, always written.
pub fn require_set_get_rates(schema: &mut Schema) {
    require(schema, &["set_ops_per_sec", "get_ops_per_sec"]);
}

/// `schema_version`: this version's layout, and no other.
pub fn schema_version(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "const": SCHEMA_VERSION })
}

/// A flag written only when true.
pub fn only_true(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "const": true })
}

/// memtier's switches, the strings `"true"` and `"false"`.
pub fn text_bool(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "enum": ["true", "false"] })
}

/// `errors.server`: every kind of [`ServerErrorKind`], by its name.
pub fn server_error_kinds(_: &mut SchemaGenerator) -> Schema {
    let names = ServerErrorKind::ALL.map(ServerErrorKind::as_str);
    let count = serde_json::json!({ "type": "integer", "minimum": 0 });
    let properties: Map<String, Value> = names
        .iter()
        .map(|n| ((*n).to_string(), count.clone()))
        .collect();
    json_schema!({ "type": "object", "properties": properties, "required": names })
}

/// The name serde writes for `value`.
fn serialized<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// A schema function for an enum defined outside the model: the names
/// `$write` gives its variants. The `match` makes a variant added there fail
/// to build here until it is listed.
macro_rules! variants_of {
    ($name:ident, $ty:ident, $write:expr, [$($variant:ident),+ $(,)?]) => {
        #[doc = concat!("Every `", stringify!($ty), "`, by the name the report gives it.")]
        pub fn $name(_: &mut SchemaGenerator) -> Schema {
            let _exhaustive = |v: $ty| match v {
                $($ty::$variant)|+ => (),
            };
            let names: Vec<Value> = [$($ty::$variant),+].into_iter().map($write).collect();
            json_schema!({ "enum": names })
        }
    };
}

variants_of!(arrival, Arrival, serialized, [Constant, Poisson]);
variants_of!(headline, Headline, serialized, [ServiceTime, ResponseTime]);
variants_of!(
    protocol,
    Protocol,
    |p: Protocol| Value::from(p.name()),
    [
        Redis,
        Resp2,
        Resp3,
        MemcacheText,
        MemcacheBinary,
        MemcacheMeta
    ]
);
variants_of!(
    placement_reason,
    Reason,
    serialized,
    [
        NoPinFlag,
        CpusFlag,
        RemoteServer,
        ApartFromServer,
        ServerMayUseEveryCpu,
        ServerUnknown,
        OneCpu,
    ]
);
variants_of!(
    shard_sources,
    ShardSource,
    serialized,
    [Flags, Kubernetes, Slurm, OpenMpi, Pmi]
);

variants_of!(
    address_family,
    AddressFamily,
    |f| Value::from(build::config::address_family_name(f)),
    [Any, V4, V6]
);
variants_of!(
    seeding,
    Seeding,
    |s| Value::from(build::settings::seeding_name(s)),
    [PerConnection, Shared, PerClient]
);
variants_of!(
    range_sharing,
    RangeSharing,
    |r| Value::from(build::settings::range_sharing_name(r)),
    [Split, Whole]
);
variants_of!(
    read_from,
    ReadFrom,
    |r: ReadFrom| Value::from(r.as_str()),
    [Primary, Replica, Any, Nearest]
);
variants_of!(
    breakdown,
    Breakdown,
    |b: Breakdown| Value::from(b.name()),
    [Command, Line]
);
variants_of!(
    tls_version,
    TlsVersion,
    |v: TlsVersion| Value::from(v.name()),
    [Tls12, Tls13]
);

/// `config.tls.protocols`: the versions offered, at least one.
pub fn tls_versions(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "array", "items": tls_version(generator), "minItems": 1 })
}

/// `config.read_from`: a [`ReadFrom`], or `null` without `--cluster-mode`.
pub fn read_from_or_null(generator: &mut SchemaGenerator) -> Schema {
    or_null(read_from(generator))
}

/// `config.command_stats_breakdown`: a [`Breakdown`], or `null` for the
/// SET/GET pair.
pub fn breakdown_or_null(generator: &mut SchemaGenerator) -> Schema {
    or_null(breakdown(generator))
}

/// `schema` that also takes `null`.
fn or_null(mut schema: Schema) -> Schema {
    if let Some(Value::Array(names)) = schema.get_mut("enum") {
        names.push(Value::Null);
    }
    schema
}

/// `shard.source`: a [`ShardSource`], or `null`.
pub fn shard_source(generator: &mut SchemaGenerator) -> Schema {
    or_null(shard_sources(generator))
}

/// `config.arrival`: an [`Arrival`], or `null` in a closed loop.
pub fn arrival_or_null(generator: &mut SchemaGenerator) -> Schema {
    or_null(arrival(generator))
}

/// A regex matching `example`'s text, its number `n` standing for any.
fn numbered(example: String, n: u32) -> String {
    let mut escaped = String::new();
    for c in example.chars() {
        if "()[]{}.*+?^$|\\".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    format!("^{}$", escaped.replace(&n.to_string(), "[0-9]+"))
}

/// A measured run's `phase`, `RUN #n`.
fn run_phase() -> String {
    numbered(Phase::Run(u32::MAX).to_string(), u32::MAX)
}

/// `kvbench.runs`: measured runs, without a section of their own.
pub fn runs(generator: &mut SchemaGenerator) -> Schema {
    let mut run = generator.subschema_for::<PhaseSummary>();
    run.insert(
        "properties".into(),
        serde_json::json!({ "phase": { "pattern": run_phase() } }),
    );
    run.insert(
        "not".into(),
        serde_json::json!({ "required": [SectionTitle::AllStats.to_string()] }),
    );
    json_schema!({ "type": "array", "items": run })
}

/// `kvbench.warmup`: the warm-up, with its section, or `null`.
pub fn warmup(generator: &mut SchemaGenerator) -> Schema {
    let mut phase = generator.subschema_for::<PhaseSummary>();
    phase.insert(
        "properties".into(),
        serde_json::json!({ "phase": { "const": Phase::Warmup.to_string() } }),
    );
    phase.insert(
        "required".into(),
        serde_json::json!([SectionTitle::AllStats.to_string()]),
    );
    json_schema!({ "oneOf": [{ "type": "null" }, phase] })
}

/// `kvbench.prefill`: the prefill, or `null`.
pub fn prefill(generator: &mut SchemaGenerator) -> Schema {
    let mut phase = generator.subschema_for::<PhaseSummary>();
    phase.insert(
        "properties".into(),
        serde_json::json!({ "phase": { "const": Phase::Prefill.to_string() } }),
    );
    json_schema!({ "oneOf": [{ "type": "null" }, phase] })
}

/// `sweep.cells`: complete reports, each saying which cell it is.
pub fn cells(generator: &mut SchemaGenerator) -> Schema {
    let mut cell = generator.subschema_for::<Report>();
    cell.insert(
        "properties".into(),
        serde_json::json!({ KVBENCH: { "required": ["cell"] } }),
    );
    json_schema!({ "type": "array", "items": cell })
}

#[cfg(test)]
mod tests;
