//! The encoders of `--data-import`'s ops: copies of the requests the import
//! file's items were encoded into at start
//! ([`crate::workload::import::Imported`]).

use crate::protocol::wire::Protocol;
use crate::workload::ops::{Encoding, OpTable};

/// Appends the request of an import op for key number `key`; returns its
/// length (0 for another encoding or a table without an import, which
/// `config` never builds).
#[inline]
pub(super) fn encode(
    encoding: Encoding,
    ops: &OpTable,
    protocol: Protocol,
    out: &mut Vec<u8>,
    prefix: &[u8],
    key: u64,
    opaque: u32,
) -> usize {
    let Some(import) = ops.import.as_deref() else {
        return 0;
    };
    match encoding {
        Encoding::ImportSet => import.encode_set(out, key),
        Encoding::ImportGet => import.encode_get(out, key),
        Encoding::ImportGeneratedSet => {
            import.encode_generated_set(protocol, out, prefix, key, opaque)
        }
        Encoding::Set
        | Encoding::Get
        | Encoding::SetExpiring
        | Encoding::Wait
        | Encoding::Template => 0,
    }
}
