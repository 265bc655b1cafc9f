//! The slot map: which master serves each of the 16 384 slots, read from
//! `CLUSTER SLOTS` (every Redis since 3.0 answers it; `CLUSTER SHARDS` is 7.0+).
//!
//! Each entry of the reply is `[start, end, [host, port, id, …], replica…]`.
//! An empty host means "the address you reached me on" (Redis announces it so
//! when `cluster-announce-ip` is unset behind NAT); it is replaced by the seed's
//! host. Slots no entry covers are unassigned: a request for one has nowhere to
//! go, which kvbench must say at start rather than hang (as memtier does).

use crate::error::MapError;
use crate::protocol::value::Value;

use super::slot::SLOTS;

/// A master node, as `CLUSTER SLOTS` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Host (or IP) to connect to.
    pub host: String,
    /// Port.
    pub port: u16,
    /// The node id, when the server reports one.
    pub id: Option<String>,
}

impl Node {
    /// `host:port`, the form MOVED and ASK name nodes in (IPv6 in brackets).
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Slots to node indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotMap {
    /// The masters, in the order first seen.
    pub nodes: Vec<Node>,
    /// For each slot, the index of its master in `nodes`.
    owner: Vec<Option<u16>>,
}

/// The runs of `None` in `owner`, as inclusive slot ranges.
fn holes(owner: &[Option<u16>]) -> Vec<(u16, u16)> {
    let mut ranges: Vec<(u16, u16)> = Vec::new();
    for (slot, _) in owner.iter().enumerate().filter(|(_, o)| o.is_none()) {
        let slot = slot as u16;
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == slot => *end = slot,
            _ => ranges.push((slot, slot)),
        }
    }
    ranges
}

impl SlotMap {
    /// Builds the map from a `CLUSTER SLOTS` reply; `seed_host` stands in for
    /// an empty announced host. Every slot must have a master.
    pub fn from_cluster_slots(reply: &Value, seed_host: &str) -> Result<SlotMap, MapError> {
        let ranges = reply.array().ok_or(MapError::Shape("not an array"))?;
        let mut owned = Vec::with_capacity(ranges.len());
        for range in ranges {
            let items = range
                .array()
                .ok_or(MapError::Shape("a range is not an array"))?;
            let [start, end, master, ..] = items else {
                return Err(MapError::Shape("a range has fewer than 3 elements"));
            };
            owned.push((
                slot_number(start)?,
                slot_number(end)?,
                node_of(master, seed_host)?,
            ));
        }
        SlotMap::from_ranges(owned)
    }

    /// One master serving every slot (a `--read-server` run's write server).
    pub fn single(master: Node) -> SlotMap {
        SlotMap {
            nodes: vec![master],
            owner: vec![Some(0); usize::from(SLOTS)],
        }
    }

    /// Builds the map from `(start, end, master)` ranges, inclusive, in any
    /// order. Every slot must have exactly one master: a slot two ranges give
    /// to different masters is refused, naming both.
    pub fn from_ranges(
        ranges: impl IntoIterator<Item = (u16, u16, Node)>,
    ) -> Result<SlotMap, MapError> {
        let mut map = SlotMap {
            nodes: Vec::new(),
            owner: vec![None; usize::from(SLOTS)],
        };
        // Every range kept so far, to name the one an overlap collides with.
        let mut claimed: Vec<(u16, u16, usize)> = Vec::new();
        for (start, end, node) in ranges {
            if start > end || end >= SLOTS {
                return Err(MapError::Shape("a range ends before it starts"));
            }
            let index = match map.nodes.iter().position(|n| n == &node) {
                Some(i) => i,
                None => {
                    map.nodes.push(node);
                    map.nodes.len() - 1
                }
            };
            for slot in start..=end {
                let owner = &mut map.owner[usize::from(slot)];
                match *owner {
                    Some(other) if usize::from(other) != index => {
                        return Err(map.overlap(&claimed, slot, (start, end), index));
                    }
                    _ => *owner = Some(index as u16),
                }
            }
            claimed.push((start, end, index));
        }
        let ranges = holes(&map.owner);
        if let Some(&(first, _)) = ranges.first() {
            return Err(MapError::Unassigned {
                unassigned: ranges
                    .iter()
                    .map(|&(start, end)| usize::from(end - start) + 1)
                    .sum(),
                first,
                ranges,
            });
        }
        Ok(map)
    }

    /// The error for range `range` of master `index` meeting, at `slot`, a
    /// slot an earlier range of `claimed` gave another master.
    fn overlap(
        &self,
        claimed: &[(u16, u16, usize)],
        slot: u16,
        range: (u16, u16),
        index: usize,
    ) -> MapError {
        let earlier = claimed
            .iter()
            .find(|&&(s, e, i)| i != index && (s..=e).contains(&slot))
            .copied()
            .unwrap_or((slot, slot, index));
        let address = |i: usize| self.nodes.get(i).map_or_else(String::new, Node::address);
        MapError::Overlap {
            slots: (slot, range.1.min(earlier.1)),
            ranges: [(earlier.0, earlier.1), range],
            nodes: [address(earlier.2), address(index)],
        }
    }

    /// The index (into `nodes`) of the master serving `slot`.
    pub fn owner(&self, slot: u16) -> usize {
        // Every slot is assigned: `from_cluster_slots` refuses a map with holes.
        self.owner[usize::from(slot % SLOTS)].map_or(0, usize::from)
    }

    /// After a MOVED: `slot` is now served by `node`; returns its index,
    /// adding the node if it is new.
    pub fn moved(&mut self, slot: u16, node: Node) -> usize {
        let index = match self
            .nodes
            .iter()
            .position(|n| n == &node || n.address() == node.address())
        {
            Some(i) => i,
            None => {
                self.nodes.push(node);
                self.nodes.len() - 1
            }
        };
        self.owner[usize::from(slot % SLOTS)] = Some(index as u16);
        index
    }

    /// How many slots each node serves, by node index.
    pub fn slots_per_node(&self) -> Vec<usize> {
        let mut counts = vec![0; self.nodes.len()];
        for index in self.owner.iter().flatten() {
            counts[usize::from(*index)] += 1;
        }
        counts
    }
}

/// A slot number, in 0..16384.
pub(crate) fn slot_number(v: &Value) -> Result<u16, MapError> {
    v.integer()
        .and_then(|n| u16::try_from(n).ok())
        .filter(|&n| n < SLOTS)
        .ok_or(MapError::Shape("a slot number is out of range"))
}

/// `[host, port, id, …]`.
pub(crate) fn node_of(v: &Value, seed_host: &str) -> Result<Node, MapError> {
    let items = v.array().ok_or(MapError::Shape("a node is not an array"))?;
    let [host, port, rest @ ..] = items else {
        return Err(MapError::Shape("a node has no host and port"));
    };
    let host = host
        .text()
        .ok_or(MapError::Shape("a node's host is not text"))?;
    let port = port
        .integer()
        .and_then(|p| u16::try_from(p).ok())
        .ok_or(MapError::Shape("a node's port is out of range"))?;
    Ok(Node {
        host: if host.is_empty() || host == "?" {
            seed_host.to_string()
        } else {
            host
        },
        port,
        id: rest.first().and_then(Value::text),
    })
}

#[cfg(test)]
mod tests;
