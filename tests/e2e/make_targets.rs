//! The Makefile's promises: `make demo` installs redis-server and nothing
//! else (`make test` installs every test's servers), and `make install`
//! puts the binary, its shell completions and its man page under
//! `$(DESTDIR)$(PREFIX)`, checked by installing the already-built binary
//! into a scratch directory (`KVBENCH_BIN=`, so no second release build).

use std::path::Path;
use std::process::{Command, Output};

use clap::CommandFactory;
use kvbench::cli::Cli;

use crate::common::TempDir;

/// The installers of the test-only servers.
const TEST_ONLY: [&str; 3] = ["ensure-slurm", "ensure-prometheus", "ensure-chromium"];

fn make(args: &[&str]) -> Output {
    Command::new("make")
        .arg("--no-print-directory")
        .arg("-C")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run make")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The subcommands a user types (not `help`, which the others' help names).
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

#[test]
fn make_demo_installs_redis_server_alone() {
    let out = make(&["-n", "demo"]);
    let plan = text(&out);
    assert_eq!(out.status.code(), Some(0), "{plan}");
    assert!(plan.contains("ensure-redis.sh --demo-only"), "{plan}");
    for installer in TEST_ONLY {
        assert!(
            !plan.contains(installer),
            "make demo runs {installer}:\n{plan}"
        );
    }
    assert!(plan.contains("scripts/demo.sh"), "{plan}");
    // The test suite still installs every server its tests start.
    let out = make(&["-n", "test"]);
    let plan = text(&out);
    for installer in TEST_ONLY {
        assert!(
            plan.contains(installer),
            "make test lacks {installer}:\n{plan}"
        );
    }
    assert!(
        plan.lines().any(|l| l.trim() == "scripts/ensure-redis.sh"),
        "make test installs redis-server with memcached and the rest:\n{plan}"
    );
}

#[test]
fn the_demo_only_redis_install_checks_redis_server_alone() {
    let script = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/ensure-redis.sh"
    ))
    .unwrap();
    let demo = script
        .split("if $demo_only; then")
        .nth(1)
        .and_then(|rest| rest.split("else").next())
        .expect("a --demo-only branch");
    assert!(demo.contains("packages=(redis-server)"), "{demo}");
    for other in ["memcached", "sasl2-bin", "openssl"] {
        assert!(!demo.contains(other), "--demo-only installs {other}");
    }
    // A word it does not know is refused, not taken as "everything".
    let out = Command::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/ensure-redis.sh"
    ))
    .arg("--demo")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn make_install_builds_the_release_binary_unless_given_one() {
    let plan = text(&make(&["-n", "install"]));
    assert!(plan.contains("cargo build --release"), "{plan}");
    assert!(plan.contains("\"/usr/local/bin/kvbench\""), "{plan}");
    let plan = text(&make(&["-n", "install", "KVBENCH_BIN=/bin/true"]));
    assert!(!plan.contains("cargo build"), "{plan}");
}

/// Every file `make install` writes under `root`, checked for what it holds.
fn assert_installed(root: &Path) {
    let bin = root.join("bin/kvbench");
    let version = Command::new(&bin).arg("--version").output().unwrap();
    assert_eq!(version.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with("kvbench "),
        "{}",
        text(&version)
    );
    let files = [
        "share/man/man1/kvbench.1",
        "share/bash-completion/completions/kvbench",
        "share/zsh/site-functions/_kvbench",
        "share/fish/vendor_completions.d/kvbench.fish",
    ];
    for file in files {
        let content = std::fs::read_to_string(root.join(file))
            .unwrap_or_else(|e| panic!("{file} not installed: {e}"));
        assert!(content.len() > 500, "{file}: {} bytes", content.len());
        for sub in subcommands() {
            assert!(content.contains(&sub), "{file} does not name {sub}");
        }
    }
    // Each subcommand's own page, with its own flags.
    for sub in subcommands() {
        let file = format!("share/man/man1/kvbench-{sub}.1");
        let page = std::fs::read_to_string(root.join(&file))
            .unwrap_or_else(|e| panic!("{file} not installed: {e}"));
        assert!(
            page.contains(&format!(".TH kvbench-{sub} 1")),
            "{file}:\n{page}"
        );
    }
    let compare = std::fs::read_to_string(root.join("share/man/man1/kvbench-compare.1")).unwrap();
    assert!(compare.contains("\\-\\-layout"), "{compare}");
}

#[test]
fn make_install_puts_binary_completions_and_man_page_under_prefix() {
    let dir = TempDir::new("install");
    let prefix = dir.path("prefix");
    let out = make(&[
        "install",
        &format!("PREFIX={}", prefix.display()),
        concat!("KVBENCH_BIN=", env!("CARGO_BIN_EXE_kvbench")),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("cargo build"), "{}", text(&out));
    assert_installed(&prefix);
    // DESTDIR stages the same tree under another root.
    let stage = dir.path("stage");
    let out = make(&[
        "install",
        "PREFIX=/opt/kvbench",
        &format!("DESTDIR={}", stage.display()),
        concat!("KVBENCH_BIN=", env!("CARGO_BIN_EXE_kvbench")),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_installed(&stage.join("opt/kvbench"));
}
