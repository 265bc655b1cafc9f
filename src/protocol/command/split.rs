//! Splitting a command line into arguments the way memtier_benchmark and
//! redis-cli do (`sdssplitargs`): blanks separate arguments; `"double
//! quotes"` take the escapes `\n \r \t \b \a \\ \"` and `\xHH`; `'single
//! quotes'` take only `\'`; a closing quote must be followed by a blank or
//! the end. So a `--command` pasted from a memtier script or typed into
//! redis-cli means the same bytes here.

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A quote was opened and never closed.
    #[error("a {0} quote is not closed")]
    Unclosed(&'static str),
    /// A closing quote was followed by something other than a blank.
    #[error("a closing quote must be followed by a space (at byte {0})")]
    JoinedAfterQuote(usize),
}

/// The arguments of `line`, as bytes (a `\xHH` escape may make any byte).
pub fn split_args(line: &str) -> Result<Vec<Vec<u8>>, SplitError> {
    let bytes = line.as_bytes();
    let mut args = Vec::new();
    let mut i = 0;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == bytes.len() {
            return Ok(args);
        }
        let mut arg = Vec::new();
        loop {
            match bytes.get(i) {
                None => break,
                Some(b) if b.is_ascii_whitespace() => break,
                Some(b'"') => i = double_quoted(bytes, i + 1, &mut arg)?,
                Some(b'\'') => i = single_quoted(bytes, i + 1, &mut arg)?,
                Some(&b) => {
                    arg.push(b);
                    i += 1;
                }
            }
        }
        args.push(arg);
    }
}

/// Reads a double-quoted part starting after its opening quote; returns the
/// index after the closing quote.
fn double_quoted(bytes: &[u8], mut i: usize, arg: &mut Vec<u8>) -> Result<usize, SplitError> {
    loop {
        match bytes.get(i) {
            None => return Err(SplitError::Unclosed("double")),
            Some(b'\\') => {
                if let Some(byte) = hex_escape(bytes.get(i + 1..i + 4)) {
                    arg.push(byte);
                    i += 4;
                    continue;
                }
                let Some(&next) = bytes.get(i + 1) else {
                    return Err(SplitError::Unclosed("double"));
                };
                arg.push(match next {
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'b' => 0x08,
                    b'a' => 0x07,
                    other => other,
                });
                i += 2;
            }
            Some(b'"') => return after_quote(bytes, i + 1),
            Some(&b) => {
                arg.push(b);
                i += 1;
            }
        }
    }
}

/// Reads a single-quoted part starting after its opening quote.
fn single_quoted(bytes: &[u8], mut i: usize, arg: &mut Vec<u8>) -> Result<usize, SplitError> {
    loop {
        match bytes.get(i) {
            None => return Err(SplitError::Unclosed("single")),
            Some(b'\\') if bytes.get(i + 1) == Some(&b'\'') => {
                arg.push(b'\'');
                i += 2;
            }
            Some(b'\'') => return after_quote(bytes, i + 1),
            Some(&b) => {
                arg.push(b);
                i += 1;
            }
        }
    }
}

/// A closing quote ends the argument: only a blank or the end may follow.
fn after_quote(bytes: &[u8], i: usize) -> Result<usize, SplitError> {
    match bytes.get(i) {
        None => Ok(i),
        Some(b) if b.is_ascii_whitespace() => Ok(i),
        Some(_) => Err(SplitError::JoinedAfterQuote(i)),
    }
}

/// `xHH` after a backslash, as one byte.
fn hex_escape(escape: Option<&[u8]>) -> Option<u8> {
    let [b'x', hi, lo] = escape? else {
        return None;
    };
    let digit = |c: u8| (c as char).to_digit(16);
    Some((digit(*hi)? * 16 + digit(*lo)?) as u8)
}

#[cfg(test)]
mod tests {
    use super::{SplitError, split_args};

    fn split(line: &str) -> Vec<String> {
        split_args(line)
            .unwrap()
            .into_iter()
            .map(|a| String::from_utf8(a).unwrap())
            .collect()
    }

    #[test]
    fn blanks_separate_arguments() {
        assert_eq!(
            split("  HSET __key__   field\t__data__ "),
            ["HSET", "__key__", "field", "__data__"]
        );
        assert!(split_args("   ").unwrap().is_empty());
    }

    #[test]
    fn double_quotes_group_and_take_escapes() {
        assert_eq!(split(r#"SET "a b" "x\ty\n""#), ["SET", "a b", "x\ty\n"]);
        // A backslash before anything else keeps that character alone.
        assert_eq!(
            split_args(r#""\x41\x7a\xZZ""#).unwrap(),
            vec![b"AzxZZ".to_vec()]
        );
        assert_eq!(split(r#""say \"hi\"""#), [r#"say "hi""#]);
    }

    #[test]
    fn single_quotes_keep_backslashes_but_escape_a_quote() {
        assert_eq!(split(r"'a\nb' 'it\'s'"), [r"a\nb", "it's"]);
    }

    #[test]
    fn quotes_join_with_a_leading_unquoted_part() {
        assert_eq!(split(r#"user:"{__key__}""#), ["user:{__key__}"]);
    }

    #[test]
    fn unbalanced_or_joined_quotes_are_errors() {
        assert_eq!(
            split_args(r#"SET "abc"#),
            Err(SplitError::Unclosed("double"))
        );
        assert_eq!(split_args("SET 'abc"), Err(SplitError::Unclosed("single")));
        assert_eq!(
            split_args(r#"SET "a"b"#),
            Err(SplitError::JoinedAfterQuote(7))
        );
        assert_eq!(
            split_args(r#"SET "a\"#),
            Err(SplitError::Unclosed("double"))
        );
    }
}
