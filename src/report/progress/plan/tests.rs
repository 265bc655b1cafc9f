//! The plan's clock: names, times left and which lengths are estimates for timed and counted plans, and
//! `--progress-interval` as the configuration builds it.

use std::time::{Duration, Instant};

use clap::Parser;

use super::PlanClock;
use crate::cli::Cli;
use crate::config::{Config, Stop};
use crate::engine::master::results::Phase;
use crate::error::UsageError;

fn config(args: &str) -> Result<Config, UsageError> {
    let full = std::iter::once("kvbench").chain(args.split_whitespace());
    Config::from_args(Cli::try_parse_from(full).unwrap().run)
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[test]
fn a_timed_plan_knows_its_end_in_every_phase() {
    let c = config("--test-time 20 -x 3 --warmup-time 5").unwrap();
    let mut clock = PlanClock::new(&c);
    let t0 = Instant::now();
    clock.start_phase(Phase::Warmup, Stop::Time(secs(5)), t0);
    assert_eq!(clock.phase_name(Phase::Warmup), "warm-up");
    assert_eq!(clock.phase_left(secs(2), 1000, 500.0), Some(secs(3)));
    // 3 s of warm-up, then three runs of 20 s.
    assert_eq!(clock.plan_left(Some(secs(3)), 500.0), Some(secs(63)));
    assert!(!clock.phase_estimated() && !clock.plan_estimated());

    clock.start_phase(Phase::Run(2), c.stop, t0 + secs(30));
    assert_eq!(clock.phase_name(Phase::Run(2)), "run 2/3");
    assert_eq!(clock.phase_left(secs(15), 0, 0.0), Some(secs(5)));
    assert_eq!(clock.plan_left(Some(secs(5)), 0.0), Some(secs(25)));
    assert_eq!(clock.plan_elapsed(t0 + secs(45)), secs(45));
    // Past the end (the drain): nothing left, never less.
    assert_eq!(clock.phase_left(secs(21), 0, 0.0), Some(Duration::ZERO));
}

#[test]
fn a_counted_plan_estimates_from_its_rate() {
    // 10 connections × 1000 requests per run, two runs.
    let c = config("-t 1 -c 10 -n 1000 -x 2").unwrap();
    let mut clock = PlanClock::new(&c);
    clock.start_phase(Phase::Run(1), c.stop, Instant::now());
    assert_eq!(clock.planned(), 10_000);
    assert!(clock.phase_estimated() && clock.plan_estimated());
    // 7500 left at 2500/s, then a whole run of 10 000.
    let left = clock.phase_left(secs(1), 2_500, 2_500.0);
    assert_eq!(left, Some(secs(3)));
    assert_eq!(clock.plan_left(left, 2_500.0), Some(secs(7)));
    // No rate yet: no estimate rather than a wrong one.
    assert_eq!(clock.phase_left(Duration::ZERO, 0, 0.0), None);
    assert_eq!(clock.plan_left(None, 0.0), None);
}

#[test]
fn the_prefill_counts_keys_and_then_the_timed_runs() {
    let c = config("--prefill --key-minimum 1 --key-maximum 1000 --test-time 10 -x 2").unwrap();
    let mut clock = PlanClock::new(&c);
    clock.start_phase(Phase::Prefill, Stop::AllKeys, Instant::now());
    assert_eq!(clock.planned(), 1000);
    assert_eq!(clock.phase_name(Phase::Prefill), "prefill");
    // The keys are counted; the timed runs after them are not estimates.
    assert!(clock.phase_estimated() && clock.plan_estimated());
    let left = clock.phase_left(secs(1), 100, 100.0);
    assert_eq!(left, Some(secs(9)));
    assert_eq!(clock.plan_left(left, 100.0), Some(secs(29)));
    clock.start_phase(Phase::Run(1), c.stop, Instant::now());
    assert!(!clock.phase_estimated() && !clock.plan_estimated());
}

#[test]
fn progress_interval_defaults_to_ten_seconds_and_zero_turns_it_off() {
    assert_eq!(config("").unwrap().progress_interval, Some(secs(10)));
    assert_eq!(
        config("--progress-interval 2.5").unwrap().progress_interval,
        Some(Duration::from_millis(2500))
    );
    assert_eq!(
        config("--progress-interval 0").unwrap().progress_interval,
        None
    );
    let e = config("--progress-interval -1").unwrap_err();
    assert_eq!(e.flag, "--progress-interval", "{e}");
}
