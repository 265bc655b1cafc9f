//! redis-benchmark's `-I` in `kvbench suite`: `-c` connections opened and
//! left idle, for as long as [`IdlePlan::wait`] says (run by
//! [`crate::tools::suite::idle`]).

use std::time::Duration;

use super::{OutputMode, SuitePlan, suite_flag};
use crate::cli::{Args, SuiteArgs};
use crate::config::Config;
use crate::error::UsageError;

/// `-I` without `--test-time` waits this long: redis-benchmark waits
/// forever, which no script can end but by a signal.
const DEFAULT_IDLE: Duration = Duration::from_secs(60);

/// redis-benchmark's `-I`: connections opened and left idle.
#[derive(Debug, Clone)]
pub struct IdlePlan {
    /// How many (`-c`).
    pub connections: usize,
    /// How long they stay open, unless interrupted first.
    pub wait: Duration,
    /// Where they go and how they authenticate.
    pub config: Config,
}

/// `-I`: the connections' configuration, validated like a step's, and no steps.
pub(super) fn plan(
    a: &SuiteArgs,
    mut args: Args,
    connections: usize,
    precision: usize,
) -> Result<SuitePlan, UsageError> {
    if !a.command.is_empty() {
        return Err(UsageError::new(
            "-I",
            "opens idle connections and sends nothing, so the command after the flags would not run; drop one of them",
        ));
    }
    let wait = match a.test_time {
        Some(secs) if secs > 0.0 && secs.is_finite() => Duration::from_secs_f64(secs),
        Some(_) => {
            return Err(UsageError::new(
                "--test-time",
                "must be above 0 seconds; e.g. --test-time 10",
            ));
        }
        None => DEFAULT_IDLE,
    };
    args.command = Some(vec!["PING".to_string()]);
    args.test_time = None;
    let config = Config::from_args(args).map_err(suite_flag)?;
    Ok(SuitePlan {
        steps: Vec::new(),
        output: OutputMode::Quiet,
        repeat: false,
        json_out_file: None,
        html_out_file: None,
        warnings: Vec::new(),
        allow_invalid: a.allow_invalid,
        width: crate::config::table_width(a.wide),
        precision,
        show_errors: false,
        idle: Some(IdlePlan {
            connections,
            wait,
            config,
        }),
    })
}
