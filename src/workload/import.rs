//! memtier's `--data-import`: the items of an import file (key, value, expiry)
//! and the requests made of them, encoded once before the run.
//!
//! The file format is memtier's (its README.import, written by its
//! `file_writer`): a header line starting `dumpflags, time, exptime`, then one
//! item per record, `dumpflags, time, exptime, nbytes, nsuffix, it_flags,
//! clsid, nkey, "key", "data"`, where `nbytes` counts the value and the
//! `\r\n` memcached stores after it, and a `"` inside a quoted column is
//! written twice. Reading it is [`reader`]'s job.
//!
//! Every item's SET and GET are encoded into two flat buffers at start, so a
//! request of the run is a copy of bytes already made: the hot path neither
//! allocates nor formats. The requests are RESP; memcached's protocols are
//! refused by `config` before anything is read.

use std::ops::Range;

use crate::protocol::resp::{ExpiryCommand, encode_command};
use crate::protocol::wire::Protocol;

pub mod reader;

#[cfg(test)]
mod tests;

pub use reader::{ImportError, parse};

/// One item of an import file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedItem {
    /// The key's bytes.
    pub key: Vec<u8>,
    /// The value's bytes (without memcached's trailing `\r\n`).
    pub value: Vec<u8>,
    /// The file's `exptime`, in seconds; 0 for none.
    pub expiry_s: u32,
}

/// The items of an import file and their requests, encoded once.
#[derive(Debug, Clone)]
pub struct Imported {
    items: Vec<ImportedItem>,
    /// `--no-expiry`: every item's SET is a plain SET.
    no_expiry: bool,
    /// How an item with an expiry is set.
    command: ExpiryCommand,
    /// `--generate-keys`: the key range's first number, which takes the
    /// first item's value.
    generated_min: u64,
    /// `--memtier-compat`: a SET draws its key from the SET key pattern and
    /// sends the connection's next item in file order whatever it drew (see
    /// [`Imported::sets_in_file_order`]).
    file_order: bool,
    /// Every item's SET (or SETEX), laid end to end.
    sets: Vec<u8>,
    /// Where item `i`'s SET lies in `sets`.
    set_at: Vec<Range<usize>>,
    /// Every item's GET, laid end to end.
    gets: Vec<u8>,
    /// Where item `i`'s GET lies in `gets`.
    get_at: Vec<Range<usize>>,
}

impl Imported {
    /// The requests of `items` (at least one); `no_expiry` drops their expiry,
    /// and `command` says how an item with one is set: `SET … EX n`
    /// (counted with every SET), or memtier's `SETEX` under `--memtier-compat`.
    pub fn new(items: Vec<ImportedItem>, no_expiry: bool, command: ExpiryCommand) -> Imported {
        let (mut sets, mut set_at) = (Vec::new(), Vec::with_capacity(items.len()));
        let (mut gets, mut get_at) = (Vec::new(), Vec::with_capacity(items.len()));
        let mut seconds = itoa::Buffer::new();
        for item in &items {
            let start = sets.len();
            match (expiry_of(no_expiry, item), command) {
                // memtier's redis protocol sends SETEX for an item with an expiry.
                (Some(s), ExpiryCommand::Setex) => encode_command(
                    &mut sets,
                    &[
                        b"SETEX",
                        &item.key,
                        seconds.format(s).as_bytes(),
                        &item.value,
                    ],
                ),
                (Some(s), ExpiryCommand::SetWithEx) => encode_command(
                    &mut sets,
                    &[
                        b"SET",
                        &item.key,
                        &item.value,
                        b"EX",
                        seconds.format(s).as_bytes(),
                    ],
                ),
                (None, _) => encode_command(&mut sets, &[b"SET", &item.key, &item.value]),
            }
            set_at.push(start..sets.len());
            let start = gets.len();
            encode_command(&mut gets, &[b"GET", &item.key]);
            get_at.push(start..gets.len());
        }
        Imported {
            items,
            no_expiry,
            command,
            generated_min: 0,
            file_order: false,
            sets,
            set_at,
            gets,
            get_at,
        }
    }

    /// `--generate-keys`: the values follow the key range from `min`.
    pub fn with_generated_min(self, min: u64) -> Imported {
        Imported {
            generated_min: min,
            ..self
        }
    }

    /// `--memtier-compat`: memtier's SET reads the next item of the file
    /// (each client from the first, wrapping) yet still draws a key from the
    /// SET key pattern, which it then drops (`client::get_key_for_conn` calls
    /// `get_key_index` for every command). With `R`, `G` or `Z` that draw
    /// takes numbers from the generator the GETs draw from too, so the GETs
    /// after SETs pick other items than a SET that draws nothing would leave.
    pub fn with_sets_in_file_order(self, file_order: bool) -> Imported {
        Imported { file_order, ..self }
    }

    /// True when a SET's item is the connection's count of SETs, not its
    /// key draw.
    pub fn sets_in_file_order(&self) -> bool {
        self.file_order
    }

    /// The items, in file order.
    pub fn items(&self) -> &[ImportedItem] {
        &self.items
    }

    /// How many items the file holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the file holds no item (`config` refuses such a file).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The index of item number `key` (1-based, as memtier numbers them),
    /// wrapped into the file.
    #[inline]
    fn index(&self, key: u64) -> usize {
        (key.saturating_sub(1) % self.items.len().max(1) as u64) as usize
    }

    /// Appends item number `key`'s SET; returns its length.
    #[inline]
    pub fn encode_set(&self, out: &mut Vec<u8>, key: u64) -> usize {
        let bytes = self
            .set_at
            .get(self.index(key))
            .and_then(|at| self.sets.get(at.clone()))
            .unwrap_or_default();
        out.extend_from_slice(bytes);
        bytes.len()
    }

    /// Appends item number `key`'s GET; returns its length.
    #[inline]
    pub fn encode_get(&self, out: &mut Vec<u8>, key: u64) -> usize {
        let bytes = self
            .get_at
            .get(self.index(key))
            .and_then(|at| self.gets.get(at.clone()))
            .unwrap_or_default();
        out.extend_from_slice(bytes);
        bytes.len()
    }

    /// The item whose value `--generate-keys` gives key `key`: item
    /// `(key - min) mod items` of a range starting at `min`.
    #[inline]
    pub fn item_for_generated(&self, key: u64) -> Option<&ImportedItem> {
        self.items
            .get(self.index(key.saturating_sub(self.generated_min) + 1))
    }

    /// Appends `--generate-keys`' SET of key `key` (named by `prefix` and the
    /// number, as every other SET) with its item's value and expiry.
    #[inline]
    pub fn encode_generated_set(
        &self,
        protocol: Protocol,
        out: &mut Vec<u8>,
        prefix: &[u8],
        key: u64,
        opaque: u32,
    ) -> usize {
        let Some(item) = self.item_for_generated(key) else {
            return 0;
        };
        match expiry_of(self.no_expiry, item) {
            Some(s) => {
                protocol.encode_set_expiring(out, prefix, key, &item.value, s, self.command, opaque)
            }
            None => protocol.encode_set(out, prefix, key, &item.value, opaque),
        }
    }

    /// The most bytes one of its requests takes, with generated keys of
    /// `prefix` (20 digits at most) as well.
    pub fn max_request_bytes(&self, prefix: usize) -> usize {
        let encoded = self
            .set_at
            .iter()
            .chain(&self.get_at)
            .map(|at| at.len())
            .max()
            .unwrap_or(0);
        let longest_value = self.items.iter().map(|i| i.value.len()).max().unwrap_or(0);
        encoded.max(longest_value + prefix + 20 + 64)
    }
}

/// The expiry an item's SET carries: none with `--no-expiry` or a 0.
fn expiry_of(no_expiry: bool, item: &ImportedItem) -> Option<u32> {
    (!no_expiry && item.expiry_s > 0).then_some(item.expiry_s)
}
