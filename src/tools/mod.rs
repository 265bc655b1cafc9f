//! The subcommands built on the layers below: `kvbench suite` (plan running),
//! `kvbench compare`, `kvbench merge` and `kvbench capacity` (a search over
//! `--rate`).

pub mod capacity;
pub mod compare;
pub mod merge;
pub mod suite;
