//! Reading memtier's import file: the header, then records of eight numbers and
//! two string columns, in memtier's meaning (its `file_reader`).
//!
//! A string column is quoted (`"..."`, a `"` inside written `""`) or bare (up
//! to the next comma or line end). Its length is known from the record's
//! `nkey` or `nbytes - 2`, and a quoted value may hold any byte, newlines
//! included, so records are read by position, not split into lines. memtier
//! warns and goes on when a column is shorter than its count; kvbench refuses
//! the file, naming the record, since the value sent would not be the one the
//! file means.

use crate::workload::import::ImportedItem;

/// What memtier checks the first line starts with.
const HEADER: &[u8] = b"dumpflags, time, exptime";

/// Why an import file could not be read; `config` adds the flag and path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// The first line is not memtier's header.
    #[error(
        "the first line is not memtier's header \"dumpflags, time, exptime, nbytes, nsuffix, it_flags, clsid, nkey, key, data\""
    )]
    Header,
    /// A record's numbers could not be read.
    #[error(
        "line {line}: expected 8 numbers (dumpflags, time, exptime, nbytes, nsuffix, it_flags, clsid, nkey) before the key"
    )]
    Numbers {
        /// The line the record starts on.
        line: usize,
    },
    /// `nbytes` below 2 (it counts the value and its `\r\n`).
    #[error(
        "line {line}: nbytes is {nbytes}, below the 2 bytes of the \\r\\n it counts after the value"
    )]
    ShortNbytes {
        /// The line the record starts on.
        line: usize,
        /// What the record says.
        nbytes: usize,
    },
    /// A column whose length differs from the record's count.
    #[error("line {line}: the {column} column is {found} bytes, and the record says {expected}")]
    Length {
        /// The line the record starts on.
        line: usize,
        /// `key` or `data`.
        column: &'static str,
        /// The record's count.
        expected: usize,
        /// The bytes found.
        found: usize,
    },
    /// A quoted column that never closes.
    #[error("line {line}: the {column} column's quote is not closed")]
    Unclosed {
        /// The line the record starts on.
        line: usize,
        /// `key` or `data`.
        column: &'static str,
    },
    /// Something other than a comma between the key and the value, or other
    /// than a line end after the value.
    #[error("line {line}: expected {expected} after the {column} column")]
    Separator {
        /// The line the record starts on.
        line: usize,
        /// `key` or `data`.
        column: &'static str,
        /// What should have come.
        expected: &'static str,
    },
    /// A header and no record.
    #[error("the file holds no item after its header")]
    Empty,
    /// An empty key, which no server stores.
    #[error("line {line}: the key is empty")]
    EmptyKey {
        /// The line the record starts on.
        line: usize,
    },
}

/// A cursor over the file's bytes that counts lines for messages.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    /// Skips spaces and tabs (never a line end).
    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.bump();
        }
    }

    /// An unsigned decimal number after optional blanks.
    fn number(&mut self) -> Option<usize> {
        self.blanks();
        let start = self.at;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.bump();
        }
        std::str::from_utf8(&self.bytes[start..self.at])
            .ok()?
            .parse()
            .ok()
    }

    /// A comma after optional blanks, and the blanks after it.
    fn comma(&mut self) -> bool {
        self.blanks();
        if self.peek() != Some(b',') {
            return false;
        }
        self.bump();
        self.blanks();
        true
    }

    /// A string column: quoted with `""` for a quote, or bare up to a comma
    /// or a line end.
    fn column(&mut self, line: usize, column: &'static str) -> Result<Vec<u8>, ImportError> {
        let mut out = Vec::new();
        if self.peek() != Some(b'"') {
            while let Some(b) = self.peek().filter(|b| !matches!(b, b',' | b'\r' | b'\n')) {
                out.push(b);
                self.bump();
            }
            return Ok(out);
        }
        self.bump();
        loop {
            match self.bump() {
                None => return Err(ImportError::Unclosed { line, column }),
                Some(b'"') if self.peek() == Some(b'"') => {
                    self.bump();
                    out.push(b'"');
                }
                Some(b'"') => return Ok(out),
                Some(b) => out.push(b),
            }
        }
    }
}

/// The items of an import file's bytes, in file order.
pub fn parse(bytes: &[u8]) -> Result<Vec<ImportedItem>, ImportError> {
    if !bytes.starts_with(HEADER) {
        return Err(ImportError::Header);
    }
    let header_end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |n| n + 1);
    let mut cur = Cursor {
        bytes,
        at: header_end,
        line: 2,
    };
    let mut items = Vec::new();
    loop {
        // Blank lines between records (and a file's last newline) are no records.
        while matches!(cur.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            cur.bump();
        }
        if cur.peek().is_none() {
            break;
        }
        items.push(record(&mut cur)?);
    }
    if items.is_empty() {
        return Err(ImportError::Empty);
    }
    Ok(items)
}

/// One record, from its first number to its line end.
fn record(cur: &mut Cursor<'_>) -> Result<ImportedItem, ImportError> {
    let line = cur.line;
    let mut numbers = [0usize; 8];
    for (i, n) in numbers.iter_mut().enumerate() {
        if i > 0 && !cur.comma() {
            return Err(ImportError::Numbers { line });
        }
        *n = cur.number().ok_or(ImportError::Numbers { line })?;
    }
    if !cur.comma() {
        return Err(ImportError::Numbers { line });
    }
    let [_, _, exptime, nbytes, _, _, _, nkey] = numbers;
    if nbytes < 2 {
        return Err(ImportError::ShortNbytes { line, nbytes });
    }
    let key = cur.column(line, "key")?;
    if !cur.comma() {
        return Err(ImportError::Separator {
            line,
            column: "key",
            expected: "a comma",
        });
    }
    let value = cur.column(line, "data")?;
    cur.blanks();
    if cur.peek() == Some(b'\r') {
        cur.bump();
    }
    if !matches!(cur.peek(), None | Some(b'\n')) {
        return Err(ImportError::Separator {
            line,
            column: "data",
            expected: "the end of the line",
        });
    }
    for (column, expected, found) in [("key", nkey, key.len()), ("data", nbytes - 2, value.len())] {
        if expected != found {
            return Err(ImportError::Length {
                line,
                column,
                expected,
                found,
            });
        }
    }
    if key.is_empty() {
        return Err(ImportError::EmptyKey { line });
    }
    Ok(ImportedItem {
        key,
        value,
        expiry_s: u32::try_from(exptime).unwrap_or(u32::MAX),
    })
}
