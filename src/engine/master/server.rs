//! Server evidence: what the server itself says about a run.
//!
//! A control connection, separate from the benchmark's, reads `INFO all` before
//! and after every phase (and, with `--slowlog`, resets and reads the slow log).
//! The deltas are the independent witness of kvbench's own counts: SET and GET
//! calls, keyspace hits and misses, CPU seconds, forks for background saves. A
//! target that does not answer INFO (some proxies) simply yields no evidence.
//! memcached answers `stats` instead, read into the same [`Info`] ([`memcached`]).
//! What is sent and how each answer is known to be whole is the protocol's
//! ([`crate::protocol::control`]); this module owns the socket and the `Info`.
//! During a phase the same connection reads the server's CPU and network
//! once a second ([`sample`]).

pub mod cluster;
pub mod info;
pub mod keyed;
pub mod latency;
pub mod memcached;
pub mod sample;

use std::io::{self, Read, Write};
use std::time::SystemTime;

use crate::config::target::Target;
use crate::engine::worker::net::{self, BlockingStream};
use crate::error::ConnectError;
use crate::protocol::control::Counters;
use crate::protocol::value::{self, Value};
use crate::protocol::wire::Protocol;

pub use info::Info;

/// One slow-log entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowlogEntry {
    /// Entry id.
    pub id: i64,
    /// Unix time the command was logged.
    pub timestamp: i64,
    /// Execution time in µs.
    pub duration_us: i64,
    /// The command and its arguments (the server may truncate them).
    pub command: Vec<String>,
}

/// What the server said around one phase.
#[derive(Debug, Clone)]
pub struct PhaseEvidence {
    /// INFO just before the phase started.
    pub before: Info,
    /// INFO just after it ended.
    pub after: Info,
    /// `--slowlog`: the entries logged during the phase.
    pub slowlog: Option<Vec<SlowlogEntry>>,
}

impl PhaseEvidence {
    /// True when the server process changed during the phase (a restart): its
    /// counters started again from zero, so deltas cover only the new process.
    pub fn restarted(&self) -> bool {
        self.before.get("run_id") != self.after.get("run_id")
    }

    /// The "before" value of a counter: zero after a restart.
    fn base(&self, value: impl Fn(&Info) -> f64) -> f64 {
        if self.restarted() {
            0.0
        } else {
            value(&self.before)
        }
    }

    /// Growth of an integer INFO field over the phase (0 if absent).
    pub fn delta(&self, field: &str) -> u64 {
        let before = self.base(|i| i.u64(field).unwrap_or(0) as f64) as u64;
        self.after.u64(field).unwrap_or(0).saturating_sub(before)
    }

    /// Calls of one command (lower-case name) during the phase.
    pub fn calls(&self, command: &str) -> u64 {
        let before = self.base(|i| i.calls(command) as f64) as u64;
        self.after.calls(command).saturating_sub(before)
    }

    /// µs the server spent running one command during the phase.
    pub fn usec(&self, command: &str) -> u64 {
        let before = self.base(|i| i.usec(command) as f64) as u64;
        self.after.usec(command).saturating_sub(before)
    }

    /// Calls of one command refused before they ran (Redis 7 `rejected_calls`:
    /// `-OOM` under maxmemory, for one); not part of [`Self::calls`].
    pub fn rejected_calls(&self, command: &str) -> u64 {
        let before = self.base(|i| i.rejected_calls(command) as f64) as u64;
        self.after.rejected_calls(command).saturating_sub(before)
    }

    /// Calls that ran and failed (Redis 7 `failed_calls`; already in [`Self::calls`]).
    pub fn failed_calls(&self, command: &str) -> u64 {
        let before = self.base(|i| i.failed_calls(command) as f64) as u64;
        self.after.failed_calls(command).saturating_sub(before)
    }

    /// Every request of one command the server answered, run or refused: what
    /// kvbench's own count of replies must match.
    pub fn answered(&self, command: &str) -> u64 {
        self.calls(command) + self.rejected_calls(command)
    }

    /// Seconds between the two INFOs by the server's own clock
    /// (`server_time_usec`); `None` where INFO lacks it.
    pub fn server_seconds(&self) -> Option<f64> {
        let at = |i: &Info| i.u64("server_time_usec");
        let (before, after) = (at(&self.before)?, at(&self.after)?);
        (after > before).then(|| (after - before) as f64 / 1e6)
    }

    /// CPU seconds of Redis's main thread during the phase (INFO's
    /// `used_cpu_user_main_thread` + `used_cpu_sys_main_thread`), the core a
    /// Redis server saturates first; `None` where INFO lacks them (memcached,
    /// Redis before 6.2) or the server restarted.
    pub fn main_thread_cpu_seconds(&self) -> Option<f64> {
        let main = |i: &Info| {
            Some(i.f64("used_cpu_user_main_thread")? + i.f64("used_cpu_sys_main_thread")?)
        };
        let (before, after) = (main(&self.before)?, main(&self.after)?);
        (!self.restarted()).then(|| (after - before).max(0.0))
    }

    /// Server CPU seconds (user + system, all its threads) used during the phase.
    pub fn cpu_seconds(&self) -> f64 {
        let cpu =
            |i: &Info| i.f64("used_cpu_user").unwrap_or(0.0) + i.f64("used_cpu_sys").unwrap_or(0.0);
        (cpu(&self.after) - self.base(cpu)).max(0.0)
    }

    /// Server CPU seconds per 1 000 of `replies`, when there were any.
    pub fn cpu_per_1000(&self, replies: u64) -> Option<f64> {
        (replies > 0).then(|| self.cpu_seconds() * 1000.0 / replies as f64)
    }
}

/// The master's control connection across phases: reopened when it broke (a
/// restart breaks it like any other connection), and keeping why it failed, so
/// that evidence missing for that reason is reported, never silent. A target
/// that answers INFO with an error (some proxies) is no failure.
pub struct ControlLink {
    target: Target,
    control: Option<Control>,
    lost: Option<String>,
}

impl ControlLink {
    /// Opens the control connection; a failure is kept for [`Self::take_lost`].
    pub fn open(target: &Target) -> ControlLink {
        let mut link = ControlLink {
            target: target.clone(),
            control: None,
            lost: None,
        };
        link.reopen();
        link
    }

    fn reopen(&mut self) {
        match Control::open(&self.target) {
            Ok(control) => self.control = Some(control),
            Err(e) => {
                self.control = None;
                self.lost = Some(format!("the control connection could not open: {e}"));
            }
        }
    }

    /// The open connection, for CONFIG and SLOWLOG.
    pub fn get(&mut self) -> Option<&mut Control> {
        self.control.as_mut()
    }

    /// INFO, reopening the connection once if it failed.
    pub fn info(&mut self) -> Option<Info> {
        match self.control.as_mut().map(Control::info_checked) {
            Some(Ok(found)) => return found,
            // A server that answers too slowly, or a signal: a new connection
            // would only wait again (a restart closes the old one instead).
            Some(Err(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) =>
            {
                self.lost = Some(format!("INFO on the control connection failed: {e}"));
                return None;
            }
            _ => {}
        }
        self.reopen();
        match self.control.as_mut().map(Control::info_checked) {
            Some(Ok(found)) => found,
            Some(Err(e)) => {
                self.lost = Some(format!("INFO on the control connection failed: {e}"));
                None
            }
            None => None,
        }
    }

    /// Why the connection last failed, if it did since the last call.
    pub fn take_lost(&mut self) -> Option<String> {
        self.lost.take()
    }
}

/// The largest reply the control connection reads, which bounds its buffer.
const MAX_CONTROL_REPLY: usize = 16 * 1024 * 1024;

/// A blocking connection for INFO and friends, in
/// [`Protocol::control`]'s protocol.
pub struct Control {
    stream: BlockingStream,
    buf: Vec<u8>,
    protocol: Protocol,
    /// `--connection-timeout`: the most a whole reply may take, however it trickles.
    deadline: std::time::Duration,
    /// Why the connection is no longer used: a reply that did not come
    /// whole in time would be read as the answer to the next command.
    broken: Option<(io::ErrorKind, String)>,
}

/// The longest one read blocks, so that a signal is seen this soon however
/// long the reply's deadline: a signal handler interrupts the read only
/// when it runs on this thread.
const READ_SLICE: std::time::Duration = std::time::Duration::from_millis(100);

impl Control {
    /// Connects and authenticates like a benchmark connection, in the
    /// protocol [`Protocol::control`] names.
    pub fn open(target: &Target) -> Result<Control, ConnectError> {
        let mut target = target.clone();
        target.protocol = target.protocol.control();
        Ok(Control {
            stream: net::connect_blocking(&target)?.0,
            buf: Vec::with_capacity(16 * 1024),
            protocol: target.protocol,
            deadline: target.connect_timeout,
            broken: None,
        })
    }

    /// What the server sent last: after an unreadable reply, what it speaks.
    pub fn last_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The TLS session this connection negotiated (`None` without `--tls`).
    pub fn tls_session(&self) -> Option<crate::engine::worker::net::tls_session::TlsSession> {
        match &self.stream {
            BlockingStream::Tls(s) => {
                crate::engine::worker::net::tls_session::TlsSession::of(&s.conn)
            }
            _ => None,
        }
    }

    /// Sends one command and waits for its reply.
    pub fn command(&mut self, args: &[&str]) -> io::Result<Value> {
        let mut out = Vec::new();
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.protocol
            .encode_control_command(&mut out, &args)
            .map_err(|why| io::Error::new(io::ErrorKind::Unsupported, why))?;
        self.stream.write_all(&out)?;
        self.read_until(|buf| match value::parse(buf) {
            Ok(Some((v, _))) => Some(Ok(v)),
            Ok(None) => None,
            Err(e) => Some(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                e.to_string(),
            ))),
        })
    }

    /// Sends `request` as it is and returns the reply, which `len` finds
    /// whole at the start of what was read (its length; `None` while
    /// incomplete): for protocols whose commands [`Self::command`] cannot
    /// encode, such as memcached's text and meta commands.
    pub fn exchange(
        &mut self,
        request: &[u8],
        len: impl Fn(&[u8]) -> Option<usize>,
    ) -> io::Result<Vec<u8>> {
        self.stream.write_all(request)?;
        self.read_until(|buf| len(buf).map(|n| Ok(buf[..n].to_vec())))
    }

    /// Reads into the buffer until `done` has an answer (bounded by
    /// [`MAX_CONTROL_REPLY`] and by the deadline); a reply not whole in time,
    /// or cut by SIGINT or SIGTERM arriving during the wait, leaves the
    /// connection unused from then on.
    fn read_until<T>(&mut self, done: impl Fn(&[u8]) -> Option<io::Result<T>>) -> io::Result<T> {
        if let Some((kind, why)) = &self.broken {
            return Err(io::Error::new(*kind, why.clone()));
        }
        self.buf.clear();
        let mut chunk = [0u8; 16 * 1024];
        let until = std::time::Instant::now() + self.deadline;
        // A signal that came before this command asked for what follows it
        // (the barrier's withdrawal, the cut phase's evidence), which the
        // deadline alone bounds; one that comes during the wait ends it.
        let signalled_before = crate::engine::interrupt::signalled();
        loop {
            if let Some(answer) = done(&self.buf) {
                return answer;
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            let broken = if !signalled_before && crate::engine::interrupt::signalled() {
                Some((
                    io::ErrorKind::Interrupted,
                    "stopped by a signal".to_string(),
                ))
            } else if left.is_zero() {
                Some((
                    io::ErrorKind::TimedOut,
                    format!(
                        "the server's reply was not whole within --connection-timeout {:.0} s",
                        self.deadline.as_secs_f64()
                    ),
                ))
            } else {
                None
            };
            if let Some((kind, why)) = broken {
                self.broken = Some((kind, why.clone()));
                return Err(io::Error::new(kind, why));
            }
            self.stream.set_read_timeout(left.min(READ_SLICE))?;
            let n = match self.stream.read(&mut chunk) {
                // A slice passed, or a signal handler ran: the loop looks at
                // the deadline and the signal again.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted
                            | io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                read => read?,
            };
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the control connection",
                ));
            }
            if self.buf.len() + n > MAX_CONTROL_REPLY {
                // INFO all and 128 slow-log entries are far below this: anything
                // larger is a broken or hostile server, not evidence.
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a control reply of more than 16 MiB",
                ));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// `INFO all`, parsed; `None` when the target does not answer it.
    pub fn info(&mut self) -> Option<Info> {
        self.info_checked().ok().flatten()
    }

    /// `INFO all`, telling a target that answers without INFO (`Ok(None)`: an
    /// error reply, as from some proxies) from a connection that failed (`Err`).
    pub fn info_checked(&mut self) -> io::Result<Option<Info>> {
        let mut request = Vec::new();
        let protocol = self.protocol;
        protocol.encode_counters_request(&mut request);
        self.stream.write_all(&request)?;
        let counters = self.read_until(|buf| match protocol.decode_counters(buf) {
            Ok(found) => found.map(Ok),
            Err(e) => Some(Err(io::Error::new(io::ErrorKind::InvalidData, e))),
        })?;
        let now = SystemTime::now();
        Ok(counters.map(|counters| match counters {
            Counters::Info(text) => Info::parse(&text, now),
            Counters::Stats(text) => memcached::parse_stats(&text, now),
        }))
    }

    /// `CONFIG GET name`; `None` when CONFIG is disabled or the name unknown.
    pub fn config_get(&mut self, name: &str) -> Option<String> {
        let reply = self.command(&["CONFIG", "GET", name]).ok()?;
        reply.array()?.get(1)?.text()
    }

    /// Empties the slow log; false when the target refuses.
    pub fn slowlog_reset(&mut self) -> bool {
        matches!(self.command(&["SLOWLOG", "RESET"]), Ok(Value::Simple(_)))
    }

    /// The newest `count` slow-log entries, oldest first.
    pub fn slowlog_get(&mut self, count: usize) -> Option<Vec<SlowlogEntry>> {
        let reply = self.command(&["SLOWLOG", "GET", &count.to_string()]).ok()?;
        // The control connection's own commands are not the run's: the
        // SLOWLOG RESET that started the log, and INFO, CONFIG or LATENCY
        // HISTOGRAM (read around and during the phase).
        let ours = |e: &SlowlogEntry| {
            e.command.first().is_some_and(|c| {
                ["SLOWLOG", "INFO", "CONFIG", "LATENCY"]
                    .iter()
                    .any(|x| x.eq_ignore_ascii_case(c))
            })
        };
        let mut entries: Vec<SlowlogEntry> = reply
            .array()?
            .iter()
            .filter_map(slowlog_entry)
            .filter(|e| !ours(e))
            .collect();
        entries.reverse();
        Some(entries)
    }
}

fn slowlog_entry(v: &Value) -> Option<SlowlogEntry> {
    let fields = v.array()?;
    Some(SlowlogEntry {
        id: fields.first()?.integer()?,
        timestamp: fields.get(1)?.integer()?,
        duration_us: fields.get(2)?.integer()?,
        command: fields
            .get(3)?
            .array()?
            .iter()
            .filter_map(Value::text)
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(run_id: &str, usec: u64, main_user: f64) -> Info {
        let text = format!(
            "# Server\r\nrun_id:{run_id}\r\nserver_time_usec:{usec}\r\n# CPU\r\nused_cpu_user_main_thread:{main_user}\r\nused_cpu_sys_main_thread:0.5\r\n"
        );
        Info::parse(&text, std::time::SystemTime::now())
    }

    #[test]
    fn a_phase_gives_its_seconds_and_main_thread_cpu_by_the_servers_own_counters() {
        let e = PhaseEvidence {
            before: info("a", 1_000_000, 1.0),
            after: info("a", 3_500_000, 2.25),
            slowlog: None,
        };
        assert_eq!(e.server_seconds(), Some(2.5));
        assert_eq!(e.main_thread_cpu_seconds(), Some(1.25));
        let restarted = PhaseEvidence {
            after: info("b", 3_500_000, 0.25),
            ..e
        };
        assert_eq!(restarted.main_thread_cpu_seconds(), None);
    }

    #[test]
    fn slowlog_entries_parse_from_their_wire_shape() {
        let wire = b"*6\r\n:7\r\n:1700000000\r\n:1234\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n$9\r\n127.0.0.1\r\n$0\r\n\r\n";
        let (v, _) = value::parse(wire).unwrap().unwrap();
        let e = slowlog_entry(&v).unwrap();
        assert_eq!((e.id, e.duration_us), (7, 1234));
        assert_eq!(e.command, vec!["GET", "k"]);
    }
}
