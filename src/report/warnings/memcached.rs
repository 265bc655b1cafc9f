//! The advice for memcached's error replies, which have other causes and
//! fixes than Redis' (no maxmemory policy, no INFO errorstats).

use std::fmt;

use crate::protocol::error_kind::ServerErrorKind;

/// memcached's error replies: it refuses an item larger than its item size
/// limit, and runs out of memory only when told not to evict (`-M`).
pub(super) fn error_cause(f: &mut fmt::Formatter<'_>, kind: ServerErrorKind) -> fmt::Result {
    match kind {
        ServerErrorKind::Oom => write!(
            f,
            "memcached is out of memory for these items: it runs with -M (no eviction) or has no slab room for this item size; give it more memory (-m), let it evict, or shrink --key-maximum or --data-size."
        ),
        _ => write!(
            f,
            "memcached refused the requests; \"SERVER_ERROR object too large for cache\" means values above its item size limit (-I, 1 MiB by default): lower --data-size or raise -I."
        ),
    }
}
