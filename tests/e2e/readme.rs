//! docs/flags.md documents every flag the binary accepts, and the README and
//! docs/ name no flag or subcommand the binary lacks: every `--flag` in them
//! is kvbench's (in `--help` or a subcommand's), a redis-benchmark flag
//! documented as refused (and refused, exit 2), or another tool's, listed
//! below with the tool; and kvbench takes every memtier flag
//! (tests/data/memtier-flags.txt).

use std::collections::{BTreeMap, BTreeSet};

use clap::CommandFactory;
use kvbench::cli::Cli;

use crate::common::kvbench;

/// Flags of other tools the docs show (cargo, redis-server, kubectl, ...).
const OTHER_TOOLS: &[(&str, &str)] = &[
    ("--all-targets", "cargo clippy"),
    ("--bench", "cargo bench"),
    ("--check", "cargo fmt"),
    ("--release", "cargo build"),
    ("--profile", "cargo build"),
    ("--test", "cargo test"),
    ("--path", "cargo install"),
    ("--short", "git rev-parse"),
    ("--demo-only", "scripts/ensure-redis.sh"),
    ("--cluster-enabled", "redis-server"),
    ("--enable-debug-command", "redis-server"),
    ("--maxmemory", "redis-server"),
    ("--maxmemory-policy", "redis-server"),
    ("--cluster-replicas", "redis-cli --cluster create"),
    ("--for", "kubectl wait"),
    ("--image", "kubectl run"),
    ("--overrides", "kubectl run"),
    ("--restart", "kubectl run"),
    ("--timeout", "kubectl wait"),
    ("--kill-on-bad-exit", "srun"),
    ("--ntasks-per-node", "sbatch"),
    ("--nodes", "sbatch"),
    ("--ntasks", "sbatch"),
    ("--overcommit", "srun"),
    ("--no-children", "perf report"),
    ("--only", "scripts/bench.py"),
    ("--quick", "scripts/bench.py"),
];

/// redis-benchmark flags `kvbench suite` refuses, as docs/commands.md says.
const SUITE_REFUSED: &[&str] = &["--enable-tracking"];

/// README.md and every docs/*.md, by name.
fn documents() -> BTreeMap<String, String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = BTreeMap::new();
    docs.insert(
        "README.md".to_string(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    );
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
            docs.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    docs
}

/// Every `--long-flag` in `text` (not `---`, not inside a word).
fn long_flags(text: &str) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let mut found = BTreeSet::new();
    for i in 0..bytes.len().saturating_sub(2) {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let starts = bytes[i] == b'-'
            && bytes[i + 1] == b'-'
            && bytes[i + 2].is_ascii_lowercase()
            && !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !starts {
            continue;
        }
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        found.insert(format!("--{}", name.trim_end_matches('-')));
    }
    found
}

/// The code of a Markdown text: fenced blocks and inline spans.
fn code_of(text: &str) -> Vec<&str> {
    let mut code = Vec::new();
    for (i, part) in text.split("```").enumerate() {
        if i % 2 == 1 {
            code.push(part);
        } else {
            code.extend(part.split('`').skip(1).step_by(2));
        }
    }
    code
}

/// The words after `kvbench ` where the code runs it (at a line's start,
/// after a path's `/` or a prompt's `$ `).
fn subcommand_words(code: &str) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    for line in code.lines() {
        for (at, _) in line.match_indices("kvbench ") {
            let before = &line[..at];
            if !(before.trim().is_empty() || before.ends_with('/') || before.ends_with("$ ")) {
                continue;
            }
            let word: String = line[at + "kvbench ".len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-' || *c == '_')
                .collect();
            if !word.is_empty() && !word.starts_with('-') {
                words.insert(word);
            }
        }
    }
    words
}

/// Every long flag and alias of kvbench and of each subcommand.
fn kvbench_flags() -> BTreeSet<String> {
    let top = Cli::command();
    let commands = std::iter::once(&top).chain(top.get_subcommands());
    let mut flags = BTreeSet::new();
    for command in commands {
        for arg in command.get_arguments() {
            flags.extend(arg.get_long().map(|l| format!("--{l}")));
            if let Some(aliases) = arg.get_all_aliases() {
                flags.extend(aliases.into_iter().map(|a| format!("--{a}")));
            }
        }
    }
    flags
}

/// memtier's long flags, as `--name`: tests/data/memtier-flags.txt.
fn memtier_flags() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/memtier-flags.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| format!("--{l}"))
        .collect()
}

#[test]
fn kvbench_takes_every_memtier_flag() {
    let ours = kvbench_flags();
    let memtier = memtier_flags();
    // memtier's option table has 85 long flags, and 2.4 added 14.
    assert!(memtier.len() >= 99, "{} flags: {memtier:?}", memtier.len());
    let missing: Vec<&String> = memtier.iter().filter(|f| !ours.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "memtier flags kvbench does not take: {missing:?}"
    );
}

#[test]
fn docs_name_only_flags_kvbench_has_or_refuses() {
    let docs = documents();
    let ours = kvbench_flags();
    let other: BTreeMap<&str, &str> = OTHER_TOOLS.iter().copied().collect();
    let mut unknown = Vec::new();
    let mut seen_other = BTreeSet::new();
    for (name, text) in &docs {
        for flag in long_flags(text) {
            if ours.contains(&flag) {
                continue;
            }
            if SUITE_REFUSED.contains(&flag.as_str()) || other.contains_key(flag.as_str()) {
                seen_other.insert(flag);
                continue;
            }
            unknown.push(format!("{name}: {flag}"));
        }
    }
    assert!(
        unknown.is_empty(),
        "flags the docs name that kvbench neither has nor refuses: {unknown:#?}"
    );
    // The lists stay true: another tool's flag is not kvbench's, and every
    // entry is still in the docs.
    for (flag, tool) in OTHER_TOOLS {
        assert!(!ours.contains(*flag), "{flag} ({tool}) is kvbench's now");
        assert!(seen_other.contains(*flag), "{flag} ({tool}) is in no doc");
    }
    for flag in SUITE_REFUSED {
        let out = kvbench(&["suite", "-p", "1", flag]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {stderr}");
        assert!(
            stderr.contains("is not supported by kvbench suite"),
            "{flag}: {stderr}"
        );
    }
}

#[test]
fn docs_run_only_subcommands_kvbench_has() {
    let names: BTreeSet<String> = Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut unknown = Vec::new();
    let mut used = BTreeSet::new();
    for (name, text) in documents() {
        for code in code_of(&text) {
            for word in subcommand_words(code) {
                if names.contains(&word) {
                    used.insert(word);
                } else {
                    unknown.push(format!("{name}: kvbench {word}"));
                }
            }
        }
    }
    assert!(unknown.is_empty(), "no such subcommand: {unknown:#?}");
    // The check sees the docs' commands at all.
    for expected in ["suite", "compare", "merge", "report"] {
        assert!(used.contains(expected), "{used:?}");
    }
}

/// docs/flags.md, the flag reference the README points to.
#[test]
fn the_flag_reference_lists_every_long_flag() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/flags.md")).unwrap();
    let mut missing = Vec::new();
    for arg in Cli::command().get_arguments() {
        if let Some(long) = arg.get_long() {
            if !readme.contains(&format!("`--{long}")) && !readme.contains(&format!(", --{long}")) {
                missing.push(long.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/flags.md does not document: {missing:?}"
    );
}

#[test]
fn readme_shows_the_two_commands() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("make demo") && readme.contains("make test"));
}

#[test]
fn readme_lists_every_suite_flag_in_its_section() {
    use kvbench::cli::SuiteArgs;
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("### `kvbench suite`")
        .expect("a kvbench suite section");
    let section = &readme[start..];
    let section = &section[..section
        .find("\n### `kvbench compare`")
        .unwrap_or(section.len())];
    let mut missing = Vec::new();
    for arg in SuiteArgs::command().get_arguments() {
        if let Some(long) = arg.get_long() {
            if !section.contains(&format!("`--{long}")) && !section.contains(&format!(", --{long}"))
            {
                missing.push(long.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README.md's kvbench suite section does not document: {missing:?}"
    );
}
