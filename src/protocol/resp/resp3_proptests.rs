//! Property tests of the RESP3 decoder ([`decode_as`] with
//! [`Dialect::Resp3`]): every RESP3 type, nested and annotated with
//! attributes, decodes at its exact length from a stream delivered in any
//! chunks, with every attribute frame counted; every prefix of a reply is
//! incomplete; random bytes never panic it or make it claim more than it
//! was given.

use proptest::collection::vec;
use proptest::prelude::{Just, ProptestConfig, Strategy, any};
use proptest::sample::{Index, select};
use proptest::test_runner::TestCaseError;
use proptest::{prop_assert, prop_assert_eq, prop_oneof, proptest};

use super::{Dialect, Reply, decode_as, decode_counting_attributes};

/// A valid RESP3 value, encoded by a test-only encoder that is deliberately
/// independent of the decoder.
#[derive(Debug, Clone)]
enum Tree {
    Simple(Vec<u8>),
    Error(Vec<u8>),
    Integer(i64),
    Bulk(Vec<u8>),
    NilBulk,
    Null,
    Boolean(bool),
    Double(String),
    BigNumber(String),
    BlobError(Vec<u8>),
    Verbatim(Vec<u8>),
    Array(Vec<Tree>),
    Map(Vec<(Tree, Tree)>),
    Set(Vec<Tree>),
    Push(Vec<Tree>),
    /// Attributes (as pairs) annotating the value after them.
    Annotated(Vec<(Tree, Tree)>, Box<Tree>),
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
    Boolean(bool),
    Double(Vec<u8>),
    BigNumber(Vec<u8>),
    Verbatim(Vec<u8>),
    Array(usize),
    Map(usize),
    Set(usize),
    Push(usize),
}

impl From<Reply<'_>> for Owned {
    fn from(reply: Reply<'_>) -> Self {
        match reply {
            Reply::Simple(text) => Self::Simple(text.to_vec()),
            Reply::Error(text) => Self::Error(text.to_vec()),
            Reply::Integer(value) => Self::Integer(value),
            Reply::Bulk(payload) => Self::Bulk(payload.to_vec()),
            Reply::Nil => Self::Nil,
            Reply::Boolean(value) => Self::Boolean(value),
            Reply::Double(text) => Self::Double(text.to_vec()),
            Reply::BigNumber(text) => Self::BigNumber(text.to_vec()),
            Reply::Verbatim(payload) => Self::Verbatim(payload.to_vec()),
            Reply::Array(n) => Self::Array(n),
            Reply::Map(n) => Self::Map(n),
            Reply::Set(n) => Self::Set(n),
            Reply::Push(n) => Self::Push(n),
            Reply::Attribute(n) => panic!("an attribute of {n} pairs was returned, not skipped"),
        }
    }
}

/// Appends `text` between a type byte and CRLF.
fn line(out: &mut Vec<u8>, kind: u8, text: &[u8]) {
    out.push(kind);
    out.extend_from_slice(text);
    out.extend_from_slice(b"\r\n");
}

/// Appends a length-prefixed payload.
fn blob(out: &mut Vec<u8>, kind: u8, payload: &[u8]) {
    line(out, kind, payload.len().to_string().as_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n");
}

impl Tree {
    /// Appends the wire form of this value.
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Self::Simple(text) => line(out, b'+', text),
            Self::Error(text) => line(out, b'-', text),
            Self::Integer(value) => line(out, b':', value.to_string().as_bytes()),
            Self::Bulk(payload) => blob(out, b'$', payload),
            Self::NilBulk => out.extend_from_slice(b"$-1\r\n"),
            Self::Null => out.extend_from_slice(b"_\r\n"),
            Self::Boolean(value) => line(out, b'#', if *value { b"t" } else { b"f" }),
            Self::Double(text) => line(out, b',', text.as_bytes()),
            Self::BigNumber(text) => line(out, b'(', text.as_bytes()),
            Self::BlobError(payload) => blob(out, b'!', payload),
            Self::Verbatim(payload) => blob(out, b'=', payload),
            Self::Array(elements) => aggregate(out, b'*', elements),
            Self::Set(elements) => aggregate(out, b'~', elements),
            Self::Push(elements) => aggregate(out, b'>', elements),
            Self::Map(pairs) => pairs_of(out, b'%', pairs),
            Self::Annotated(attributes, value) => {
                pairs_of(out, b'|', attributes);
                value.encode(out);
            }
        }
    }

    /// How many attribute frames this value carries, nested ones included.
    fn attributes(&self) -> u64 {
        let all = |trees: &[Tree]| trees.iter().map(Tree::attributes).sum::<u64>();
        let pairs = |pairs: &[(Tree, Tree)]| {
            pairs
                .iter()
                .map(|(k, v)| k.attributes() + v.attributes())
                .sum::<u64>()
        };
        match self {
            Self::Array(elements) | Self::Set(elements) | Self::Push(elements) => all(elements),
            Self::Map(entries) => pairs(entries),
            Self::Annotated(entries, value) => 1 + pairs(entries) + value.attributes(),
            _ => 0,
        }
    }

    /// What the decoder should report for this value at the top level.
    fn expected(&self) -> Owned {
        match self {
            Self::Simple(text) => Owned::Simple(text.clone()),
            Self::Error(text) | Self::BlobError(text) => Owned::Error(text.clone()),
            Self::Integer(value) => Owned::Integer(*value),
            Self::Bulk(payload) => Owned::Bulk(payload.clone()),
            Self::NilBulk | Self::Null => Owned::Nil,
            Self::Boolean(value) => Owned::Boolean(*value),
            Self::Double(text) => Owned::Double(text.as_bytes().to_vec()),
            Self::BigNumber(text) => Owned::BigNumber(text.as_bytes().to_vec()),
            Self::Verbatim(payload) => Owned::Verbatim(payload.clone()),
            Self::Array(elements) => Owned::Array(elements.len()),
            Self::Set(elements) => Owned::Set(elements.len()),
            Self::Push(elements) => Owned::Push(elements.len()),
            Self::Map(pairs) => Owned::Map(pairs.len()),
            Self::Annotated(_, value) => value.expected(),
        }
    }
}

/// Appends an aggregate header and its elements.
fn aggregate(out: &mut Vec<u8>, kind: u8, elements: &[Tree]) {
    line(out, kind, elements.len().to_string().as_bytes());
    elements.iter().for_each(|element| element.encode(out));
}

/// Appends a map or attribute header and its pairs.
fn pairs_of(out: &mut Vec<u8>, kind: u8, pairs: &[(Tree, Tree)]) {
    line(out, kind, pairs.len().to_string().as_bytes());
    for (key, value) in pairs {
        key.encode(out);
        value.encode(out);
    }
}

/// Text legal in a simple string or error line: anything but CR and LF.
fn line_text() -> impl Strategy<Value = Vec<u8>> {
    let byte = any::<u8>().prop_map(|b| if b == b'\r' || b == b'\n' { b'.' } else { b });
    vec(byte, 0..16)
}

/// Doubles as Redis writes them, and the other spellings RESP3 allows.
fn double() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec!["inf", "-inf", "nan", "0", "-0", "1.5"]).prop_map(str::to_owned),
        (any::<i64>(), any::<u32>()).prop_map(|(whole, fraction)| format!("{whole}.{fraction}")),
        (any::<i32>(), -308_i32..308).prop_map(|(mantissa, exp)| format!("{mantissa}e{exp}")),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| f.to_string()),
    ]
}

/// Big numbers longer than any machine integer.
fn big_number() -> impl Strategy<Value = String> {
    let digits = vec(select(b"0123456789".to_vec()), 1..60);
    (any::<bool>(), digits).prop_map(|(negative, digits)| {
        let sign = if negative { "-" } else { "" };
        format!("{sign}{}", String::from_utf8_lossy(&digits))
    })
}

/// Values a few levels deep, attributes included; the exact depth limit has
/// its own example-based tests.
fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        line_text().prop_map(Tree::Simple),
        line_text().prop_map(Tree::Error),
        any::<i64>().prop_map(Tree::Integer),
        vec(any::<u8>(), 0..32).prop_map(Tree::Bulk),
        Just(Tree::NilBulk),
        Just(Tree::Null),
        any::<bool>().prop_map(Tree::Boolean),
        double().prop_map(Tree::Double),
        big_number().prop_map(Tree::BigNumber),
        vec(any::<u8>(), 0..32).prop_map(Tree::BlobError),
        vec(any::<u8>(), 0..28).prop_map(|text| Tree::Verbatim([b"txt:", &text[..]].concat())),
    ];
    leaf.prop_recursive(5, 48, 5, |inner| {
        let pairs = vec((inner.clone(), inner.clone()), 0..4);
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Tree::Array),
            vec(inner.clone(), 0..5).prop_map(Tree::Set),
            pairs.clone().prop_map(Tree::Map),
            (pairs, inner)
                .prop_map(|(attributes, value)| { Tree::Annotated(attributes, Box::new(value)) }),
        ]
    })
}

/// A top-level frame: a reply, or a push that answers no request.
fn frame() -> impl Strategy<Value = Tree> {
    prop_oneof![
        4 => tree(),
        1 => vec(tree(), 0..4).prop_map(Tree::Push),
    ]
}

/// Pieces of RESP3 syntax, so that random input reaches deep into the
/// decoder instead of failing on its first byte.
fn fragment() -> impl Strategy<Value = &'static [u8]> {
    select(vec![
        &b"*"[..],
        b"$",
        b"+",
        b"-",
        b":",
        b"_",
        b"#",
        b",",
        b"(",
        b"!",
        b"=",
        b"%",
        b"~",
        b">",
        b"|",
        b"\r\n",
        b"\r",
        b"0",
        b"1",
        b"2",
        b"-1",
        b"t",
        b"f",
        b"inf",
        b"1.5e3",
        b"txt:",
        b"99999999999999999999",
        b"%1\r\n",
        b"|1\r\n",
        b"~2\r\n",
        b">2\r\n",
        b"$3\r\n",
        b"=5\r\n",
    ])
}

/// The consistency check shared with the RESP2 property tests, in RESP3.
fn check_decode_is_consistent(bytes: &[u8]) -> Result<(), TestCaseError> {
    super::proptests::check_decode_is_consistent(bytes, Dialect::Resp3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_random_bytes(bytes in vec(any::<u8>(), 0..256)) {
        check_decode_is_consistent(&bytes)?;
    }

    #[test]
    fn never_panics_on_random_resp3_fragments(fragments in vec(fragment(), 0..48)) {
        check_decode_is_consistent(&fragments.concat())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_resp3_value_decodes_at_its_exact_length_and_not_before(
        tree in frame(),
        junk in vec(fragment(), 0..4),
    ) {
        let mut wire = Vec::new();
        tree.encode(&mut wire);
        let length = wire.len();
        check_decode_is_consistent(&wire)?;
        // Junk after the value must not change where it ends.
        wire.extend(junk.concat());
        let (reply, consumed) = decode_as(&wire, Dialect::Resp3).unwrap().unwrap();
        prop_assert_eq!(Owned::from(reply), tree.expected());
        prop_assert_eq!(consumed, length);
        let counted = decode_counting_attributes(&wire, Dialect::Resp3).unwrap().unwrap();
        prop_assert_eq!((counted.1, counted.2), (length, tree.attributes()));
    }

    #[test]
    fn decodes_any_resp3_stream_delivered_in_any_chunks(
        trees in vec(frame(), 1..6),
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
            while let Some((reply, consumed)) = decode_as(&buffer, Dialect::Resp3).unwrap() {
                decoded.push((Owned::from(reply), consumed));
                buffer.drain(..consumed);
            }
        }
        prop_assert!(buffer.is_empty());
        prop_assert_eq!(decoded, expected);
    }
}
