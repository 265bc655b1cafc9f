//! How a thread's connections come up, and what each tells besides the
//! report: memtier's staircase ramp-up (`--clients-start`, `--clients-step`,
//! `--step-duration`), its pause between two connections a thread opens
//! (`--thread-conn-start-{min,max}-jitter-micros`), its per-client stats
//! files (`--client-stats`) and its debug lines (`-D`/`--debug`). Every
//! refusal names the flag and the fix, before any connection opens.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::Args;
use crate::config::Stop;
use crate::error::UsageError;

/// The staircase: each thread opens `start` connections when a phase starts
/// and `step` more every `step_duration`, up to `-c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Staircase {
    /// Connections per thread at the start of a phase (`--clients-start`).
    pub start: usize,
    /// Connections per thread added at each step (`--clients-step`).
    pub step: usize,
    /// Time between two steps (`--step-duration`, whole seconds as memtier).
    pub step_duration: Duration,
}

impl Staircase {
    /// Connections per thread `elapsed` into a phase, of at most `clients`:
    /// memtier's `start + step * floor(elapsed / step_duration)`.
    pub fn active_at(&self, elapsed: Duration, clients: usize) -> usize {
        let steps = elapsed.as_nanos() / self.step_duration.as_nanos().max(1);
        let steps = usize::try_from(steps).unwrap_or(usize::MAX);
        self.start
            .saturating_add(self.step.saturating_mul(steps))
            .min(clients)
    }

    /// How many steps it takes to reach `clients` (memtier's `num_steps`).
    pub fn steps_to(&self, clients: usize) -> usize {
        clients
            .saturating_sub(self.start)
            .div_ceil(self.step.max(1))
    }
}

/// The pause between two connections a thread opens, drawn uniformly from
/// `min_us..=max_us` (memtier's rule: none after the last one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Jitter {
    /// `--thread-conn-start-min-jitter-micros`.
    pub min_us: u32,
    /// `--thread-conn-start-max-jitter-micros`; 0 turns the pause off.
    pub max_us: u32,
}

impl Jitter {
    /// True when threads pause between connections at all (memtier pauses
    /// only when the maximum is above 0).
    pub fn is_on(&self) -> bool {
        self.max_us > 0
    }
}

/// What memtier's connection options asked for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ramp {
    /// `None` opens every connection before the phase starts.
    pub staircase: Option<Staircase>,
    /// Pauses between the connections a thread opens.
    pub jitter: Jitter,
    /// `--client-stats`: the prefix of the per-connection CSV files.
    pub client_stats: Option<PathBuf>,
    /// `-D`, as often as given: debug lines on stderr.
    pub debug: u8,
}

/// The ramp options of this command line; `clients` are the `-c` values,
/// `cells` the sweep's cells (1 without a sweep).
pub(super) fn build_ramp(
    a: &Args,
    clients: &[usize],
    cells: usize,
    stop: Stop,
) -> Result<Ramp, UsageError> {
    let jitter = Jitter {
        min_us: a.thread_conn_start_min_jitter_micros.unwrap_or(0),
        max_us: a.thread_conn_start_max_jitter_micros.unwrap_or(0),
    };
    if jitter.min_us > jitter.max_us {
        return Err(UsageError::new(
            "--thread-conn-start-min-jitter-micros",
            format!(
                "({}) cannot be greater than --thread-conn-start-max-jitter-micros ({}); give a minimum at most the maximum, e.g. --thread-conn-start-max-jitter-micros {}",
                jitter.min_us, jitter.max_us, jitter.min_us
            ),
        ));
    }
    if a.client_stats.is_some() && cells > 1 {
        return Err(UsageError::new(
            "--client-stats",
            "names its files by run, thread and client, and a sweep's cells would overwrite each other's; run one cell at a time",
        ));
    }
    Ok(Ramp {
        staircase: build_staircase(a, clients, stop)?,
        jitter,
        client_stats: a.client_stats.clone(),
        debug: a.debug,
    })
}

fn build_staircase(
    a: &Args,
    clients: &[usize],
    stop: Stop,
) -> Result<Option<Staircase>, UsageError> {
    let given = [
        ("--clients-start", a.clients_start),
        ("--clients-step", a.clients_step),
        ("--step-duration", a.step_duration),
    ];
    if given.iter().all(|(_, v)| v.is_none()) {
        return Ok(None);
    }
    for (flag, value) in given {
        match value {
            None => {
                return Err(UsageError::new(
                    flag,
                    "is missing: --clients-start, --clients-step and --step-duration must all be given together for the staircase ramp-up",
                ));
            }
            Some(0) => {
                return Err(UsageError::new(
                    flag,
                    format!("must be greater than zero (got 0); e.g. {flag} 1"),
                ));
            }
            Some(_) => {}
        }
    }
    let (start, step, secs) = (
        a.clients_start.unwrap_or(1) as usize,
        a.clients_step.unwrap_or(1) as usize,
        a.step_duration.unwrap_or(1),
    );
    if clients.len() > 1 {
        return Err(UsageError::new(
            "--clients-start",
            "ramps up to one -c, and the sweep changes it; give a single -c value",
        ));
    }
    let most = clients.first().copied().unwrap_or(1);
    if start >= most {
        return Err(UsageError::new(
            "--clients-start",
            format!(
                "({start}) must be less than --clients ({most}): the staircase climbs to -c; give e.g. --clients-start 1"
            ),
        ));
    }
    if !matches!(stop, Stop::Time(_)) {
        return Err(UsageError::new(
            "--clients-start",
            "needs --test-time: the staircase's steps are seconds of a timed run, as in memtier",
        ));
    }
    for (flag, given) in [
        ("--rate", a.rate.is_some()),
        ("--rate-limiting", a.rate_limiting.is_some()),
        ("--prefill", a.prefill),
    ] {
        if given {
            return Err(UsageError::new(
                flag,
                "is not supported with the staircase ramp-up (--clients-start) yet; drop one of them",
            ));
        }
    }
    Ok(Some(Staircase {
        start,
        step,
        step_duration: Duration::from_secs(u64::from(secs)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use crate::config::Config;
    use clap::Parser;

    fn config(args: &[&str]) -> Result<Config, UsageError> {
        let mut full = vec!["kvbench", "--test-time", "5", "-c", "4"];
        full.extend_from_slice(args);
        Config::from_args(Cli::try_parse_from(full).unwrap().run)
    }

    #[test]
    fn the_staircase_takes_its_three_flags_together() {
        let c = config(&[
            "--clients-start",
            "1",
            "--clients-step",
            "2",
            "--step-duration",
            "3",
        ])
        .unwrap();
        let s = c.ramp.staircase.unwrap();
        assert_eq!((s.start, s.step), (1, 2));
        assert_eq!(s.step_duration, Duration::from_secs(3));
        let e = config(&["--clients-start", "1", "--step-duration", "3"]).unwrap_err();
        assert_eq!(e.flag, "--clients-step");
        assert!(config(&[]).unwrap().ramp.staircase.is_none());
    }

    #[test]
    fn jitter_refuses_a_minimum_above_its_maximum() {
        let e = config(&["--thread-conn-start-min-jitter-micros", "9"]).unwrap_err();
        assert_eq!(e.flag, "--thread-conn-start-min-jitter-micros");
        let c = config(&[
            "--thread-conn-start-min-jitter-micros",
            "5",
            "--thread-conn-start-max-jitter-micros",
            "9",
        ])
        .unwrap();
        assert_eq!(
            c.ramp.jitter,
            Jitter {
                min_us: 5,
                max_us: 9
            }
        );
    }

    #[test]
    fn debug_counts_each_d() {
        assert_eq!(config(&["-D", "--debug"]).unwrap().ramp.debug, 2);
        assert_eq!(config(&[]).unwrap().ramp.debug, 0);
    }

    fn stair() -> Staircase {
        Staircase {
            start: 2,
            step: 3,
            step_duration: Duration::from_secs(4),
        }
    }

    #[test]
    fn the_staircase_adds_a_step_every_step_duration_up_to_clients() {
        let s = stair();
        let at = |secs: f64| s.active_at(Duration::from_secs_f64(secs), 10);
        assert_eq!(at(0.0), 2);
        assert_eq!(at(3.999), 2);
        assert_eq!(at(4.0), 5);
        assert_eq!(at(8.5), 8);
        assert_eq!(at(12.0), 10);
        assert_eq!(at(1e6), 10);
    }

    #[test]
    fn steps_to_rounds_a_partial_last_step_up() {
        assert_eq!(stair().steps_to(10), 3);
        assert_eq!(stair().steps_to(8), 2);
        assert_eq!(stair().steps_to(2), 0);
    }

    #[test]
    fn jitter_is_off_unless_its_maximum_is_above_zero() {
        assert!(!Jitter::default().is_on());
        assert!(
            Jitter {
                min_us: 0,
                max_us: 1
            }
            .is_on()
        );
    }
}
