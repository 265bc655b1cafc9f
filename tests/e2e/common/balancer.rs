//! A private haproxy in TCP mode, `balance roundrobin`, in front of
//! redis-servers on loopback: the L4 balancer that sends each new
//! connection to the next backend, so that one client machine's
//! connections reach different servers. Its config is its own (never
//! Debian's), it runs in the foreground on a free loopback port, and it is
//! stopped on drop, even when the test panics.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::proxy::program;
use super::{TempDir, free_port, machine, try_pipeline};

/// A private haproxy, stopped when dropped.
pub struct Balancer {
    child: Child,
    /// The port clients connect to on 127.0.0.1.
    pub port: u16,
    _dir: TempDir,
    _share: machine::Share,
}

impl Balancer {
    /// Starts one in front of 127.0.0.1:`backends` and waits until a PING
    /// through it is answered (20 s at most, for a loaded machine).
    pub fn start(backends: &[u16]) -> Balancer {
        let dir = TempDir::new("haproxy");
        let port = free_port();
        let config = dir.path("haproxy.cfg");
        let servers: String = backends
            .iter()
            .enumerate()
            .map(|(i, p)| format!("  server s{i} 127.0.0.1:{p}\n"))
            .collect();
        std::fs::write(
            &config,
            format!(
                "global\n  maxconn 4096\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 120s\n  timeout server 120s\nfrontend front\n  bind 127.0.0.1:{port}\n  default_backend shards\nbackend shards\n  balance roundrobin\n{servers}"
            ),
        )
        .unwrap();
        let child = Command::new(program("haproxy"))
            .arg("-db")
            .arg("-f")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start haproxy ({e}); install it with `make deps` (scripts/ensure-proxy.sh)")
            });
        let mut balancer = Balancer {
            child,
            port,
            _dir: dir,
            _share: machine::share(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(Some(status)) = balancer.child.try_wait() {
                panic!("haproxy ended at once ({status})");
            }
            let pong = try_pipeline(port, &[["PING"]])
                .is_ok_and(|r| r[0].text().as_deref() == Some("PONG"));
            if pong {
                return balancer;
            }
            assert!(
                Instant::now() < deadline,
                "haproxy did not answer on {port} within 20 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
