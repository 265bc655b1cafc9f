//! The HDR files against memtier_benchmark's own (tests/data/memtier/hdr/, a
//! 2-second run): the `.txt` distribution of memtier's histogram is memtier's
//! file byte for byte, and the `.hgrm` is memtier's line for line.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;

use super::{file_name, gmt_date, percentile_distribution, whole_run_log};
use crate::engine::master::results::Phase;
use crate::engine::stats::latency_histogram;

/// memtier's files of one op: its `.hgrm` and `.txt`.
const MEMTIER: [(&str, &str, &str); 3] = [
    (
        "TOTALS",
        include_str!("../../../tests/data/memtier/hdr/run_FULL_RUN_1.hgrm"),
        include_str!("../../../tests/data/memtier/hdr/run_FULL_RUN_1.txt"),
    ),
    (
        "SET",
        include_str!("../../../tests/data/memtier/hdr/run_SET_command_run_1.hgrm"),
        include_str!("../../../tests/data/memtier/hdr/run_SET_command_run_1.txt"),
    ),
    (
        "GET",
        include_str!("../../../tests/data/memtier/hdr/run_GET_command_run_1.hgrm"),
        include_str!("../../../tests/data/memtier/hdr/run_GET_command_run_1.txt"),
    ),
];

/// The fields of the interval line of a `.hgrm`.
fn interval(hgrm: &str) -> Vec<&str> {
    hgrm.lines().nth(4).unwrap().split(',').collect()
}

fn decode(base64: &str) -> Histogram<u64> {
    let bytes = STANDARD.decode(base64).unwrap();
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .unwrap()
}

fn recorded(h: &Histogram<u64>) -> Vec<(u64, u64)> {
    h.iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value()))
        .collect()
}

#[test]
fn the_distribution_of_memtiers_histogram_is_memtiers_txt_byte_for_byte() {
    for (op, hgrm, txt) in MEMTIER {
        let h = decode(interval(hgrm)[3]);
        assert_eq!(percentile_distribution(&h), txt, "{op}");
    }
}

#[test]
fn the_whole_run_log_is_memtiers_line_for_line() {
    for (op, hgrm, _) in MEMTIER {
        let h = decode(interval(hgrm)[3]);
        // memtier's run started at 1796105216.445 and lasted 2 s.
        let started = UNIX_EPOCH + Duration::from_millis(1_796_105_216_445);
        let ours = whole_run_log(op, started, Duration::from_secs(2), &h);
        let ours_lines: Vec<&str> = ours.lines().collect();
        let memtier_lines: Vec<&str> = hgrm.lines().collect();
        assert_eq!(ours_lines.len(), memtier_lines.len(), "{op}:\n{ours}");
        assert!(ours.ends_with('\n'));
        // The header lines are memtier's, character for character.
        assert_eq!(ours_lines[..4], memtier_lines[..4], "{op}");
        // The interval: the same start, end and max; the histogram's bytes
        // come from another deflate, so it is compared decoded.
        let (ours_fields, memtier_fields) = (interval(&ours), interval(hgrm));
        assert_eq!(ours_fields[..3], memtier_fields[..3], "{op}");
        assert!(
            ours_fields[3].starts_with("HISTF"),
            "{op}: {}",
            ours_fields[3]
        );
        assert_eq!(recorded(&decode(ours_fields[3])), recorded(&h), "{op}");
    }
}

#[test]
fn dates_are_cs_strftime_of_gmtime() {
    assert_eq!(gmt_date(0), "Thu Jan 00:00:00 GMT 1970");
    // A leap day, and the last second of a leap year.
    assert_eq!(gmt_date(951_782_400), "Tue Feb 00:00:00 GMT 2000");
    assert_eq!(gmt_date(1_735_689_599), "Tue Dec 23:59:59 GMT 2024");
    assert_eq!(gmt_date(1_796_105_216), "Tue Dec 06:06:56 GMT 2026");
}

#[test]
fn an_empty_histogram_still_writes_memtiers_five_lines() {
    let h = latency_histogram().unwrap();
    let log = whole_run_log("SET", SystemTime::UNIX_EPOCH, Duration::from_secs(1), &h);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 5, "{log}");
    assert_eq!(lines[0], "#[SET command HDR latency histogram results]");
    assert!(
        lines[4].starts_with("0.000,1.000,0.0,HISTF"),
        "{}",
        lines[4]
    );
}

#[test]
fn distribution_ends_with_the_total_count_and_footer() {
    let mut h = latency_histogram().unwrap();
    for v in 1..=1000u64 {
        h.record(v * 10).unwrap();
    }
    let text = percentile_distribution(&h);
    let last_row = text
        .lines()
        .rfind(|l| !l.starts_with('#') && !l.is_empty())
        .unwrap();
    assert!(
        last_row.ends_with("     1.000000         1000          inf"),
        "{last_row}"
    );
    assert!(text.contains("Total count    =         1000]"));
    assert!(text.contains("SubBuckets     =         2048]"), "{text}");
    assert!(text.starts_with("       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"));
    let first = text.lines().nth(2).unwrap();
    assert_eq!(first, "        0.01     0.000000            1         1.00");
}

#[test]
fn file_names_are_memtiers() {
    let name = |phase, op, ext| file_name(Path::new("out/x"), phase, op, ext);
    assert_eq!(
        name(Phase::Run(1), "TOTALS", "txt"),
        PathBuf::from("out/x_FULL_RUN_1.txt")
    );
    assert_eq!(
        name(Phase::Run(2), "SET", "hgrm"),
        PathBuf::from("out/x_SET_command_run_2.hgrm")
    );
    assert_eq!(
        name(Phase::Run(2), "GET", "hlog"),
        PathBuf::from("out/x_GET_command_run_2.hlog")
    );
    assert_eq!(
        name(Phase::Warmup, "TOTALS", "hlog"),
        PathBuf::from("out/x_FULL_WARMUP.hlog")
    );
}

#[test]
fn a_runs_files_are_three_per_row_and_three_for_all_rows_under_memtiers_names() {
    use crate::workload::keys::KeyPattern;
    use crate::workload::mix::Ratio;
    use crate::workload::ops::OpTable;
    let ratio = Ratio { set: 1, get: 10 };
    let table = OpTable::default_pair(ratio, KeyPattern::Uniform, KeyPattern::Uniform);
    let names: Vec<String> = super::run_files(Path::new("out/p"), &table, 2)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let mut expected = Vec::new();
    for stem in ["SET_command_run_2", "GET_command_run_2", "FULL_RUN_2"] {
        for ext in ["txt", "hgrm", "hlog"] {
            expected.push(format!("out/p_{stem}.{ext}"));
        }
    }
    assert_eq!(names, expected);
}
