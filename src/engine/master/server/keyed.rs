//! A control connection for one key of a Redis server or cluster (the
//! barrier's hash, a fleet search's posts): each command follows `MOVED` to
//! the node that holds the key, and an error reply is a failure.

use std::io;

use crate::config::target::Target;
use crate::engine::cluster::discover::node_target;
use crate::engine::cluster::map::Node;
use crate::engine::cluster::redirect::{self, RedirectKind};
use crate::engine::master::server::Control;
use crate::error::ConnectError;
use crate::protocol::value::Value;

/// How many `MOVED` replies one command follows.
const MAX_MOVES: usize = 3;

/// A control connection that goes where its key lives.
pub struct KeyedControl {
    target: Target,
    control: Control,
}

impl KeyedControl {
    /// Connects (and authenticates) to `target`.
    pub fn open(target: &Target) -> Result<KeyedControl, ConnectError> {
        Ok(KeyedControl {
            target: target.clone(),
            control: Control::open(target)?,
        })
    }

    /// One command, following `MOVED` to the node that holds its key; an
    /// error reply is a failure.
    pub fn ask(&mut self, args: &[&str]) -> io::Result<Value> {
        for _ in 0..=MAX_MOVES {
            match self.control.command(args)? {
                Value::Error(e) => match moved_to(&e) {
                    Some(node) => {
                        let target = node_target(&self.target, &node);
                        self.control =
                            Control::open(&target).map_err(|e| io::Error::other(e.to_string()))?;
                    }
                    None => return Err(io::Error::other(format!("{} answered {e}", args[0]))),
                },
                v => return Ok(v),
            }
        }
        Err(io::Error::other(format!(
            "{} was moved more than {MAX_MOVES} times",
            args[0]
        )))
    }
}

/// A reply of the wrong shape to `command`.
pub fn unexpected(command: &str, reply: &Value) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{command} answered {reply:?}"),
    )
}

/// `MOVED <slot> <host>:<port>`'s node.
fn moved_to(error: &str) -> Option<Node> {
    let r = redirect::parse(error.as_bytes()).filter(|r| r.kind == RedirectKind::Moved)?;
    let (host, port) = r.node.rsplit_once(':')?;
    Some(Node {
        host: host.to_string(),
        port: port.parse().ok()?,
        id: None,
    })
}

#[cfg(test)]
mod tests {
    use super::moved_to;

    #[test]
    fn moved_names_its_node_and_nothing_else_does() {
        let node = moved_to("MOVED 3999 127.0.0.1:30002").unwrap();
        assert_eq!((node.host.as_str(), node.port), ("127.0.0.1", 30002));
        assert!(moved_to("ERR unknown command").is_none());
        assert!(moved_to("MOVED 3999 nowhere").is_none());
        assert!(moved_to("ASK 3999 127.0.0.1:30002").is_none());
    }
}
