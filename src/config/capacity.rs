//! What `kvbench capacity` takes: the latency SLOs and the search's settings,
//! typed and validated, and the benchmark configuration every step starts
//! from ([`CapacityPlan`]), built from what the user typed
//! ([`crate::cli::CapacityArgs`]). Every mistake is a [`UsageError`] naming
//! the flag, before any connection.

use std::time::Duration;

use crate::cli::{CapacityArgs, RunsArg, SecsOrAuto};
use crate::config::bounds::seconds;
use crate::config::start_at::barrier::MAX_RUN_ID;
use crate::config::{Arrival, Config, Missed, Rate, Stop};
use crate::error::UsageError;
use crate::protocol::wire::Protocol;

/// `--resolution` when not given, percent.
pub const DEFAULT_RESOLUTION_PERCENT: f64 = 2.0;
/// `--step-time` when not given, seconds.
pub const DEFAULT_STEP_TIME_SECS: f64 = 10.0;
/// `--step-warmup` when not given, seconds: long enough for the connections'
/// schedules to settle and a server's queue to reach its level at the new
/// rate, short next to the step.
pub const DEFAULT_STEP_WARMUP_SECS: f64 = 1.0;
/// `--start-rate` when not given, ops/s.
pub const DEFAULT_START_RATE: f64 = 1000.0;
/// `--max-steps` when not given: doubling from 1 ops/s to 1e9 takes 30.
pub const DEFAULT_MAX_STEPS: u32 = 30;
/// The suffix each try of a step on a fleet adds to the run id at most:
/// `.step-` and five digits.
pub const STEP_SUFFIX_MAX: usize = 11;
/// `--max-repeats` when not given.
pub const DEFAULT_MAX_REPEATS: u32 = 2;

/// One latency objective: the `percentile` of the response times stays at
/// or below `limit_us`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slo {
    /// The percentile, in (0, 100).
    pub percentile: f64,
    /// The limit, µs.
    pub limit_us: u64,
}

impl Slo {
    /// Parses `p99=5ms` (`99=5ms`, `p99.9=500us`, `p50=0.2s`).
    pub fn parse(text: &str) -> Result<Slo, UsageError> {
        let example = "give PERCENTILE=LIMIT with a unit, e.g. --slo p99=5ms or --slo p99.9=500us";
        let bad = |why: String| UsageError::new("--slo", format!("{why}; {example}"));
        let (percentile, limit) = text
            .split_once('=')
            .ok_or_else(|| bad(format!("'{text}' has no '='")))?;
        let digits = percentile.trim().trim_start_matches(['p', 'P']);
        let percentile: f64 = digits
            .parse()
            .map_err(|_| bad(format!("'{percentile}' is not a percentile")))?;
        if !(percentile > 0.0 && percentile < 100.0) {
            return Err(bad(format!(
                "the percentile must be above 0 and below 100 (got {percentile}); the maximum is no percentile a sample can bound"
            )));
        }
        let limit = limit.trim();
        let (number, scale_us) = if let Some(n) = limit.strip_suffix("us") {
            (n, 1.0)
        } else if let Some(n) = limit.strip_suffix("ms") {
            (n, 1e3)
        } else if let Some(n) = limit.strip_suffix('s') {
            (n, 1e6)
        } else {
            return Err(bad(format!(
                "the limit '{limit}' has no unit (us, ms or s)"
            )));
        };
        let value: f64 = number
            .trim()
            .parse()
            .map_err(|_| bad(format!("'{limit}' is not a duration")))?;
        let limit_us = value * scale_us;
        if !(1.0..=3.6e9).contains(&limit_us) {
            return Err(bad(format!(
                "the limit must be from 1us to one hour (got {limit})"
            )));
        }
        Ok(Slo {
            percentile,
            limit_us: limit_us.round() as u64,
        })
    }

    /// `p99 ≤ 5 ms`, as the answer line and the tables write it.
    pub fn label(&self) -> String {
        format!("p{} ≤ {}", self.percentile, limit_label(self.limit_us))
    }
}

/// A limit in its natural unit: `500 us`, `5 ms`, `1.5 s`.
pub fn limit_label(us: u64) -> String {
    if us < 1000 {
        format!("{us} us")
    } else if us < 1_000_000 {
        format!("{} ms", us as f64 / 1e3)
    } else {
        format!("{} s", us as f64 / 1e6)
    }
}

/// A validated `kvbench capacity`.
#[derive(Debug, Clone)]
pub struct CapacityPlan {
    /// `--slo`, at least one, each to hold.
    pub slos: Vec<Slo>,
    /// `--resolution` as a fraction (0.02 = 2 %).
    pub resolution: f64,
    /// `--step-time`.
    pub step_time: Duration,
    /// `--step-warmup`.
    pub step_warmup: Duration,
    /// `--start-rate`, ops/s.
    pub start_rate: f64,
    /// `--max-steps`.
    pub max_steps: u32,
    /// `--max-repeats`.
    pub max_repeats: u32,
    /// How long the confirmation run at the capacity lasts: `--test-time`,
    /// or `--step-time` without it.
    pub confirm_time: Duration,
    /// The benchmark every step runs, at the start rate: the workload, the
    /// connections and the reports of the user's flags.
    pub base: Config,
}

/// The flags of a benchmark that the search sets itself, and why each is
/// refused.
const SET_BY_THE_SEARCH: &[(&str, &str)] = &[
    (
        "--rate",
        "the search chooses the rate; give the first with --start-rate",
    ),
    (
        "--rate-limiting",
        "the search drives an open loop with a total rate; give the first with --start-rate",
    ),
    (
        "--requests",
        "steps are timed; give their length with --step-time",
    ),
    (
        "--run-count",
        "each step is one run; give repeats of an undecided step with --max-repeats",
    ),
    (
        "--metrics-listen",
        "live metrics of a search are not supported yet",
    ),
    (
        "--statsd-host",
        "live metrics of a search are not supported yet",
    ),
];

impl CapacityPlan {
    /// Validates `args`: the search's flags, then the benchmark's.
    pub fn from_args(args: CapacityArgs) -> Result<CapacityPlan, UsageError> {
        let s = &args.search;
        if s.slo.is_empty() {
            return Err(UsageError::new(
                "--slo",
                "is required: the latency objective the capacity is for, e.g. --slo p99=5ms",
            ));
        }
        let slos = s
            .slo
            .iter()
            .map(|t| Slo::parse(t))
            .collect::<Result<Vec<_>, _>>()?;
        let resolution = s.resolution.unwrap_or(DEFAULT_RESOLUTION_PERCENT);
        if !(0.1..=50.0).contains(&resolution) {
            return Err(UsageError::new(
                "--resolution",
                format!(
                    "must be a percentage from 0.1 to 50 (got {}); e.g. --resolution 2",
                    super::bounds::shown(resolution)
                ),
            ));
        }
        let step_secs = s.step_time.unwrap_or(DEFAULT_STEP_TIME_SECS);
        let step_time = seconds("--step-time", step_secs, false)?;
        if step_secs < 1.0 {
            return Err(UsageError::new(
                "--step-time",
                format!(
                    "must be at least 1 second (got {}): a shorter step is no rate; e.g. --step-time 2",
                    super::bounds::shown(step_secs)
                ),
            ));
        }
        let step_warmup = seconds(
            "--step-warmup",
            s.step_warmup.unwrap_or(DEFAULT_STEP_WARMUP_SECS),
            true,
        )?;
        let start_rate = s.start_rate.unwrap_or(DEFAULT_START_RATE);
        if !(1.0..=1e9).contains(&start_rate) {
            return Err(UsageError::new(
                "--start-rate",
                format!(
                    "must be from 1 to 1e9 requests per second (got {}); e.g. --start-rate 1000",
                    super::bounds::shown(start_rate)
                ),
            ));
        }
        let max_steps = s.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
        if max_steps < 2 {
            return Err(UsageError::new(
                "--max-steps",
                format!(
                    "must be at least 2 (got {max_steps}): one step meeting and one failing make an interval"
                ),
            ));
        }
        let max_repeats = s.max_repeats.unwrap_or(DEFAULT_MAX_REPEATS);
        if max_repeats > 10 {
            return Err(UsageError::new(
                "--max-repeats",
                format!("must be at most 10 (got {max_repeats}); e.g. --max-repeats 2"),
            ));
        }
        let mut run = args.run;
        refuse_set_by_search(&run)?;
        let confirm_time = match run.test_time {
            Some(SecsOrAuto::Secs(secs)) => {
                seconds("--test-time", secs, false)?.max(Duration::from_secs(1))
            }
            Some(SecsOrAuto::Auto) => {
                return Err(UsageError::new(
                    "--test-time",
                    "auto is not for kvbench capacity, whose steps and confirmation have their lengths (--step-time); give --test-time in seconds",
                ));
            }
            None => step_time,
        };
        // Built as a timed open loop at the start rate, so that the arrival,
        // the headline and every check of `--rate` apply; each step then
        // changes the rate only.
        run.rate = Some(start_rate);
        run.test_time = Some(SecsOrAuto::Secs(step_secs));
        let base = Config::from_args(run)?;
        if base.is_sweep() {
            return Err(UsageError::new(
                "kvbench capacity",
                "searches one workload: give single values, not lists (-t, -c, --pipeline, -d, --ratio)",
            ));
        }
        check_fleet(&base)?;
        Ok(CapacityPlan {
            slos,
            resolution: resolution / 100.0,
            step_time,
            step_warmup,
            start_rate,
            max_steps,
            max_repeats,
            confirm_time,
            base,
        })
    }
}

impl CapacityPlan {
    /// The configuration of a step at `rate`: the base workload, timed by
    /// `--step-time` after `--step-warmup`, writing no files of its own (the
    /// capacity's reports are written once, with every step in them).
    pub fn step(&self, rate: f64, first: bool) -> Config {
        let mut c = self.base.clone();
        let arrival = self.base.rate.map_or(Arrival::Constant, |r| r.arrival);
        // On a fleet `rate` is the total of all shards; this shard runs its share.
        c.rate = Some(Rate {
            total_per_sec: rate / f64::from(self.base.shard_count()),
            arrival,
            missed: Missed::Kept,
        });
        c.stop = Stop::Time(self.step_time);
        c.run_count = 1;
        // The user's --warmup-time warms the server up once, before the first step.
        c.warmup = if first {
            self.step_warmup.max(self.base.warmup)
        } else {
            self.step_warmup
        };
        c.prefill = self.base.prefill && first;
        c.output.json_out_file = None;
        c.output.html_out_file = None;
        c.output.hdr_file_prefix = None;
        c.output.out_file = None;
        c.ramp.client_stats = None;
        c
    }

    /// The configuration of the confirmation run at `rate`: the step's, for
    /// `--test-time`, with the user's outputs.
    pub fn confirmation(&self, rate: f64) -> Config {
        let mut c = self.step(rate, false);
        c.stop = Stop::Time(self.confirm_time);
        c.output = self.base.output.clone();
        c.ramp.client_stats = self.base.ramp.client_stats.clone();
        c
    }
}

/// Refuses the benchmark flags the search sets itself.
fn refuse_set_by_search(run: &crate::cli::Args) -> Result<(), UsageError> {
    let given = [
        run.rate.is_some(),
        run.rate_limiting.is_some(),
        run.requests.is_some(),
        run.run_count.is_some_and(|n| n != RunsArg::Count(1)),
        run.metrics_listen.is_some(),
        run.statsd_host.is_some(),
    ];
    match SET_BY_THE_SEARCH.iter().zip(given).find(|(_, g)| *g) {
        Some(((flag, why), _)) => Err(UsageError::new(
            flag,
            format!("is not taken by kvbench capacity: {why}"),
        )),
        None => Ok(()),
    }
}

/// A search over several machines (a shard count above 1, from the flags
/// or the launcher) needs the start barrier: every step starts on every
/// shard at once, and each shard posts its measurements on the same Redis
/// server (docs/capacity.md, "On a fleet").
fn check_fleet(base: &Config) -> Result<(), UsageError> {
    let barrier = base.start_at.as_ref().and_then(|s| s.barrier());
    let fleet = base.shard_count() > 1;
    if base.start_at.is_some() && barrier.is_none() {
        return Err(UsageError::new(
            "--start-at",
            "is not taken by kvbench capacity as a time: each step starts when the previous one ends; on several machines give --start-at barrier",
        ));
    }
    let Some(barrier) = barrier else {
        if fleet {
            return Err(UsageError::new(
                "--shard-count",
                "a search over several machines needs --start-at barrier (with the same --run-id on every shard), so that every shard runs each step at once",
            ));
        }
        return Ok(());
    };
    if !fleet {
        return Err(UsageError::new(
            "--start-at",
            "barrier meets the shards of a search over several machines; give --shard-count N and --shard-index I on each, or remove --start-at",
        ));
    }
    if matches!(
        base.target.protocol,
        Protocol::MemcacheText | Protocol::MemcacheBinary
    ) {
        return Err(UsageError::new(
            "--shard-count",
            "a search over several machines posts each step's histograms on a Redis server; memcached targets are not supported yet: run the search on one machine",
        ));
    }
    let most = MAX_RUN_ID - STEP_SUFFIX_MAX;
    if barrier.run_id.len() > most {
        return Err(UsageError::new(
            "--run-id",
            format!(
                "each step of the search meets under the run id plus a step suffix, so it may have at most {most} characters; give a shorter --run-id"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Slo;

    #[test]
    fn an_slo_takes_a_percentile_and_a_limit_with_its_unit() {
        let slo = Slo::parse("p99=5ms").unwrap();
        assert_eq!((slo.percentile, slo.limit_us), (99.0, 5000));
        let slo = Slo::parse("99.9=500us").unwrap();
        assert_eq!((slo.percentile, slo.limit_us), (99.9, 500));
        assert_eq!(Slo::parse("p50=0.2s").unwrap().limit_us, 200_000);
        assert_eq!(Slo::parse("p99=5ms").unwrap().label(), "p99 ≤ 5 ms");
    }

    #[test]
    fn a_bad_slo_names_the_flag_and_an_example() {
        for text in [
            "p99",
            "p99=5",
            "p100=5ms",
            "p0=5ms",
            "px=5ms",
            "p99=0us",
            "p99=fast ms",
        ] {
            let e = Slo::parse(text).unwrap_err();
            assert_eq!(e.flag, "--slo", "{text}");
            assert!(
                e.message.contains("e.g. --slo p99=5ms"),
                "{text}: {}",
                e.message
            );
        }
    }
}
