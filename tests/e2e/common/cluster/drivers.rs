//! What a test does to a running [`Cluster`] while kvbench drives it: a
//! reshard by `redis-cli --cluster reshard` in the background, a slot
//! migration by hand (`CLUSTER SETSLOT … MIGRATING/IMPORTING`, `MIGRATE`),
//! a manual failover (`CLUSTER FAILOVER` on a replica), a master killed
//! with SIGKILL and its replica's promotion, and waiting for kvbench's
//! first requests to reach the masters. Everything is bounded in time and
//! panics saying what it waited for.

use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Cluster, Role, wait, wait_for};
use crate::common::{ask, try_command};

/// A background `redis-cli`, killed if dropped before [`Background::finish`].
pub struct Background {
    child: Option<Child>,
    /// What it does, for messages.
    what: String,
    /// Its stdout and stderr.
    log: PathBuf,
}

impl Background {
    /// Waits up to `limit` for it to end, asserts it succeeded and returns its output.
    pub fn finish(mut self, limit: Duration) -> String {
        let mut child = self.child.take().unwrap();
        let give_up = Instant::now() + limit;
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= give_up {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{} did not finish within {limit:?}:\n{}",
                    self.what,
                    self.output()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let output = self.output();
        assert!(
            status.success(),
            "{} failed ({status}):\n{output}",
            self.what
        );
        output
    }

    fn output(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        // The tail holds the reason of a failure; the head is 300 "Moving slot" lines.
        let start = text.len().saturating_sub(4_000);
        let start = (start..text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        text[start..].to_string()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Cluster {
    /// Starts `redis-cli --cluster reshard` moving `slots` slots from the
    /// master at `from_port` to the master at `to_port`; it runs in the
    /// background. Call [`Background::finish`] to wait for it.
    pub fn reshard(&self, from_port: u16, to_port: u16, slots: usize) -> Background {
        let (from, to) = (self.node_id(from_port), self.node_id(to_port));
        let log = self
            .dir
            .path(&format!("reshard-{from_port}-{to_port}-{slots}.log"));
        let out = File::create(&log).unwrap();
        let err = out.try_clone().unwrap();
        let child = Command::new("redis-cli")
            .args(["--cluster", "reshard", &format!("127.0.0.1:{from_port}")])
            .args(["--cluster-from", &from, "--cluster-to", &to])
            .args(["--cluster-slots", &slots.to_string(), "--cluster-yes"])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start redis-cli ({e}); install it with `apt-get install -y redis-tools`"
                )
            });
        Background {
            child: Some(child),
            what: format!("redis-cli --cluster reshard of {slots} slots {from_port} -> {to_port}"),
            log,
        }
    }

    /// Issues `CLUSTER FAILOVER` on the replica at `replica_port` and waits
    /// until it is a master, its old master a replica, and the cluster has
    /// settled again with the same number of masters and replicas.
    pub fn failover(&self, replica_port: u16) {
        assert_eq!(
            self.role(replica_port),
            Role::Replica,
            "failover needs a replica"
        );
        let old_master = self.master_of(replica_port);
        let (masters, replicas) = (self.masters().len(), self.replicas().len());
        let reply = try_command(replica_port, &["CLUSTER", "FAILOVER"]).unwrap();
        assert_eq!(
            reply,
            b"OK",
            "CLUSTER FAILOVER on {replica_port}: {}",
            String::from_utf8_lossy(&reply)
        );
        wait(
            || self.role(replica_port) == Role::Master && self.role(old_master) == Role::Replica,
            &format!("{replica_port} to take over from {old_master}"),
        );
        self.wait_settled(masters, replicas);
    }

    /// Kills the node at `port` with SIGKILL (no goodbye to the others, as
    /// a crash) and drops it from [`Cluster::nodes`], so that what asks every
    /// node asks the live ones only.
    pub fn kill(&mut self, port: u16) {
        let at = self
            .nodes
            .iter()
            .position(|n| n.port == port)
            .unwrap_or_else(|| panic!("no live node on {port}"));
        let mut node = self.nodes.remove(at);
        node.child.kill().unwrap();
        node.child.wait().unwrap();
    }

    /// Waits up to `limit` until the replica at `replica_port` says it is
    /// a master serving `slots` slots (the others elected it after its
    /// master failed).
    pub fn wait_promoted(&self, replica_port: u16, slots: usize, limit: Duration) {
        wait_for(
            limit,
            || self.role(replica_port) == Role::Master && self.slot_count(replica_port) == slots,
            &format!("{replica_port} to be promoted with {slots} slots"),
        );
    }

    /// Starts moving `slot` from the master at `from` to the master at `to`
    /// as `redis-cli --cluster reshard` does, first step: `to` importing,
    /// `from` migrating. Keys of the slot still on `from` are served there;
    /// the others get `-ASK` to `to`.
    pub fn begin_migration(&self, slot: u16, from: u16, to: u16) {
        let slot = slot.to_string();
        let (from_id, to_id) = (self.node_id(from), self.node_id(to));
        let importing = ["CLUSTER", "SETSLOT", &slot, "IMPORTING", &from_id];
        assert_eq!(ask(to, &importing), "OK", "{importing:?} on {to}");
        let migrating = ["CLUSTER", "SETSLOT", &slot, "MIGRATING", &to_id];
        assert_eq!(ask(from, &migrating), "OK", "{migrating:?} on {from}");
    }

    /// `MIGRATE`s `keys` (of one slot) from the master at `from` to the one at `to`.
    pub fn migrate_keys(&self, from: u16, to: u16, keys: &[String]) {
        let port = to.to_string();
        let mut args = vec!["MIGRATE", "127.0.0.1", &port, "", "0", "5000", "KEYS"];
        args.extend(keys.iter().map(String::as_str));
        assert_eq!(ask(from, &args), "OK", "MIGRATE of {} keys", keys.len());
    }

    /// Ends a migration begun by [`Cluster::begin_migration`] once every key
    /// has moved: `CLUSTER SETSLOT slot NODE <to>` on `to` first, then on
    /// every other master (the order `redis-cli` uses, so that no master
    /// points the slot back at the source).
    pub fn end_migration(&self, slot: u16, to: u16) {
        let slot = slot.to_string();
        let to_id = self.node_id(to);
        let node = ["CLUSTER", "SETSLOT", &slot, "NODE", &to_id];
        assert_eq!(ask(to, &node), "OK", "{node:?} on {to}");
        for master in self.masters().into_iter().filter(|&m| m != to) {
            assert_eq!(ask(master, &node), "OK", "{node:?} on {master}");
        }
    }

    /// The port of the master the replica at `port` copies (its own view).
    pub fn master_of(&self, port: u16) -> u16 {
        let view = self.view(port);
        let me = view.iter().find(|v| v.myself).unwrap();
        let id = me
            .master
            .as_ref()
            .unwrap_or_else(|| panic!("{port} is not a replica"));
        view.iter().find(|v| &v.id == id).unwrap().port
    }

    /// Waits until the masters have executed at least one SET or GET (kvbench
    /// is under way); panics if kvbench exits first or nothing comes within 30 s.
    pub fn wait_for_traffic(&self, kvbench: &mut Child) {
        wait_for(
            Duration::from_secs(30),
            || {
                if let Some(status) = kvbench.try_wait().expect("poll kvbench") {
                    panic!("kvbench ended ({status}) before sending anything");
                }
                self.sum_calls("set") + self.sum_calls("get") > 0
            },
            "kvbench's first SET or GET on a master",
        );
    }
}
