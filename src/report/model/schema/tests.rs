//! The schema file is the model's, and its key patterns match what kvbench
//! writes.

use serde_json::Value;

use super::*;
use crate::report::model::section::SectionTitle;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/output.schema.json");

/// docs/output.schema.json is what the model generates; with
/// `KVBENCH_WRITE_SCHEMA=1` (`make schema`) the test writes it instead.
#[test]
fn docs_output_schema_json_is_generated_from_the_model() {
    let generated = document_schema();
    if std::env::var_os("KVBENCH_WRITE_SCHEMA").is_some_and(|v| v == "1") {
        std::fs::write(FILE, &generated).expect("write docs/output.schema.json");
        return;
    }
    let on_disk = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/output.schema.json is not the schema the report model generates: run `make schema` and commit the file"
    );
}

fn matches(pattern: &str, key: &str) -> bool {
    let schema = serde_json::json!({ "type": "string", "pattern": pattern });
    jsonschema::validator_for(&schema)
        .expect("the pattern compiles")
        .is_valid(&Value::String(key.into()))
}

#[test]
fn every_percentile_key_kvbench_writes_matches_the_pattern() {
    use crate::report::json::percentile_key;
    for p in [
        0.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999, 100.0, 0.5,
    ] {
        let key = percentile_key(p);
        assert!(matches(PERCENTILE_KEY, &key), "{p} → {key}");
    }
    for key in ["p99.9", "p100", "p50", "P50.00", "p50.00 "] {
        assert!(!matches(PERCENTILE_KEY, key), "{key} matched");
    }
}

#[test]
fn the_section_titles_match_their_patterns_and_no_other() {
    let run = numbered(SectionTitle::Run(u32::MAX).to_string(), u32::MAX);
    let aggregated = numbered(SectionTitle::Aggregated(u32::MAX).to_string(), u32::MAX);
    assert_eq!(run, "^RUN #[0-9]+ RESULTS$");
    assert_eq!(aggregated, r"^AGGREGATED AVERAGE RESULTS \([0-9]+ runs\)$");
    assert!(matches(&run, &SectionTitle::Run(12).to_string()));
    assert!(matches(
        &aggregated,
        &SectionTitle::Aggregated(3).to_string()
    ));
    assert!(!matches(&run, &SectionTitle::Best.to_string()));
    assert!(!matches(&aggregated, "AGGREGATED AVERAGE RESULTS (x runs)"));
    assert_eq!(run_phase(), "^RUN #[0-9]+$");
}

#[test]
fn row_and_command_keys_tell_rows_from_distributions() {
    for row in [
        "Sets",
        "Gets",
        "Waits",
        "Totals",
        "Hsets",
        "Gets#2",
        "Lranges",
        "Scan 0s",
        "Scan <cursor>s",
    ] {
        assert!(matches(ROW_KEY, row), "{row}");
        assert!(!matches(COMMAND_KEY, row), "{row}");
    }
    for command in [
        "SET",
        "GET",
        "WAIT",
        "HSET",
        "GET#2",
        "SCAN 0",
        "SCAN <cursor>",
    ] {
        assert!(matches(COMMAND_KEY, command), "{command}");
        assert!(!matches(ROW_KEY, command), "{command}");
    }
    assert!(!matches(ROW_KEY, "hsets"));
    assert!(!matches(ROW_KEY, "Scan 1s"));
    assert!(!matches(COMMAND_KEY, "SCAN <CURSOR>"));
}
