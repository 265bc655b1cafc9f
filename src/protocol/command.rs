//! A command given as text — memtier's `--command "HSET __key__ field
//! __data__"`, or one of redis-benchmark's tests ([`suite`]) — parsed once
//! into arguments whose parts are literal bytes or placeholders.
//!
//! Placeholders may stand alone or inside an argument (`user:{__key__}`):
//! `__key__` is a key of the op's key pattern (`--key-prefix` + number),
//! `__data__` a value of `--data-size`, and redis-benchmark's `__rand_int__`
//! a 12-digit random number below `-r`. Each occurrence draws anew, so
//! `MSET __key__ __data__ __key__ __data__` writes two keys. Any other
//! `__word__` is refused, since it is almost always a typo of one of these.
//! One part is never typed: [`Part::Cursor`], which
//! `--scan-incremental-iteration` puts in place of a SCAN's cursor.
//! Encoding into bytes is [`crate::protocol::template`]'s job.

mod key_arg;
pub mod split;
pub mod suite;

use split::{SplitError, split_args};

/// One piece of an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Bytes sent as they are.
    Literal(Vec<u8>),
    /// `__key__`.
    Key,
    /// `__data__`.
    Data,
    /// `__rand_int__`.
    RandInt,
    /// `--scan-incremental-iteration`: the cursor the connection's last SCAN
    /// reply returned. No text parses to it; kvbench builds the SCAN that
    /// follows a cursor with it in place of the cursor typed.
    Cursor,
}

/// How reports and the failed-keys file write [`Part::Cursor`]: memtier's
/// name of the row of SCANs that follow a cursor is `SCAN <cursor>`.
pub const CURSOR_TEXT: &str = "<cursor>";

/// One argument: its parts laid end to end.
pub type Arg = Vec<Part>;

/// The most parts one argument may have: the encoder measures an argument's
/// placeholders in a stack array of this size before writing it.
pub const MAX_PARTS: usize = 16;

/// A parsed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// The text as given, for reports.
    pub text: String,
    /// The arguments, the command name first.
    pub args: Vec<Arg>,
}

/// Why a command could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Nothing but blanks.
    #[error("the command is empty")]
    Empty,
    /// Quoting is off.
    #[error(transparent)]
    Split(#[from] SplitError),
    /// A `__word__` that is no placeholder.
    #[error(
        "'{0}' is no placeholder: use __key__ (a key), __data__ (a value) or __rand_int__ (a random number below -r)"
    )]
    UnknownPlaceholder(String),
    /// An argument with more parts than [`MAX_PARTS`].
    #[error("an argument may hold at most {MAX_PARTS} placeholders and literal pieces; split it")]
    TooManyParts,
    /// The command name itself is a placeholder.
    #[error("the command name must be literal, not a placeholder")]
    PlaceholderName,
}

impl CommandSpec {
    /// Parses a command line with memtier's quoting.
    pub fn parse(text: &str) -> Result<CommandSpec, CommandError> {
        let words = split_args(text)?;
        if words.is_empty() {
            return Err(CommandError::Empty);
        }
        let mut args = Vec::with_capacity(words.len());
        for word in words {
            let arg = parts(&word)?;
            if arg.len() > MAX_PARTS {
                return Err(CommandError::TooManyParts);
            }
            args.push(arg);
        }
        if !matches!(args[0].as_slice(), [Part::Literal(_)]) {
            return Err(CommandError::PlaceholderName);
        }
        Ok(CommandSpec {
            text: text.trim().to_string(),
            args,
        })
    }

    /// A command given word by word, as redis-benchmark takes one after its
    /// flags: each word is one argument as it is (no quoting), and only
    /// `__rand_int__` and `__data__` are placeholders (redis-benchmark's and
    /// valkey-benchmark's); any other `__word__`, `__key__` included, is sent
    /// as its own text, as those tools send it.
    pub fn from_words(words: &[Vec<u8>]) -> Result<CommandSpec, CommandError> {
        if words.is_empty() || words[0].iter().all(u8::is_ascii_whitespace) {
            return Err(CommandError::Empty);
        }
        let mut args = Vec::with_capacity(words.len());
        for word in words {
            let arg = benchmark_parts(word);
            if arg.len() > MAX_PARTS {
                return Err(CommandError::TooManyParts);
            }
            args.push(arg);
        }
        if !matches!(args[0].as_slice(), [Part::Literal(_)]) {
            return Err(CommandError::PlaceholderName);
        }
        let text: Vec<String> = words
            .iter()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        Ok(CommandSpec {
            text: text.join(" "),
            args,
        })
    }

    /// The command name in capitals (`HSET`), as `INFO commandstats` names it
    /// in lower case (`cmdstat_hset`).
    pub fn name(&self) -> String {
        match self.args[0].as_slice() {
            [Part::Literal(name)] => String::from_utf8_lossy(name).to_ascii_uppercase(),
            _ => String::new(),
        }
    }

    /// memtier's row name for this command: `Hsets` for `HSET`.
    pub fn memtier_row_name(&self) -> String {
        let lower = self.name().to_ascii_lowercase();
        let mut chars = lower.chars();
        match chars.next() {
            Some(first) => format!("{}{}s", first.to_ascii_uppercase(), chars.as_str()),
            None => String::new(),
        }
    }

    /// How many times `part` occurs.
    pub fn count(&self, part: &Part) -> usize {
        self.args.iter().flatten().filter(|p| *p == part).count()
    }
}

/// Splits one argument into literal parts and placeholders.
fn parts(word: &[u8]) -> Result<Arg, CommandError> {
    let mut out = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < word.len() {
        if let Some((part, len)) = placeholder_at(&word[i..])? {
            if !literal.is_empty() {
                out.push(Part::Literal(std::mem::take(&mut literal)));
            }
            out.push(part);
            i += len;
        } else {
            literal.push(word[i]);
            i += 1;
        }
    }
    if !literal.is_empty() || out.is_empty() {
        out.push(Part::Literal(literal));
    }
    Ok(out)
}

/// Splits one redis-benchmark argument into literal parts and its two
/// placeholders.
fn benchmark_parts(word: &[u8]) -> Arg {
    const KNOWN: [(&[u8], Part); 2] = [(b"__rand_int__", Part::RandInt), (b"__data__", Part::Data)];
    let mut out = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    'bytes: while i < word.len() {
        for (name, part) in &KNOWN {
            if word[i..].starts_with(name) {
                if !literal.is_empty() {
                    out.push(Part::Literal(std::mem::take(&mut literal)));
                }
                out.push(part.clone());
                i += name.len();
                continue 'bytes;
            }
        }
        literal.push(word[i]);
        i += 1;
    }
    if !literal.is_empty() || out.is_empty() {
        out.push(Part::Literal(literal));
    }
    out
}

/// The placeholder that starts `rest`, and its length; an error for a
/// `__word__` of lower-case letters, digits and underscores that is none of ours.
fn placeholder_at(rest: &[u8]) -> Result<Option<(Part, usize)>, CommandError> {
    const KNOWN: [(&[u8], Part); 3] = [
        (b"__key__", Part::Key),
        (b"__data__", Part::Data),
        (b"__rand_int__", Part::RandInt),
    ];
    for (name, part) in KNOWN {
        if rest.starts_with(name) {
            return Ok(Some((part, name.len())));
        }
    }
    let Some(body) = rest.strip_prefix(b"__") else {
        return Ok(None);
    };
    let Some(end) = body.windows(2).position(|w| w == b"__") else {
        return Ok(None);
    };
    let word = &body[..end];
    let wordlike = !word.is_empty()
        && word[0].is_ascii_lowercase()
        && word
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_');
    if wordlike {
        let text = String::from_utf8_lossy(&rest[..end + 4]).into_owned();
        return Err(CommandError::UnknownPlaceholder(text));
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
