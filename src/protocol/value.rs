//! Owned reply values for the control connection (INFO, SLOWLOG, CONFIG GET).
//!
//! The benchmark's hot path never builds these: it counts replies with
//! [`crate::protocol::resp::decode`] and skips their payloads. Reading server
//! evidence needs the contents, so this module turns one validated reply into a
//! tree. Validation (lengths, nesting depth, terminators) is `resp::decode`'s;
//! this code only walks what it accepted.

use crate::protocol::resp::{self, DecodeError, Reply};

/// A reply with its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// `+OK`
    Simple(String),
    /// `-ERR ...`: a value, not a failure of the protocol.
    Error(String),
    /// `:42`
    Integer(i64),
    /// `$3\r\nabc`
    Bulk(Vec<u8>),
    /// `$-1` or `*-1`
    Nil,
    /// `*N` and its elements.
    Array(Vec<Value>),
    /// RESP3's `%N` key/value pairs. [`parse`] reads RESP2 and never builds
    /// one; readers of cluster replies accept both shapes of the same reply.
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// The text of a simple string or bulk string (lossy UTF-8).
    pub fn text(&self) -> Option<String> {
        match self {
            Value::Simple(s) => Some(s.clone()),
            Value::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }

    /// An integer reply.
    pub fn integer(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The elements of an array reply.
    pub fn array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// Like [`resp::decode`], but returns the reply's contents.
pub fn parse(buf: &[u8]) -> Result<Option<(Value, usize)>, DecodeError> {
    match resp::decode(buf)? {
        None => Ok(None),
        Some((reply, used)) => Ok(Some((build(&buf[..used], reply)?, used))),
    }
}

/// Builds the value of one complete, already validated reply occupying `bytes`.
fn build(bytes: &[u8], reply: Reply<'_>) -> Result<Value, DecodeError> {
    Ok(match reply {
        Reply::Simple(s) => Value::Simple(String::from_utf8_lossy(s).into_owned()),
        Reply::Error(s) => Value::Error(String::from_utf8_lossy(s).into_owned()),
        Reply::Integer(i) => Value::Integer(i),
        Reply::Bulk(b) => Value::Bulk(b.to_vec()),
        Reply::Nil => Value::Nil,
        // [`parse`] decodes RESP2, which has none of these.
        Reply::Boolean(_)
        | Reply::Double(_)
        | Reply::BigNumber(_)
        | Reply::Verbatim(_)
        | Reply::Map(_)
        | Reply::Set(_)
        | Reply::Push(_)
        | Reply::Attribute(_) => {
            return Err(DecodeError::InvalidType(
                bytes.first().copied().unwrap_or(0),
            ));
        }
        Reply::Array(n) => {
            // Elements start after the `*N\r\n` header line.
            let mut pos = bytes
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or(DecodeError::MissingCrlf)?
                + 2;
            let mut items = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let rest = bytes.get(pos..).unwrap_or_default();
                let (element, used) = resp::decode(rest)?.ok_or(DecodeError::MissingCrlf)?;
                items.push(build(&rest[..used], element)?);
                pos += used;
            }
            Value::Array(items)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_arrays_with_every_kind_of_element() {
        let wire = b"*3\r\n:1\r\n*2\r\n$3\r\nGET\r\n$-1\r\n-ERR no\r\n+tail";
        let (v, used) = parse(wire).unwrap().unwrap();
        assert_eq!(used, wire.len() - 5);
        assert_eq!(
            v,
            Value::Array(vec![
                Value::Integer(1),
                Value::Array(vec![Value::Bulk(b"GET".to_vec()), Value::Nil]),
                Value::Error("ERR no".into()),
            ])
        );
    }

    #[test]
    fn incomplete_input_is_none_and_garbage_an_error() {
        assert_eq!(parse(b"*2\r\n:1\r\n").unwrap(), None);
        assert!(parse(b"?what\r\n").is_err());
    }

    #[test]
    fn bulk_text_is_readable() {
        let (v, _) = parse(b"$5\r\nhello\r\n").unwrap().unwrap();
        assert_eq!(v.text().as_deref(), Some("hello"));
        assert_eq!(v.integer(), None);
    }
}
