//! Which shard of a multi-machine run this process is: `--shard-index` and
//! `--shard-count`, or what the launcher put in the environment (a Kubernetes
//! Indexed Job, Slurm, Open MPI, PMI), and the `{shard}` and `{host}`
//! placeholders of the output file names.
//!
//! A shard numbers its connections globally (see [`Shard::slot_base`]), so the
//! key slices, sequential walks, `--prefill` and the `--rate` schedule of N
//! shards tile exactly what one machine with all their connections would do.
//! docs/scale-out.md describes the whole method.

use std::path::{Path, PathBuf};

use crate::cli::Args;
use crate::config::{Config, Rate};
use crate::error::UsageError;
use crate::workload::keys::KeyRange;
use crate::workload::seed::derive_seed;

/// Where the shard's identity came from; the report's `shard.source` is its
/// [`ShardSource::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShardSource {
    /// `--shard-index` and `--shard-count`.
    Flags,
    /// `JOB_COMPLETION_INDEX` (with `--shard-count` or `KVBENCH_SHARD_COUNT`).
    Kubernetes,
    /// `SLURM_PROCID` and `SLURM_NTASKS`.
    Slurm,
    /// `OMPI_COMM_WORLD_RANK` and `OMPI_COMM_WORLD_SIZE`.
    OpenMpi,
    /// `PMI_RANK` and `PMI_SIZE` (MPICH, Intel MPI, Hydra).
    Pmi,
}

impl ShardSource {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            ShardSource::Flags => "flags",
            ShardSource::Kubernetes => "kubernetes",
            ShardSource::Slurm => "slurm",
            ShardSource::OpenMpi => "openmpi",
            ShardSource::Pmi => "pmi",
        }
    }
}

/// This process's place among the shards of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// From 0.
    pub index: u32,
    /// At least 1; `index < count`.
    pub count: u32,
    /// Where the two came from.
    pub source: ShardSource,
}

impl Shard {
    /// The global number of this shard's first connection, when each shard
    /// has `per_shard` connections.
    pub fn slot_base(&self, per_shard: usize) -> u64 {
        u64::from(self.index) * per_shard as u64
    }
}

/// The environment variable that gives a Kubernetes Indexed Job its count:
/// a Job exports its index but not its `completions`.
pub const SHARD_COUNT_ENV: &str = "KVBENCH_SHARD_COUNT";

/// The launchers whose variables are read, in order: the first whose index
/// variable is set wins. Kubernetes has no count variable of its own.
const LAUNCHERS: [(ShardSource, &str, Option<&str>); 4] = [
    (ShardSource::Kubernetes, "JOB_COMPLETION_INDEX", None),
    (ShardSource::Slurm, "SLURM_PROCID", Some("SLURM_NTASKS")),
    (
        ShardSource::OpenMpi,
        "OMPI_COMM_WORLD_RANK",
        Some("OMPI_COMM_WORLD_SIZE"),
    ),
    (ShardSource::Pmi, "PMI_RANK", Some("PMI_SIZE")),
];

/// The shard from the flags, or else from the environment (`env` reads one
/// variable; tests pass a map instead of the process's environment). `None`
/// is a run on one machine.
pub fn detect(
    index: Option<u32>,
    count: Option<u32>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Shard>, UsageError> {
    match (index, count) {
        (Some(index), Some(count)) => {
            let names = ("--shard-index", "--shard-count");
            return checked(index, count, ShardSource::Flags, names);
        }
        (Some(_), None) => {
            return Err(UsageError::new(
                "--shard-index",
                "needs --shard-count too: give both (e.g. --shard-index 0 --shard-count 4), or neither to read them from the launcher's environment",
            ));
        }
        _ => {}
    }
    for (source, index_var, count_var) in LAUNCHERS {
        let Some(text) = env(index_var) else {
            continue;
        };
        let index = number(index_var, &text)?;
        // The count is named by where it came from: a zero SLURM_NTASKS is
        // no mistake of --shard-count, which was never given.
        let (count, count_name) = match (count, count_var) {
            (Some(count), _) => (count, "--shard-count"),
            (None, Some(var)) => match env(var) {
                Some(text) => (number(var, &text)?, var),
                None => {
                    return Err(UsageError::new(
                        index_var,
                        format!("is set but {var} is not; give --shard-count"),
                    ));
                }
            },
            (None, None) => match env(SHARD_COUNT_ENV) {
                Some(text) => (number(SHARD_COUNT_ENV, &text)?, SHARD_COUNT_ENV),
                None => {
                    return Err(UsageError::new(
                        "--shard-count",
                        format!(
                            "{index_var} says this is shard {index} of a Kubernetes Indexed Job, but a Job does not export its completions; give --shard-count N or set {SHARD_COUNT_ENV}=N"
                        ),
                    ));
                }
            },
        };
        return checked(index, count, source, (index_var, count_name));
    }
    match count {
        Some(_) => Err(UsageError::new(
            "--shard-count",
            "needs --shard-index too (or a launcher's index in the environment: JOB_COMPLETION_INDEX, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK)",
        )),
        None => Ok(None),
    }
}

fn number(name: &str, text: &str) -> Result<u32, UsageError> {
    text.trim().parse().map_err(|_| {
        UsageError::new(
            name,
            format!("'{text}' is not a whole number from 0 to {}", u32::MAX),
        )
    })
}

/// The shard `index` of `count`, each refused by the name it came from
/// (`names`: the flag or variable of the index, then of the count).
fn checked(
    index: u32,
    count: u32,
    source: ShardSource,
    (index_name, count_name): (&str, &str),
) -> Result<Option<Shard>, UsageError> {
    if count == 0 {
        let message = if count_name.starts_with("--") {
            "must be at least 1 (got 0); it is the number of shards of the run".to_string()
        } else {
            "is 0, but it gives the number of shards of the run and must be at least 1; check the launcher's task count, or override it with --shard-index and --shard-count"
                .to_string()
        };
        return Err(UsageError::new(count_name, message));
    }
    if index >= count {
        return Err(UsageError::new(
            index_name,
            format!(
                "shard {index} is not below the count {count}; shards are numbered 0 to {}",
                count - 1
            ),
        ));
    }
    Ok(Some(Shard {
        index,
        count,
        source,
    }))
}

/// This machine's name (`gethostname`), or `unknown` when it has none.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its whole length, and gethostname writes
    // at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    match std::str::from_utf8(&buf[..end]) {
        Ok(name) if rc == 0 && !name.is_empty() => name.to_string(),
        _ => "unknown".to_string(),
    }
}

/// `path` with `{shard}` replaced by the shard index (0 without shards) and
/// `{host}` by the host name, so that shards sharing a directory write
/// distinct files.
pub fn expand_path(path: &Path, index: u32, host: &str) -> PathBuf {
    let text = path.to_string_lossy();
    if !text.contains("{shard}") && !text.contains("{host}") {
        return path.to_path_buf();
    }
    PathBuf::from(
        text.replace("{shard}", &index.to_string())
            .replace("{host}", host),
    )
}

/// With `--prefill`, the key range is cut into one slice per connection of
/// every shard, in shard order (see [`Shard::slot_base`]): shard *i*'s first
/// slice starts at key *i* × `per_shard`, so a shard whose first slot lies
/// beyond the range would write no key at all, and its part of the prefill
/// would silently be missing. Refused here, before any connection, naming
/// the largest shard count the range feeds.
pub(super) fn check_prefill_slices(
    shard: Option<Shard>,
    per_shard: usize,
    keys: KeyRange,
    prefill: bool,
) -> Result<(), UsageError> {
    let Some(shard) = shard.filter(|_| prefill) else {
        return Ok(());
    };
    let len = keys.len();
    let per_shard = per_shard.max(1) as u64;
    // Shard count − 1 times the connections can exceed a u64; u128 cannot.
    let last_first_slot = u128::from(shard.count - 1) * u128::from(per_shard);
    if last_first_slot < u128::from(len) {
        return Ok(());
    }
    Err(UsageError::new(
        "--shard-count",
        format!(
            "with --prefill, the {len} keys of --key-minimum {}..--key-maximum {} are split among the {per_shard} connection(s) of each of the {} shards, so shard {} would write no key; use at most {} shards, or widen the key range (--key-maximum)",
            keys.min,
            keys.max,
            shard.count,
            shard.count - 1,
            len.div_ceil(per_shard),
        ),
    ))
}

/// The identity from `--shard-index`/`--shard-count` or the process's environment.
pub(super) fn build_shard(a: &Args) -> Result<Option<Shard>, UsageError> {
    detect(a.shard_index, a.shard_count, &|name| {
        std::env::var(name).ok()
    })
}

impl Config {
    /// The global number of this shard's first connection (0 on one machine):
    /// shard *i* numbers its connections from *i* × [`Config::connections`].
    pub fn slot_base(&self) -> u64 {
        self.shard.map_or(0, |s| s.slot_base(self.connections()))
    }

    /// Connections of all shards together: the `slots` that key slices,
    /// sequential walks and the `--rate` schedule divide among.
    pub fn total_slots(&self) -> u64 {
        self.connections() as u64 * u64::from(self.shard_count())
    }

    /// How many shards the run has (1 on one machine).
    pub fn shard_count(&self) -> u32 {
        self.shard.map_or(1, |s| s.count)
    }

    /// The seed this shard's connections derive theirs from: the master seed
    /// itself on one machine, one derived from it and the shard index when
    /// there are several, so that shards draw different keys.
    pub fn stream_seed(&self) -> u64 {
        match self.shard {
            Some(s) if s.count > 1 => derive_seed(self.seed, &[u64::from(s.index)]),
            _ => self.seed,
        }
    }

    /// The rate the schedules are built from: that of all shards together,
    /// since each connection's schedule takes its share of it by its global
    /// slot. [`Config::rate`] holds this shard's share.
    pub fn schedule_rate(&self) -> Option<Rate> {
        self.rate.map(|r| Rate {
            total_per_sec: r.total_per_sec * f64::from(self.shard_count()),
            ..r
        })
    }
}

#[cfg(test)]
mod tests;
