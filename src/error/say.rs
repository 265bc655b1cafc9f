//! The one way kvbench writes a line to stderr outside `main`'s final error.

use std::io;

use crate::error::terminal::{self, Stream};

/// One line on stderr that never panics, unlike `eprintln!`: when stderr is a
/// pipe its reader closed (`kvbench ... 2>&1 | head -1`), the messages end
/// quietly and the run and its result files go on. On a terminal the line is
/// wrapped at its width ([`terminal::fit_prose`]); in a file it stays one line.
pub fn note(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let width = terminal::width(Stream::Stderr);
    let mut err = io::stderr().lock();
    let _ = match (width, args.as_str()) {
        (None, _) => err.write_fmt(args),
        (Some(_), Some(text)) => err.write_all(terminal::fit_prose(text, width).as_bytes()),
        (Some(_), None) => err.write_all(terminal::fit_prose(&args.to_string(), width).as_bytes()),
    }
    .and_then(|()| err.write_all(b"\n"));
}
