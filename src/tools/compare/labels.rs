//! Labels for the compared files: the file name when it is unique, else the
//! shortest path suffix that tells the file from the others (`a/run.json`
//! beside `b/run.json`), so the tables stay narrow and unambiguous.

use std::path::{Component, Path};

/// A label per path, in order, each different from the others.
pub fn distinct(paths: &[impl AsRef<Path>]) -> Vec<String> {
    let parts: Vec<Vec<String>> = paths.iter().map(|p| components(p.as_ref())).collect();
    let mut labels: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(i, own)| {
            // The fewest trailing components no other path ends with; a
            // shorter path's whole self never equals a longer suffix.
            (1..=own.len())
                .map(|n| (n, suffix(own, n)))
                .find(|(n, candidate)| {
                    parts
                        .iter()
                        .enumerate()
                        .all(|(j, other)| j == i || suffix(other, *n) != *candidate)
                })
                .map_or_else(|| suffix(own, own.len()), |(_, label)| label)
        })
        .collect();
    // The same file given twice keeps its path and a number.
    for i in 1..labels.len() {
        let repeats = labels[..i].iter().filter(|l| **l == labels[i]).count();
        if repeats > 0 {
            labels[i] = format!("{} ({})", labels[i], repeats + 1);
        }
    }
    labels
}

/// The last `n` components, joined with `/`.
fn suffix(parts: &[String], n: usize) -> String {
    parts[parts.len() - n.min(parts.len())..].join("/")
}

/// The path's named components, without `.`; a path with none is shown whole.
fn components(path: &Path) -> Vec<String> {
    let parts: Vec<String> = path
        .components()
        .filter(|c| {
            !matches!(
                c,
                Component::CurDir | Component::RootDir | Component::Prefix(_)
            )
        })
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        vec![path.display().to_string()]
    } else {
        parts
    }
}
