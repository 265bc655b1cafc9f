//! Several "hosts" on this machine as Linux network namespaces: one server
//! namespace holding a bridge with the server's address, and client
//! namespaces each joined to that bridge by a veth pair with an address of its
//! own, so kvbench shards reach a server over a real (virtual) network, from
//! distinct source addresses, as they would from distinct machines. Every
//! namespace is deleted on drop, even when the test panics.
//!
//! Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) and `ip` from iproute2; a
//! machine without them panics with the fix.

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::machine;

/// The server's address on the bridge.
pub const SERVER_ADDR: &str = "10.77.0.1";

/// Client `i`'s address (1-based): 10.77.0.(10 + i).
pub fn client_addr(i: usize) -> String {
    format!("10.77.0.{}", 10 + i)
}

/// One server namespace and `clients` client namespaces on one bridge.
pub struct Lan {
    /// The server namespace's name.
    pub server: String,
    /// The client namespaces' names, client 1 first.
    pub clients: Vec<String>,
    /// Processes started in the namespaces: stopped before they are deleted.
    children: Vec<Child>,
    _share: machine::Share,
}

impl Lan {
    /// Makes the namespaces, the bridge and the veth pairs; panics with the
    /// failing `ip` command and its message when it cannot.
    pub fn new(clients: usize) -> Lan {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let prefix = format!("kvb-{}-{n}", std::process::id());
        // The names are recorded before each namespace exists, so a failure
        // half-way deletes what was made (deleting a missing one is harmless).
        let lan = Lan {
            server: format!("{prefix}-s"),
            clients: (1..=clients).map(|i| format!("{prefix}-c{i}")).collect(),
            children: Vec::new(),
            _share: machine::share(),
        };
        ip(&["netns", "add", &lan.server]);
        let s = lan.server.clone();
        ip(&["-n", &s, "link", "set", "lo", "up"]);
        ip(&["-n", &s, "link", "add", "br0", "type", "bridge"]);
        ip(&[
            "-n",
            &s,
            "addr",
            "add",
            &format!("{SERVER_ADDR}/24"),
            "dev",
            "br0",
        ]);
        ip(&["-n", &s, "link", "set", "br0", "up"]);
        for (i, c) in lan.clients.clone().iter().enumerate() {
            let port = format!("c{}", i + 1);
            ip(&["netns", "add", c]);
            ip(&["-n", c, "link", "set", "lo", "up"]);
            // Both ends are made inside the namespaces, so no name is ever
            // taken in this machine's own namespace.
            ip(&[
                "-n", c, "link", "add", "eth0", "type", "veth", "peer", "name", &port, "netns", &s,
            ]);
            ip(&["-n", &s, "link", "set", &port, "master", "br0"]);
            ip(&["-n", &s, "link", "set", &port, "up"]);
            let addr = format!("{}/24", client_addr(i + 1));
            ip(&["-n", c, "addr", "add", &addr, "dev", "eth0"]);
            ip(&["-n", c, "link", "set", "eth0", "up"]);
        }
        lan
    }

    /// `program` run inside namespace `ns` (`ip netns exec`).
    pub fn exec(ns: &str, program: &str) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", ns, program]);
        command
    }

    /// `program` run inside namespace `ns` with its own host name: a new UTS
    /// namespace (`unshare --uts`) whose name is set before `program` starts,
    /// so `gethostname` there says `host`, as on a machine of that name.
    pub fn exec_as_host(ns: &str, host: &str, program: &str) -> Command {
        let mut command = Command::new("ip");
        command
            .args(["netns", "exec", ns, "unshare", "--uts", "sh", "-c"])
            .arg(format!("hostname {host} && exec \"$0\" \"$@\""))
            .arg(program);
        command
    }

    /// Starts `command` and keeps it, to be stopped before the namespaces go.
    pub fn keep(&mut self, command: &mut Command) -> &mut Child {
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start a process in a namespace");
        self.children.push(child);
        self.children.last_mut().unwrap()
    }

    /// Starts redis-server in the server namespace on `SERVER_ADDR:port`
    /// and waits until it answers PING there.
    pub fn start_redis(&mut self, port: u16, dir: &std::path::Path) {
        let server = self.server.clone();
        let mut command = Lan::exec(&server, "redis-server");
        command
            .args(["--port", &port.to_string(), "--bind", SERVER_ADDR])
            .args(["--save", "", "--appendonly", "no"])
            // Protected mode answers DENIED to every address but loopback;
            // this address exists only inside the private namespaces.
            .args(["--protected-mode", "no"])
            .args(["--dir", dir.to_str().unwrap()]);
        self.keep(&mut command);
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.redis_cli(port, &["PING"]).trim() != "PONG" {
            if let Ok(Some(status)) = self.children.last_mut().unwrap().try_wait() {
                panic!("redis-server in {server} ended ({status})");
            }
            assert!(
                Instant::now() < deadline,
                "redis-server in {server} did not answer on {SERVER_ADDR}:{port} within 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `redis-cli` in the server namespace against `SERVER_ADDR:port`
    /// and returns its stdout.
    pub fn redis_cli(&self, port: u16, args: &[&str]) -> String {
        let out = Lan::exec(&self.server, "redis-cli")
            .args(["-h", SERVER_ADDR, "-p", &port.to_string()])
            .args(args)
            .stderr(Stdio::null())
            .output()
            .expect("run redis-cli in the server namespace");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Lan {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        for ns in self.clients.iter().chain(std::iter::once(&self.server)) {
            // Deleting a namespace deletes its interfaces, the veth peers too.
            let _ = Command::new("ip")
                .args(["netns", "del", ns])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Runs `ip args`; panics with its message and the fix when it fails.
fn ip(args: &[&str]) -> Output {
    let out = Command::new("ip")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run ip ({e}); install iproute2 (`make deps` does)"));
    assert!(
        out.status.success(),
        "ip {} failed: {}; network namespaces need root (CAP_NET_ADMIN)",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    out
}
