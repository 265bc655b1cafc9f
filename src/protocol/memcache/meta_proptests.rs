//! Property tests of [`super::meta`]: random bytes never panic the decoder
//! or make it claim more than it was given, and any stream of valid meta
//! replies, delivered in arbitrary chunks, decodes to exactly the outcomes
//! and lengths that were sent, each checked against its request's opaque.

use proptest::collection::vec;
use proptest::prelude::{ProptestConfig, Strategy, any};
use proptest::sample::Index;
use proptest::strategy::Just;
use proptest::{prop_assert, prop_assert_eq, prop_oneof, proptest};

use super::meta::{decode, decode_outcome};
use super::text::Asked;
use crate::protocol::error_kind::ServerErrorKind;
use crate::protocol::wire::Outcome;

/// One request's reply: what it answers, and its outcome.
#[derive(Debug, Clone)]
enum MetaCase {
    Stored,
    NotStored,
    /// A hit, with the value and whether memcached adds other flags (`t`, `k`).
    Hit(Vec<u8>, bool),
    Miss,
    ServerError,
}

impl MetaCase {
    fn asked(&self) -> Asked<'static> {
        match self {
            MetaCase::Hit(..) | MetaCase::Miss => Asked::Get {
                prefix: b"memtier-",
                key: 1,
            },
            MetaCase::Stored | MetaCase::NotStored | MetaCase::ServerError => Asked::NoValue,
        }
    }

    fn outcome(&self) -> Outcome {
        match self {
            MetaCase::Stored | MetaCase::NotStored => Outcome::Other,
            MetaCase::Hit(..) => Outcome::Value,
            MetaCase::Miss => Outcome::Nil,
            MetaCase::ServerError => Outcome::Error(ServerErrorKind::Oom),
        }
    }

    fn wire(&self, out: &mut Vec<u8>, opaque: u32) {
        match self {
            MetaCase::Stored => out.extend_from_slice(format!("HD O{opaque}\r\n").as_bytes()),
            MetaCase::NotStored => out.extend_from_slice(format!("NS O{opaque}\r\n").as_bytes()),
            MetaCase::Hit(value, flags) => {
                let more = if *flags { " t-1 kmemtier-1" } else { "" };
                let header = format!("VA {} O{opaque}{more}\r\n", value.len());
                out.extend_from_slice(header.as_bytes());
                out.extend_from_slice(value);
                out.extend_from_slice(b"\r\n");
            }
            MetaCase::Miss => out.extend_from_slice(format!("EN O{opaque}\r\n").as_bytes()),
            MetaCase::ServerError => {
                out.extend_from_slice(b"SERVER_ERROR out of memory storing object\r\n");
            }
        }
    }
}

fn case() -> impl Strategy<Value = MetaCase> {
    prop_oneof![
        Just(MetaCase::Stored),
        Just(MetaCase::NotStored),
        (vec(any::<u8>(), 0..64), any::<bool>()).prop_map(|(v, f)| MetaCase::Hit(v, f)),
        Just(MetaCase::Miss),
        Just(MetaCase::ServerError),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_panics_or_overclaims_on_random_bytes(bytes in vec(any::<u8>(), 0..256)) {
        if let Ok(Some((_, used))) = decode(&bytes) {
            prop_assert!(used > 0 && used <= bytes.len());
        }
        for asked in [Asked::Anything, Asked::NoValue] {
            if let Ok(Some((_, used, _))) = decode_outcome(&bytes, asked, 0) {
                prop_assert!(used > 0 && used <= bytes.len());
            }
        }
    }

    #[test]
    fn meta_replies_decode_in_any_chunks(
        cases in vec(case(), 1..8),
        cuts in vec(any::<Index>(), 0..24),
        first_opaque in any::<u32>(),
    ) {
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        for (i, c) in cases.iter().enumerate() {
            let before = wire.len();
            c.wire(&mut wire, first_opaque.wrapping_add(i as u32));
            expected.push((c.outcome(), wire.len() - before));
        }
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(wire.len() + 1)).collect();
        cuts.push(wire.len());
        cuts.sort_unstable();
        // Delivered chunk by chunk, every complete reply decoded and drained
        // after each, as the connection does.
        let (mut buffer, mut decoded, mut delivered) = (Vec::new(), Vec::new(), 0);
        for cut in cuts {
            buffer.extend_from_slice(&wire[delivered..cut]);
            delivered = cut;
            while let Some(c) = cases.get(decoded.len()) {
                let opaque = first_opaque.wrapping_add(decoded.len() as u32);
                let Some((outcome, used, _)) = decode_outcome(&buffer, c.asked(), opaque).unwrap()
                else {
                    break;
                };
                decoded.push((outcome, used));
                buffer.drain(..used);
            }
        }
        prop_assert!(buffer.is_empty(), "{} bytes left over", buffer.len());
        prop_assert_eq!(decoded, expected);
    }
}
