//! Build script: `KVBENCH_VERSION`, the version `kvbench --version` prints,
//! with the commit it was built from when git can say (`0.1.0 (commit
//! 1a2b3c4)`); from a source tree without git, the package's version alone.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let full = match git(&["rev-parse", "--short", "HEAD"]) {
        Some(commit) => format!("{version} (commit {commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=KVBENCH_VERSION={full}");
    // Built again when HEAD moves: HEAD itself, the branch it names, and
    // packed-refs (where a branch's commit may live instead).
    println!("cargo:rerun-if-changed=build.rs");
    // A file that does not exist is left out: cargo would run this every build.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for path in watched {
        if let Some(file) = git(&["rev-parse", "--git-path", &path]) {
            if std::path::Path::new(&file).exists() {
                println!("cargo:rerun-if-changed={file}");
            }
        }
    }
}
