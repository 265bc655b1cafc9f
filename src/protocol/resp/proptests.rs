//! Property tests of the RESP2 decoder and encoders: no input makes the
//! decoder panic or misreport its consumed length, and any stream of valid
//! replies, delivered in arbitrary chunks, decodes back to exactly the
//! replies that were sent.

use proptest::collection::vec;
use proptest::prelude::{Just, ProptestConfig, Strategy, any};
use proptest::sample::{Index, select};
use proptest::test_runner::TestCaseError;
use proptest::{prop_assert, prop_assert_eq, prop_oneof, proptest};

use super::tests::parse_command;
use super::{Dialect, Reply, decode, decode_as, encode_get, encode_set};

/// A valid reply of any shape, built by the strategy and encoded by a
/// test-only encoder that is deliberately independent of the decoder.
#[derive(Debug, Clone)]
enum Tree {
    Simple(Vec<u8>),
    Error(Vec<u8>),
    Integer(i64),
    Bulk(Vec<u8>),
    NilBulk,
    NilArray,
    Array(Vec<Tree>),
}

/// An owned copy of a top-level reply, so decoded replies can be kept after
/// the buffer they borrowed from has been drained.
#[derive(Debug, PartialEq)]
enum Owned {
    Simple(Vec<u8>),
    Error(Vec<u8>),
    Integer(i64),
    Bulk(Vec<u8>),
    Nil,
    Array(usize),
}

impl From<Reply<'_>> for Owned {
    fn from(reply: Reply<'_>) -> Self {
        match reply {
            Reply::Simple(text) => Self::Simple(text.to_vec()),
            Reply::Error(text) => Self::Error(text.to_vec()),
            Reply::Integer(value) => Self::Integer(value),
            Reply::Bulk(payload) => Self::Bulk(payload.to_vec()),
            Reply::Nil => Self::Nil,
            Reply::Array(count) => Self::Array(count),
            other => panic!("RESP2 decoding returned a RESP3 reply: {other:?}"),
        }
    }
}

impl Tree {
    /// Appends the wire form of this reply.
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Self::Simple(text) => out.extend([b"+", &text[..], b"\r\n"].concat()),
            Self::Error(text) => out.extend([b"-", &text[..], b"\r\n"].concat()),
            Self::Integer(value) => out.extend(format!(":{value}\r\n").bytes()),
            Self::Bulk(payload) => {
                out.extend(format!("${}\r\n", payload.len()).bytes());
                out.extend([&payload[..], b"\r\n"].concat());
            }
            Self::NilBulk => out.extend(b"$-1\r\n"),
            Self::NilArray => out.extend(b"*-1\r\n"),
            Self::Array(elements) => {
                out.extend(format!("*{}\r\n", elements.len()).bytes());
                elements.iter().for_each(|element| element.encode(out));
            }
        }
    }

    /// What the decoder should report for this reply at the top level.
    fn expected(&self) -> Owned {
        match self {
            Self::Simple(text) => Owned::Simple(text.clone()),
            Self::Error(text) => Owned::Error(text.clone()),
            Self::Integer(value) => Owned::Integer(*value),
            Self::Bulk(payload) => Owned::Bulk(payload.clone()),
            Self::NilBulk | Self::NilArray => Owned::Nil,
            Self::Array(elements) => Owned::Array(elements.len()),
        }
    }
}

/// Text legal in a simple string or error line: anything but CR and LF.
fn line_text() -> impl Strategy<Value = Vec<u8>> {
    let byte = any::<u8>().prop_map(|b| if b == b'\r' || b == b'\n' { b'.' } else { b });
    vec(byte, 0..16)
}

/// Reply trees a few levels deep; the exact depth limit has its own
/// example-based tests.
fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        line_text().prop_map(Tree::Simple),
        line_text().prop_map(Tree::Error),
        any::<i64>().prop_map(Tree::Integer),
        vec(any::<u8>(), 0..32).prop_map(Tree::Bulk),
        Just(Tree::NilBulk),
        Just(Tree::NilArray),
    ];
    leaf.prop_recursive(6, 48, 6, |inner| vec(inner, 0..6).prop_map(Tree::Array))
}

/// Pieces of RESP syntax, so that random input reaches deep into the
/// decoder instead of failing on its first byte.
fn fragment() -> impl Strategy<Value = &'static [u8]> {
    select(vec![
        &b"*"[..],
        b"$",
        b"+",
        b"-",
        b":",
        b"\r\n",
        b"\r",
        b"\n",
        b"0",
        b"1",
        b"3",
        b"-1",
        b"-2",
        b"99999999999999999999",
        b"abc",
        b"*1\r\n",
        b"*2\r\n",
        b"$3\r\n",
    ])
}

/// Checks what must hold for any input, in either dialect: a complete reply
/// is reported with a consumed length inside the buffer, is never a bare
/// attribute (those are skipped), decodes identically from exactly those
/// bytes, and is reported incomplete from any shorter prefix.
pub(super) fn check_decode_is_consistent(
    bytes: &[u8],
    dialect: Dialect,
) -> Result<(), TestCaseError> {
    let decode = |bytes| decode_as(bytes, dialect);
    let Ok(Some((reply, consumed))) = decode(bytes) else {
        return Ok(());
    };
    prop_assert!(consumed > 0 && consumed <= bytes.len());
    prop_assert!(!matches!(reply, Reply::Attribute(_)));
    prop_assert_eq!(decode(&bytes[..consumed]), Ok(Some((reply, consumed))));
    for cut in 0..consumed {
        prop_assert_eq!(decode(&bytes[..cut]), Ok(None));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_random_bytes(bytes in vec(any::<u8>(), 0..256)) {
        check_decode_is_consistent(&bytes, Dialect::Resp2)?;
    }

    #[test]
    fn never_panics_on_random_resp_fragments(fragments in vec(fragment(), 0..48)) {
        check_decode_is_consistent(&fragments.concat(), Dialect::Resp2)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decodes_any_reply_stream_delivered_in_any_chunks(
        trees in vec(tree(), 1..6),
        cuts in vec(any::<Index>(), 0..32),
    ) {
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        for tree in &trees {
            let before = wire.len();
            tree.encode(&mut wire);
            expected.push((tree.expected(), wire.len() - before));
        }
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(wire.len() + 1)).collect();
        cuts.push(wire.len());
        cuts.sort_unstable();

        // Simulates a socket: each chunk is appended to a growing buffer and
        // every complete reply is decoded and drained before the next read.
        let mut buffer = Vec::new();
        let mut decoded = Vec::new();
        let mut delivered = 0;
        for cut in cuts {
            buffer.extend_from_slice(&wire[delivered..cut]);
            delivered = cut;
            while let Some((reply, consumed)) = decode(&buffer).unwrap() {
                decoded.push((Owned::from(reply), consumed));
                buffer.drain(..consumed);
            }
        }
        prop_assert!(buffer.is_empty());
        prop_assert_eq!(decoded, expected);
    }

    #[test]
    fn encoded_get_and_set_parse_back_to_their_arguments(
        prefix in vec(any::<u8>(), 0..12),
        key in any::<u64>(),
        value in vec(any::<u8>(), 0..64),
        queued in vec(any::<u8>(), 0..8),
    ) {
        let expected_key = [&prefix[..], key.to_string().as_bytes()].concat();
        let mut out = queued.clone();
        let written = encode_get(&mut out, &prefix, key);
        prop_assert_eq!(written, out.len() - queued.len());
        let get = parse_command(&out[queued.len()..]);
        prop_assert_eq!(get, vec![b"GET".to_vec(), expected_key.clone()]);

        let mut out = queued.clone();
        let written = encode_set(&mut out, &prefix, key, &value);
        prop_assert_eq!(written, out.len() - queued.len());
        let set = parse_command(&out[queued.len()..]);
        prop_assert_eq!(set, vec![b"SET".to_vec(), expected_key, value]);
    }
}

/// Number lines: digits, a sign, line ends and the odd stray byte, so the
/// one-pass reader meets every edge (overflow, lone `\r`, empty digits).
fn number_line() -> impl Strategy<Value = Vec<u8>> {
    vec(
        prop_oneof![
            8 => b'0'..=b'9',
            1 => Just(b'-'),
            1 => Just(b'\r'),
            1 => Just(b'\n'),
            1 => any::<u8>(),
        ],
        0..28,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn the_one_pass_number_reader_agrees_with_the_line_reader(line in number_line()) {
        if let Some(found) = super::whole_number(&line, 0) {
            prop_assert_eq!(super::read_number_line(&line, 0), Ok(Some(found)));
        }
        let expected = super::read_number_line(&line, 0);
        prop_assert_eq!(super::read_number(&line, 0), expected);
    }
}
