//! How each op of the table is encoded: memtier's pair by dedicated encoders,
//! everything else by its template.

use crate::protocol::command::CommandSpec;

/// How an op's requests are encoded: memtier's own pair by the dedicated
/// encoders (a third less work per request than the general template,
/// measured in `make bench`), everything else by its template. Both write the
/// same bytes for the same draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `SET __key__ __data__`: [`crate::protocol::resp::encode_set`].
    Set,
    /// `GET __key__`: [`crate::protocol::resp::encode_get`].
    Get,
    /// `SET __key__ __data__` with an expiry drawn from `--expiry-range`
    /// ([`crate::workload::ops::OpTable::pair`]): `SET … EX n`, or memtier's `SETEX`.
    SetExpiring,
    /// memtier's `WAIT numreplicas timeout`, both drawn from their ranges.
    Wait,
    /// Any other command: [`crate::protocol::template::RespTemplate::encode`].
    Template,
    /// `--data-import`'s SET of item number `__key__`, encoded once at start
    /// ([`crate::workload::import::Imported::encode_set`]).
    ImportSet,
    /// `--data-import`'s GET of item number `__key__`.
    ImportGet,
    /// `--data-import --generate-keys`' SET: a numbered key with its item's
    /// value ([`crate::workload::import::Imported::encode_generated_set`]).
    ImportGeneratedSet,
}

impl Encoding {
    /// True for the SETs of one key and value, which a server answers with
    /// a status (`+OK`, `STORED`) or an error, never a value or nil.
    pub fn answers_status(self) -> bool {
        matches!(
            self,
            Encoding::Set
                | Encoding::SetExpiring
                | Encoding::ImportSet
                | Encoding::ImportGeneratedSet
        )
    }

    /// The dedicated encoder for `spec`, when it is exactly SET or GET of
    /// one lone key (and value).
    pub(super) fn of(spec: &CommandSpec) -> Encoding {
        use crate::protocol::command::Part;
        let literal = |arg: &[Part], text: &[u8]| matches!(arg, [Part::Literal(b)] if b == text);
        match spec.args.as_slice() {
            [name, key, data]
                if literal(name, b"SET") && key == &[Part::Key] && data == &[Part::Data] =>
            {
                Encoding::Set
            }
            [name, key] if literal(name, b"GET") && key == &[Part::Key] => Encoding::Get,
            _ => Encoding::Template,
        }
    }
}
