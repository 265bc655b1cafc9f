//! The wire protocol spoken to the server under test.
//!
//! This module owns everything that turns commands into bytes and bytes into
//! replies. It is deliberately pure: nothing here touches a socket or a clock,
//! so the connection code can feed it whatever the kernel delivered and the
//! tests can feed it whatever a hostile server might send.

pub mod resp;
pub mod resp3;
pub mod template;
pub mod value;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
