//! The one way kvbench writes a line to stderr outside `main`'s final error.

use std::io;

/// One line on stderr that never panics, unlike `eprintln!`: when stderr is a
/// pipe its reader closed (`kvbench ... 2>&1 | head -1`), the messages end
/// quietly and the run and its result files go on.
pub fn note(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}
