//! The op table: what a run sends, as data. Each op is a command template, the
//! key pattern its `__key__` draws from, its weight in the mix and the stats row
//! it is counted in; each row has its report names, the `cmdstat_` witness and
//! whether a nil reply is a miss.
//!
//! The default table is memtier's pair, SET and GET, weighted by `--ratio` and
//! keyed by `--key-pattern`; memtier's `--command` flags replace it. Rows and ops
//! are apart because memtier's `--command-stats-breakdown command` (its default)
//! counts every line of one command name in one row, while `line` gives each
//! line its own. `--scan-incremental-iteration`'s table is in `ops/scan.rs`;
//! what a command's name says of its replies and its route, in `ops/kinds.rs`.

use std::borrow::Cow;
use std::sync::Arc;

use crate::protocol::command::CommandSpec;
use crate::protocol::resp::ExpiryCommand;
pub use crate::protocol::resp::found::Lookup;
use crate::protocol::template::RespTemplate;
use crate::workload::import::Imported;
use crate::workload::keys::KeyPattern;
use crate::workload::mix::Ratio;
use crate::workload::pair::PairOptions;

mod encoding;
mod kinds;
mod scan;
pub use encoding::Encoding;
pub use kinds::is_read_command;
use kinds::{HIT_COMMANDS, READ_COMMANDS, lookup_of};
pub use scan::{SCAN_FIRST, SCAN_NEXT, ScanLimit};

/// How `--command` lines map to report rows (memtier's
/// `--command-stats-breakdown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakdown {
    /// One row per command name: two `GET` lines share the `Gets` row.
    Command,
    /// One row per `--command` line, in the order given.
    Line,
}

impl Breakdown {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Breakdown::Command => "command",
            Breakdown::Line => "line",
        }
    }
}

/// One request kind of the mix.
#[derive(Debug, Clone)]
pub struct OpDef {
    /// The command as parsed (its text is what the user typed).
    pub spec: CommandSpec,
    /// The command, encoded once.
    pub template: RespTemplate,
    /// Which encoder sends it.
    pub encoding: Encoding,
    /// Where this op's `__key__` draws from.
    pub pattern: KeyPattern,
    /// The op whose key generator this op draws from: its own index, except
    /// for the short MGET that ends a `--multi-key-get` cycle, which goes on
    /// with the full MGETs' generator as memtier's one GET key iterator does
    /// (a sequential walk continues rather than starting its own).
    pub keys_of: usize,
    /// Requests of this op per cycle of the mix.
    pub weight: u32,
    /// The stats row this op is counted in: an index into [`OpTable::rows`].
    pub row: u16,
    /// `--cluster-mode`: the argument whose bytes decide the slot — the first
    /// holding `__key__`, else the first after the name; `None` for a
    /// command with no argument (it goes to any node).
    pub key_arg: Option<usize>,
    /// A read (`--read-from replica|any` may send it to a replica).
    pub read: bool,
    /// `EXEC` or `DISCARD`: under `--transaction`, its reply ends the
    /// transaction whose commands were answered `+QUEUED`.
    pub ends_transaction: bool,
}

/// One row of the reports: the counters of one or more ops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The command name in capitals (`HSET`): the latency distribution's label.
    pub name: String,
    /// memtier's row name (`Hsets`).
    pub memtier: String,
    /// The key of this row in JSON: memtier's row name, numbered from the
    /// second repeat on (`Gets#2`) so that a line breakdown's rows stay apart
    /// (memtier writes the same key twice, which JSON readers collapse).
    pub json_key: String,
    /// The key of its latency distribution and integer totals in JSON: the
    /// name, numbered the same way (`GET#2`).
    pub name_key: String,
    /// The command in `INFO commandstats` (`hset` for `cmdstat_hset`).
    pub witness: String,
    /// True when a nil reply is a miss and a value a hit (GET-like commands).
    pub counts_hits: bool,
    /// How the reply of a multi-key or collection command says which keys
    /// were found (`MGET`, `SMEMBERS`, `EXISTS`…), memtier 2.5's
    /// `--command-miss-tracking auto`; `None` for the others.
    pub lookup: Option<Lookup>,
}

impl Row {
    /// True when its replies count hits and misses.
    pub fn tracks_misses(&self) -> bool {
        self.counts_hits || self.lookup.is_some()
    }
}

/// One command the server counts (`cmdstat_<command>`) and the rows kvbench
/// counts it in: a line breakdown may count one command in several rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// The command name in capitals, as reports print it.
    pub name: String,
    /// The command in lower case, as `INFO commandstats` names it.
    pub command: String,
    /// The rows of the op table counted under it.
    pub rows: Vec<usize>,
}

/// Every op of a run and the rows they are counted in.
#[derive(Debug, Clone)]
pub struct OpTable {
    /// The ops, in the order given.
    pub ops: Vec<OpDef>,
    /// The report rows, in the order of their first op.
    pub rows: Vec<Row>,
    /// True for the default SET/GET pair, whose weights come from `--ratio`
    /// (a sweep may change it per cell) and whose rows are memtier's Sets,
    /// Gets and Waits.
    pub default_pair: bool,
    /// How lines map to rows.
    pub breakdown: Breakdown,
    /// What `__rand_int__` draws from.
    pub rand_int: RandInt,
    /// memtier's options on the SET/GET pair (expiry, WAIT, MGET, offset).
    pub pair: PairOptions,
    /// `--data-import`: the file's items, whose requests the pair's
    /// [`Encoding::ImportSet`], [`Encoding::ImportGet`] and
    /// [`Encoding::ImportGeneratedSet`] copy.
    pub import: Option<Arc<Imported>>,
    /// How `__monitor_line@__`'s ops are picked: in cycle order, or one at
    /// random per request (`--monitor-pattern R`).
    pub pick: Pick,
    /// `--transaction`: each rotation of the cycle is one transaction, sent
    /// on one connection, every `__key__` of it one key.
    pub transaction: bool,
    /// `--scan-incremental-iteration`: the ops are [`SCAN_FIRST`] and
    /// [`SCAN_NEXT`], and each connection's cursor picks between them.
    pub scan: Option<ScanLimit>,
}

/// How a connection picks the op of its next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pick {
    /// The weighted cycle of [`crate::workload::mix::OpCycle`] (memtier's order).
    #[default]
    Cycle,
    /// Uniformly at random among the ops, from the connection's RNG.
    Uniform,
}

/// Where `__rand_int__` numbers come from: a `--command` run draws them from
/// the key range; a suite test takes redis-benchmark's `-r`, or, without it,
/// sends the placeholder's own text as redis-benchmark does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandInt {
    /// Uniform in `--key-minimum`..=`--key-maximum`.
    KeyRange,
    /// Uniform in `0..n` (redis-benchmark's `-r n`; `n` is at least 1).
    Below(u64),
    /// `0, 1, 2, …` wrapping at `n` (valkey-benchmark's `--sequential` with
    /// `-r n`), each connection from its own share of the range.
    Sequential(u64),
    /// The text `__rand_int__` itself: every request names one key.
    Literal,
}

/// The most ops a table holds: the in-flight entry keeps the op and row in 16 bits.
pub const MAX_OPS: usize = 1024;

impl OpTable {
    /// memtier's default pair: `SET __key__ __data__` and `GET __key__`.
    pub fn default_pair(ratio: Ratio, set: KeyPattern, get: KeyPattern) -> OpTable {
        OpTable::pair_with(ratio, set, get, PairOptions::default())
    }

    /// memtier's pair as its flags shape it: `--data-offset` turns it into
    /// SETRANGE / GETRANGE, `--multi-key-get N` turns the GETs of a cycle into
    /// MGETs of N keys (the last of a cycle takes the remainder, as memtier),
    /// `--expiry-range` gives the SETs an expiry, and `--wait-ratio` adds a
    /// WAIT op outside the cycle. The rows keep memtier's names: Sets, Gets, Waits.
    pub fn pair_with(ratio: Ratio, set: KeyPattern, get: KeyPattern, pair: PairOptions) -> OpTable {
        let offset = pair.data_offset;
        let set_text = match offset {
            0 => "SET __key__ __data__".to_string(),
            n => format!("SETRANGE __key__ {n} __data__"),
        };
        let mut lines = vec![(set_text, set, ratio.set)];
        match (pair.multi_get, offset) {
            (Some(n), _) => {
                let keys = |k: u32| format!("MGET{}", " __key__".repeat(k as usize));
                lines.push((keys(n), get, ratio.get / n));
                if ratio.get % n > 0 {
                    lines.push((keys(ratio.get % n), get, 1));
                }
            }
            (None, 0) => lines.push(("GET __key__".to_string(), get, ratio.get)),
            (None, n) => lines.push((format!("GETRANGE __key__ {n} -1"), get, ratio.get)),
        }
        if pair.wait.is_some() {
            // Outside the cycle: the connection's WaitGate decides when.
            lines.push(("WAIT 0 0".to_string(), KeyPattern::Uniform, 0));
        }
        let mut table = OpTable::empty(Breakdown::Command);
        for (text, pattern, weight) in lines {
            // Every text above is built to parse.
            if let Ok(spec) = CommandSpec::parse(&text) {
                table.push(spec, pattern, weight);
            }
        }
        // The remainder MGET (the third op, when there is one) continues the
        // full MGETs' keys.
        if let (Some(_), Some(short)) = (pair.multi_get, table.ops.get_mut(2))
            && short.spec.name() == "MGET"
        {
            short.keys_of = 1;
        }
        for op in &mut table.ops {
            match op.spec.name().as_str() {
                "SET" if pair.expiry.is_some() => op.encoding = Encoding::SetExpiring,
                "WAIT" => op.encoding = Encoding::Wait,
                _ => {}
            }
        }
        // memtier counts its pair in Sets, Gets and Waits whatever command
        // carries it; the server counts the command actually sent.
        let names = [("Sets", "SET"), ("Gets", "GET"), ("Waits", "WAIT")];
        for (row, (memtier, name)) in table.rows.iter_mut().zip(names) {
            row.memtier = memtier.to_string();
            row.json_key = memtier.to_string();
            row.name = name.to_string();
            row.name_key = name.to_string();
        }
        if let (Some((_, ExpiryCommand::Setex)), Some(row)) = (pair.expiry, table.rows.first_mut())
        {
            row.witness = "setex".to_string();
        }
        table.default_pair = true;
        table.pair = pair;
        table
    }

    /// The prefill's table: SETs only, walked by the prefill's own key generator.
    pub fn prefill() -> OpTable {
        let mut table = OpTable::empty(Breakdown::Command);
        if let Ok(spec) = CommandSpec::parse("SET __key__ __data__") {
            table.push(spec, KeyPattern::Sequential, 1);
        }
        table
    }

    /// The table a phase's rows are of: this run's, or for the prefill of
    /// a `--command` run the prefill's own SETs. (The SET/GET pair's prefill
    /// keeps the pair's rows, its SETs in the first, as it always has been
    /// reported.)
    pub fn of_phase(&self, prefill: bool) -> Cow<'_, OpTable> {
        if prefill && !self.default_pair {
            Cow::Owned(OpTable::prefill())
        } else {
            Cow::Borrowed(self)
        }
    }

    /// A table of `--command` lines with their weights and key patterns.
    pub fn commands(lines: Vec<(CommandSpec, KeyPattern, u32)>, breakdown: Breakdown) -> OpTable {
        let mut table = OpTable::empty(breakdown);
        for (spec, pattern, weight) in lines {
            table.push(spec, pattern, weight);
        }
        table
    }

    fn empty(breakdown: Breakdown) -> OpTable {
        OpTable {
            ops: Vec::new(),
            rows: Vec::new(),
            default_pair: false,
            breakdown,
            rand_int: RandInt::KeyRange,
            pair: PairOptions::default(),
            import: None,
            pick: Pick::Cycle,
            transaction: false,
            scan: None,
        }
    }

    /// The table of one suite test: its one command, sent inline when
    /// redis-benchmark does (PING_INLINE), counted under `witness`, a nil
    /// reply a miss when `counts_hits` (GET and the pops), and `__rand_int__`
    /// drawn from `rand_int`.
    pub fn suite_test(
        spec: CommandSpec,
        inline: bool,
        witness: &str,
        counts_hits: bool,
        rand_int: RandInt,
    ) -> OpTable {
        let mut table = OpTable::empty(Breakdown::Command);
        table.push(spec, KeyPattern::Uniform, 1);
        table.rand_int = rand_int;
        if let Some(row) = table.rows.first_mut() {
            row.witness = witness.to_string();
            row.counts_hits = counts_hits;
            // The suite keeps redis-benchmark's figures: no hits but GET's.
            row.lookup = None;
        }
        if let Some(op) = table.ops.first_mut() {
            op.template = RespTemplate::new(&op.spec, inline);
            if inline {
                op.encoding = Encoding::Template;
            }
        }
        table
    }

    fn push(&mut self, spec: CommandSpec, pattern: KeyPattern, weight: u32) {
        let name = spec.name();
        let shared = match self.breakdown {
            Breakdown::Command => self.rows.iter().position(|r| r.name == name),
            Breakdown::Line => None,
        };
        let row = shared.unwrap_or_else(|| {
            let memtier = spec.memtier_row_name();
            let repeats = self.rows.iter().filter(|r| r.memtier == memtier).count();
            let (json_key, name_key) = match repeats {
                0 => (memtier.clone(), name.clone()),
                n => (format!("{memtier}#{}", n + 1), format!("{name}#{}", n + 1)),
            };
            self.rows.push(Row {
                counts_hits: HIT_COMMANDS.contains(&name.as_str()),
                lookup: lookup_of(&spec),
                witness: name.to_ascii_lowercase(),
                name: name.clone(),
                memtier,
                json_key,
                name_key,
            });
            self.rows.len() - 1
        });
        let key_arg = spec
            .args
            .iter()
            .position(|arg| arg.contains(&crate::protocol::command::Part::Key))
            .or((spec.args.len() > 1).then_some(1));
        self.ops.push(OpDef {
            keys_of: self.ops.len(),
            template: RespTemplate::new(&spec, false),
            encoding: Encoding::of(&spec),
            key_arg,
            read: READ_COMMANDS.contains(&name.as_str()),
            ends_transaction: name == "EXEC" || name == "DISCARD",
            spec,
            pattern,
            weight,
            row: row as u16,
        });
    }

    /// The weights of one cycle: `ratio`'s for the default pair (a sweep cell's
    /// ratio), the table's own otherwise.
    pub fn weights(&self, ratio: Ratio) -> Vec<u32> {
        if self.default_pair {
            // The WAIT op, last, stays out of the cycle.
            match self.pair.multi_get {
                Some(n) => {
                    let mut w = vec![ratio.set, ratio.get / n];
                    if self.ops.len() > 2 + usize::from(self.pair.wait.is_some()) {
                        w.push(u32::from(ratio.get % n > 0));
                    }
                    w
                }
                None => vec![ratio.set, ratio.get],
            }
        } else {
            self.ops.iter().map(|op| op.weight).collect()
        }
    }

    /// The commands to cross-check against `INFO commandstats`, in the order
    /// of their first row. A command counted in rows of different names
    /// (`SCAN 0` and `SCAN <cursor>`) is named by itself (`SCAN`).
    pub fn witnesses(&self) -> Vec<Witness> {
        let mut out: Vec<Witness> = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            match out.iter_mut().find(|w| w.command == row.witness) {
                Some(w) => {
                    if w.name != row.name {
                        w.name = row.witness.to_ascii_uppercase();
                    }
                    w.rows.push(i);
                }
                None => out.push(Witness {
                    name: row.name.clone(),
                    command: row.witness.clone(),
                    rows: vec![i],
                }),
            }
        }
        out
    }

    /// Rows whose replies count hits and misses (GET and its kin, and the
    /// reply shapes of [`Row::lookup`]).
    pub fn hit_rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.tracks_misses())
            .map(|(i, _)| i)
    }

    /// The most bytes one request can take, with keys of `prefix` and values of
    /// at most `max_value` bytes: every placeholder at its largest, and the
    /// literal bytes and framing.
    pub fn max_request_bytes(&self, prefix: usize, max_value: usize) -> usize {
        use crate::protocol::command::Part;
        self.ops
            .iter()
            .map(|op| {
                let spec = &op.spec;
                let literal: usize = spec
                    .args
                    .iter()
                    .flatten()
                    .map(|p| match p {
                        Part::Literal(b) => b.len(),
                        _ => 0,
                    })
                    .sum();
                let keys = spec.count(&Part::Key) * (prefix + 20);
                let data = spec.count(&Part::Data) * max_value;
                let rand = spec.count(&Part::RandInt) * 12;
                let cursor = spec.count(&Part::Cursor) * 20;
                // `$len\r\n` and `\r\n` per argument, and the `*N\r\n` header.
                literal + keys + data + rand + cursor + 32 * (spec.args.len() + 1)
            })
            .max()
            .unwrap_or(0)
            .max(
                self.import
                    .as_ref()
                    .map_or(0, |i| i.max_request_bytes(prefix)),
            )
    }
}

#[cfg(test)]
mod tests;
