//! The manager judges each finished cell once: a sweep's save after every
//! phase does not compute the earlier cells' warnings (DNS lookups among
//! them) and verdicts again.

use clap::Parser;

use super::ExportManager;
use crate::cli::Cli;
use crate::config::Config;
use crate::engine::master::results::{Phase, PhaseResult, Results};
use crate::engine::master::sweep::{CellResult, Swept};
use crate::engine::stats::Stats;

/// One measured run of 1000 replies: a valid result.
fn measured() -> Results {
    let mut stats = Stats::new(2).unwrap();
    stats.ops[0].count = 1000;
    let run = PhaseResult::of_stats(Phase::Run(1), stats, std::time::Duration::from_secs(10));
    Results {
        planned_runs: 1,
        runs: vec![run],
        ..Results::default()
    }
}

fn sweep() -> (Config, Vec<CellResult>) {
    let args = ["kvbench", "--pipeline", "1,4,16"];
    let config = Config::from_args(Cli::parse_from(args).run).unwrap();
    let cells = config
        .cells()
        .into_iter()
        .map(|cell| CellResult {
            cell,
            results: measured(),
        })
        .collect();
    (config, cells)
}

#[test]
fn a_finished_cell_is_judged_once_and_the_running_one_every_time() {
    let (config, mut cells) = sweep();
    let mut manager = ExportManager::for_benchmark(&config);
    manager.cells(&config, &cells[..1]);
    assert_eq!(manager.judged.len(), 0, "the first cell is still running");
    manager.cells(&config, &cells[..2]);
    manager.cells(&config, &cells[..2]);
    assert_eq!(manager.judged.len(), 1, "only the first cell has ended");
    assert!(manager.judged[0].verdict.valid());
    // Were the first cell judged again, this cut would make it invalid.
    cells[0].results.planned_runs = 2;
    cells[0].results.interrupted = Some((Phase::Run(1), 2));
    let inputs = manager.cell_inputs(&cells, 3);
    assert_eq!(manager.judged.len(), 3);
    assert!(
        inputs[0].verdict.valid(),
        "the first cell's judgement is kept"
    );
    let fresh = crate::report::ReportInput::new(&cells[0].cell.config, &cells[0].results, false);
    assert!(!fresh.verdict.valid(), "{:?}", fresh.verdict);
}

#[test]
fn the_sweep_verdict_names_every_cell_judged() {
    let (config, mut cells) = sweep();
    cells[2].results.planned_runs = 2;
    cells[2].results.interrupted = Some((Phase::Run(1), 15));
    let swept = Swept { cells, stop: None };
    let mut config = config;
    // No text on stdout from a test.
    config.output.out_file = Some("/dev/null".into());
    let written = ExportManager::for_benchmark(&config).finish_cells(&config, &swept);
    assert!(written.failures.is_empty(), "{:?}", written.failures);
    let lines = written.verdict.lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("pipeline=16"), "{lines:?}");
}
