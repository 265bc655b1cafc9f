//! Where the worker threads run: the CPU plan, and why it was chosen.
//!
//! Pinning every worker is right on a dedicated client machine, and wrong when
//! the server shares the machine: threads that cannot move away then fight the
//! server for its CPUs (measured on 2 vCPUs at `-t 20 -c 100`: a third of the
//! throughput lost). So by default kvbench learns where a local server may run
//! (its `process_id` from `INFO server`, then the allowed CPUs of each of its
//! threads, io-threads included, from `/proc`) and pins only to the CPUs the
//! server may not use. When the server may use every CPU kvbench may use, or
//! where it runs cannot be learned, kvbench does not pin at all and says why.
//! `--cpus` and `--no-pin` decide on their own.
//!
//! The decision ([`decide`]) is pure; reading `/proc` is kept apart in
//! [`ServerCpus::of_process`].

use std::fmt;
use std::fs;
use std::path::Path;

use crate::config::{Pinning, parse_cpu_list};

/// Where a server on this machine may run, as its threads' affinity masks say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerCpus {
    /// The server's process id (`INFO server` `process_id`).
    pub pid: u32,
    /// The union of the CPUs its threads may run on, ascending.
    pub cpus: Vec<usize>,
    /// How many threads the process has (the main thread, io-threads, bio threads).
    pub threads: usize,
}

impl ServerCpus {
    /// Reads the allowed CPUs of every thread of process `pid`. `executable`
    /// (`INFO server` `executable`, when the server reports it) guards against
    /// a pid from another PID namespace (a server in a container) that names
    /// an unrelated process here: `None` unless the process is the server.
    pub fn of_process(pid: u32, executable: Option<&str>) -> Option<ServerCpus> {
        let proc_dir = Path::new("/proc").join(pid.to_string());
        if !is_the_server(&proc_dir, executable) {
            return None;
        }
        let mut cpus = Vec::new();
        let mut threads = 0;
        for task in fs::read_dir(proc_dir.join("task")).ok()?.flatten() {
            let Ok(status) = fs::read_to_string(task.path().join("status")) else {
                // The thread ended between the listing and the read.
                continue;
            };
            cpus.extend(allowed_cpus(&status)?);
            threads += 1;
        }
        cpus.sort_unstable();
        cpus.dedup();
        (threads > 0 && !cpus.is_empty()).then_some(ServerCpus { pid, cpus, threads })
    }
}

/// True when `/proc/<pid>` looks like the server: its command name is the
/// file name of the executable the server reported (the kernel keeps 15 bytes
/// of it), or, when the server reports none, that of a Redis-protocol server.
/// The executable's path itself is no proof: Redis reports its start
/// directory joined to `argv[0]`, and Debian's `redis-server` is a link to
/// `redis-check-rdb`.
fn is_the_server(proc_dir: &Path, executable: Option<&str>) -> bool {
    let Ok(comm) = fs::read_to_string(proc_dir.join("comm")) else {
        return false;
    };
    let comm = comm.trim_end();
    match executable.and_then(|e| Path::new(e).file_name()?.to_str()) {
        Some(name) => !comm.is_empty() && name.as_bytes().starts_with(comm.as_bytes()),
        None => {
            const NAMES: [&str; 5] = ["redis", "valkey", "keydb", "dragonfly", "memcached"];
            NAMES.iter().any(|n| comm.contains(n))
        }
    }
}

/// The `Cpus_allowed_list:` of a `/proc/.../status` text.
fn allowed_cpus(status: &str) -> Option<Vec<usize>> {
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    parse_cpu_list(line.trim()).ok()
}

/// Why the threads were placed as they were; the report's
/// `placement.reason` is its [`Reason::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// `--no-pin`.
    NoPinFlag,
    /// `--cpus`.
    CpusFlag,
    /// The server is on another machine: every CPU is the client's.
    RemoteServer,
    /// Pinned to the CPUs a local server may not use.
    ApartFromServer,
    /// A local server may run on every CPU kvbench may use: pinning would
    /// only stop kvbench's threads from moving out of its way.
    ServerMayUseEveryCpu,
    /// The server is on this machine, but where it runs could not be learned
    /// (no `process_id` in INFO, another PID namespace, no `/proc`).
    ServerUnknown,
    /// This process may use no more than one CPU: there is nothing to choose.
    OneCpu,
}

impl Reason {
    /// A stable name for JSON.
    pub fn kind(self) -> &'static str {
        match self {
            Reason::NoPinFlag => "no_pin_flag",
            Reason::CpusFlag => "cpus_flag",
            Reason::RemoteServer => "remote_server",
            Reason::ApartFromServer => "apart_from_server",
            Reason::ServerMayUseEveryCpu => "server_may_use_every_cpu",
            Reason::ServerUnknown => "server_unknown",
            Reason::OneCpu => "one_cpu",
        }
    }
}

/// The CPU plan for one crew of workers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The CPU each worker thread is pinned to, by thread; `None` = not pinned.
    pub threads: Vec<Option<usize>>,
    /// The CPUs this process may use.
    pub available: Vec<usize>,
    /// Whether the server runs on this machine.
    pub local_server: bool,
    /// Where that server may run, when it could be learned.
    pub server: Option<ServerCpus>,
    /// Why.
    pub reason: Reason,
}

/// What [`decide`] needs to know.
#[derive(Debug, Clone)]
pub struct Facts<'a> {
    /// `--cpus` / `--no-pin` / neither.
    pub pinning: &'a Pinning,
    /// `-t`.
    pub threads: usize,
    /// The CPUs this process may use, ascending.
    pub available: &'a [usize],
    /// Whether the server runs on this machine.
    pub local_server: bool,
    /// Where that server may run, when known.
    pub server: Option<&'a ServerCpus>,
}

/// Chooses the CPU of every worker thread. Threads are spread round-robin over
/// the chosen CPUs, so with more threads than CPUs each CPU gets the same
/// number, give or take one. `--cpus` naming a CPU this process may not use
/// is a usage error found earlier, in [`crate::engine::master::crew`].
pub fn decide(facts: &Facts<'_>) -> Placement {
    let spread = |cpus: &[usize]| -> Vec<Option<usize>> {
        (0..facts.threads)
            .map(|i| cpus.get(i % cpus.len().max(1)).copied())
            .collect()
    };
    let (threads, reason) = match facts.pinning {
        Pinning::Off => (vec![None; facts.threads], Reason::NoPinFlag),
        Pinning::Cpus(list) => (spread(list), Reason::CpusFlag),
        Pinning::Auto if facts.available.len() < 2 => (vec![None; facts.threads], Reason::OneCpu),
        Pinning::Auto if !facts.local_server => (spread(facts.available), Reason::RemoteServer),
        Pinning::Auto => match facts.server {
            None => (vec![None; facts.threads], Reason::ServerUnknown),
            Some(server) => {
                let free: Vec<usize> = facts
                    .available
                    .iter()
                    .copied()
                    .filter(|cpu| !server.cpus.contains(cpu))
                    .collect();
                if free.is_empty() {
                    (vec![None; facts.threads], Reason::ServerMayUseEveryCpu)
                } else {
                    (spread(&free), Reason::ApartFromServer)
                }
            }
        },
    };
    Placement {
        threads,
        available: facts.available.to_vec(),
        local_server: facts.local_server,
        server: facts.server.cloned(),
        reason,
    }
}

impl Placement {
    /// The distinct CPUs the threads are pinned to, ascending (empty: none pinned).
    pub fn client_cpus(&self) -> Vec<usize> {
        let mut cpus: Vec<usize> = self.threads.iter().flatten().copied().collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    }

    /// The CPUs both the client threads and the server may use.
    pub fn overlap(&self) -> Vec<usize> {
        let Some(server) = &self.server else {
            return Vec::new();
        };
        let client = if self.client_cpus().is_empty() {
            self.available.clone()
        } else {
            self.client_cpus()
        };
        client
            .into_iter()
            .filter(|c| server.cpus.contains(c))
            .collect()
    }

    /// A line of advice for a shared machine: which CPUs to give the server
    /// (`taskset`) and which to kvbench (`--cpus`), with this machine's numbers.
    /// `None` when there is nothing to split.
    pub fn split_advice(&self) -> Option<String> {
        let (first, rest) = self.available.split_first()?;
        if rest.is_empty() {
            return None;
        }
        let pid = self
            .server
            .as_ref()
            .map_or_else(|| "<server pid>".to_string(), |s| s.pid.to_string());
        Some(format!(
            "taskset -acp {first} {pid} for the server and --cpus {} for kvbench",
            cpu_list(rest)
        ))
    }
}

/// `CPU 3` or `CPUs 0-3,6`.
fn cpus_named(cpus: &[usize]) -> String {
    let s = if cpus.len() == 1 { "" } else { "s" };
    format!("CPU{s} {}", cpu_list(cpus))
}

/// `0-3,6` for `[0, 1, 2, 3, 6]`.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        if j == i {
            out.push_str(&cpus[i].to_string());
        } else {
            out.push_str(&format!("{}-{}", cpus[i], cpus[j]));
        }
        i = j + 1;
    }
    out
}

impl fmt::Display for Placement {
    /// One sentence for the report: where the threads are, where the server
    /// may run, and why.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.threads.len();
        let client = self.client_cpus();
        if client.is_empty() {
            write!(f, "{n} client threads not pinned (the kernel places them)")?;
        } else if client.len() == 1 {
            write!(
                f,
                "{n} client thread{} pinned to CPU {}",
                if n == 1 { "" } else { "s" },
                client[0]
            )?;
        } else if n > client.len() {
            let per = n / client.len();
            let extra = if n % client.len() == 0 {
                String::new()
            } else {
                format!(" (some {})", per + 1)
            };
            write!(
                f,
                "{n} client threads spread over {}, {per} per CPU{extra}",
                cpus_named(&client)
            )?;
        } else {
            write!(f, "{n} client threads pinned to {}", cpus_named(&client))?;
        }
        match &self.server {
            Some(s) => write!(
                f,
                "; the server (pid {}, {} threads) may run on {}",
                s.pid,
                s.threads,
                cpus_named(&s.cpus)
            )?,
            None if self.local_server => write!(f, "; the server is on this machine")?,
            None => write!(f, "; the server is on another machine")?,
        }
        let why = match self.reason {
            Reason::NoPinFlag => "--no-pin".to_string(),
            Reason::CpusFlag => {
                let overlap = self.overlap();
                if overlap.is_empty() {
                    "--cpus".to_string()
                } else {
                    format!(
                        "--cpus, although the server may also run on {}",
                        cpus_named(&overlap)
                    )
                }
            }
            Reason::RemoteServer => "every CPU is the client's".to_string(),
            Reason::ApartFromServer => "kept off the server's CPUs".to_string(),
            Reason::ServerMayUseEveryCpu => format!(
                "the server may run on every CPU kvbench may use ({}), and pinned threads could not move out of its way",
                cpus_named(&self.available)
            ),
            Reason::ServerUnknown => {
                "where the server runs could not be learned (no process_id in INFO, or not visible in /proc), so pinning could put threads on its CPUs".to_string()
            }
            Reason::OneCpu => "this process may use one CPU only".to_string(),
        };
        write!(f, ": {why}.")
    }
}

#[cfg(test)]
mod tests;
