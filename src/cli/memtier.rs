//! memtier_benchmark flags that kvbench does not implement yet.
//!
//! A memtier command line pasted into kvbench should fail with a message that
//! says what is missing, not with clap's nearest-spelling suggestion, which for
//! these flags names something unrelated. The list follows memtier's `--help` and option table;
//! a flag leaves it when kvbench implements it.

/// memtier's long flags that kvbench does not accept, without the leading `--`.
const UNSUPPORTED_LONG: &[&str] = &[
    "retry-backoff-ms",
    "retry-backoff-factor",
    "max-retry-queue",
];

/// memtier's short flags that kvbench does not accept, with their long names.
const UNSUPPORTED_SHORT: &[(&str, &str)] = &[];

/// The memtier flag named by `arg` (as clap reports an unknown argument, with
/// or without `=VALUE`), spelled `--long`, when kvbench does not support it.
pub fn unsupported_memtier_flag(arg: &str) -> Option<String> {
    let name = arg.split('=').next().unwrap_or(arg);
    if let Some((_, long)) = UNSUPPORTED_SHORT.iter().find(|(short, _)| *short == name) {
        return Some(format!("{long} ({name})"));
    }
    let long = name.strip_prefix("--")?;
    UNSUPPORTED_LONG
        .contains(&long)
        .then(|| format!("--{long}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Args, usage_error};
    use clap::{CommandFactory, Parser};

    fn error_of(args: &[&str]) -> String {
        let mut full = vec!["kvbench"];
        full.extend_from_slice(args);
        usage_error(&Args::try_parse_from(full).unwrap_err()).to_string()
    }

    #[test]
    fn memtier_flags_kvbench_lacks_say_so_without_a_did_you_mean() {
        for args in [
            &["--retry-backoff-ms", "5"][..],
            &["--retry-backoff-ms=5"][..],
            &["--retry-backoff-factor", "2"][..],
        ] {
            let e = error_of(args);
            assert!(e.contains("memtier's --"), "{args:?}: {e}");
            assert!(e.contains("is not supported yet"), "{args:?}: {e}");
            assert!(!e.contains("did you mean"), "{args:?}: {e}");
        }
    }

    #[test]
    fn a_real_typo_still_gets_its_suggestion() {
        let e = error_of(&["--thread", "2"]);
        assert!(e.contains("did you mean '--threads'"), "{e}");
        assert!(!e.contains("memtier's"), "{e}");
    }

    #[test]
    fn no_unsupported_flag_is_one_kvbench_accepts() {
        let cmd = Args::command();
        for arg in cmd.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(!UNSUPPORTED_LONG.contains(&long), "--{long} is implemented");
            }
        }
    }

    #[test]
    fn a_repeated_flag_takes_its_last_value() {
        let a =
            Args::try_parse_from(["kvbench", "-t", "2", "--test-time", "5", "-t", "3"]).unwrap();
        assert_eq!(a.threads, Some(crate::cli::NumList::One(3)));
        let a = Args::try_parse_from(["kvbench", "--ratio", "1:1", "--ratio", "0:1"]).unwrap();
        assert_eq!(a.ratio.as_deref(), Some("0:1"));
        let a = Args::try_parse_from(["kvbench", "--hide-histogram", "--hide-histogram"]).unwrap();
        assert!(a.hide_histogram);
    }
}
