//! `kvbench --help` (and `kvbench help`): one screen, the flags people use,
//! grouped, and where the rest are. The whole reference, every flag with its
//! text, is `kvbench help all` and the man page; `-h` stays `--host`, as in
//! memtier_benchmark.

/// The one-screen help.
pub const SUMMARY: &str = "\
kvbench: a load generator for Redis-protocol and memcached servers, with
memtier_benchmark's flags (paste a memtier line as it is).

Usage: kvbench [OPTIONS]            a benchmark (memtier's flags)
       kvbench <COMMAND> [ARGS]     suite, capacity, compare, merge, report,
                                    completions, man, help

Server:
  -s, --server HOST   -p, --port PORT   -u, --uri redis://[user:pass@]host:port
  -a, --authenticate PASS   -P, --protocol redis|resp3|memcache_text|…
  --tls   --cluster-mode   --select-db N   --connection-timeout SECS
Load:
  -t, --threads N (4)   -c, --clients N per thread (50)   --pipeline N (1)
  --ratio SET:GET (1:10)   --command \"HSET __key__ f __data__\"   --rate OPS
Length:
  --test-time SECS   -n, --requests N|allkeys (10000)   -x, --run-count N (1)
  --warmup-time SECS|auto   --prefill
Keys and values:
  --key-minimum N   --key-maximum N   --key-pattern S:S|R:R|G:G|Z:Z|P:P
  --key-prefix TEXT   -d, --data-size BYTES (32)   -R, --random-data
Output:
  --json-out-file FILE   --html-out-file FILE   -o, --out-file FILE
  --hdr-file-prefix PREFIX   --print-percentiles LIST   --hide-histogram
  --memtier-layout   --show-config   --seed N
Trust:
  --allow-invalid   --max-errors N   --no-warning KIND   --memtier-compat
Several machines:
  --shard-index I   --shard-count N   --start-at TIME|barrier   --run-id ID

Commands:
  suite        redis-benchmark's tests, with its flags (-q, -t, -n)
  capacity     the most throughput under a latency SLO
  compare      result files side by side, with ratios and noise
  merge        the files of a sharded run merged into one, exactly
  report       result files as one HTML page
  completions  shell completions (bash, zsh, fish)
  man          the man page
  help         this; every flag (help all); a command's (help compare)

Every flag, with its meaning: kvbench help all (or man kvbench: kvbench man).
A command's own flags: kvbench help COMMAND (or kvbench COMMAND --help).
Config files: --config FILE (TOML, keys are the long flag names).
Exit codes: 0 valid; 1 a report not written or another failure; 2 bad input,
before any load; 3 not valid (the verdict); 4 a shard late; 130/143 signal.
";

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::SUMMARY;
    use crate::cli::Cli;

    #[test]
    fn the_summary_fits_one_screen_and_names_only_flags_that_exist() {
        assert!(
            SUMMARY.lines().count() <= 60,
            "{} lines",
            SUMMARY.lines().count()
        );
        assert!(SUMMARY.lines().all(|l| l.chars().count() <= 80));
        let command = Cli::command();
        let longs: Vec<&str> = command
            .get_arguments()
            .filter_map(|a| a.get_long())
            .collect();
        for word in SUMMARY.split(|c: char| c.is_whitespace() || c == ',') {
            let Some(flag) = word.strip_prefix("--") else {
                continue;
            };
            let flag = flag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            if flag.is_empty() || flag == "help" {
                continue;
            }
            assert!(
                longs.contains(&flag),
                "--{flag} is in the summary but no flag"
            );
        }
        for name in command.get_subcommands().map(|s| s.get_name()) {
            assert!(SUMMARY.contains(name), "the summary lacks {name}");
        }
    }

    #[test]
    fn help_all_names_every_flag() {
        let all = crate::cli::help_text(Some("all")).unwrap();
        let command = Cli::command();
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                assert!(
                    all.contains(&format!("--{long}")),
                    "help all lacks --{long}"
                );
            }
        }
        assert!(all.lines().count() > 300, "{} lines", all.lines().count());
    }
}
