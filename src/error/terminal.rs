//! What kvbench knows about the terminal it writes to: whether stdout or
//! stderr is one, how wide it is, whether both are the same one, and prose
//! wrapped to its width.
//!
//! Prose is wrapped only on a terminal: a file or a pipe keeps one line per
//! item, so that `grep` and scripts see whole warnings and whole rows
//! (docs/output.md, "On a terminal"). It lives in the bottom layer beside
//! [`crate::error::note`], the stderr printer that wraps with it.

use std::io::IsTerminal;

/// The width assumed for a terminal that does not say (`TIOCGWINSZ` fails and
/// `COLUMNS` is unset).
pub const FALLBACK_WIDTH: usize = 80;

/// What a wrapped line's continuation lines start with: the reader sees where
/// one item ends and the next begins.
pub const HANGING_INDENT: &str = "  ";

/// One of the two streams kvbench writes text to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// The process's standard output: reports and tables.
    Stdout,
    /// The process's standard error: progress, phase lines, warnings, notes.
    Stderr,
}

impl Stream {
    fn fd(self) -> libc::c_int {
        match self {
            Stream::Stdout => libc::STDOUT_FILENO,
            Stream::Stderr => libc::STDERR_FILENO,
        }
    }

    fn is_terminal(self) -> bool {
        match self {
            Stream::Stdout => std::io::stdout().is_terminal(),
            Stream::Stderr => std::io::stderr().is_terminal(),
        }
    }
}

/// The width of the terminal on `stream`, `None` when it is no terminal.
/// `COLUMNS` wins when it holds a positive number (the user's override, as
/// for `ls`), then the terminal's own size (`TIOCGWINSZ`), then 80.
pub fn width(stream: Stream) -> Option<usize> {
    if !stream.is_terminal() {
        return None;
    }
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    Some(
        from_env
            .or_else(|| window_columns(stream))
            .unwrap_or(FALLBACK_WIDTH),
    )
}

/// The columns `TIOCGWINSZ` reports for `stream`'s terminal.
fn window_columns(stream: Stream) -> Option<usize> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which
    // points at a live, writable one; a failure leaves it as it was.
    let rc = unsafe { libc::ioctl(stream.fd(), libc::TIOCGWINSZ, &mut size) };
    (rc == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

/// True when stdout and stderr are one terminal (the same device): what is
/// written to both is read twice, one copy under the other.
pub fn same_terminal() -> bool {
    if !(Stream::Stdout.is_terminal() && Stream::Stderr.is_terminal()) {
        return false;
    }
    let device = |fd: libc::c_int| {
        // SAFETY: fstat fills the zeroed `stat` it is given for an open fd;
        // on failure the value is not read.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::fstat(fd, &mut st) };
        (rc == 0).then_some((st.st_dev, st.st_ino, st.st_rdev))
    };
    match (device(libc::STDOUT_FILENO), device(libc::STDERR_FILENO)) {
        (Some(out), Some(err)) => out == err,
        _ => false,
    }
}

/// True for a line that belongs to a table or a rule: its columns are set
/// apart by two spaces or more (after its own indentation), or it is a rule
/// of `=` or `-`. Such a line is never wrapped: a table row broken across
/// lines no longer lines up, and memtier's table keeps memtier's layout.
pub fn is_table_line(line: &str) -> bool {
    let body = line.trim();
    if body.len() > 3 && body.chars().all(|c| c == '=' || c == '-') {
        return true;
    }
    body.contains("  ")
}

/// `text` with each prose line longer than `width` wrapped at word
/// boundaries, its continuation lines indented by [`HANGING_INDENT`] beyond
/// the line's own indentation; table lines ([`is_table_line`]) and lines
/// that fit are left as they are. `None` (no terminal) leaves it all.
pub fn fit_prose(text: &str, width: Option<usize>) -> String {
    let Some(width) = width else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= width || is_table_line(body) {
            out.push_str(line);
        } else {
            out.push_str(&wrap(body, width));
            out.push_str(newline);
        }
    }
    out
}

/// One line wrapped at spaces to `width` characters; a word longer than a
/// line is kept whole on its own line (a path or a command is copied, not
/// read, and a break inside it would change it).
pub fn wrap(line: &str, width: usize) -> String {
    let indent_len = line.len() - line.trim_start_matches(' ').len();
    let indent = &line[..indent_len];
    let continuation = format!("{indent}{HANGING_INDENT}");
    let mut out = String::with_capacity(line.len() + 16);
    let mut column = 0;
    out.push_str(indent);
    column += indent_len;
    let mut first_word = true;
    for word in line[indent_len..].split(' ').filter(|w| !w.is_empty()) {
        let len = word.chars().count();
        if !first_word && column + 1 + len > width {
            out.push('\n');
            out.push_str(&continuation);
            column = continuation.len();
        } else if !first_word {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += len;
        first_word = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{fit_prose, is_table_line, wrap};

    #[test]
    fn wraps_at_spaces_with_a_hanging_indent() {
        let line = "Warning: the key range holds only 6 keys for 8701 requests";
        let wrapped = wrap(line, 30);
        assert_eq!(
            wrapped,
            "Warning: the key range holds\n  only 6 keys for 8701\n  requests"
        );
        assert!(wrapped.lines().all(|l| l.chars().count() <= 30));
        // Every word is still there, in order.
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>(),
            line.split_whitespace().collect::<Vec<_>>()
        );
    }

    #[test]
    fn keeps_a_word_longer_than_the_line_whole() {
        let wrapped = wrap("see /a/very/long/path/that/does/not/fit here", 12);
        assert_eq!(
            wrapped,
            "see\n  /a/very/long/path/that/does/not/fit\n  here"
        );
    }

    #[test]
    fn keeps_the_lines_own_indentation() {
        assert_eq!(wrap("    one two three", 12), "    one two\n      three");
    }

    #[test]
    fn leaves_tables_and_short_lines_alone() {
        let table = "Sets          792.00          ---          ---         0.23120";
        assert!(is_table_line(table));
        assert!(is_table_line(&"=".repeat(120)));
        assert!(!is_table_line("Placement: 1 client threads not pinned"));
        let text = format!("{table}\nshort\n{}\n", "word ".repeat(30).trim_end());
        let fitted = fit_prose(&text, Some(40));
        let lines: Vec<&str> = fitted.lines().collect();
        assert_eq!(lines[0], table);
        assert_eq!(lines[1], "short");
        assert!(lines[2..].iter().all(|l| l.len() <= 40), "{fitted}");
        assert!(fitted.ends_with('\n'));
    }

    #[test]
    fn leaves_everything_off_a_terminal() {
        let text = format!("{}\n", "word ".repeat(40));
        assert_eq!(fit_prose(&text, None), text);
    }
}
