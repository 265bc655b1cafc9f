//! What a client does with a request the cluster sent back: `-MOVED` updates
//! the slot map and sends it to the new owner, `-ASK` sends `ASKING` and the
//! request to the named node once, `-TRYAGAIN` and `-CLUSTERDOWN` send it
//! again after a backoff. Each request may follow `--max-redirects` of these
//! together; past that, the reply counts as the error it is. A `-MOVED` or
//! `-ASK` naming the very node that sent it is a loop from its first step
//! (sent there again, the request gets the same answer): it counts as the
//! error it is at once, instead of after `--max-redirects` round trips.

use std::time::{Duration, Instant};

use crate::engine::worker::client::retry::Settle;
use crate::engine::worker::client::{Client, Pending, Router};
use crate::engine::worker::recorder::Bounce;
use crate::protocol::resp::ServerErrorKind;

/// The first retry after `-TRYAGAIN`/`-CLUSTERDOWN` waits this long; each
/// further one doubles it, up to [`MAX_RETRY_BACKOFF`].
pub const FIRST_RETRY_BACKOFF: Duration = Duration::from_millis(10);
/// The longest wait before a retry.
pub const MAX_RETRY_BACKOFF: Duration = Duration::from_millis(500);

/// The wait before retry number `retries` (0-based).
pub fn retry_backoff(retries: u8) -> Duration {
    FIRST_RETRY_BACKOFF
        .saturating_mul(1 << u32::from(retries.min(16)))
        .min(MAX_RETRY_BACKOFF)
}

impl Client {
    /// Takes back a request that connection `from` (of node `from`) bounced.
    pub(super) fn bounced(
        &mut self,
        bounce: Bounce,
        from: Option<usize>,
        router: &mut Router,
        cx: &mut Settle<'_>,
        now: Instant,
    ) {
        let stats = &mut *cx.stats;
        let mut request = bounce.request;
        let row = usize::from(request.queued.row);
        stats.op_mut(row).bytes_rx += bounce.bytes as u64;
        let followed = u32::from(request.queued.redirects);
        let to = bounce.to.clone();
        let follow = match (bounce.kind, &to) {
            (ServerErrorKind::Moved | ServerErrorKind::Ask, None) => false,
            (ServerErrorKind::Moved | ServerErrorKind::Ask, Some((_, address))) => {
                followed < router.max_redirects()
                    && from.is_none_or(|f| router.find_or_add(address, from) != f)
            }
            _ => followed < router.max_redirects(),
        };
        if !follow {
            // Past the budget (or a redirect that names no node, or the node
            // that sent it): the reply is an error of its kind, timed from
            // the first send.
            return self.fail(&request, bounce.kind, 0, from, cx, now);
        }
        request.queued.redirects = request.queued.redirects.saturating_add(1);
        let (node, asking, due) = match (bounce.kind, to) {
            (ServerErrorKind::Moved, Some((slot, address))) => {
                let node = router.moved(slot, &address, from);
                stats.op_mut(row).moved += 1;
                if let Some(n) = from.and_then(|f| stats.nodes.get_mut(f)) {
                    n.moved += 1;
                }
                if router.ask_refresh() {
                    stats.errors.refreshes += 1;
                }
                (Some(node), false, None)
            }
            (ServerErrorKind::Ask, Some((_, address))) => {
                let node = router.find_or_add(&address, from);
                stats.op_mut(row).ask += 1;
                if let Some(n) = from.and_then(|f| stats.nodes.get_mut(f)) {
                    n.ask += 1;
                }
                (Some(node), true, None)
            }
            // TRYAGAIN, CLUSTERDOWN: wait, then route afresh (a failover or a
            // refresh may have moved the slot meanwhile).
            (kind, _) => {
                stats.errors.retries += 1;
                if kind == ServerErrorKind::ClusterDown && router.ask_refresh() {
                    stats.errors.refreshes += 1;
                }
                (
                    None,
                    false,
                    Some(now + retry_backoff(request.queued.redirects - 1)),
                )
            }
        };
        self.pending.push_back(Pending {
            request,
            node,
            asking,
            due,
            retry: false,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_RETRY_BACKOFF, retry_backoff};
    use std::time::Duration;

    #[test]
    fn retries_back_off_from_10_ms_to_half_a_second() {
        assert_eq!(retry_backoff(0), Duration::from_millis(10));
        assert_eq!(retry_backoff(1), Duration::from_millis(20));
        assert_eq!(retry_backoff(5), Duration::from_millis(320));
        assert_eq!(retry_backoff(6), MAX_RETRY_BACKOFF);
        assert_eq!(retry_backoff(200), MAX_RETRY_BACKOFF);
    }
}
