//! The README documents every flag the binary accepts.

use clap::CommandFactory;
use kvbench::cli::Args;

#[test]
fn readme_lists_every_long_flag() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut missing = Vec::new();
    for arg in Args::command().get_arguments() {
        if let Some(long) = arg.get_long() {
            if !readme.contains(&format!("`--{long}")) && !readme.contains(&format!(", --{long}")) {
                missing.push(long.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README.md does not document: {missing:?}"
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
