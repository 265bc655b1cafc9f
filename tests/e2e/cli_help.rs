//! `--help` everywhere: `kvbench --help` names every subcommand, and each
//! subcommand's own `--help` exits 0 with its usage on stdout (the benchmark's
//! flags turn clap's help off, so each subcommand declares its own).

use crate::common::kvbench;
use clap::CommandFactory;
use kvbench::cli::Cli;

/// The subcommands as clap knows them, so that one added later is checked too.
fn subcommands() -> Vec<String> {
    Cli::command()
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

#[test]
fn help_subcommand_prints_the_help_of_kvbench_or_of_a_subcommand() {
    let out = kvbench(&["help"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("Usage: kvbench"), "{stdout}");
    for name in subcommands() {
        assert!(stdout.contains(&format!("  {name} ")), "{name}:\n{stdout}");
    }
    for name in subcommands() {
        let out = kvbench(&["help", &name]);
        assert_eq!(out.status.code(), Some(0), "help {name}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains(&format!("Usage: kvbench {name}")),
            "help {name}:\n{stdout}"
        );
    }
    // The same text as the subcommand's --help.
    let text = |args: &[&str]| String::from_utf8(kvbench(args).stdout).unwrap();
    assert_eq!(text(&["help", "compare"]), text(&["compare", "--help"]));
    assert_eq!(text(&["help"]), text(&["--help"]));
    let out = kvbench(&["help", "comapre"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("\"comapre\"")
            && stderr.contains("compare, merge")
            && stderr.contains("e.g. kvbench help compare"),
        "{stderr}"
    );
}

#[test]
fn completions_for_each_shell_name_every_subcommand() {
    let names = subcommands();
    let mut seen = Vec::new();
    for (shell, marker) in [
        ("bash", "complete -F _kvbench"),
        ("zsh", "#compdef kvbench"),
        ("fish", "complete -c kvbench"),
    ] {
        let out = kvbench(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {out:?}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}:\n{script}");
        for name in &names {
            assert!(script.contains(name.as_str()), "{shell} lacks {name}");
        }
        // The benchmark's flags are completed too.
        for flag in ["test-time", "json-out-file", "ratio"] {
            assert!(script.contains(flag), "{shell} lacks --{flag}");
        }
        seen.push(script.len());
    }
    // Three different scripts, none empty.
    assert!(seen.iter().all(|&n| n > 1000), "{seen:?}");
    let out = kvbench(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("bash, zsh, fish"), "{stderr}");
}

#[test]
fn the_man_page_names_every_subcommand_and_flag() {
    let out = kvbench(&["man"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH kvbench 1"), "{page}");
    for name in subcommands() {
        // Listed with its own page, kvbench-NAME(1).
        assert!(
            page.contains(&format!("kvbench\\-{name}(1)")),
            "the man page lacks {name}"
        );
    }
    for arg in Cli::command().get_arguments() {
        if let Some(long) = arg.get_long() {
            // roff escapes the dashes.
            let escaped = format!("\\-\\-{}", long.replace('-', "\\-"));
            assert!(page.contains(&escaped), "the man page lacks --{long}");
        }
    }
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let out = kvbench(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let line = String::from_utf8(out.stdout).unwrap();
    let line = line.trim_end();
    let expected = format!("kvbench {}", env!("CARGO_PKG_VERSION"));
    assert!(line.starts_with(&expected), "{line}");
    let git = std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output();
    let in_git = git.is_ok_and(|o| o.status.success());
    if !in_git {
        // A source tree without git: the version alone.
        assert_eq!(line, expected);
        return;
    }
    let commit = line
        .strip_prefix(&format!("{expected} (commit "))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no commit in {line:?}"));
    assert!(
        commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{commit:?}"
    );
    // A commit of this repository, not just any hex.
    let known = std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "cat-file", "-e"])
        .arg(format!("{commit}^{{commit}}"))
        .status()
        .unwrap();
    assert!(known.success(), "{commit} is not a commit here");
}

#[test]
fn the_build_script_says_the_version_alone_without_git() {
    let dir = crate::common::TempDir::new("build-script");
    let exe = dir.path("build-script");
    // The build script on its own, as cargo compiles it.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = std::process::Command::new(rustc)
        .args(["--edition", "2024", "-o"])
        .arg(&exe)
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/build.rs"))
        .env("CARGO_PKG_VERSION", env!("CARGO_PKG_VERSION"))
        .output()
        .expect("run rustc");
    assert!(out.status.success(), "{out:?}");
    let expected = format!(
        "cargo:rustc-env=KVBENCH_VERSION={}\n",
        env!("CARGO_PKG_VERSION")
    );
    // Outside any repository, then with no git at all.
    let path = std::env::var("PATH").unwrap_or_default();
    for path in [path.as_str(), "/nonexistent"] {
        let out = std::process::Command::new(&exe)
            .current_dir(&dir.0)
            .env("PATH", path)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .unwrap();
        assert!(out.status.success(), "PATH={path}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.starts_with(&expected), "PATH={path}:\n{stdout}");
        assert!(!stdout.contains("commit"), "PATH={path}:\n{stdout}");
    }
    // In this repository, the commit.
    let out = std::process::Command::new(&exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let in_git = std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert_eq!(stdout.contains(" (commit "), in_git, "{stdout}");
}
