//! `--transaction`'s state in a connection's request stream: which rotation
//! of the cycle is in progress and the one key every `__key__` of it takes.

use crate::protocol::command::Part;
use crate::workload::ops::OpTable;

/// `--transaction`: every `__key__` of one rotation of the cycle is one key,
/// drawn when the rotation starts from the first keyed op's pattern, so that
/// `WATCH` guards the key the rotation writes and, in a cluster, the whole
/// rotation has one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// Rotations started on this connection, from 1.
    pub number: u64,
    /// The first op with a `__key__`; `None` when no op has one.
    pub keyed_op: Option<usize>,
    /// The rotation's key.
    pub key: Option<u64>,
}

/// The rotation state of a `--transaction` table, before its first request.
pub(super) fn ops_transaction(ops: &OpTable) -> Option<Rotation> {
    ops.transaction.then(|| Rotation {
        number: 0,
        keyed_op: ops.ops.iter().position(|op| op.spec.count(&Part::Key) > 0),
        key: None,
    })
}
