//! A request sent again after a redirect or a retry: the same op and first
//! key as when it was drawn, encoded afresh.

use crate::engine::worker::request::fill::{Again, Draw};
use crate::engine::worker::request::pair::{encode_expiring, encode_wait};
use crate::engine::worker::request::{Queued, RequestSource, import};
use crate::workload::ops::Encoding;
use crate::workload::values::ValuePool;

impl RequestSource {
    /// Appends `queued`'s request again (after a redirect): the same op and
    /// first key, fresh values and further keys. Returns what to keep of it,
    /// with its redirect count carried over.
    pub fn encode_again(
        &mut self,
        queued: Queued,
        out: &mut Vec<u8>,
        values: &ValuePool,
    ) -> Queued {
        let prefix = self.pair.prefix();
        let index = usize::from(queued.op);
        let Some(op) = self.ops.ops.get(index).filter(|_| index < self.keys.len()) else {
            return queued;
        };
        let keys = &mut self.keys;
        let len = match op.encoding {
            // Only a cluster redirects, and a cluster speaks RESP (memcached
            // refuses --cluster-mode), which carries no opaque.
            Encoding::Set => {
                let value = values.next(queued.key, &mut self.rng);
                self.pair.set(out, queued.key, value, 0)
            }
            Encoding::SetExpiring => {
                let value = values.next(queued.key, &mut self.rng);
                encode_expiring(
                    &self.pair,
                    &self.ops,
                    &mut self.rng,
                    out,
                    queued.key,
                    value,
                    0,
                )
            }
            Encoding::Wait => encode_wait(&self.ops, &mut self.rng, out),
            Encoding::Get => self.pair.get(out, queued.key, 0),
            Encoding::ImportSet | Encoding::ImportGet | Encoding::ImportGeneratedSet => {
                import::encode(
                    op.encoding,
                    &self.ops,
                    self.pair.protocol(),
                    out,
                    prefix,
                    queued.key,
                    0,
                )
            }
            Encoding::Template => {
                let mut draw = Again {
                    first: Some(queued.key),
                    draw: Draw {
                        keys,
                        op: index,
                        rng: &mut self.rng,
                        values,
                        rand_range: self.rand_range,
                        rand_next: self.rand_next.as_mut(),
                        first_key: None,
                        fixed_key: None,
                        cursor: self.scan.map_or(0, |s| s.cursor()),
                    },
                };
                op.template.encode(out, prefix, &mut draw)
            }
        };
        Queued {
            len: u32::try_from(len).unwrap_or(u32::MAX),
            ..queued
        }
    }
}
