//! Shard identity from flags and launchers' environments, file-name
//! placeholders, and the global slot numbering across shards.

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

#[test]
fn a_zero_count_is_named_by_the_variable_that_gave_it() {
    for (pairs, name) in [
        (
            vec![("OMPI_COMM_WORLD_RANK", "0"), ("OMPI_COMM_WORLD_SIZE", "0")],
            "OMPI_COMM_WORLD_SIZE",
        ),
        (
            vec![("SLURM_PROCID", "0"), ("SLURM_NTASKS", "0")],
            "SLURM_NTASKS",
        ),
        (vec![("PMI_RANK", "0"), ("PMI_SIZE", "0")], "PMI_SIZE"),
        (
            vec![("JOB_COMPLETION_INDEX", "0"), ("KVBENCH_SHARD_COUNT", "0")],
            "KVBENCH_SHARD_COUNT",
        ),
    ] {
        let e = detect(None, None, &env_of(&pairs)).unwrap_err();
        assert_eq!(e.flag, name, "{pairs:?}: {e}");
        assert!(e.message.contains("launcher's task count"), "{e}");
    }
    // Given on the command line, the count is the flag's.
    let env = env_of(&[("OMPI_COMM_WORLD_RANK", "0"), ("OMPI_COMM_WORLD_SIZE", "0")]);
    assert_eq!(
        detect(None, Some(0), &env).unwrap_err().flag,
        "--shard-count"
    );
}

fn sharded(index: u32, extra: &[&str]) -> Config {
    use crate::cli::Cli;
    use clap::Parser;
    let index = index.to_string();
    let mut args = vec!["kvbench", "--shard-count", "3", "--shard-index", &index];
    args.extend_from_slice(extra);
    Config::from_args(Cli::try_parse_from(args).unwrap().run).unwrap()
}

/// Every key each connection of each of 3 shards sends, in shard order.
fn keys_of_shards(extra: &[&str], prefill: bool) -> Vec<u64> {
    use crate::config::Stop;
    use crate::engine::worker::request::{RequestSource, pair_encoder};
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
                RequestSource::prefill(&c, &pair_encoder(&c), slot, c.total_slots(), 1).unwrap()
            } else {
                RequestSource::new(
                    &c,
                    &pair_encoder(&c),
                    Stop::AllKeys,
                    slot,
                    c.total_slots(),
                    1,
                )
                .unwrap()
            };
            let mut out = Vec::new();
            while let Some(q) = source.encode_next(&mut out, &values, 0) {
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
fn a_prefill_that_would_leave_a_shard_without_keys_is_refused() {
    use crate::cli::Cli;
    use clap::Parser;
    // 3 shards of 2 × 3 connections: shard 2's first slice is the 13th key.
    let range = |max: &str| {
        let max = max.to_string();
        move |index: &str, prefill: bool| {
            let mut args = vec!["kvbench", "--shard-count", "3", "--shard-index", index];
            args.extend([
                "-t",
                "2",
                "-c",
                "3",
                "--key-minimum",
                "1",
                "--key-maximum",
                &max,
            ]);
            if prefill {
                args.push("--prefill");
            }
            Config::from_args(Cli::try_parse_from(args).unwrap().run)
        }
    };
    let twelve = range("12");
    for index in ["0", "2"] {
        let e = twelve(index, true).unwrap_err();
        assert_eq!(e.flag, "--shard-count");
        assert!(
            e.message.contains("shard 2 would write no key"),
            "{}",
            e.message
        );
        assert!(e.message.contains("use at most 2 shards"), "{}", e.message);
        // Without --prefill nothing is split among the shards this way.
        assert!(twelve(index, false).is_ok());
    }
    assert!(range("13")("2", true).is_ok());
    // At 13 keys every key is written once, the last one by shard 2.
    let prefill = [
        "-t",
        "2",
        "-c",
        "3",
        "--key-minimum",
        "1",
        "--key-maximum",
        "13",
    ];
    let mut keys = keys_of_shards(&prefill, true);
    keys.sort_unstable();
    assert_eq!(keys, (1..=13).collect::<Vec<_>>());
    // A count whose slots overflow a u64 is refused, not wrapped around.
    let e = detect(Some(0), Some(u32::MAX), &env_of(&[]))
        .and_then(|s| {
            check_prefill_slices(
                s,
                usize::MAX,
                KeyRange {
                    min: 0,
                    max: u64::MAX,
                },
                true,
            )
        })
        .unwrap_err();
    assert_eq!(e.flag, "--shard-count");
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
