//! The schemas of the model's types whose serde impls are hand-written: they
//! say what those serializers write (a section's title keys, a section's
//! rows and distributions, the percentile keys, a sweep or a single report).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use super::{COMMAND_KEY, PERCENTILE_KEY, ROW_KEY, ms, numbered};
use crate::report::build;
use crate::report::model::histogram::HistogramLog;
use crate::report::model::kvbench::Kvbench;
use crate::report::model::named::Named;
use crate::report::model::percentiles::{HISTOGRAM_KEY, Percentiles};
use crate::report::model::section::{
    DistributionPoint, OpRow, RUNTIME_KEY, Runtime, Section, SectionTitle, TOTALS_ROW,
};
use crate::report::model::suite::SuiteDocument;
use crate::report::model::{
    CONFIGURATION, Document, KVBENCH, RUN_INFORMATION, Report, RunInformation, SweepDocument, TLS,
};

const TITLE: &str = "kvbench JSON report (--json-out-file)";
const DESCRIPTION: &str = "The document kvbench writes with --json-out-file: one benchmark, a sweep, or a kvbench suite file. The memtier_benchmark-compatible part (configuration, run information and the result sections) keeps memtier's keys and layout; the kvbench object holds what memtier lacks. Units unless a field says otherwise: latencies in milliseconds, compressed histograms in microseconds, rates per second, KB = 1024 bytes, times in milliseconds since the Unix epoch. The file is rewritten atomically after every phase; kvbench.complete is false until the last write. Generated from kvbench's report model (make schema); see docs/output.md.";

impl<T: JsonSchema> JsonSchema for Named<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Named_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<T>()
        })
    }
}

impl JsonSchema for Percentiles {
    fn schema_name() -> Cow<'static, str> {
        "percentileLatencies".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "Latency at each --print-percentiles value, ms (0 when Count is 0), and the whole histogram.",
            "properties": {
                HISTOGRAM_KEY: generator.subschema_for::<HistogramLog>()
            },
            "patternProperties": {
                PERCENTILE_KEY: ms("Latency at this percentile, ms; 0 when Count is 0.")
            },
            "required": [HISTOGRAM_KEY]
        })
    }
}

impl JsonSchema for Section {
    fn schema_name() -> Cow<'static, str> {
        "section".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "description": "One result section: a run, the best or worst run, the aggregate, or the warm-up. The SET/GET pair has the rows Sets, Gets, Waits (empty without --wait-ratio) and Totals, and the distributions SET, GET and WAIT; a --command run has one row per command (memtier's name: Hsets; a repeat under --command-stats-breakdown line is numbered, Gets#2), Totals, and a distribution per command (HSET, GET#2); --scan-incremental-iteration has the rows Scan 0s and Scan <cursor>s and the distributions SCAN 0 and SCAN <cursor>. The distributions are absent with --hide-histogram, as in memtier.",
            "properties": { RUNTIME_KEY: generator.subschema_for::<Runtime>() },
            "patternProperties": {
                ROW_KEY: generator.subschema_for::<OpRow>(),
                COMMAND_KEY: generator.subschema_for::<Vec<DistributionPoint>>()
            },
            "required": [RUNTIME_KEY, TOTALS_ROW]
        })
    }
}

impl JsonSchema for Report {
    fn schema_name() -> Cow<'static, str> {
        "document".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let section = generator.subschema_for::<Section>();
        let described = |what: &str| {
            let mut s = section.clone();
            s.insert("description".into(), what.into());
            s
        };
        let all = SectionTitle::AllStats.to_string();
        let best = SectionTitle::Best.to_string();
        let worst = SectionTitle::Worst.to_string();
        let run = numbered(SectionTitle::Run(u32::MAX).to_string(), u32::MAX);
        let aggregated = numbered(SectionTitle::Aggregated(u32::MAX).to_string(), u32::MAX);
        json_schema!({
            "type": "object",
            "description": "A benchmark report (no sweep): memtier-compatible sections and the kvbench object.",
            "properties": {
                CONFIGURATION: build::config::memtier_configuration_schema(generator),
                RUN_INFORMATION: generator.subschema_for::<RunInformation>(),
                TLS: generator.subschema_for::<crate::report::model::tls::TlsNegotiated>(),
                &all: described("The only result section of a single-run benchmark (-x 1). Absent until the run has finished."),
                &best: described("A copy of the run with the highest total ops/sec (multi-run benchmarks only)."),
                &worst: described("A copy of the run with the lowest total ops/sec (multi-run benchmarks only)."),
                KVBENCH: generator.subschema_for::<Kvbench>()
            },
            "patternProperties": {
                &run: described("One measured run of a multi-run benchmark (-x N, N > 1), numbered from 1."),
                &aggregated: described("All completed runs merged: counts summed, histograms merged, rates = all requests / all run time. Its Time-Serie is empty.")
            },
            "required": [CONFIGURATION, RUN_INFORMATION, KVBENCH],
            "dependentRequired": { &best: [&worst], &worst: [&best] },
            "dependentSchemas": {
                &all: {
                    "description": "A single-run document has no per-run, best, worst or aggregated sections.",
                    "properties": { &best: false, &worst: false },
                    "patternProperties": { &run: false, &aggregated: false }
                }
            }
        })
    }
}

impl JsonSchema for Document {
    fn schema_name() -> Cow<'static, str> {
        "benchmarkDocument".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A single benchmark's report, or a sweep's.",
            "oneOf": [
                generator.subschema_for::<Report>(),
                generator.subschema_for::<SweepDocument>()
            ]
        })
    }
}

/// Any file `--json-out-file` writes: a [`Document`] (`kvbench` and its
/// sweeps) or a `kvbench suite` file.
pub(super) struct Written;

impl JsonSchema for Written {
    fn schema_name() -> Cow<'static, str> {
        "kvbenchJson".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": TITLE,
            "description": DESCRIPTION,
            "oneOf": [
                generator.subschema_for::<Report>(),
                generator.subschema_for::<SweepDocument>(),
                generator.subschema_for::<SuiteDocument>()
            ]
        })
    }
}
