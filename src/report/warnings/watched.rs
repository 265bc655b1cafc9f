//! The watched shards as the witness of kvbench's counts: behind a proxy
//! that gives no INFO, the shards' calls summed are what the target's
//! calls would be, and are judged as those are — once for a run on one
//! machine, once for the set in `kvbench merge`.
//!
//! The sum speaks for the whole load only when every shard is watched: a
//! watched proxy names its backends, and a set of shards smaller than that
//! is not judged (a sum of two shards of three is not a mismatch). Without
//! a watched proxy, the shards given are taken as all of them
//! (docs/scale-out.md, "Through a proxy").

use crate::report::model::watched::Watched;
use crate::report::warnings::Warning;
use crate::report::warnings::checks::MISMATCH_FRACTION;

/// One witnessed command: its name as reports print it, the server's name
/// (lower case), and kvbench's replies.
pub struct Replies {
    /// `SET`.
    pub name: String,
    /// `set`.
    pub command: String,
    /// kvbench's replies for it.
    pub count: u64,
}

/// The watched shards' summed calls against kvbench's replies; nothing
/// when no shard is watched, a shard gave no counts, or the shards are
/// fewer than a watched proxy's backends.
pub fn shard_mismatches(phase: &str, watched: &[Watched], replies: &[Replies]) -> Vec<Warning> {
    let shards: Vec<&Watched> = watched.iter().filter(|w| w.role == "shard").collect();
    let backends = watched
        .iter()
        .filter_map(|w| w.backends.as_ref())
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    if shards.is_empty() || shards.len() < backends || shards.iter().any(|s| s.calls.is_none()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for r in replies {
        let server: u64 = shards
            .iter()
            .filter_map(|s| s.calls.as_ref()?.get(&r.command))
            .sum();
        if r.count.abs_diff(server) as f64 > MISMATCH_FRACTION * r.count as f64 {
            out.push(Warning::CountMismatch {
                phase: format!("{phase} (the {} watched shards together)", shards.len()),
                op: r.name.clone(),
                client: r.count,
                server,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::named::Named;

    fn shard(set: u64) -> Watched {
        let mut w: Watched = serde_json::from_value(serde_json::json!({
            "kind": "redis", "role": "shard", "address": "a:1", "error": null, "seconds": 1.0
        }))
        .unwrap();
        w.calls = Some(Named(vec![("set".into(), set)]));
        w
    }

    fn sets(count: u64) -> Vec<Replies> {
        vec![Replies {
            name: "SET".into(),
            command: "set".into(),
            count,
        }]
    }

    #[test]
    fn the_shards_sum_is_judged_against_the_replies() {
        let watched = [shard(400), shard(600)];
        assert!(shard_mismatches("RUN #1", &watched, &sets(1000)).is_empty());
        let found = shard_mismatches("RUN #1", &watched, &sets(800));
        assert_eq!(found.len(), 1, "{found:?}");
    }

    #[test]
    fn fewer_shards_than_the_proxys_backends_are_not_judged() {
        let mut proxy = shard(0);
        proxy.role = "proxy".into();
        proxy.calls = None;
        proxy.backends = Some(vec![
            crate::report::model::watched::ProxyBackend {
                pool: "p".into(),
                server: "s".into(),
                requests: 0,
                responses: 0,
                errors: 0
            };
            3
        ]);
        let watched = [shard(400), shard(600), proxy];
        assert!(shard_mismatches("RUN #1", &watched, &sets(5000)).is_empty());
    }
}
