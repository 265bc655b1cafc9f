//! Sweeps: comma lists for `--threads`, `--clients`, `--pipeline`, `--data-size`
//! and `--ratio` run every combination in one invocation. A [`Sweep`] holds the
//! lists; [`Config::cells`] expands them into one complete configuration per cell,
//! in the order the flags vary fastest from the last dimension.

use crate::config::Config;
use crate::workload::mix::Ratio;
use crate::workload::values::SizeSpec;

/// The swept values of each dimension (one value when not swept).
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// `-t` values.
    pub threads: Vec<usize>,
    /// `-c` values.
    pub clients: Vec<usize>,
    /// `--pipeline` values.
    pub pipelines: Vec<usize>,
    /// `-d` values (or the one range/list spec).
    pub data_sizes: Vec<SizeSpec>,
    /// `--ratio` values.
    pub ratios: Vec<Ratio>,
    /// Warm up before every cell (`--sweep-warmup each`) or only the first.
    pub warmup_each_cell: bool,
}

impl Sweep {
    /// How many cells the lists make.
    pub fn cell_count(&self) -> usize {
        self.threads.len()
            * self.clients.len()
            * self.pipelines.len()
            * self.data_sizes.len()
            * self.ratios.len()
    }

    /// The most connections any cell opens.
    pub fn max_connections(&self) -> usize {
        self.threads.iter().max().copied().unwrap_or(1)
            * self.clients.iter().max().copied().unwrap_or(1)
    }

    /// Names of the swept dimensions, as flags.
    pub fn swept(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (name, len) in [
            ("threads", self.threads.len()),
            ("clients", self.clients.len()),
            ("pipeline", self.pipelines.len()),
            ("data-size", self.data_sizes.len()),
            ("ratio", self.ratios.len()),
        ] {
            if len > 1 {
                out.push(name);
            }
        }
        out
    }
}

/// One cell of a sweep: its configuration and what makes it different.
#[derive(Debug, Clone)]
pub struct Cell {
    /// 0-based position in the sweep.
    pub index: usize,
    /// The complete configuration of this cell.
    pub config: Config,
    /// `(flag, value)` for each swept dimension.
    pub parameters: Vec<(&'static str, String)>,
}

impl Cell {
    /// `pipeline=16 ratio=1:1`.
    pub fn label(&self) -> String {
        let parts: Vec<String> = self
            .parameters
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.join(" ")
    }
}

impl Config {
    /// True when a list was given for a sweepable flag.
    pub fn is_sweep(&self) -> bool {
        self.sweep.cell_count() > 1
    }

    /// Every combination, as complete configurations: each cell after the
    /// first without the warm-up unless `--sweep-warmup each`.
    pub fn cells(&self) -> Vec<Cell> {
        let s = &self.sweep;
        let swept = s.swept();
        let mut cells = Vec::with_capacity(s.cell_count());
        for &threads in &s.threads {
            for &clients in &s.clients {
                for &pipeline in &s.pipelines {
                    for values in &s.data_sizes {
                        for &ratio in &s.ratios {
                            let mut config = self.clone();
                            config.threads = threads;
                            config.clients = clients;
                            config.pipeline = pipeline;
                            config.values = values.clone();
                            config.ratio = ratio;
                            config.start_at =
                                self.start_at.as_ref().map(|s| s.for_cell(cells.len()));
                            // Without --sweep-warmup each, only the first
                            // cell warms the server up.
                            if !s.warmup_each_cell && !cells.is_empty() {
                                config.warmup = std::time::Duration::ZERO;
                            }
                            let all = [
                                ("threads", threads.to_string()),
                                ("clients", clients.to_string()),
                                ("pipeline", pipeline.to_string()),
                                ("data-size", values.to_string()),
                                ("ratio", ratio.to_string()),
                            ];
                            let parameters =
                                all.into_iter().filter(|(k, _)| swept.contains(k)).collect();
                            cells.push(Cell {
                                index: cells.len(),
                                config,
                                parameters,
                            });
                        }
                    }
                }
            }
        }
        cells
    }
}
