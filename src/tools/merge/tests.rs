//! The set checks and the sums, on files built in memory.

use clap::Parser;
use serde_json::{Value, json};

use crate::cli::{Cli, MergeFormat, Subcommand};
use crate::error::UsageError;
use crate::report::model::named::Named;
use crate::report::model::{Document, parse};
use crate::tools::merge::check::{self, SetCheck, SetInfo, ShardFile};
use crate::tools::merge::combine::{RowSum, add_named};
use crate::tools::merge::digest::Digest;

/// A minimal single-run report, shard `index` of `count` when `count` > 0.
fn file(name: &str, index: u32, count: u32, config: Value) -> ShardFile {
    let errors = json!({"server": {}, "connection": 0, "refused": 0, "timeouts": 0,
                        "reconnects": 0, "protocol": 0, "lost_requests": 0});
    let shard = (count > 0).then(|| json!({"index": index, "count": count, "source": "slurm"}));
    let doc = json!({"kvbench": {
        "schema_version": 1, "tool_version": "0", "complete": true, "runs_planned": 1,
        "runs_completed": 1, "seed": 1, "target": "t", "latency": "l",
        "latency_unit_of_histograms": "microseconds", "config": config,
        "runs": [{"phase": "RUN #1", "start_time_ms": 0, "duration_ms": 1000, "ops_per_sec": 0.0,
                  "thread_cpu_s": [], "totals": {}, "errors": errors, "open_loop": null,
                  "server": null, "histograms": {}}],
        "warmup": null, "prefill": null, "totals": null, "hit_rate_percent": null,
        "errors": null, "server": null, "variance": null, "interrupted": null, "warnings": [],
        "shard": shard,
    }});
    check::from_text(name, &doc.to_string()).unwrap()
}

/// The set checks over `files`, each file a measurement of its own.
fn check(files: &[ShardFile], allow_partial: bool) -> Result<SetInfo, UsageError> {
    let mut set = SetCheck::new(&files[0]);
    for (i, f) in files.iter().enumerate() {
        set.admit(f, &[Digest(format!("{i:064x}"))])?;
    }
    set.finish(allow_partial)
}

fn workload() -> Value {
    json!({"threads": 4, "pipeline": 1, "seed": 7, "pinning": "auto", "shard_index": 0})
}

#[test]
fn per_machine_fields_do_not_make_another_workload() {
    let a = file("a.json", 0, 2, workload());
    let mut other = workload();
    other["seed"] = json!(8);
    other["pinning"] = json!([1, 2]);
    other["shard_index"] = json!(1);
    let b = file("b.json", 1, 2, other);
    assert!(check(&[a, b], false).is_ok());
}

#[test]
fn another_workload_is_refused_naming_the_file_and_every_field() {
    let a = file("a.json", 0, 2, workload());
    let mut other = workload();
    other["pipeline"] = json!(16);
    other["threads"] = json!(2);
    let b = file("b2.json", 1, 2, other);
    let e = check(&[a, b], false).unwrap_err().to_string();
    assert!(
        e.starts_with("b2.json: a different workload from a.json"),
        "{e}"
    );
    assert!(
        e.contains("pipeline (1 vs 16)") && e.contains("threads (4 vs 2)"),
        "{e}"
    );
}

#[test]
fn a_missing_shard_is_an_error_unless_partial_is_allowed() {
    let set = || {
        [
            file("a.json", 0, 3, workload()),
            file("c.json", 2, 3, workload()),
        ]
    };
    let e = check(&set(), false).unwrap_err().to_string();
    assert!(
        e.contains("shard(s) 1 of 3 missing") && e.contains("--allow-partial"),
        "{e}"
    );
    let info = check(&set(), true).unwrap();
    assert_eq!(info.missing, vec![1]);
    assert!(info.partial() && !info.ad_hoc);
}

#[test]
fn a_duplicate_index_and_an_index_beyond_the_count_are_refused() {
    let e = check(
        &[
            file("a.json", 1, 2, workload()),
            file("d.json", 1, 2, workload()),
        ],
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("d.json") && e.contains("duplicate shard index 1"),
        "{e}"
    );
    let e = check(&[file("e.json", 2, 2, workload())], false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not below the shard count 2"), "{e}");
}

#[test]
fn plain_files_merge_as_an_ad_hoc_set_but_not_mixed_with_shards() {
    let info = check(
        &[
            file("p.json", 0, 0, workload()),
            file("q.json", 0, 0, workload()),
        ],
        false,
    )
    .unwrap();
    assert!(info.ad_hoc && !info.partial() && info.count.is_none());
    let e = check(
        &[
            file("s.json", 0, 2, workload()),
            file("p.json", 0, 0, workload()),
        ],
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("p.json") && e.contains("no kvbench.shard object"),
        "{e}"
    );
}

#[test]
fn the_same_measurement_under_two_names_is_refused_naming_both() {
    let a = file("a.json", 0, 2, workload());
    let b = file("b.json", 1, 2, workload());
    let same = Digest("ab".repeat(32));
    let mut set = SetCheck::new(&a);
    set.admit(&a, std::slice::from_ref(&same)).unwrap();
    let e = set.admit(&b, &[same]).unwrap_err().to_string();
    assert!(
        e.starts_with("b.json: the same measurement as a.json"),
        "{e}"
    );
    // A merged file's measurements overlap a machine's file as well.
    let mut set = SetCheck::new(&a);
    set.admit(&a, &[Digest("01".repeat(32))]).unwrap();
    let listed = [Digest("02".repeat(32)), Digest("01".repeat(32))];
    let e = set.admit(&b, &listed).unwrap_err().to_string();
    assert!(e.contains("the same measurement as a.json"), "{e}");
}

#[test]
fn a_sharded_file_after_a_plain_one_is_refused_naming_it() {
    let e = check(
        &[
            file("p.json", 0, 0, workload()),
            file("s.json", 1, 2, workload()),
        ],
        true,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("s.json: a kvbench.shard object (shard 1 of 2), while p.json has none"),
        "{e}"
    );
}

#[test]
fn an_unknown_shard_source_still_reads() {
    let text = r#"{"kvbench": {"schema_version": 1, "tool_version": "0", "complete": true,
        "runs_planned": 1, "runs_completed": 0, "seed": 1, "target": "t", "latency": "l",
        "latency_unit_of_histograms": "microseconds", "config": {}, "runs": [],
        "warnings": [], "shard": {"index": 0, "count": 1, "source": "lsf", "clock": null}}}"#;
    let Ok(Document::Report(r)) = parse("x.json", text) else {
        panic!("does not read");
    };
    let shard = r.kvbench.unwrap().shard.unwrap();
    assert_eq!((shard.index, shard.count, shard.source), (0, 1, None));
}

#[test]
fn sums_add_counts_histograms_and_seconds() {
    let mut a = RowSum::new();
    a.totals.count = 3;
    a.latency_sum_us = 300.0;
    a.histogram.record(100).unwrap();
    let mut b = RowSum::new();
    b.totals.count = 1;
    b.latency_sum_us = 900.0;
    b.histogram.record(900).unwrap();
    a.add(&b, true);
    assert_eq!(a.totals.count, 4);
    assert_eq!(a.histogram.len(), 2);
    assert!((a.mean_us() - 300.0).abs() < 1e-9);
    let mut n = Named(vec![("ERR".to_string(), 2)]);
    add_named(&mut n, &Named(vec![("OOM".into(), 1), ("ERR".into(), 3)]));
    assert_eq!(n.0, vec![("ERR".to_string(), 5), ("OOM".to_string(), 1)]);
}

#[test]
fn the_merge_flags_parse_and_a_bad_format_is_refused() {
    let args = Cli::try_parse_from([
        "kvbench",
        "merge",
        "a.json",
        "b.json",
        "-o",
        "t.json",
        "--format",
        "md",
        "--allow-partial",
    ])
    .unwrap();
    let Some(Subcommand::Merge(m)) = args.subcommand else {
        panic!("not the merge subcommand");
    };
    assert_eq!(m.files.len(), 2);
    assert_eq!(m.format, MergeFormat::Md);
    assert!(m.allow_partial && m.output.is_some());
    assert!(Cli::try_parse_from(["kvbench", "merge", "a.json", "--format", "csv"]).is_err());
    assert!(Cli::try_parse_from(["kvbench", "merge"]).is_err());
    // --help is help (the benchmark's flags disable clap's own).
    let help = Cli::try_parse_from(["kvbench", "merge", "--help"]).unwrap_err();
    assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
}

#[test]
fn a_start_is_corrected_onto_the_reference_clock_by_adding_its_offset() {
    use crate::tools::merge::document::spread;
    // A machine whose clock is 600 ms behind the server's (offset +600)
    // started at its 1000 ms, that is the server's 1600 ms: the same instant
    // as a machine in step with the server starting at 1600 ms.
    let together = spread(&[(1000.0, Some(600.0)), (1600.0, Some(0.0))]);
    assert!(together.corrected);
    assert!(together.spread_ms.abs() < 1e-9, "{together:?}");
    // Equal local starts 600 ms apart on the server's clock.
    let apart = spread(&[(1000.0, Some(600.0)), (1000.0, Some(0.0))]);
    assert!((apart.spread_ms - 600.0).abs() < 1e-9, "{apart:?}");
    // One offset missing: the raw spread, said to be uncorrected.
    let raw = spread(&[(1000.0, Some(600.0)), (1200.0, None)]);
    assert!(!raw.corrected);
    assert!((raw.spread_ms - 200.0).abs() < 1e-9, "{raw:?}");
}
