//! The handshake driven blocking, before the clock starts: the target's
//! plan ([`Handshake`], built per protocol in [`crate::protocol`]) sent in one
//! write, each reply read and checked in order, a refusal turned into the
//! [`ConnectError`] that says what to fix.

use std::io::{self, Read, Write};

use crate::config::target::Target;
use crate::error::ConnectError;
use crate::protocol::handshake::{Handshake, Login, Refusal};
use crate::protocol::sniff::Spoken;

/// The handshake for this target: its protocol, credentials and database.
pub fn handshake_for(target: &Target) -> Handshake {
    let login = target.auth.as_ref().map(|auth| Login {
        user: auth.user.as_deref(),
        password: &auth.password,
    });
    Handshake::new(target.protocol, login, target.db)
}

impl From<Refusal> for ConnectError {
    fn from(refusal: Refusal) -> ConnectError {
        match refusal {
            Refusal::Auth(message) => ConnectError::Auth(message),
            Refusal::AuthRequired(message) => ConnectError::AuthRequired(message),
            Refusal::Select(message) => ConnectError::Select(message),
            Refusal::HelloRefused(message) => ConnectError::HelloRefused(message),
            Refusal::Other(message) => ConnectError::Refused(message),
        }
    }
}

/// Sends the handshake in one write and checks each reply in order (blocking).
/// Returns true when the server sent more than the handshake's replies: bytes
/// nobody asked for, which the connection will count as a protocol error.
pub(super) fn handshake<S: Read + Write>(
    stream: &mut S,
    target: &Target,
) -> Result<bool, ConnectError> {
    let plan = handshake_for(target);
    let io_err = |source| ConnectError::Io {
        endpoint: String::new(),
        source,
    };
    stream.write_all(&plan.request).map_err(io_err)?;
    let mut buf = Vec::with_capacity(512);
    let mut start = 0;
    for index in 0..plan.replies() {
        loop {
            match plan.read_reply(index, &buf[start..]) {
                Ok(Some(answer)) => {
                    answer.verdict?;
                    start += answer.used;
                    break;
                }
                Ok(None) => read_more(stream, &mut buf).map_err(io_err)?,
                Err(e) => {
                    let mut why = e.to_string();
                    if let Some(spoken) = Spoken::of(&buf[start..]) {
                        let (what, flag) = spoken.describe();
                        why.push_str(&format!(" (it answers {what}: use -P {flag})"));
                    }
                    return Err(ConnectError::Protocol(why));
                }
            }
        }
    }
    Ok(start < buf.len())
}

fn read_more<S: Read>(stream: &mut S, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 512];
    let n = stream.read(&mut chunk)?;
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

#[cfg(test)]
mod tests;
