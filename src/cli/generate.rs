//! `kvbench completions` and `kvbench man`: shell completions and the man
//! page, generated from the same command definition as `--help`, so that they
//! name every flag and subcommand the binary takes. `make install` writes them
//! beside the binary.

use clap::{ArgAction, CommandFactory, Parser, ValueEnum};

use super::Cli;

/// The shells `kvbench completions` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    /// bash (bash-completion).
    Bash,
    /// zsh (a `_kvbench` function for `fpath`).
    Zsh,
    /// fish.
    Fish,
}

impl CompletionShell {
    fn generator(self) -> clap_complete::Shell {
        match self {
            CompletionShell::Bash => clap_complete::Shell::Bash,
            CompletionShell::Zsh => clap_complete::Shell::Zsh,
            CompletionShell::Fish => clap_complete::Shell::Fish,
        }
    }
}

/// `kvbench completions`: what the user typed.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench completions",
    about = "Print shell completions for kvbench on stdout, e.g. kvbench completions bash > /etc/bash_completion.d/kvbench",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh or fish
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: CompletionShell,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}

/// `kvbench man`: what the user typed.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "kvbench man",
    about = "Print kvbench's man page (roff) on stdout, e.g. kvbench man > kvbench.1; man ./kvbench.1; or write every page (kvbench.1, kvbench-compare.1, ...) into a directory with --dir",
    max_term_width = 100,
    // The benchmark's flags disable clap's help; this one is declared below.
    disable_help_flag = true
)]
pub struct ManArgs {
    /// Write kvbench.1 and a page per subcommand (kvbench-compare.1, ...) into this
    /// existing directory instead of printing kvbench.1
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
    /// Print help
    #[arg(long, action = ArgAction::Help)]
    pub help: Option<bool>,
}

/// The completion script for `shell`.
pub fn completions(shell: CompletionShell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell.generator(), &mut Cli::command(), "kvbench", &mut out);
    out
}

/// The man page kvbench.1, in roff: the benchmark's flags, then the
/// subcommands, each with its one-line description and its own page.
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    Ok(out)
}

/// Writes kvbench.1 and kvbench-SUBCOMMAND.1 for every subcommand into `dir`.
pub fn man_pages_to(dir: &std::path::Path) -> std::io::Result<()> {
    clap_mangen::generate_to(Cli::command(), dir)
}
