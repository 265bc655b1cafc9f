//! The sweep's text: the `SWEEP SUMMARY` table's columns and footnote, and
//! the lines naming the cell and phase a stop cut.

use clap::Parser;

use super::{stop_lines, table};
use crate::cli::Cli;
use crate::config::Config;
use crate::engine::master::results::{Phase, Results};
use crate::engine::master::sweep::{CellResult, SweepStop};
use crate::report::model::named::Named;
use crate::report::model::{SweepRow, SweepSpread};

fn row(label: &str, ops: f64, spread: Option<SweepSpread>) -> SweepRow {
    SweepRow {
        cell: label.into(),
        ops_per_sec: ops,
        set_ops_per_sec: Some(ops / 2.0),
        get_ops_per_sec: Some(ops / 2.0),
        avg_latency_ms: 0.5,
        p50_latency_ms: 0.4,
        p99_latency_ms: 0.9,
        p99_9_latency_ms: 1.5,
        latency_percentiles_ms: Some(Named(vec![("p50.00".into(), 0.4), ("p95.00".into(), 0.8)])),
        hit_rate_percent: None,
        ratio_to_first: ops / 1000.0,
        cut: false,
        ops_per_sec_spread: spread,
    }
}

#[test]
fn the_summary_follows_the_printed_percentiles_and_shows_the_spread() {
    let spread = SweepSpread {
        min: 970.0,
        max: 1030.0,
        max_over_min: 1030.0 / 970.0,
    };
    let rows = [
        row("pipeline=1", 1000.0, Some(spread)),
        row("pipeline=4", 2500.0, None),
    ];
    let mut out = String::new();
    table(&mut out, &[50.0, 95.0], &rows, 2, None);
    let lines: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines[0], ["SWEEP", "SUMMARY", "(2", "of", "2", "cells)"]);
    assert!(out.lines().nth(1).unwrap().contains("p95 ms"), "{out}");
    assert!(!out.contains("p99 ms"), "{out}");
    assert_eq!(
        lines[2][5..],
        ["0.400", "0.800", "---", "6.2%", "1.000"],
        "{out}"
    );
    assert_eq!(lines[3][7..], ["---", "---", "2.500"], "{out}");
    assert!(lines[4].is_empty());
    assert!(
        out.lines()
            .nth(5)
            .unwrap()
            .starts_with("ratio = total ops/sec ÷ the first cell's"),
        "{out}"
    );
}

/// What [`stop_lines`] says of a three-cell sweep whose first `done`
/// cells ran to their end and whose next one (if any) was cut in `cut`.
fn said(done: usize, cut: Option<Phase>, stop: Option<(usize, Option<Phase>, i32)>) -> String {
    let args = ["kvbench", "--pipeline", "1,4,16", "--max-errors", "5"];
    let config = Config::from_args(Cli::parse_from(args).run).unwrap();
    let mut cells: Vec<CellResult> = config
        .cells()
        .into_iter()
        .map(|cell| CellResult {
            cell,
            // No run planned: complete.
            results: Results::default(),
        })
        .collect();
    cells.truncate(done + usize::from(cut.is_some()));
    if let Some(phase) = cut {
        let last = &mut cells[done].results;
        last.planned_runs = 1;
        last.interrupted = Some((phase, 2));
    }
    let labels = ["pipeline=1", "pipeline=4", "pipeline=16"];
    let stop = stop.map(|(cell, phase, signal)| SweepStop {
        cell,
        label: labels[cell].into(),
        phase,
        signal,
    });
    let inputs = super::inputs(&cells);
    let doc = super::document(&config, &cells, &inputs, 3, stop.as_ref());
    let mut out = String::new();
    stop_lines(&mut out, &config, &doc.kvbench);
    out
}

#[test]
fn a_stop_names_the_cell_and_phase_it_cut_and_a_whole_sweep_says_nothing() {
    assert_eq!(said(3, None, None), "");
    assert_eq!(
        said(1, Some(Phase::Run(1)), Some((1, Some(Phase::Run(1)), 2))),
        "Interrupted: signal 2 during CELL 2/3 (pipeline=4), RUN #1: the cut run's numbers cover the time until then, and the cell's row below is marked (cut).\n\
         Incomplete: 1 of 3 cells completed.\n\n"
    );
    assert_eq!(
        said(0, Some(Phase::Warmup), Some((0, Some(Phase::Warmup), 2))),
        "Interrupted: signal 2 during CELL 1/3 (pipeline=1), WARM-UP: none of its runs was measured, so it has no row below.\n\
         Incomplete: 0 of 3 cells completed.\n\n"
    );
    assert_eq!(
        said(2, None, Some((2, None, 15))),
        "Interrupted: signal 15 before CELL 3/3 (pipeline=16) measured anything: it and the cells after it are not in this report.\n\
         Incomplete: 2 of 3 cells completed.\n\n"
    );
    let budget = said(0, Some(Phase::Run(1)), Some((0, Some(Phase::Run(1)), 0)));
    assert!(
        budget.starts_with(
            "Stopped: more errors than --max-errors 5 during CELL 1/3 (pipeline=1), RUN #1:"
        ),
        "{budget}"
    );
}

/// A two-parameter sweep of `-x 2` cells, stopped at `stop`, as its JSON file.
fn sweep_file(stop: Option<SweepStop>) -> Vec<u8> {
    let args = [
        "kvbench",
        "--data-size",
        "10,100",
        "--ratio",
        "1:1,1:10",
        "-x",
        "2",
    ];
    let config = Config::from_args(Cli::parse_from(args).run).unwrap();
    let cells: Vec<CellResult> = config
        .cells()
        .into_iter()
        .map(|cell| {
            let mut stats = crate::engine::stats::Stats::new(cell.config.ops.rows.len()).unwrap();
            for v in 1..(100 + cell.index as u64 * 50) {
                stats.ops[0].record(v * 13);
                stats.ops[1].record(v * 7);
            }
            stats.ops[1].hits = 30;
            stats.ops[1].misses = 7;
            let run = |n: u32| {
                let took = std::time::Duration::from_millis(1000 + u64::from(n) * 7);
                crate::engine::master::results::PhaseResult::of_stats(
                    Phase::Run(n),
                    stats.clone(),
                    took,
                )
            };
            let results = Results {
                runs: vec![run(1), run(2)],
                planned_runs: 2,
                ..Results::default()
            };
            CellResult { cell, results }
        })
        .collect();
    let inputs: Vec<crate::report::ReportInput<'_>> = cells
        .iter()
        .map(|c| crate::report::ReportInput::new(&c.cell.config, &c.results, true))
        .collect();
    let document = super::document(&config, &cells, &inputs, cells.len() + 1, stop.as_ref());
    crate::report::json::pretty(&document)
}

#[test]
fn a_sweep_file_reads_back_into_the_model_and_is_written_again_byte_for_byte() {
    let cut = SweepStop {
        cell: 4,
        label: "data-size=100 ratio=1:10".into(),
        phase: None,
        signal: 15,
    };
    for stop in [None, Some(cut)] {
        let written = sweep_file(stop);
        let text = String::from_utf8(written.clone()).unwrap();
        let read = crate::report::model::parse("sweep.json", &text).unwrap();
        assert!(matches!(read, crate::report::model::Document::Sweep(_)));
        assert_eq!(
            String::from_utf8(crate::report::json::pretty(&read)).unwrap(),
            text
        );
    }
}
