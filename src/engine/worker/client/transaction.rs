//! `--transaction` in a cluster: every request of one rotation goes to the
//! node of the rotation's key, the keyless `MULTI` and `EXEC` included, so
//! that the transaction runs on one connection of one shard. The node is
//! found when the rotation's first request is drawn, from the key the
//! rotation will use (`engine::worker::request::Rotation`), before any of it is sent.

use crate::engine::cluster::slot::key_slot;
use crate::engine::worker::client::{Client, Router};
use crate::engine::worker::request::Rotation;

impl Client {
    /// The node of `rotation`: decided at its first request, kept for the rest.
    pub(super) fn pinned_node(
        &mut self,
        router: &Router,
        rotation: Rotation,
        prefix: &[u8],
    ) -> usize {
        if let Some((number, node)) = self.pin
            && number == rotation.number
        {
            return node;
        }
        let op = rotation.keyed_op.and_then(|i| self.ops.ops.get(i));
        let slot = match (op, rotation.key) {
            (Some(op), Some(key)) => {
                // The key argument as the rotation's keyed commands send it
                // (`{tag}` included), so the slot is theirs.
                self.again.clear();
                op.spec.write_arg(op.key_arg, prefix, key, &mut self.again);
                Some(key_slot(&self.again))
            }
            _ => None,
        };
        let node = router.route(slot, false, self.index);
        self.pin = Some((rotation.number, node));
        node
    }
}
