//! `--start-at barrier`: the run id every shard of one run shares
//! (`--run-id`, or the launcher's job id from the environment) and
//! `--barrier-timeout`, the bound on the wait for the other shards
//! (docs/scale-out.md, "Barrier start").

use std::time::Duration;

use crate::error::UsageError;

/// The longest run id: it becomes part of a key on the target server.
pub const MAX_RUN_ID: usize = 128;

/// `--barrier-timeout`'s default, seconds: room for every pod to be
/// scheduled, pull its image and connect.
pub const DEFAULT_BARRIER_TIMEOUT_S: f64 = 300.0;

/// Where the run id came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunIdSource {
    /// `--run-id`.
    Flag,
    /// `KVBENCH_RUN_ID` (the Kubernetes recipe sets it to the Job's uid).
    Env,
    /// `SLURM_JOB_ID`, with `SLURM_STEP_ID` when set.
    Slurm,
}

impl RunIdSource {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            RunIdSource::Flag => "flag",
            RunIdSource::Env => "env",
            RunIdSource::Slurm => "slurm",
        }
    }
}

/// The variable a launcher without a job id of its own (a Kubernetes Job,
/// a script) sets to one id shared by every shard of a run.
pub const RUN_ID_ENV: &str = "KVBENCH_RUN_ID";

/// The barrier every shard of one run meets at on the target server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Barrier {
    /// The id all shards of the run share; part of the barrier's keys.
    pub run_id: String,
    /// Where it came from.
    pub source: RunIdSource,
    /// `--barrier-timeout`: how long a shard waits for the others.
    pub timeout: Duration,
}

/// The run id from `--run-id`, else from the environment (`env` reads one
/// variable; tests pass a map): `KVBENCH_RUN_ID`, then Slurm's
/// `SLURM_JOB_ID` (`.SLURM_STEP_ID` appended when set, so that two `srun`
/// steps of one job meet at two barriers).
pub fn run_id(
    flag: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, RunIdSource), UsageError> {
    let found = if let Some(id) = flag {
        (id.to_string(), RunIdSource::Flag)
    } else if let Some(id) = env(RUN_ID_ENV).filter(|v| !v.is_empty()) {
        (id, RunIdSource::Env)
    } else if let Some(job) = env("SLURM_JOB_ID").filter(|v| !v.is_empty()) {
        let id = match env("SLURM_STEP_ID").filter(|v| !v.is_empty()) {
            Some(step) => format!("{job}.{step}"),
            None => job,
        };
        (id, RunIdSource::Slurm)
    } else {
        return Err(UsageError::new(
            "--run-id",
            format!(
                "is needed by --start-at barrier: give every shard of the run the same --run-id ID (or set {RUN_ID_ENV}; under Slurm SLURM_JOB_ID is used)"
            ),
        ));
    };
    check_run_id(&found.0)?;
    Ok(found)
}

/// A run id is 1 to [`MAX_RUN_ID`] printable ASCII characters without
/// spaces or braces (a brace would change the Redis Cluster hash tag).
fn check_run_id(id: &str) -> Result<(), UsageError> {
    let bad = id
        .chars()
        .find(|c| !c.is_ascii_graphic() || matches!(c, '{' | '}'));
    if id.is_empty() || id.len() > MAX_RUN_ID || bad.is_some() {
        return Err(UsageError::new(
            "--run-id",
            format!(
                "'{id}' is not a run id: give 1 to {MAX_RUN_ID} printable characters without spaces or braces, e.g. --run-id bench-42"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn the_flag_wins_then_kvbench_run_id_then_slurm() {
        let env = lookup(&[
            ("KVBENCH_RUN_ID", "k8s-job"),
            ("SLURM_JOB_ID", "77"),
            ("SLURM_STEP_ID", "0"),
        ]);
        assert_eq!(
            run_id(Some("mine"), &env).unwrap(),
            ("mine".into(), RunIdSource::Flag)
        );
        assert_eq!(
            run_id(None, &env).unwrap(),
            ("k8s-job".into(), RunIdSource::Env)
        );
        let slurm = lookup(&[("SLURM_JOB_ID", "77"), ("SLURM_STEP_ID", "3")]);
        assert_eq!(
            run_id(None, &slurm).unwrap(),
            ("77.3".into(), RunIdSource::Slurm)
        );
        let job_only = lookup(&[("SLURM_JOB_ID", "77")]);
        assert_eq!(run_id(None, &job_only).unwrap().0, "77");
    }

    #[test]
    fn no_run_id_or_a_bad_one_names_the_flag() {
        let e = run_id(None, &lookup(&[])).unwrap_err();
        assert_eq!(e.flag, "--run-id");
        assert!(e.message.contains("--start-at barrier"), "{e}");
        for bad in ["", "a b", "x{y}", &"r".repeat(MAX_RUN_ID + 1), "é"] {
            let e = run_id(Some(bad), &lookup(&[])).unwrap_err();
            assert_eq!(e.flag, "--run-id", "{bad}");
        }
        assert!(run_id(Some(&"r".repeat(MAX_RUN_ID)), &lookup(&[])).is_ok());
    }
}
