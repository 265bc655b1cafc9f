//! `--client-stats`: memtier's per-client stats files. Each connection
//! counts its replies per report row in a [`Tally`] (fixed size, kept from
//! the start, so the hot path only adds); once a second the worker folds each
//! client's tallies into that client's [`ClientSeries`], and after each
//! measured run writes one CSV per client, named and laid out as memtier's
//! `save_csv`: `PREFIX-RUN-THREAD-CLIENT.csv` with a "Per-Second Benchmark
//! Data" table (Sets, Gets, Waits) or, with `--command`, memtier's
//! "Per-Second Benchmark Arbitrary Commands Data" table.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::OutputError;
use crate::workload::ops::OpTable;

/// A client's file that could not be written: the worker sends it to the
/// master, and the exit code counts it as any report not written (1).
#[derive(Debug, Clone)]
pub struct Unwritten {
    /// The file.
    pub path: PathBuf,
    /// What the OS said (shared: the results that carry it are cloned).
    pub error: Arc<io::Error>,
}

impl Unwritten {
    /// The failure as the one every output reports.
    pub fn to_output_error(&self) -> OutputError {
        OutputError::Write {
            what: "--client-stats",
            path: Some(self.path.clone()),
            source: io::Error::new(self.error.kind(), self.error.to_string()),
        }
    }
}

/// Writes one client's `csv` to `path`.
pub fn write(path: PathBuf, csv: &str) -> Result<(), Unwritten> {
    std::fs::write(&path, csv).map_err(|e| Unwritten {
        path,
        error: Arc::new(e),
    })
}

/// One report row's replies on one connection (or one client) in a second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Replies, errors included.
    pub count: u64,
    /// Sum of their latencies in µs.
    pub latency_sum_us: u64,
    /// Request bytes of the replied requests.
    pub bytes_tx: u64,
    /// Reply bytes.
    pub bytes_rx: u64,
    /// GET-like replies that carried a value.
    pub hits: u64,
    /// GET-like replies that were nil.
    pub misses: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.count += o.count;
        self.latency_sum_us += o.latency_sum_us;
        self.bytes_tx += o.bytes_tx;
        self.bytes_rx += o.bytes_rx;
        self.hits += o.hits;
        self.misses += o.misses;
    }
}

impl Tally {
    /// memtier's average latency: whole µs (integer division), written as
    /// `seconds.micros` (its `USEC_FORMAT`).
    fn average(&self) -> String {
        let avg = self.latency_sum_us.checked_div(self.count).unwrap_or(0);
        format!("{}.{:06}", avg / 1_000_000, avg % 1_000_000)
    }
}

/// One client's seconds of a phase: `seconds[s][row]`.
#[derive(Debug, Clone, Default)]
pub struct ClientSeries {
    seconds: Vec<Vec<Tally>>,
}

impl ClientSeries {
    /// Forgets the previous phase.
    pub fn clear(&mut self) {
        self.seconds.clear();
    }

    /// Adds `tally` (of one connection) to second `second`, row by row.
    pub fn add(&mut self, second: usize, tally: &[Tally]) {
        if self.seconds.len() <= second {
            self.seconds.resize_with(second + 1, Vec::new);
        }
        let row = &mut self.seconds[second];
        if row.len() < tally.len() {
            row.resize(tally.len(), Tally::default());
        }
        for (into, t) in row.iter_mut().zip(tally) {
            *into += *t;
        }
    }

    /// The seconds with at least one reply: memtier keeps a second only
    /// once a reply falls in it.
    fn active_seconds(&self) -> impl Iterator<Item = (usize, &Vec<Tally>)> {
        self.seconds
            .iter()
            .enumerate()
            .filter(|(_, rows)| rows.iter().any(|t| t.count > 0))
    }

    /// Replies of every row and second, for tests and checks.
    pub fn total_replies(&self) -> u64 {
        self.seconds.iter().flatten().map(|t| t.count).sum()
    }
}

/// The file memtier names for client `client` of thread `thread` in run `run`.
pub fn file_name(prefix: &Path, run: u32, thread: usize, client: usize) -> PathBuf {
    let mut name = prefix.as_os_str().to_owned();
    name.push(format!("-{run}-{thread}-{client}.csv"));
    PathBuf::from(name)
}

/// The CSV of one client, as memtier writes it.
pub fn render(table: &OpTable, series: &ClientSeries) -> String {
    if table.default_pair {
        render_pair(table, series)
    } else {
        render_commands(table, series)
    }
}

fn cell(series: &[Tally], row: Option<usize>) -> Tally {
    row.and_then(|r| series.get(r)).copied().unwrap_or_default()
}

fn render_pair(table: &OpTable, series: &ClientSeries) -> String {
    let find = |name: &str| table.rows.iter().position(|r| r.memtier == name);
    let (sets, gets, waits) = (find("Sets"), find("Gets"), find("Waits"));
    let mut out = String::from(
        "Per-Second Benchmark Data\n\
         Second,SET Requests,SET Average Latency,SET Total Bytes,SET Total Bytes TX,SET Total Bytes RX,\
         GET Requests,GET Average Latency,GET Total Bytes,GET Total Bytes TX,GET Total Bytes RX,GET Misses,GET Hits,\
         WAIT Requests,WAIT Average Latency\n",
    );
    for (second, rows) in series.active_seconds() {
        let (s, g, w) = (cell(rows, sets), cell(rows, gets), cell(rows, waits));
        let _ = writeln!(
            out,
            "{second},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            s.count,
            s.average(),
            s.bytes_rx + s.bytes_tx,
            s.bytes_tx,
            s.bytes_rx,
            g.count,
            g.average(),
            g.bytes_rx + g.bytes_tx,
            g.bytes_tx,
            g.bytes_rx,
            g.misses,
            g.hits,
            w.count,
            w.average(),
        );
    }
    out
}

fn render_commands(table: &OpTable, series: &ClientSeries) -> String {
    let mut out = String::from("Per-Second Benchmark Arbitrary Commands Data\nSecond");
    for row in &table.rows {
        let n = &row.name;
        let _ = write!(
            out,
            ",{n} Requests,{n} Average Latency,{n} Total Bytes,{n} Total Bytes TX,{n} Total Bytes RX"
        );
    }
    out.push('\n');
    for (second, rows) in series.active_seconds() {
        // memtier ends each field, the last one too, with a comma.
        let _ = write!(out, "{second},");
        for r in 0..table.rows.len() {
            let t = cell(rows, Some(r));
            let _ = write!(
                out,
                "{},{},{},{},{},",
                t.count,
                t.average(),
                t.bytes_rx + t.bytes_tx,
                t.bytes_tx,
                t.bytes_rx
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(count: u64, latency_sum_us: u64) -> Tally {
        Tally {
            count,
            latency_sum_us,
            bytes_tx: 10 * count,
            bytes_rx: 5 * count,
            hits: 0,
            misses: count,
        }
    }

    #[test]
    fn the_file_is_named_prefix_run_thread_client() {
        let p = file_name(Path::new("/tmp/cs"), 1, 2, 3);
        assert_eq!(p, PathBuf::from("/tmp/cs-1-2-3.csv"));
    }

    #[test]
    fn a_pair_series_renders_memtiers_per_second_table() {
        let ratio = crate::workload::mix::Ratio { set: 1, get: 10 };
        let r = crate::workload::keys::KeyPattern::Uniform;
        let table = OpTable::default_pair(ratio, r, r);
        let mut s = ClientSeries::default();
        s.add(0, &[tally(2, 301), tally(4, 1_000_004)]);
        s.add(0, &[tally(1, 0), Tally::default()]);
        s.add(1, &[Tally::default(), Tally::default()]);
        s.add(2, &[Tally::default(), tally(1, 7)]);
        let csv = render(&table, &s);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "Per-Second Benchmark Data");
        assert!(lines[1].starts_with("Second,SET Requests,SET Average Latency,"));
        assert!(lines[1].ends_with("WAIT Requests,WAIT Average Latency"));
        // 3 SETs, 301 µs in all: 100 µs each; 4 GETs averaging 250001 µs.
        assert_eq!(
            lines[2],
            "0,3,0.000100,45,30,15,4,0.250001,60,40,20,4,0,0,0.000000"
        );
        assert_eq!(
            lines[3],
            "2,0,0.000000,0,0,0,1,0.000007,15,10,5,1,0,0,0.000000"
        );
        assert_eq!(lines.len(), 4);
        assert_eq!(s.total_replies(), 8);
    }
}
