//! Validation of where results go (`--json-out-file`, `--html-out-file`, `-o`,
//! `--hdr-file-prefix` with their `{shard}` and `{host}` placeholders,
//! `--print-percentiles`), the files read that no output may name, and CPU
//! placement (`--cpus`, `--no-pin`).

use std::path::PathBuf;

use crate::cli::Args;
use crate::config::shard::expand_path;
use crate::config::{Output, Pinning};
use crate::error::UsageError;

pub(super) fn build_output(a: &Args, shard_index: u32, host: &str) -> Result<Output, UsageError> {
    let expand = |p: &Option<PathBuf>| p.as_deref().map(|p| expand_path(p, shard_index, host));
    let text = a.print_percentiles.as_deref().unwrap_or("50,99,99.9");
    let mut percentiles = Vec::new();
    for part in text.split(',') {
        let p: f64 = part.trim().parse().map_err(|_| {
            UsageError::new(
                "--print-percentiles",
                format!("'{part}' is not a number; e.g. --print-percentiles 50,99,99.9"),
            )
        })?;
        if !(p > 0.0 && p <= 100.0) {
            return Err(UsageError::new(
                "--print-percentiles",
                format!("{p} is outside (0, 100]"),
            ));
        }
        percentiles.push(p);
    }
    Ok(Output {
        json_out_file: expand(&a.json_out_file),
        html_out_file: expand(&a.html_out_file),
        out_file: expand(&a.out_file),
        percentiles,
        hide_histogram: a.hide_histogram,
        hdr_file_prefix: expand(&a.hdr_file_prefix),
        slowlog: a.slowlog,
        show_config: a.show_config,
        print_all_runs: a.print_all_runs,
        wide: a.wide,
        memtier_layout: a.memtier_layout || a.memtier_compat,
        inputs: input_files(a),
    })
}

/// A file the benchmark reads, and the flag that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    /// `--config`, `--auth-file`, `--cert`, `--key`, `--cacert`,
    /// `--data-import` or `--monitor-input`.
    pub flag: &'static str,
    /// The path as given.
    pub path: PathBuf,
}

/// Every file `a` names for reading: a report written over one of them
/// would destroy the configuration, the credentials or a key.
fn input_files(a: &Args) -> Vec<InputFile> {
    let named = [
        ("--config", &a.config),
        ("--auth-file", &a.auth_file),
        ("--cert", &a.cert),
        ("--key", &a.key),
        ("--cacert", &a.cacert),
        ("--data-import", &a.data_import),
        ("--monitor-input", &a.monitor_input),
    ];
    named
        .into_iter()
        .filter_map(|(flag, path)| path.clone().map(|path| InputFile { flag, path }))
        .collect()
}

pub(super) fn build_pinning(a: &Args) -> Result<Pinning, UsageError> {
    match (&a.cpus, a.no_pin) {
        (Some(_), true) => Err(UsageError::new(
            "--cpus",
            "cannot be combined with --no-pin",
        )),
        (Some(list), false) => parse_cpu_list(list).map(Pinning::Cpus),
        (None, true) => Ok(Pinning::Off),
        (None, false) => Ok(Pinning::Auto),
    }
}

/// Parses `0-3,6,8-9` into CPU numbers, in the order given.
pub(crate) fn parse_cpu_list(list: &str) -> Result<Vec<usize>, UsageError> {
    let bad = |part: &str| {
        UsageError::new(
            "--cpus",
            format!("'{part}' is not a CPU number or range; e.g. --cpus 0-3 or --cpus 0,2,4"),
        )
    };
    let mut cpus = Vec::new();
    for part in list.split(',').map(str::trim) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let lo: usize = lo.trim().parse().map_err(|_| bad(part))?;
        let hi: usize = hi.trim().parse().map_err(|_| bad(part))?;
        if lo > hi || hi > 4096 {
            return Err(bad(part));
        }
        cpus.extend(lo..=hi);
    }
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::input_files;
    use crate::cli::Cli;

    #[test]
    fn every_file_read_is_named_by_its_flag_and_outputs_are_not() {
        let a = Cli::parse_from([
            "kvbench",
            "--config",
            "c.toml",
            "--auth-file",
            "pw",
            "--cacert",
            "ca.pem",
            "--cert",
            "me.pem",
            "--key",
            "me.key",
            "--json-out-file",
            "r.json",
        ])
        .run;
        let named: Vec<(&str, String)> = input_files(&a)
            .into_iter()
            .map(|f| (f.flag, f.path.display().to_string()))
            .collect();
        assert_eq!(
            named,
            [
                ("--config", "c.toml".to_string()),
                ("--auth-file", "pw".to_string()),
                ("--cert", "me.pem".to_string()),
                ("--key", "me.key".to_string()),
                ("--cacert", "ca.pem".to_string()),
            ]
        );
        assert!(input_files(&Cli::parse_from(["kvbench"]).run).is_empty());
    }
}
