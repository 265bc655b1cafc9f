//! Every shipped workload in configs/ parses and validates, and says what it claims.

use std::path::Path;

use clap::Parser;
use kvbench::cli::Cli;
use kvbench::config::warmup::WarmupEnd;
use kvbench::config::{Config, Stop};
use kvbench::workload::mix::Ratio;
use kvbench::workload::values::SizeSpec;

fn load(name: &str) -> Config {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(name);
    let args = Cli::try_parse_from(["kvbench", "--config", path.to_str().unwrap()])
        .unwrap()
        .run;
    Config::from_args(args).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_config_file_is_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".toml") {
            load(&name);
            seen += 1;
        }
    }
    assert!(
        seen >= 9,
        "expected the demo and eight whitepaper configs, found {seen}"
    );
}

#[test]
fn demo_is_short_two_runs_with_warmup() {
    let c = load("demo.toml");
    assert_eq!((c.threads, c.clients), (2, 25));
    assert_eq!(c.ratio, Ratio { set: 1, get: 4 });
    assert_eq!(c.stop, Stop::Time(std::time::Duration::from_secs(5)));
    assert_eq!(c.run_count, 2);
    assert_eq!(c.warmup.as_secs(), 3);
}

#[test]
fn whitepaper_configs_follow_the_method() {
    for (name, ratio) in [
        ("whitepaper-get.toml", Ratio { set: 0, get: 1 }),
        ("whitepaper-set.toml", Ratio { set: 1, get: 0 }),
        ("whitepaper-mixed.toml", Ratio { set: 1, get: 1 }),
    ] {
        let c = load(name);
        assert_eq!(c.ratio, ratio, "{name}");
        assert_eq!((c.threads, c.clients, c.pipeline), (20, 100, 1), "{name}");
        assert_eq!(c.values, SizeSpec::Fixed(32), "{name}");
        assert_eq!(c.warmup.as_secs(), 180, "{name}");
        assert_eq!(
            c.stop,
            Stop::Time(std::time::Duration::from_secs(600)),
            "{name}"
        );
        assert_eq!(c.run_count, 3, "{name}");
    }
}

#[test]
fn whitepaper_auto_variants_run_the_same_workload_until_it_is_known() {
    for name in ["get", "set", "mixed"] {
        let fixed = load(&format!("whitepaper-{name}.toml"));
        let auto = load(&format!("whitepaper-{name}-auto.toml"));
        // The same workload and runs ...
        assert_eq!(auto.ratio, fixed.ratio, "{name}");
        assert_eq!(
            (auto.threads, auto.clients, auto.pipeline, auto.run_count),
            (
                fixed.threads,
                fixed.clients,
                fixed.pipeline,
                fixed.run_count
            ),
            "{name}"
        );
        assert_eq!(auto.values, fixed.values, "{name}");
        assert_eq!(auto.keys, fixed.keys, "{name}");
        assert!(auto.prefill, "{name}");
        // ... each bounded by the fixed method's lengths, and ended by
        // the precision asked.
        assert_eq!(auto.stop, fixed.stop, "{name}: --max-test-time");
        assert_eq!(auto.warmup, fixed.warmup, "{name}: --warmup-max");
        assert_eq!(auto.warmup_plan.end, WarmupEnd::Steady, "{name}");
        assert!(auto.precision.auto && !auto.precision.runs_auto, "{name}");
        let targets: Vec<String> = auto
            .precision
            .targets
            .iter()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(targets, ["ops=2%", "p99=5%"], "{name}");
        assert!(!fixed.precision.auto && fixed.precision.targets.is_empty());
    }
}

#[test]
fn whitepaper_configs_prefill_and_the_pipeline_one_sweeps_four_depths() {
    for name in ["get", "set", "mixed", "pipeline"] {
        for suffix in ["", "-short"] {
            let c = load(&format!("whitepaper-{name}{suffix}.toml"));
            assert!(c.prefill, "{name}{suffix} must prefill");
            assert_eq!(c.values, SizeSpec::Fixed(32), "{name}{suffix}");
        }
    }
    let sweep = load("whitepaper-pipeline.toml");
    assert_eq!(sweep.sweep.pipelines, vec![1, 4, 16, 64]);
    assert_eq!(sweep.cells().len(), 4);
}

#[test]
fn short_variants_finish_within_a_minute() {
    for name in ["get", "set", "mixed", "pipeline"] {
        let c = load(&format!("whitepaper-{name}-short.toml"));
        let Stop::Time(run) = c.stop else {
            panic!("{name}-short must be time-bound");
        };
        let per_cell = c.warmup + run * c.run_count;
        let total = per_cell * c.sweep.cell_count() as u32;
        assert!(
            total.as_secs() < 60,
            "{name}-short is planned for {total:?}"
        );
    }
}

#[test]
fn hash_commands_replace_the_pair_with_their_ratio() {
    let c = load("hash-commands.toml");
    assert!(!c.ops.default_pair);
    let rows: Vec<&str> = c.ops.rows.iter().map(|r| r.memtier.as_str()).collect();
    assert_eq!(rows, ["Hsets", "Hgets"]);
    let weights: Vec<u32> = c.ops.ops.iter().map(|o| o.weight).collect();
    assert_eq!(weights, [1, 4]);
    assert_eq!(c.stop, Stop::Time(std::time::Duration::from_secs(5)));
}
