//! One argument of a command written out as it was sent, from its parts
//! and the request's first key: how the failed-keys file names a key, and
//! how `--transaction` finds the slot of a rotation before sending it.

use crate::protocol::command::{CURSOR_TEXT, CommandSpec, Part};

impl CommandSpec {
    /// Appends argument `arg` (the command name is 0) as a request with first
    /// key `key` sends it: literal bytes as they are, each `__key__` as
    /// `prefix` and `key`; the other placeholders keep their names, since
    /// they are drawn afresh per request. Nothing for `None`.
    pub fn write_arg(&self, arg: Option<usize>, prefix: &[u8], key: u64, out: &mut Vec<u8>) {
        let Some(parts) = arg.and_then(|i| self.args.get(i)) else {
            return;
        };
        for part in parts {
            match part {
                Part::Literal(bytes) => out.extend_from_slice(bytes),
                Part::Key => {
                    out.extend_from_slice(prefix);
                    out.extend_from_slice(itoa::Buffer::new().format(key).as_bytes());
                }
                Part::Data => out.extend_from_slice(b"__data__"),
                Part::RandInt => out.extend_from_slice(b"__rand_int__"),
                Part::Cursor => out.extend_from_slice(CURSOR_TEXT.as_bytes()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::command::CommandSpec;

    fn arg(text: &str, i: usize) -> String {
        let spec = CommandSpec::parse(text).unwrap();
        let mut out = Vec::new();
        spec.write_arg(Some(i), b"memtier-", 42, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_key_argument_is_written_as_sent() {
        assert_eq!(arg("SET __key__ __data__", 1), "memtier-42");
        assert_eq!(arg("WATCH {tx}-__key__", 1), "{tx}-memtier-42");
        assert_eq!(
            arg("HSET h __key__:__rand_int__ v", 2),
            "memtier-42:__rand_int__"
        );
        assert_eq!(arg("MULTI", 1), "");
    }
}
