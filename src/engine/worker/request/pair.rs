//! The SET/GET pair's encoder for a worker, and the encoders of memtier's
//! pair options that draw more than a key and a value: an expiring SET and
//! a WAIT.

use std::sync::Arc;

use rand::rngs::SmallRng;

use crate::config::Config;
use crate::protocol::wire::PairEncoder;
use crate::workload::ops::OpTable;

/// The pair's encoder for the run's wire, `--key-prefix` and key range,
/// built once per worker for every
/// [`RequestSource`](crate::engine::worker::request::RequestSource) of its connections.
pub fn pair_encoder(config: &Config) -> Arc<PairEncoder> {
    let range = config.keys.range;
    Arc::new(PairEncoder::new(
        config.target.protocol,
        config.keys.prefix.as_bytes(),
        range.min..=range.max,
    ))
}

/// A SET of `key` with its expiry drawn after its value, as memtier draws
/// them; a drawn 0 sends a plain SET, as memtier does.
#[inline]
pub(super) fn encode_expiring(
    pair: &PairEncoder,
    ops: &OpTable,
    rng: &mut SmallRng,
    out: &mut Vec<u8>,
    key: u64,
    value: &[u8],
    opaque: u32,
) -> usize {
    let Some((span, command)) = ops.pair.expiry else {
        return pair.set(out, key, value, opaque);
    };
    let seconds = span.uniform(rng);
    pair.protocol()
        .encode_set_expiring(out, pair.prefix(), key, value, seconds, command, opaque)
}

/// memtier's `WAIT numreplicas timeout`: the replicas drawn uniformly, then
/// the timeout from memtier's normal draw.
#[inline]
pub(super) fn encode_wait(ops: &OpTable, rng: &mut SmallRng, out: &mut Vec<u8>) -> usize {
    let Some(plan) = ops.pair.wait else {
        return 0;
    };
    let replicas = plan.replicas.uniform(rng);
    let timeout_ms = plan.timeout_ms.gaussian(rng);
    crate::protocol::resp::encode_wait(out, replicas, timeout_ms)
}
