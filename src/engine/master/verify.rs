//! `--data-verify` and `--verify-only`: every imported key read back and its
//! value compared with the import file's, as memtier's verify client does.
//!
//! memtier's verify client walks its SET sequence again (as many requests as
//! `--requests`); kvbench checks each key once, which is what "verify the
//! import" means whatever the run's length: without `--generate-keys` every
//! item of the file, with it every key of the range with the value of its
//! item. The GETs go over one blocking connection, opened and authenticated
//! as the control connection is, in batches of 64 pipelined requests.

use std::io;

use crate::config::target::Target;
use crate::config::{Config, DataImport};
use crate::engine::master::server::Control;
use crate::error::ConnectError;
use crate::protocol::resp;
use crate::protocol::value::{self, Value};

/// GETs per round trip: enough to hide the round trip, small enough that a
/// batch of large values stays far below the control reply's 16 MiB bound.
const BATCH: usize = 64;

/// How many failures [`Verification::failures`] keeps for the messages.
pub const SHOWN_FAILURES: usize = 10;

/// What the verification found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verification {
    /// Keys whose value is the file's.
    pub verified: u64,
    /// Keys with another value, none, or an error reply.
    pub failed: u64,
    /// The first [`SHOWN_FAILURES`] failures.
    pub failures: Vec<Failure>,
}

/// One key that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The key.
    pub key: Vec<u8>,
    /// The file's value.
    pub expected: Vec<u8>,
    /// What the server answered.
    pub got: Got,
}

/// A failed key's reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Got {
    /// Another value.
    Value(Vec<u8>),
    /// No such key.
    Nil,
    /// An error reply, or a reply that is no value.
    Error(String),
}

/// Why the verification could not finish.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The connection could not open.
    #[error("data verification: cannot connect: {0}")]
    Connect(#[from] ConnectError),
    /// The connection failed during the verification.
    #[error("data verification: the connection failed: {0}")]
    Io(#[from] io::Error),
}

/// Reads every imported key back from `config`'s server.
pub fn verify(config: &Config, import: &DataImport) -> Result<Verification, VerifyError> {
    let mut control = Control::open(&plain(&config.target))?;
    let prefix = config.keys.prefix.as_bytes();
    let items = import.items.items();
    // (key name, expected value) of each key to check, by key number.
    let expected = |n: u64| -> (Vec<u8>, &[u8]) {
        if import.generate_keys {
            let value = import
                .items
                .item_for_generated(n)
                .map_or(&[][..], |i| &i.value);
            let mut key = prefix.to_vec();
            key.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            (key, value)
        } else {
            let item = &items[(n - 1) as usize];
            (item.key.clone(), &item.value)
        }
    };
    let numbers: Box<dyn Iterator<Item = u64>> = if import.generate_keys {
        Box::new(config.keys.range.min..=config.keys.range.max)
    } else {
        Box::new(1..=items.len() as u64)
    };
    let mut found = Verification::default();
    let mut batch = Vec::with_capacity(BATCH);
    let mut numbers = numbers.peekable();
    while numbers.peek().is_some() {
        batch.clear();
        batch.extend(numbers.by_ref().take(BATCH).map(expected));
        let mut request = Vec::new();
        for (key, _) in &batch {
            resp::encode_command(&mut request, &[b"GET", key]);
        }
        let replies = control.exchange(&request, |buf| whole_replies(buf, batch.len()))?;
        let mut at = 0;
        for (key, value) in &batch {
            let got = match value::parse(&replies[at..]) {
                Ok(Some((reply, used))) => {
                    at += used;
                    match reply {
                        Value::Bulk(bytes) if bytes == *value => {
                            found.verified += 1;
                            continue;
                        }
                        Value::Bulk(bytes) => Got::Value(bytes),
                        Value::Nil => Got::Nil,
                        Value::Error(e) => Got::Error(e),
                        other => Got::Error(format!("a reply that is no value: {other:?}")),
                    }
                }
                _ => Got::Error("a reply that could not be read".to_string()),
            };
            found.failed += 1;
            if found.failures.len() < SHOWN_FAILURES {
                found.failures.push(Failure {
                    key: key.clone(),
                    expected: value.to_vec(),
                    got,
                });
            }
        }
    }
    Ok(found)
}

/// The target as RESP2 without `HELLO`: the replies are read as RESP2 values.
fn plain(target: &Target) -> Target {
    let mut target = target.clone();
    target.protocol = crate::protocol::wire::Protocol::Redis;
    target
}

/// The length of the first `count` replies in `buf`, once all are whole.
fn whole_replies(buf: &[u8], count: usize) -> Option<usize> {
    let mut at = 0;
    for _ in 0..count {
        match resp::decode(&buf[at..]) {
            Ok(Some((_, used))) => at += used,
            // A malformed reply ends the batch; `verify` counts no key for it.
            Ok(None) => return None,
            Err(_) => return Some(buf.len()),
        }
    }
    Some(at)
}
