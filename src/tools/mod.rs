//! The subcommands built on the layers below: `kvbench suite` (plan running),
//! `kvbench compare` and `kvbench merge`.

pub mod capacity;
pub mod compare;
pub mod merge;
pub mod suite;
