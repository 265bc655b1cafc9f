//! `-MOVED` and `-ASK` error replies: where the cluster says a slot lives now
//! (MOVED: for good, refresh the map) or for this one request during a
//! migration (ASK: send `ASKING` then the request to that node, map unchanged).

/// A redirect parsed from an error reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// MOVED or ASK.
    pub kind: RedirectKind,
    /// The slot it is about.
    pub slot: u16,
    /// The node to ask, as `host:port` (an empty host means the node that
    /// sent the redirect, as Redis 7 may announce).
    pub node: String,
}

/// The two redirects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// The slot moved: update the slot map.
    Moved,
    /// The slot is migrating: ask the other node once.
    Ask,
}

/// Parses `MOVED 3999 127.0.0.1:6381` or `ASK 3999 127.0.0.1:6381` (the
/// error message without its `-`); `None` for any other error.
pub fn parse(message: &[u8]) -> Option<Redirect> {
    let text = std::str::from_utf8(message).ok()?;
    let mut words = text.split(' ');
    let kind = match words.next()? {
        "MOVED" => RedirectKind::Moved,
        "ASK" => RedirectKind::Ask,
        _ => return None,
    };
    let slot: u16 = words
        .next()?
        .parse()
        .ok()
        .filter(|&s| s < super::slot::SLOTS)?;
    let node = words.next()?;
    if words.next().is_some() || !node.contains(':') {
        return None;
    }
    Some(Redirect {
        kind,
        slot,
        node: node.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::{Redirect, RedirectKind, parse};

    #[test]
    fn moved_and_ask_parse_and_anything_else_is_none() {
        assert_eq!(
            parse(b"MOVED 3999 127.0.0.1:6381"),
            Some(Redirect {
                kind: RedirectKind::Moved,
                slot: 3999,
                node: "127.0.0.1:6381".into()
            })
        );
        assert_eq!(
            parse(b"ASK 1 [::1]:7000").map(|r| r.kind),
            Some(RedirectKind::Ask)
        );
        assert_eq!(
            parse(b"MOVED 12 :7001").map(|r| r.node),
            Some(":7001".into())
        );
        for bad in [
            &b"ERR unknown"[..],
            b"MOVED",
            b"MOVED x 1:2",
            b"MOVED 16384 a:1",
            b"MOVED 1 nocolon",
            b"ASK 1 a:1 extra",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
