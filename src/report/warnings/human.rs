//! The warnings as people read them, in the text report and on stderr: a
//! sweep shows each kind once and names the cells it applies to, and the
//! kinds silenced with `--no-warning` are counted instead of shown. The JSON
//! keeps every cell's warnings, silenced or not (machines read them).

use crate::config::WarningKind;
use crate::error::note;
use crate::report::warnings::Warning;

/// What the human outputs show of a run's or a sweep's warnings.
#[derive(Debug, Default, PartialEq)]
pub struct Shown {
    /// One line per warning shown, without a prefix.
    pub lines: Vec<String>,
    /// Warnings left out because their kind was silenced.
    pub silenced: usize,
    /// Their kinds, each once, in report order.
    pub silenced_kinds: Vec<WarningKind>,
}

impl Shown {
    /// One run's warnings, less the silenced kinds.
    pub fn of_run(warnings: &[Warning], silenced: &[WarningKind]) -> Shown {
        let mut shown = Shown::default();
        for w in warnings {
            if !shown.silence(w, silenced) {
                shown.lines.push(w.to_string());
            }
        }
        shown
    }

    /// A sweep's warnings, `cells[i]` being cell `i + 1`'s: one line per kind,
    /// in the order the kinds first appear, naming the cells that raised it.
    /// Its numbers are the first such cell's; when another cell's differ,
    /// the line says so (each cell's own are in the JSON).
    pub fn of_sweep(cells: &[Vec<Warning>], silenced: &[WarningKind]) -> Shown {
        let mut shown = Shown::default();
        // (kind, first message, cells, whether every message is the same)
        let mut groups: Vec<(WarningKind, String, Vec<usize>, bool)> = Vec::new();
        for (cell, warnings) in cells.iter().enumerate() {
            for w in warnings {
                if shown.silence(w, silenced) {
                    continue;
                }
                let message = w.to_string();
                match groups.iter_mut().find(|g| g.0 == w.warning_kind()) {
                    Some((_, first, in_cells, same)) => {
                        if in_cells.last() != Some(&cell) {
                            in_cells.push(cell);
                        }
                        *same &= *first == message;
                    }
                    None => groups.push((w.warning_kind(), message, vec![cell], true)),
                }
            }
        }
        for (_, message, in_cells, same) in groups {
            let which = cell_list(&in_cells);
            let line = if same {
                format!("({which}) {message}")
            } else {
                format!(
                    "({which}; the numbers are cell {}'s, every cell's are in the JSON) {message}",
                    in_cells[0] + 1
                )
            };
            shown.lines.push(line);
        }
        shown
    }

    /// Says the warnings on stderr, and how many `--no-warning` silenced;
    /// nothing when `on_terminal`: the text report on stderr's terminal lists
    /// them already.
    pub fn say(&self, on_terminal: bool) {
        if on_terminal {
            return;
        }
        for line in &self.lines {
            note(format_args!("kvbench: warning: {line}"));
        }
        if let Some(line) = self.silenced_line() {
            note(format_args!("kvbench: {line} by --no-warning"));
        }
    }

    /// `1 warning silenced (short_run)`; `None` when nothing was.
    pub fn silenced_line(&self) -> Option<String> {
        if self.silenced == 0 {
            return None;
        }
        let kinds: Vec<&str> = self.silenced_kinds.iter().map(|k| k.as_str()).collect();
        let plural = if self.silenced == 1 { "" } else { "s" };
        Some(format!(
            "{} warning{plural} silenced ({})",
            self.silenced,
            kinds.join(", ")
        ))
    }

    /// Counts `w` when its kind is silenced; true if it was.
    fn silence(&mut self, w: &Warning, silenced: &[WarningKind]) -> bool {
        let kind = w.warning_kind();
        if !silenced.contains(&kind) {
            return false;
        }
        self.silenced += 1;
        if !self.silenced_kinds.contains(&kind) {
            self.silenced_kinds.push(kind);
        }
        true
    }
}

/// `cell 2`, `cells 1-4`, `cells 1-2, 4` from 0-based cell indices in order.
fn cell_list(cells: &[usize]) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &c in cells {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == c => *end = c,
            _ => ranges.push((c, c)),
        }
    }
    let parts: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("{}", a + 1)
            } else {
                format!("{}-{}", a + 1, b + 1)
            }
        })
        .collect();
    let noun = if cells.len() == 1 { "cell" } else { "cells" };
    format!("{noun} {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::{Shown, cell_list};
    use crate::config::WarningKind;
    use crate::report::warnings::Warning;

    fn short(secs: f64) -> Warning {
        Warning::ShortRun {
            secs,
            flags: crate::config::FlagSet::Run,
        }
    }

    #[test]
    fn cells_are_listed_as_ranges() {
        assert_eq!(cell_list(&[1]), "cell 2");
        assert_eq!(cell_list(&[0, 1, 2, 3]), "cells 1-4");
        assert_eq!(cell_list(&[0, 1, 3]), "cells 1-2, 4");
        assert_eq!(cell_list(&[0, 2]), "cells 1, 3");
    }

    #[test]
    fn a_sweep_shows_each_kind_once_with_its_cells() {
        let cells = vec![vec![short(1.0)]; 4];
        let shown = Shown::of_sweep(&cells, &[]);
        assert_eq!(shown.lines.len(), 1, "{shown:?}");
        assert!(shown.lines[0].starts_with("(cells 1-4) each run lasted 1.0 s"));
        assert_eq!(shown.silenced_line(), None);
        // Different numbers: one line still, saying whose numbers it shows.
        let cells = vec![vec![], vec![short(1.0)], vec![short(2.0)]];
        let shown = Shown::of_sweep(&cells, &[]);
        assert_eq!(shown.lines.len(), 1, "{shown:?}");
        assert!(
            shown.lines[0].starts_with("(cells 2-3; the numbers are cell 2's"),
            "{shown:?}"
        );
        assert!(shown.lines[0].contains("1.0 s"), "{shown:?}");
    }

    #[test]
    fn silenced_kinds_are_counted_not_shown() {
        let warnings = [short(1.0), Warning::FsyncAlways];
        let shown = Shown::of_run(&warnings, &[WarningKind::ShortRun]);
        assert_eq!(shown.lines.len(), 1);
        assert!(shown.lines[0].contains("appendfsync"), "{shown:?}");
        assert_eq!(
            shown.silenced_line().as_deref(),
            Some("1 warning silenced (short_run)")
        );
        let cells = vec![warnings.to_vec(), warnings.to_vec()];
        let all = [WarningKind::ShortRun, WarningKind::FsyncAlways];
        let shown = Shown::of_sweep(&cells, &all);
        assert!(shown.lines.is_empty());
        assert_eq!(
            shown.silenced_line().as_deref(),
            Some("4 warnings silenced (short_run, fsync_always)")
        );
        // Nothing silenced: every warning shows.
        assert_eq!(Shown::of_run(&warnings, &[]).lines.len(), 2);
    }
}
