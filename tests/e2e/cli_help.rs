//! `--help` everywhere: `kvbench --help` names every subcommand, and each
//! subcommand's own `--help` exits 0 with its usage on stdout (the benchmark's
//! flags turn clap's help off, so each subcommand declares its own).

use crate::common::kvbench;
use clap::CommandFactory;
use kvbench::cli::Args;

/// The subcommands as clap knows them, so that one added later is checked too.
fn subcommands() -> Vec<String> {
    Args::command()
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect()
}

#[test]
fn top_level_help_names_every_subcommand() {
    let names = subcommands();
    assert!(names.len() >= 3, "{names:?}");
    for expected in ["compare", "suite", "merge"] {
        assert!(names.iter().any(|n| n == expected), "{names:?}");
    }
    let out = kvbench(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("Usage: kvbench"), "{stdout}");
    let commands = stdout
        .split("Commands:")
        .nth(1)
        .unwrap_or_else(|| panic!("no Commands section:\n{stdout}"));
    for name in &names {
        assert!(
            commands
                .lines()
                .any(|l| l.trim_start().starts_with(name.as_str())),
            "kvbench --help does not list {name}:\n{stdout}"
        );
    }
}

#[test]
fn every_subcommand_help_exits_0_with_its_usage() {
    for name in subcommands() {
        let out = kvbench(&[&name, "--help"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name} --help: {stderr}");
        assert!(stderr.is_empty(), "{name} --help: {stderr}");
        let usage = format!("Usage: kvbench {name}");
        assert!(stdout.contains(&usage), "{name} --help:\n{stdout}");
        assert!(stdout.contains("--help"), "{name} --help:\n{stdout}");
    }
}

#[test]
fn compare_help_describes_its_flags() {
    let out = kvbench(&["compare", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    for flag in ["--format", "--layout", "<FILE>"] {
        assert!(stdout.contains(flag), "{flag}:\n{stdout}");
    }
}
