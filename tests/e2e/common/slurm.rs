//! A private Slurm cluster of one node on this machine: its own munged (own
//! key and socket), slurmctld and slurmd, all children of the test, with every
//! port, state directory, log and pid file under one temporary directory, so
//! `srun` can launch kvbench shards exactly as it would on a real cluster.
//! Stopped on drop.
//!
//! The daemons run as whoever runs the test (root in CI, where `make deps`
//! installs Debian's `slurm-wlm` and `munge`). A cluster that does not come up
//! panics with the daemons' logs and the fix; it never passes silently.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{TempDir, hand_out, machine};

/// How long the daemons get to bring the node to `idle`.
const READY_WITHIN: Duration = Duration::from_secs(30);

/// How many sets of fresh ports to try before giving up: another process may
/// take a probed port before a daemon binds it.
const ATTEMPTS: usize = 4;

const FIX: &str = "install Debian's slurm-wlm and munge (`make deps` does, as root)";

/// A running private cluster; `srun` through [`Slurm::srun`].
pub struct Slurm {
    /// munged, slurmctld, slurmd: stopped in the reverse order.
    daemons: Vec<Child>,
    conf: PathBuf,
    dir: TempDir,
    _share: machine::Share,
}

impl Slurm {
    /// Starts munged, slurmctld and slurmd, and waits until `sinfo` shows the
    /// node idle. Panics with the daemons' logs when it cannot.
    pub fn start() -> Slurm {
        let mut failures = Vec::new();
        for _ in 0..ATTEMPTS {
            match Slurm::try_start() {
                Ok(slurm) => return slurm,
                Err(why) => failures.push(why),
            }
        }
        panic!(
            "a private Slurm cluster did not start ({FIX}):\n{}",
            failures.join("\n----\n")
        );
    }

    fn try_start() -> Result<Slurm, String> {
        let dir = TempDir::new("slurm");
        // munged refuses a socket in a directory others cannot traverse.
        fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o755)).unwrap();
        for sub in ["state", "spool"] {
            fs::create_dir(dir.path(sub)).unwrap();
        }
        write_munge_key(&dir.path("munge.key"));
        let conf = dir.path("slurm.conf");
        let (ctld_port, slurmd_port) = (unused_port(), unused_port());
        fs::write(&conf, slurm_conf(&dir.0, ctld_port, slurmd_port)).unwrap();
        let mut slurm = Slurm {
            daemons: Vec::new(),
            conf,
            dir,
            _share: machine::share(),
        };
        slurm.spawn_munged()?;
        slurm.spawn_daemon("slurmctld")?;
        slurm.spawn_daemon("slurmd")?;
        slurm.wait_idle()?;
        Ok(slurm)
    }

    /// `srun` for this cluster; see [`Slurm::client`].
    pub fn srun(&self) -> Command {
        self.client("srun")
    }

    /// A Slurm client command (`srun`, `sbatch`, `sinfo`) for this cluster:
    /// `SLURM_CONF` set, no inherited `SLURM_*` job variables, no
    /// `KVBENCH_AUTH`; the caller adds the rest.
    pub fn client(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env_remove("KVBENCH_AUTH");
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("SLURM_") {
                command.env_remove(name);
            }
        }
        command.env("SLURM_CONF", &self.conf);
        command
    }

    fn spawn_munged(&mut self) -> Result<(), String> {
        let socket = self.dir.path("munge.sock");
        let arg = |flag: &str, name: &str| format!("--{flag}={}", self.dir.path(name).display());
        let child = Command::new("munged")
            .arg("--foreground")
            .arg(arg("socket", "munge.sock"))
            .arg(arg("key-file", "munge.key"))
            .arg(arg("pid-file", "munged.pid"))
            .arg(arg("log-file", "munged.log"))
            .arg(arg("seed-file", "munged.seed"))
            .stdout(Stdio::null())
            .stderr(log_file(&self.dir.path("munged.out")))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run munged ({e}); {FIX}"));
        self.daemons.push(child);
        self.wait_for("munged", || socket.exists())
    }

    fn spawn_daemon(&mut self, name: &str) -> Result<(), String> {
        let child = Command::new(name)
            .arg("-D")
            .arg("-f")
            .arg(&self.conf)
            .env("SLURM_CONF", &self.conf)
            .stdout(Stdio::null())
            .stderr(log_file(&self.dir.path(&format!("{name}.out"))))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {name} ({e}); {FIX}"));
        self.daemons.push(child);
        Ok(())
    }

    /// Waits until `sinfo` reports the node idle, or a daemon ends.
    fn wait_idle(&mut self) -> Result<(), String> {
        let conf = self.conf.clone();
        self.wait_for("the node to be idle", || {
            Command::new("sinfo")
                .args(["-h", "-o", "%t"])
                .env("SLURM_CONF", &conf)
                .stderr(Stdio::null())
                .output()
                .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "idle")
        })
    }

    /// Polls `ready` until it holds; fails when a daemon ends or time runs out.
    fn wait_for(&mut self, what: &str, mut ready: impl FnMut() -> bool) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if ready() {
                return Ok(());
            }
            for child in &mut self.daemons {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!(
                        "a daemon ended ({status}) while waiting for {what}\n{}",
                        self.logs()
                    ));
                }
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "waited {READY_WITHIN:?} for {what}\n{}",
                    self.logs()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The daemons' stderr and log files, for a failure's message.
    pub fn logs(&self) -> String {
        ["munged.out", "slurmctld.out", "slurmd.out"]
            .iter()
            .map(|name| {
                let text = fs::read_to_string(self.dir.path(name)).unwrap_or_default();
                format!("== {name}\n{text}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        // SIGTERM first: slurmctld then stops its slurmscriptd, and slurmd
        // its step daemons; SIGKILL whoever is still there after 5 s.
        while let Some(mut child) = self.daemons.pop() {
            // SAFETY: kill(2) on the pid of our own child, not yet waited for.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// slurm.conf for one node named as this machine, on these ports, with all
/// state under `dir`.
fn slurm_conf(dir: &Path, ctld_port: u16, slurmd_port: u16) -> String {
    let d = dir.display();
    let host = super::hostname();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let user = user_name();
    format!(
        "\
ClusterName=kvbench
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.sock
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"
    )
}

/// Who runs the test: the daemons run as this user, and so do the jobs.
fn user_name() -> String {
    let out = Command::new("id").arg("-un").output().expect("run id -un");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A port no one listens on and never handed out before in this process
/// ([`hand_out`]), below the kernel's ephemeral range (32768 and
/// up on Linux): a port in that range may still be held by another
/// process's closed connection (TIME_WAIT), which makes slurmd's bind fail
/// even with SO_REUSEADDR.
fn unused_port() -> u16 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let mut seed = nanos ^ std::process::id().rotate_left(16);
    for _ in 0..1000 {
        // A small linear congruential step: spread, not secrecy.
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let port = 20_000 + (seed >> 8) % 12_000;
        // The cluster nodes of other tests take ports in this range too:
        // one handed out to them is not this cluster's.
        if TcpListener::bind(("0.0.0.0", port as u16)).is_ok() && hand_out(port as u16) {
            return port as u16;
        }
    }
    panic!("no unused port between 20000 and 32000");
}

/// A munge key of 1024 random bytes, readable only by its owner (munged
/// refuses anything looser).
fn write_munge_key(path: &Path) {
    let mut key = vec![0u8; 1024];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
        .expect("read /dev/urandom");
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .unwrap();
    std::io::Write::write_all(&mut file, &key).unwrap();
}

fn log_file(path: &Path) -> fs::File {
    fs::File::create(path).unwrap()
}
