//! Discovery: the cluster's masters, their slots and their replicas, read
//! from one node over a blocking control connection before any benchmark
//! connection opens (and again by every topology refresh).
//!
//! `CLUSTER SHARDS` (Redis 7.0+) is asked first: it names every node with its
//! role and health. A server that does not know it (Redis 3.0-6.2) gets
//! `CLUSTER SLOTS`, which names masters and replicas by position. The reply's
//! reading ([`from_shards`], [`from_slots`]) is pure and tested with built
//! values; [`discover`] only adds the connection and tells the errors apart.

use crate::config::target::{Endpoint, Target};
use crate::engine::master::server::Control;
use crate::error::DiscoverError;
use crate::protocol::value::Value;

use super::map::{Node, SlotMap, node_of, slot_number};
use super::topology::Topology;
use crate::error::MapError;

/// `target` with its address replaced by `node`'s: same credentials, TLS,
/// database, protocol and timeouts.
pub fn node_target(target: &Target, node: &Node) -> Target {
    let family = match &target.endpoint {
        Endpoint::Tcp { family, .. } => *family,
        Endpoint::Unix(_) => crate::config::target::AddressFamily::Any,
    };
    Target {
        endpoint: Endpoint::Tcp {
            host: node.host.clone(),
            port: node.port,
            family,
        },
        ..target.clone()
    }
}

/// Reads the topology from the node `target` names. Returns as soon as the
/// node answers (or within `--connection-timeout` when it does not): an
/// incomplete cluster is an error at once, never a wait.
pub fn discover(target: &Target) -> Result<Topology, DiscoverError> {
    let mut control = Control::open(target)?;
    discover_on(&mut control, target)
}

/// [`discover`] over a control connection already open to `target` (the
/// run's preflight connection, so that a refusal opens no second one).
pub fn discover_on(control: &mut Control, target: &Target) -> Result<Topology, DiscoverError> {
    let endpoint = target.endpoint.to_string();
    let seed_host = match &target.endpoint {
        Endpoint::Tcp { host, .. } => host.clone(),
        Endpoint::Unix(_) => String::new(),
    };
    let tls = target.tls.is_some();
    let io = |source| DiscoverError::Io {
        endpoint: endpoint.clone(),
        source,
    };
    let map = |source| DiscoverError::Map {
        endpoint: endpoint.clone(),
        source,
    };
    let (command, reply) = match control.command(&["CLUSTER", "SHARDS"]).map_err(io)? {
        Value::Error(reply) if unknown_subcommand(&reply) => {
            match control.command(&["CLUSTER", "SLOTS"]).map_err(io)? {
                Value::Error(reply) => ("CLUSTER SLOTS", reply),
                slots => return from_slots(&slots, &seed_host).map_err(map),
            }
        }
        Value::Error(reply) => ("CLUSTER SHARDS", reply),
        shards => return from_shards(&shards, &seed_host, tls).map_err(map),
    };
    Err(if reply.contains("cluster support disabled") {
        DiscoverError::NotCluster { endpoint, reply }
    } else {
        DiscoverError::Refused {
            endpoint,
            command,
            reply,
        }
    })
}

/// The topology from the first of `nodes` that answers, asked in turn.
pub fn discover_any(target: &Target, nodes: &[Node]) -> Option<Topology> {
    nodes
        .iter()
        .find_map(|node| discover(&node_target(target, node)).ok())
}

/// Redis before 7.0 answers `CLUSTER SHARDS` with "ERR Unknown subcommand
/// or wrong number of arguments for 'SHARDS'" (6.x) or "ERR unknown
/// subcommand 'SHARDS'" (7.x spells it so for what it lacks).
fn unknown_subcommand(reply: &str) -> bool {
    reply.to_ascii_lowercase().contains("unknown subcommand")
}

/// The pairs of a RESP3 map, or of the flat `[key, value, key, value, …]`
/// array RESP2 sends in its place.
fn fields(v: &Value) -> Option<Vec<(String, &Value)>> {
    match v {
        Value::Map(pairs) => pairs.iter().map(|(k, v)| Some((k.text()?, v))).collect(),
        Value::Array(items) if items.len() % 2 == 0 => items
            .chunks(2)
            .map(|pair| Some((pair[0].text()?, &pair[1])))
            .collect(),
        _ => None,
    }
}

fn field<'a>(fields: &[(String, &'a Value)], name: &str) -> Option<&'a Value> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
}

/// One master and its replicas, with the slots of its shard.
struct Shard {
    slots: Vec<(u16, u16)>,
    master: Option<Node>,
    replicas: Vec<Node>,
}

/// Reads a `CLUSTER SHARDS` reply. Each shard is a map of `slots` (a flat
/// list of start, end pairs) and `nodes`, each node a map with `id`, `port`
/// and/or `tls-port`, `ip`, `endpoint`, `role` and `health`. `tls` picks
/// `tls-port` when both ports are given. Replicas whose health is `fail`
/// are left out; a shard whose master is missing leaves its slots
/// unassigned, which is the error it causes.
pub fn from_shards(reply: &Value, seed_host: &str, tls: bool) -> Result<Topology, MapError> {
    let shards = reply.array().ok_or(MapError::Shape("not an array"))?;
    let mut read = Vec::with_capacity(shards.len());
    for shard in shards {
        let shard = fields(shard).ok_or(MapError::Shape("a shard is not a map"))?;
        let slots = match field(&shard, "slots") {
            Some(v) => v.array().ok_or(MapError::Shape("slots is not a list"))?,
            None => &[],
        };
        if slots.len() % 2 != 0 {
            return Err(MapError::Shape("slots is not a list of start, end pairs"));
        }
        let slots = slots
            .chunks(2)
            .map(|pair| Ok((slot_number(&pair[0])?, slot_number(&pair[1])?)))
            .collect::<Result<Vec<_>, MapError>>()?;
        let nodes = match field(&shard, "nodes") {
            Some(v) => v.array().ok_or(MapError::Shape("nodes is not a list"))?,
            None => &[],
        };
        let mut one = Shard {
            slots,
            master: None,
            replicas: Vec::new(),
        };
        for node in nodes {
            let node = fields(node).ok_or(MapError::Shape("a node is not a map"))?;
            let text = |name| field(&node, name).and_then(Value::text);
            let port = |name| {
                field(&node, name)
                    .and_then(Value::integer)
                    .and_then(|p| u16::try_from(p).ok())
                    .filter(|&p| p > 0)
            };
            let port = if tls {
                port("tls-port").or_else(|| port("port"))
            } else {
                port("port").or_else(|| port("tls-port"))
            }
            .ok_or(MapError::Shape("a node has no port"))?;
            // An empty or "?" endpoint means "the address you reached me
            // on", as in MOVED: the seed's host, as `CLUSTER SLOTS` reads it.
            let host = text("endpoint")
                .or_else(|| text("ip"))
                .filter(|h| !h.is_empty() && h != "?")
                .unwrap_or_else(|| seed_host.to_string());
            let found = Node {
                host,
                port,
                id: text("id"),
            };
            match text("role").as_deref() {
                Some("master") => one.master = Some(found),
                _ if text("health").as_deref() == Some("fail") => {}
                _ => one.replicas.push(found),
            }
        }
        read.push(one);
    }
    let ranges = read.iter().flat_map(|shard| {
        let master = shard.master.clone();
        shard
            .slots
            .iter()
            .filter_map(move |&(start, end)| Some((start, end, master.clone()?)))
    });
    let map = SlotMap::from_ranges(ranges.collect::<Vec<_>>())?;
    let replicas = map
        .nodes
        .iter()
        .map(|master| {
            read.iter()
                .find(|shard| shard.master.as_ref() == Some(master))
                .map(|shard| shard.replicas.clone())
                .unwrap_or_default()
        })
        .collect();
    Ok(Topology { map, replicas })
}

/// Reads a `CLUSTER SLOTS` reply: `[start, end, master, replica…]` per range,
/// each node `[host, port, id, …]`.
pub fn from_slots(reply: &Value, seed_host: &str) -> Result<Topology, MapError> {
    let map = SlotMap::from_cluster_slots(reply, seed_host)?;
    let mut replicas = vec![Vec::<Node>::new(); map.nodes.len()];
    // `from_cluster_slots` checked every range's shape.
    for range in reply.array().unwrap_or_default() {
        let items = range.array().unwrap_or_default();
        let Some(master) = items.get(2).map(|m| node_of(m, seed_host)).transpose()? else {
            continue;
        };
        let Some(index) = map.nodes.iter().position(|n| n == &master) else {
            continue;
        };
        for replica in items.iter().skip(3) {
            let replica = node_of(replica, seed_host)?;
            if !replicas[index].contains(&replica) {
                replicas[index].push(replica);
            }
        }
    }
    Ok(Topology { map, replicas })
}

#[cfg(test)]
mod tests;
