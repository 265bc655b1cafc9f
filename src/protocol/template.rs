//! A command template encoded once, filled per request without allocating.
//!
//! [`RespTemplate::new`] turns a [`CommandSpec`] into pre-encoded chunks: a
//! run of arguments with no placeholder (the `*N` header included) becomes
//! one slice of ready bytes; an argument with placeholders keeps its literal
//! parts, and only its `$len` header and the placeholders are written per
//! request. [`RespTemplate::encode`] then appends slices and decimal digits to
//! the connection's write buffer: no `format!`, no temporary buffer, nothing
//! allocated beyond the buffer's own growth. Inline commands (redis-benchmark's
//! PING_INLINE) take the same path with spaces instead of bulk headers.

use std::ops::Range;

use crate::protocol::command::{CommandSpec, MAX_PARTS, Part};

/// What fills the placeholders of one request. Each call draws anew, so two
/// `__key__` in one command are two keys.
pub trait Fill<'v> {
    /// The number of the next key (written after the key prefix).
    fn key(&mut self) -> u64;
    /// The next value, borrowed from a pool that outlives the fill (so that
    /// several can be held while an argument is measured).
    fn data(&mut self) -> &'v [u8];
    /// The next `__rand_int__`, or `None` to send the placeholder's own text,
    /// as redis-benchmark does without `-r`.
    fn rand_int(&mut self) -> Option<u64>;
    /// The SCAN cursor to follow ([`Part::Cursor`]): the one the
    /// connection's last SCAN reply returned.
    fn cursor(&mut self) -> u64;
}

/// One piece of the encoded command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Chunk {
    /// Ready bytes: a range of [`RespTemplate::fixed`].
    Fixed(Range<usize>),
    /// An argument with placeholders: its parts, literal ones as ranges of
    /// [`RespTemplate::fixed`].
    Slotted(Vec<Slot>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    Literal(Range<usize>),
    Key,
    Data,
    RandInt,
    Cursor,
}

/// Digits of a `__rand_int__`: redis-benchmark writes 12, zero-padded.
const RAND_INT_DIGITS: usize = 12;

/// A command ready to be encoded again and again.
#[derive(Debug, Clone)]
pub struct RespTemplate {
    /// Every literal byte, the RESP headers of literal arguments included.
    fixed: Vec<u8>,
    chunks: Vec<Chunk>,
    inline: bool,
}

impl RespTemplate {
    /// Encodes `spec` as a RESP array of bulk strings (`inline` false) or as
    /// an inline command (arguments joined by spaces; for placeholder-free
    /// commands such as `PING`, whose bytes hold no blank or newline).
    pub fn new(spec: &CommandSpec, inline: bool) -> RespTemplate {
        let mut t = RespTemplate {
            fixed: Vec::new(),
            chunks: Vec::new(),
            inline,
        };
        if !inline {
            t.fixed.push(b'*');
            t.fixed
                .extend_from_slice(itoa::Buffer::new().format(spec.args.len()).as_bytes());
            t.fixed.extend_from_slice(b"\r\n");
        }
        let mut start = 0;
        for (i, arg) in spec.args.iter().enumerate() {
            if inline && i > 0 {
                t.fixed.push(b' ');
            }
            match arg.as_slice() {
                [Part::Literal(bytes)] => {
                    if !inline {
                        t.fixed.push(b'$');
                        t.fixed
                            .extend_from_slice(itoa::Buffer::new().format(bytes.len()).as_bytes());
                        t.fixed.extend_from_slice(b"\r\n");
                    }
                    t.fixed.extend_from_slice(bytes);
                    if !inline {
                        t.fixed.extend_from_slice(b"\r\n");
                    }
                }
                parts => {
                    if start < t.fixed.len() {
                        t.chunks.push(Chunk::Fixed(start..t.fixed.len()));
                    }
                    let slots = parts.iter().map(|p| t.slot(p)).collect();
                    t.chunks.push(Chunk::Slotted(slots));
                    start = t.fixed.len();
                }
            }
        }
        if inline {
            t.fixed.extend_from_slice(b"\r\n");
        }
        if start < t.fixed.len() {
            t.chunks.push(Chunk::Fixed(start..t.fixed.len()));
        }
        t
    }

    fn slot(&mut self, part: &Part) -> Slot {
        match part {
            Part::Literal(bytes) => {
                let start = self.fixed.len();
                self.fixed.extend_from_slice(bytes);
                Slot::Literal(start..self.fixed.len())
            }
            Part::Key => Slot::Key,
            Part::Data => Slot::Data,
            Part::RandInt => Slot::RandInt,
            Part::Cursor => Slot::Cursor,
        }
    }

    /// Appends one request to `out`, drawing placeholders from `fill`;
    /// returns the bytes appended.
    pub fn encode<'v, F: Fill<'v>>(
        &self,
        out: &mut Vec<u8>,
        key_prefix: &[u8],
        fill: &mut F,
    ) -> usize {
        let before = out.len();
        for chunk in &self.chunks {
            match chunk {
                Chunk::Fixed(range) => out.extend_from_slice(&self.fixed[range.clone()]),
                // An argument that is one placeholder alone (SET's key and
                // value, HSET's …) needs no measuring pass.
                Chunk::Slotted(slots) => match slots.as_slice() {
                    [Slot::Key] if !self.inline => {
                        let key = fill.key();
                        let mut digits = itoa::Buffer::new();
                        let digits = digits.format(key).as_bytes();
                        push_header(out, key_prefix.len() + digits.len());
                        out.extend_from_slice(key_prefix);
                        out.extend_from_slice(digits);
                        out.extend_from_slice(b"\r\n");
                    }
                    [Slot::Data] if !self.inline => {
                        let value = fill.data();
                        push_header(out, value.len());
                        out.extend_from_slice(value);
                        out.extend_from_slice(b"\r\n");
                    }
                    [Slot::Cursor] if !self.inline => {
                        let mut digits = itoa::Buffer::new();
                        let digits = digits.format(fill.cursor()).as_bytes();
                        push_header(out, digits.len());
                        out.extend_from_slice(digits);
                        out.extend_from_slice(b"\r\n");
                    }
                    _ => self.encode_slotted(out, slots, key_prefix, fill),
                },
            }
        }
        out.len() - before
    }

    /// One argument with placeholders. Its length is known only once every
    /// placeholder is drawn, so the draws come first (into stack arrays:
    /// values are borrowed from the pool, not copied), then the header and
    /// the bytes.
    fn encode_slotted<'v, F: Fill<'v>>(
        &self,
        out: &mut Vec<u8>,
        slots: &[Slot],
        key_prefix: &[u8],
        fill: &mut F,
    ) {
        let mut drawn = [Drawn::None; MAX_PARTS];
        let mut len = 0usize;
        for (slot, d) in slots.iter().zip(drawn.iter_mut()) {
            *d = match slot {
                Slot::Literal(r) => {
                    len += r.len();
                    Drawn::None
                }
                Slot::Key => {
                    let key = fill.key();
                    len += key_prefix.len() + itoa::Buffer::new().format(key).len();
                    Drawn::Number(key)
                }
                Slot::RandInt => {
                    let n = fill.rand_int();
                    len += n.map_or(RAND_INT_TEXT.len(), |_| RAND_INT_DIGITS);
                    n.map_or(Drawn::None, Drawn::Number)
                }
                Slot::Data => {
                    let value = fill.data();
                    len += value.len();
                    Drawn::Value(value)
                }
                Slot::Cursor => {
                    let cursor = fill.cursor();
                    len += itoa::Buffer::new().format(cursor).len();
                    Drawn::Number(cursor)
                }
            };
        }
        if !self.inline {
            push_header(out, len);
        }
        for (slot, d) in slots.iter().zip(drawn) {
            match (slot, d) {
                (Slot::Literal(r), _) => out.extend_from_slice(&self.fixed[r.clone()]),
                (Slot::Key, Drawn::Number(key)) => {
                    out.extend_from_slice(key_prefix);
                    out.extend_from_slice(itoa::Buffer::new().format(key).as_bytes());
                }
                (Slot::RandInt, Drawn::Number(n)) => push_padded(out, n),
                (Slot::RandInt, _) => out.extend_from_slice(RAND_INT_TEXT),
                (Slot::Cursor, Drawn::Number(cursor)) => {
                    out.extend_from_slice(itoa::Buffer::new().format(cursor).as_bytes());
                }
                (Slot::Data, Drawn::Value(value)) => out.extend_from_slice(value),
                // Every key, value and cursor slot was drawn above.
                (Slot::Key | Slot::Data | Slot::Cursor, _) => {}
            }
        }
        if !self.inline {
            out.extend_from_slice(b"\r\n");
        }
    }
}

/// A placeholder's draw, kept between measuring and writing an argument.
#[derive(Debug, Clone, Copy)]
enum Drawn<'v> {
    None,
    Number(u64),
    Value(&'v [u8]),
}

/// What redis-benchmark sends for `__rand_int__` without `-r`.
const RAND_INT_TEXT: &[u8] = b"__rand_int__";

/// A bulk string's `$len\r\n`.
fn push_header(out: &mut Vec<u8>, len: usize) {
    out.push(b'$');
    out.extend_from_slice(itoa::Buffer::new().format(len).as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// `v` as 12 zero-padded digits (the low 12 digits if wider), as redis-benchmark.
fn push_padded(out: &mut Vec<u8>, v: u64) {
    let mut digits = [b'0'; RAND_INT_DIGITS];
    let mut v = v;
    for d in digits.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out.extend_from_slice(&digits);
}

#[cfg(test)]
mod tests;
