//! Wire transcripts of filled templates: the bytes are exactly what
//! redis-cli would send for the same arguments, and every request decodes
//! back (as a server would read it) to the drawn keys and values.

use super::{Fill, RespTemplate};
use crate::protocol::command::{CommandSpec, Part};
use crate::protocol::resp::encode_command;

/// Keys 7, 8, 9 …; values "v0", "v11", "v222" …; random numbers 42, 43 …;
/// the SCAN cursor `cursor`.
struct Counting {
    next_key: u64,
    next_rand: Option<u64>,
    values: &'static [&'static [u8]],
    next_value: usize,
    cursor: u64,
}

impl Counting {
    fn new() -> Self {
        Counting {
            next_key: 7,
            next_rand: Some(42),
            values: &[b"v0", b"v11", b"v222"],
            next_value: 0,
            cursor: 0,
        }
    }
}

impl Fill<'static> for Counting {
    fn key(&mut self) -> u64 {
        self.next_key += 1;
        self.next_key - 1
    }
    fn data(&mut self) -> &'static [u8] {
        self.next_value += 1;
        self.values[(self.next_value - 1) % self.values.len()]
    }
    fn rand_int(&mut self) -> Option<u64> {
        let n = self.next_rand;
        self.next_rand = n.map(|n| n + 1);
        n
    }
    fn cursor(&mut self) -> u64 {
        self.cursor
    }
}

fn encode(command: &str, inline: bool, fill: &mut Counting) -> Vec<u8> {
    let t = RespTemplate::new(&CommandSpec::parse(command).unwrap(), inline);
    let mut out = b"junk".to_vec();
    let n = t.encode(&mut out, b"memtier-", fill);
    assert_eq!(
        n,
        out.len() - 4,
        "the returned length is the bytes appended"
    );
    out.split_off(4)
}

fn resp(args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_command(&mut out, args);
    out
}

#[test]
fn hset_is_the_same_bytes_as_encoding_its_arguments() {
    let mut fill = Counting::new();
    let bytes = encode("HSET __key__ field __data__", false, &mut fill);
    assert_eq!(bytes, resp(&[b"HSET", b"memtier-7", b"field", b"v0"]));
    // The next request draws the next key and value into the same template.
    let bytes = encode("HSET __key__ field __data__", false, &mut fill);
    assert_eq!(bytes, resp(&[b"HSET", b"memtier-8", b"field", b"v11"]));
}

#[test]
fn a_cursor_part_sends_the_cursor_it_is_given() {
    // `--scan-incremental-iteration` builds the SCAN that follows a cursor
    // from the one typed, its cursor argument replaced.
    let mut spec = CommandSpec::parse("SCAN 0 MATCH __key__* COUNT 10").unwrap();
    spec.args[1] = vec![Part::Cursor];
    let t = RespTemplate::new(&spec, false);
    let mut fill = Counting::new();
    for cursor in [17, 0, u64::MAX] {
        fill.cursor = cursor;
        let mut out = Vec::new();
        let n = t.encode(&mut out, b"memtier-", &mut fill);
        assert_eq!(n, out.len());
        let digits = cursor.to_string();
        let key = format!("memtier-{}*", fill.next_key - 1);
        let args: [&[u8]; 6] = [
            b"SCAN",
            digits.as_bytes(),
            b"MATCH",
            key.as_bytes(),
            b"COUNT",
            b"10",
        ];
        assert_eq!(out, resp(&args));
    }
    // Inside an argument, it is measured with the other parts.
    spec.args[1] = vec![Part::Literal(b"c".to_vec()), Part::Cursor];
    let t = RespTemplate::new(&spec, false);
    fill.cursor = 123;
    let mut out = Vec::new();
    t.encode(&mut out, b"", &mut fill);
    assert!(
        out.starts_with(b"*6\r\n$4\r\nSCAN\r\n$4\r\nc123\r\n"),
        "{out:?}"
    );
}

#[test]
fn a_key_inside_an_argument_gets_the_right_length() {
    let mut fill = Counting::new();
    let bytes = encode("SET user:{__key__} pre__data__post", false, &mut fill);
    assert_eq!(bytes, resp(&[b"SET", b"user:{memtier-7}", b"prev0post"]));
}

#[test]
fn literal_only_commands_are_one_ready_chunk() {
    let t = RespTemplate::new(&CommandSpec::parse("LRANGE mylist 0 99").unwrap(), false);
    assert_eq!(t.chunks.len(), 1);
    let mut out = Vec::new();
    t.encode(&mut out, b"", &mut Counting::new());
    assert_eq!(out, resp(&[b"LRANGE", b"mylist", b"0", b"99"]));
}

#[test]
fn rand_int_is_twelve_zero_padded_digits_and_each_occurrence_draws() {
    let mut fill = Counting::new();
    let bytes = encode(
        "MSET key:__rand_int__ __data__ key:__rand_int__ __data__",
        false,
        &mut fill,
    );
    assert_eq!(
        bytes,
        resp(&[
            b"MSET",
            b"key:000000000042",
            b"v0",
            b"key:000000000043",
            b"v11"
        ])
    );
}

#[test]
fn without_r_rand_int_is_sent_as_its_own_text() {
    let mut fill = Counting::new();
    fill.next_rand = None;
    let bytes = encode("GET key:__rand_int__", false, &mut fill);
    assert_eq!(bytes, resp(&[b"GET", b"key:__rand_int__"]));
}

#[test]
fn inline_commands_are_words_and_a_newline() {
    let mut fill = Counting::new();
    assert_eq!(encode("PING", true, &mut fill), b"PING\r\n");
    assert_eq!(encode("GET __key__", true, &mut fill), b"GET memtier-7\r\n");
}

#[test]
fn every_encoding_decodes_to_one_complete_array() {
    use crate::protocol::resp::{Reply, decode};
    let mut fill = Counting::new();
    for command in [
        "HSET __key__ field __data__",
        "SET user:{__key__} __data__",
        "XADD mystream * myfield __data__",
        "ZADD myzset __rand_int__ element:__rand_int__",
    ] {
        let mut bytes = encode(command, false, &mut fill);
        let whole = bytes.len();
        bytes.extend_from_slice(b"*1\r\n");
        let (reply, used) = decode(&bytes).unwrap().unwrap();
        assert_eq!(used, whole, "{command}");
        let words = CommandSpec::parse(command).unwrap().args.len();
        assert_eq!(reply, Reply::Array(words), "{command}");
    }
}
