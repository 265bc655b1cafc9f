//! Property tests of [`super::wire::decode`] for memcached's two protocols:
//! random bytes never panic it or make it claim more than it was given, and
//! any stream of valid replies, delivered in arbitrary chunks, decodes to
//! exactly the outcomes and lengths that were sent.

use proptest::collection::vec;
use proptest::prelude::{ProptestConfig, Strategy, any};
use proptest::sample::Index;
use proptest::{prop_assert, prop_assert_eq, prop_oneof, proptest};

use super::error_kind::ServerErrorKind;
use super::memcache::binary::{OP_GET, OP_SET};
use super::wire::{Outcome, Protocol, decode};

/// One memcached reply: its wire bytes (text and binary) and its outcome.
#[derive(Debug, Clone)]
enum McCase {
    Stored,
    Hit(Vec<u8>),
    Miss,
    ServerError,
}

impl McCase {
    fn outcome(&self) -> Outcome {
        match self {
            McCase::Stored => Outcome::Other,
            McCase::Hit(_) => Outcome::Value,
            McCase::Miss => Outcome::Nil,
            McCase::ServerError => Outcome::Error(ServerErrorKind::Oom),
        }
    }

    fn text(&self, out: &mut Vec<u8>) {
        match self {
            McCase::Stored => out.extend_from_slice(b"STORED\r\n"),
            McCase::Hit(value) => {
                out.extend_from_slice(format!("VALUE memtier-1 0 {}\r\n", value.len()).as_bytes());
                out.extend_from_slice(value);
                out.extend_from_slice(b"\r\nEND\r\n");
            }
            McCase::Miss => out.extend_from_slice(b"END\r\n"),
            McCase::ServerError => {
                out.extend_from_slice(b"SERVER_ERROR out of memory storing object\r\n");
            }
        }
    }

    fn binary(&self, out: &mut Vec<u8>, opaque: u32) {
        let (opcode, status, extras, value): (u8, u16, &[u8], &[u8]) = match self {
            McCase::Stored => (OP_SET, 0, b"", b""),
            McCase::Hit(value) => (OP_GET, 0, &[0, 0, 0, 0], value),
            McCase::Miss => (OP_GET, 1, b"", b"Not found"),
            McCase::ServerError => (OP_SET, 0x82, b"", b"Out of memory"),
        };
        out.extend_from_slice(&[0x81, opcode, 0, 0, extras.len() as u8, 0]);
        out.extend_from_slice(&status.to_be_bytes());
        out.extend_from_slice(&((extras.len() + value.len()) as u32).to_be_bytes());
        out.extend_from_slice(&opaque.to_be_bytes());
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(extras);
        out.extend_from_slice(value);
    }
}

fn case() -> impl Strategy<Value = McCase> {
    prop_oneof![
        proptest::strategy::Just(McCase::Stored),
        vec(any::<u8>(), 0..64).prop_map(McCase::Hit),
        proptest::strategy::Just(McCase::Miss),
        proptest::strategy::Just(McCase::ServerError),
    ]
}

/// Feeds `wire` in the chunks `cuts` gives, decoding and draining every
/// complete reply after each, as the connection does; opaques count from 0.
fn decode_in_chunks(protocol: Protocol, wire: &[u8], cuts: &[Index]) -> Vec<(Outcome, usize)> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(wire.len() + 1)).collect();
    cuts.push(wire.len());
    cuts.sort_unstable();
    let (mut buffer, mut decoded, mut delivered) = (Vec::new(), Vec::new(), 0);
    for cut in cuts {
        buffer.extend_from_slice(&wire[delivered..cut]);
        delivered = cut;
        while let Some((outcome, used)) = decode(protocol, &buffer, decoded.len() as u32).unwrap() {
            decoded.push((outcome, used));
            buffer.drain(..used);
        }
    }
    assert!(buffer.is_empty(), "{} bytes left over", buffer.len());
    decoded
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_panics_or_overclaims_on_random_bytes(bytes in vec(any::<u8>(), 0..256)) {
        for protocol in Protocol::ALL {
            if let Ok(Some((_, used))) = decode(protocol, &bytes, 0) {
                prop_assert!(used > 0 && used <= bytes.len());
            }
        }
    }

    #[test]
    fn memcached_replies_decode_in_any_chunks(
        cases in vec(case(), 1..8),
        cuts in vec(any::<Index>(), 0..24),
    ) {
        let expected_outcomes: Vec<Outcome> = cases.iter().map(McCase::outcome).collect();
        let mut text = Vec::new();
        let mut binary = Vec::new();
        let (mut text_lens, mut binary_lens) = (Vec::new(), Vec::new());
        for (opaque, c) in cases.iter().enumerate() {
            let before = (text.len(), binary.len());
            c.text(&mut text);
            c.binary(&mut binary, opaque as u32);
            text_lens.push(text.len() - before.0);
            binary_lens.push(binary.len() - before.1);
        }
        let expected = |lens: Vec<usize>| -> Vec<(Outcome, usize)> {
            expected_outcomes.iter().copied().zip(lens).collect()
        };
        prop_assert_eq!(decode_in_chunks(Protocol::MemcacheText, &text, &cuts), expected(text_lens));
        prop_assert_eq!(
            decode_in_chunks(Protocol::MemcacheBinary, &binary, &cuts),
            expected(binary_lens)
        );
    }
}
