//! The commands built on the layers below: kvbench's benchmark without a
//! subcommand ([`benchmark`]: a run or a sweep with its outputs), `kvbench
//! suite` (plan running), `kvbench compare`, `kvbench merge` and `kvbench
//! capacity` (a search over `--rate`), each ending in an [`exit::Exit`]: the
//! exit-code policy, in one place ([`exit`]).

pub mod benchmark;
pub mod capacity;
pub mod compare;
pub mod exit;
pub mod merge;
pub mod suite;
