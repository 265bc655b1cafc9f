//! Parsing commands: placeholders alone and inside arguments, names, errors.

use super::{CommandError, CommandSpec, Part};

fn lit(s: &str) -> Part {
    Part::Literal(s.as_bytes().to_vec())
}

#[test]
fn memtiers_hset_has_a_key_and_a_data_slot() {
    let c = CommandSpec::parse("HSET __key__ field __data__").unwrap();
    assert_eq!(
        c.args,
        vec![
            vec![lit("HSET")],
            vec![Part::Key],
            vec![lit("field")],
            vec![Part::Data]
        ]
    );
    assert_eq!(c.name(), "HSET");
    assert_eq!(c.memtier_row_name(), "Hsets");
    assert_eq!(c.count(&Part::Key), 1);
}

#[test]
fn a_key_inside_an_argument_keeps_its_surroundings() {
    let c = CommandSpec::parse("set user:{__key__} __data__").unwrap();
    assert_eq!(c.args[1], vec![lit("user:{"), Part::Key, lit("}")]);
    assert_eq!(c.name(), "SET");
    assert_eq!(c.memtier_row_name(), "Sets");
}

#[test]
fn redis_benchmarks_rand_int_is_a_placeholder_and_each_occurrence_counts() {
    let c = CommandSpec::parse("MSET key:__rand_int__ __data__ key:__rand_int__ __data__").unwrap();
    assert_eq!(c.args[1], vec![lit("key:"), Part::RandInt]);
    assert_eq!(c.count(&Part::RandInt), 2);
    assert_eq!(c.count(&Part::Data), 2);
}

#[test]
fn an_empty_argument_stays_an_argument() {
    let c = CommandSpec::parse(r#"SET k """#).unwrap();
    assert_eq!(c.args[2], vec![lit("")]);
}

#[test]
fn bad_commands_say_what_is_wrong() {
    assert_eq!(CommandSpec::parse("  "), Err(CommandError::Empty));
    assert_eq!(
        CommandSpec::parse("GET __kye__"),
        Err(CommandError::UnknownPlaceholder("__kye__".into()))
    );
    assert_eq!(
        CommandSpec::parse("__key__ x"),
        Err(CommandError::PlaceholderName)
    );
    assert!(matches!(
        CommandSpec::parse(r#"GET "k"#),
        Err(CommandError::Split(_))
    ));
    let message = CommandSpec::parse("GET __value__").unwrap_err().to_string();
    assert!(
        message.contains("__key__") && message.contains("__data__"),
        "{message}"
    );
}

#[test]
fn double_underscores_that_are_no_word_are_literal() {
    let c = CommandSpec::parse("SET a__ __ ____ __KEY__").unwrap();
    assert_eq!(c.args[1], vec![lit("a__")]);
    assert_eq!(c.args[3], vec![lit("____")]);
    assert_eq!(c.args[4], vec![lit("__KEY__")]);
}

#[test]
fn words_are_arguments_as_given_with_only_rand_int_and_data_replaced() {
    let words: Vec<Vec<u8>> = [
        "script",
        "load",
        "redis.call('set','foo','bar')",
        "k:__rand_int__",
        "__key__",
        "__data__",
    ]
    .iter()
    .map(|w| w.as_bytes().to_vec())
    .collect();
    let c = CommandSpec::from_words(&words).unwrap();
    assert_eq!(
        c.text,
        "script load redis.call('set','foo','bar') k:__rand_int__ __key__ __data__"
    );
    assert_eq!(c.args.len(), 6);
    // No quoting: the quotes are the argument's own bytes.
    assert_eq!(c.args[2], vec![lit("redis.call('set','foo','bar')")]);
    assert_eq!(c.args[3], vec![lit("k:"), Part::RandInt]);
    // memtier's __key__ is no placeholder of redis-benchmark's.
    assert_eq!(c.args[4], vec![lit("__key__")]);
    assert_eq!(c.args[5], vec![Part::Data]);
    assert_eq!(c.name(), "SCRIPT");
    assert!(CommandSpec::from_words(&[]).is_err());
    assert!(CommandSpec::from_words(&[b"__data__".to_vec()]).is_err());
}
