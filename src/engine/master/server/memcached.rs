//! memcached's own counters as server evidence: `stats` (asked for and read
//! whole by [`crate::protocol::control`]) parsed into an [`Info`] so that the cross-check, the reports
//! and the warnings read memcached as they read Redis.
//!
//! Every `STAT name value` line is kept under memcached's own name, in the
//! `Stats` section. The counters that have an exact Redis counterpart are
//! also entered under the Redis name the rest of kvbench reads:
//!
//! | memcached | read as | why it is the same thing |
//! |---|---|---|
//! | `cmd_get` | `cmdstat_get` `calls` | GETs received (one key per GET, as sent) |
//! | `cmd_set` | `cmdstat_set` `calls` | SETs received, stored or not |
//! | `get_hits` / `get_misses` | `keyspace_hits` / `keyspace_misses` | GETs that found / did not find the key |
//! | `curr_items` | `db0` `keys` | items stored (memcached has one keyspace) |
//! | `bytes` | `used_memory` | bytes used to store items |
//! | `rusage_user` / `rusage_system` | `used_cpu_user` / `used_cpu_sys` | the process's CPU seconds |
//! | `pid` | `process_id` | the server process, for the CPU plan |
//! | `bytes_read` / `bytes_written` | `total_net_input_bytes` / `total_net_output_bytes` | bytes read from and written to the clients |
//! | `pid` and `time − uptime` | `run_id` | one process's identity, so a restart is seen |
//!
//! What Redis has and memcached does not (forks, persistence, maxmemory
//! policy, rejected calls, the slow log) is absent, not invented: the checks
//! that need it stay quiet.

use std::time::SystemTime;

use crate::engine::master::server::info::{Info, Software};

/// The memcached counters entered under a Redis name as well: (memcached, Redis, Redis section).
const SAME_AS: [(&str, &str, &str); 8] = [
    ("get_hits", "keyspace_hits", "Stats"),
    ("get_misses", "keyspace_misses", "Stats"),
    ("bytes", "used_memory", "Memory"),
    ("rusage_user", "used_cpu_user", "CPU"),
    ("rusage_system", "used_cpu_sys", "CPU"),
    ("pid", "process_id", "Server"),
    ("bytes_read", "total_net_input_bytes", "Stats"),
    ("bytes_written", "total_net_output_bytes", "Stats"),
];

/// Parses the reply to `stats` (`STAT name value` lines, then `END`).
pub fn parse_stats(text: &str, taken_at: SystemTime) -> Info {
    let mut info = Info::parse("", taken_at);
    info.software = Software::Memcached;
    for line in text.lines().map(str::trim) {
        let Some((name, value)) = line.strip_prefix("STAT ").and_then(|l| l.split_once(' ')) else {
            continue;
        };
        put(&mut info, name, value.to_string(), "Stats");
    }
    for (ours, theirs, section) in SAME_AS {
        if let Some(v) = info.get(ours).map(str::to_string) {
            put(&mut info, theirs, v, section);
        }
    }
    for (ours, command) in [("cmd_get", "get"), ("cmd_set", "set")] {
        if let Some(v) = info.get(ours).map(|v| format!("calls={v}")) {
            put(&mut info, &format!("cmdstat_{command}"), v, "Commandstats");
        }
    }
    if let Some(v) = info.get("curr_items").map(|v| format!("keys={v}")) {
        put(&mut info, "db0", v, "Keyspace");
    }
    // The start time tells two processes apart even where the pid is reused.
    if let (Some(pid), Some(time), Some(uptime)) =
        (info.get("pid"), info.u64("time"), info.u64("uptime"))
    {
        let run_id = format!("{pid}-{}", time.saturating_sub(uptime));
        put(&mut info, "run_id", run_id, "Server");
    }
    info
}

fn put(info: &mut Info, name: &str, value: String, section: &str) {
    info.fields.insert(name.to_string(), value);
    info.section_of
        .insert(name.to_string(), section.to_string());
}

#[cfg(test)]
mod tests {
    use super::parse_stats;
    use crate::engine::master::server::info::Software;
    use std::time::SystemTime;

    const SAMPLE: &str = "STAT pid 4850\r\nSTAT uptime 9\r\nSTAT time 1796105227\r\nSTAT version 1.6.18\r\nSTAT rusage_user 0.233653\r\nSTAT rusage_system 1.163223\r\nSTAT cmd_get 67054\r\nSTAT cmd_set 16766\r\nSTAT get_hits 58542\r\nSTAT get_misses 8512\r\nSTAT curr_items 1000\r\nSTAT bytes 93000\r\nEND\r\n";

    #[test]
    fn memcached_counters_read_as_their_redis_counterparts() {
        let i = parse_stats(SAMPLE, SystemTime::UNIX_EPOCH);
        assert_eq!(i.software, Software::Memcached);
        assert_eq!(i.calls("get"), 67054);
        assert_eq!(i.calls("set"), 16766);
        assert_eq!(i.u64("keyspace_hits"), Some(58542));
        assert_eq!(i.u64("keyspace_misses"), Some(8512));
        assert_eq!(i.keys(0), 1000);
        assert_eq!(i.get("version"), Some("1.6.18"));
        assert_eq!(i.get("run_id"), Some("4850-1796105218"));
        let cpu = i.f64("used_cpu_user").unwrap() + i.f64("used_cpu_sys").unwrap();
        assert!((cpu - 1.396876).abs() < 1e-9);
        // Nothing Redis-only is invented.
        assert_eq!(i.get("total_forks"), None);
        assert_eq!(i.get("maxmemory"), None);
        assert_eq!(i.rejected_calls("set"), 0);
    }
}
