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
use crate::config::{Config, Rate, UsageError};
use crate::request::derive_seed;

/// Where the shard's identity came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
            return checked(index, count, ShardSource::Flags, "--shard-index");
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
        let count = match (count, count_var) {
            (Some(count), _) => count,
            (None, Some(var)) => match env(var) {
                Some(text) => number(var, &text)?,
                None => {
                    return Err(UsageError::new(
                        index_var,
                        format!("is set but {var} is not; give --shard-count"),
                    ));
                }
            },
            (None, None) => match env(SHARD_COUNT_ENV) {
                Some(text) => number(SHARD_COUNT_ENV, &text)?,
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
        return checked(index, count, source, index_var);
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

fn checked(
    index: u32,
    count: u32,
    source: ShardSource,
    flag: &str,
) -> Result<Option<Shard>, UsageError> {
    if count == 0 {
        return Err(UsageError::new(
            "--shard-count",
            "must be at least 1 (got 0); it is the number of shards of the run",
        ));
    }
    if index >= count {
        return Err(UsageError::new(
            flag,
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
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn shard(index: u32, count: u32, source: ShardSource) -> Option<Shard> {
        Some(Shard {
            index,
            count,
            source,
        })
    }

    #[test]
    fn flags_win_over_the_environment() {
        let env = env_of(&[("SLURM_PROCID", "3"), ("SLURM_NTASKS", "4")]);
        assert_eq!(
            detect(Some(1), Some(2), &env).unwrap(),
            shard(1, 2, ShardSource::Flags)
        );
    }

    #[test]
    fn each_launcher_is_read_in_order() {
        let cases = [
            (
                vec![("JOB_COMPLETION_INDEX", "1"), ("KVBENCH_SHARD_COUNT", "2")],
                shard(1, 2, ShardSource::Kubernetes),
            ),
            (
                vec![("SLURM_PROCID", "2"), ("SLURM_NTASKS", "4")],
                shard(2, 4, ShardSource::Slurm),
            ),
            (
                vec![("OMPI_COMM_WORLD_RANK", "0"), ("OMPI_COMM_WORLD_SIZE", "8")],
                shard(0, 8, ShardSource::OpenMpi),
            ),
            (
                vec![("PMI_RANK", "5"), ("PMI_SIZE", "6")],
                shard(5, 6, ShardSource::Pmi),
            ),
            // Slurm before Open MPI when both are set (srun under mpirun).
            (
                vec![
                    ("OMPI_COMM_WORLD_RANK", "0"),
                    ("OMPI_COMM_WORLD_SIZE", "8"),
                    ("SLURM_PROCID", "1"),
                    ("SLURM_NTASKS", "2"),
                ],
                shard(1, 2, ShardSource::Slurm),
            ),
            // A count of 1 is one machine, but where it came from is kept.
            (
                vec![("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1")],
                shard(0, 1, ShardSource::Slurm),
            ),
            (vec![], None),
        ];
        for (pairs, expected) in cases {
            assert_eq!(
                detect(None, None, &env_of(&pairs)).unwrap(),
                expected,
                "{pairs:?}"
            );
        }
    }

    #[test]
    fn a_kubernetes_index_takes_its_count_from_the_flag() {
        let env = env_of(&[("JOB_COMPLETION_INDEX", "3")]);
        assert_eq!(
            detect(None, Some(4), &env).unwrap(),
            shard(3, 4, ShardSource::Kubernetes)
        );
        let e = detect(None, None, &env).unwrap_err();
        assert_eq!(e.flag, "--shard-count");
        assert!(e.message.contains("KVBENCH_SHARD_COUNT"), "{e}");
    }

    #[test]
    fn bad_identities_are_refused() {
        let none = env_of(&[]);
        for (index, count, flag) in [
            (Some(4), Some(4), "--shard-index"),
            (Some(0), Some(0), "--shard-count"),
            (Some(1), None, "--shard-index"),
            (None, Some(3), "--shard-count"),
        ] {
            assert_eq!(detect(index, count, &none).unwrap_err().flag, flag);
        }
        let garbled = env_of(&[("SLURM_PROCID", "x"), ("SLURM_NTASKS", "2")]);
        assert_eq!(
            detect(None, None, &garbled).unwrap_err().flag,
            "SLURM_PROCID"
        );
        let beyond = env_of(&[("PMI_RANK", "2"), ("PMI_SIZE", "2")]);
        assert_eq!(detect(None, None, &beyond).unwrap_err().flag, "PMI_RANK");
    }

    fn sharded(index: u32, extra: &[&str]) -> Config {
        use clap::Parser;
        let index = index.to_string();
        let mut args = vec!["kvbench", "--shard-count", "3", "--shard-index", &index];
        args.extend_from_slice(extra);
        Config::from_args(Args::try_parse_from(args).unwrap()).unwrap()
    }

    /// Every key each connection of each of 3 shards sends, in shard order.
    fn keys_of_shards(extra: &[&str], prefill: bool) -> Vec<u64> {
        use crate::config::Stop;
        use crate::request::RequestSource;
        use crate::workload::values::ValuePool;
        use rand::SeedableRng;
        let mut keys = Vec::new();
        for index in 0..3 {
            let c = sharded(index, extra);
            let values = ValuePool::new(
                &c.values,
                false,
                &mut rand::rngs::SmallRng::seed_from_u64(1),
            );
            for local in 0..c.connections() as u64 {
                let slot = c.slot_base() + local;
                let mut source = if prefill {
                    RequestSource::prefill(&c, slot, c.total_slots(), 1).unwrap()
                } else {
                    RequestSource::new(&c, Stop::AllKeys, slot, c.total_slots(), 1).unwrap()
                };
                let mut out = Vec::new();
                while let Some(q) = source.encode_next(&mut out, b"k", &values, 0) {
                    keys.push(q.key);
                }
            }
        }
        keys
    }

    #[test]
    fn three_shards_split_the_key_range_exactly() {
        let range = [
            "-t",
            "2",
            "-c",
            "3",
            "--key-minimum",
            "5",
            "--key-maximum",
            "104",
        ];
        let walk = [
            &range[..],
            &["-n", "allkeys", "--key-pattern", "P:P", "--ratio", "1:0"],
        ]
        .concat();
        for (extra, prefill) in [(&walk[..], false), (&range[..], true)] {
            let mut keys = keys_of_shards(extra, prefill);
            assert_eq!(
                keys.len(),
                100,
                "every key once ({extra:?}, prefill {prefill})"
            );
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys, (5..=104).collect::<Vec<_>>(), "disjoint and complete");
        }
        // Shard 1 starts where shard 0's six connections end.
        let c = sharded(1, &range);
        assert_eq!((c.slot_base(), c.total_slots()), (6, 18));
    }

    #[test]
    fn shards_draw_other_seeds_and_share_the_rate() {
        let a = sharded(0, &["--seed", "7", "--rate", "3000"]);
        let b = sharded(1, &["--seed", "7", "--rate", "3000"]);
        assert_ne!(a.stream_seed(), b.stream_seed());
        assert_eq!(a.seed, 7, "the reported seed is the one given");
        assert_eq!(a.rate.unwrap().total_per_sec, 1000.0, "this shard's share");
        assert_eq!(a.schedule_rate().unwrap().total_per_sec, 3000.0);
    }

    #[test]
    fn placeholders_in_file_names_are_filled() {
        let p = expand_path(Path::new("out/{host}-{shard}.json"), 2, "h1");
        assert_eq!(p, PathBuf::from("out/h1-2.json"));
        let plain = Path::new("a.json");
        assert_eq!(expand_path(plain, 2, "h1"), plain);
    }
}
