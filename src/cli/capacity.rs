//! `kvbench capacity`'s flags: what the user typed. The search's own flags
//! (`--slo`, `--resolution`, …) beside every flag of a benchmark, which the
//! capacity subcommand takes as they are ([`Args`]). The search itself is
//! [`crate::tools::capacity`]; the options built from these are
//! [`crate::config::capacity`].

use super::Args;

/// The exit codes of `kvbench capacity`, as its `--help` ends with them
/// (docs/capacity.md lists the same).
pub const CAPACITY_EXIT_CODES: &str = "Exit codes: 0 a capacity was found and the confirmation \
run met the SLO; 1 no rate tried met the SLO, a report could not be written, or another failure; \
2 bad input or a server that cannot be used, before any load; 3 the confirmation run's verdict \
says it is not valid (--allow-invalid exits 0); 5 the confirmation run at the capacity missed \
the SLO; 6 --max-steps ended the search before the interval was within --resolution; \
130 / 143 interrupted.";

/// The search's own flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SearchArgs {
    /// The latency objective, PERCENTILE=LIMIT with a unit (us, ms, s), e.g.
    /// p99=5ms; repeat for several (all must hold). Required
    #[arg(long, value_name = "pQ=LIMIT", action = clap::ArgAction::Append, help_heading = "Capacity")]
    pub slo: Vec<String>,
    /// The search ends once (high − low) ≤ this percentage of low [default: 2]
    #[arg(long, value_name = "PERCENT", help_heading = "Capacity")]
    pub resolution: Option<f64>,
    /// Seconds measured per step, at least 1 [default: 10]
    #[arg(long, value_name = "SECS", help_heading = "Capacity")]
    pub step_time: Option<f64>,
    /// Seconds of warm-up before each step, not measured [default: 1]
    #[arg(long, value_name = "SECS", help_heading = "Capacity")]
    pub step_warmup: Option<f64>,
    /// The first rate tried, ops/s in total [default: 1000]
    #[arg(long, value_name = "OPS", help_heading = "Capacity")]
    pub start_rate: Option<f64>,
    /// Steps at most, repeats not counted [default: 30]
    #[arg(long, value_name = "N", help_heading = "Capacity")]
    pub max_steps: Option<u32>,
    /// Repeats of a step whose confidence bound holds the SLO's limit, each
    /// pooled with the step's samples [default: 2]
    #[arg(long, value_name = "N", help_heading = "Capacity")]
    pub max_repeats: Option<u32>,
}

/// `kvbench capacity`: the search's flags and a benchmark's.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(
    about = "The most throughput under a latency SLO: an open-loop search over --rate (docs/capacity.md)",
    disable_help_flag = true,
    disable_version_flag = true,
    // `-v` is among the benchmark's flags, and needs the version.
    version = env!("KVBENCH_VERSION"),
    allow_negative_numbers = true,
    args_override_self = true,
    max_term_width = 100,
    after_help = CAPACITY_EXIT_CODES
)]
pub struct CapacityArgs {
    /// `--slo`, `--resolution`, ….
    #[command(flatten)]
    pub search: SearchArgs,
    /// Every other flag, as a benchmark takes it (`--rate` and the like are
    /// refused by [`crate::config::capacity`]). Their display order counts
    /// from 0, as in the benchmark's own command: the man page's synopsis,
    /// which sorts by it, lists the search's flags among theirs.
    #[command(flatten, next_display_order = 0)]
    pub run: Args,
}
