//! Usage errors: every bad command line, config file or connection setting exits
//! with code 2 and one stderr line `kvbench: error: <flag>: <message>` naming the
//! flag to fix, without a panic and without sending any load.

use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common;
use crate::common::{Redis, TempDir, free_port};

/// One bad invocation and the flag its error must name.
#[derive(Clone)]
struct Case {
    what: &'static str,
    args: Vec<String>,
    env: Vec<(&'static str, &'static str)>,
    flag: &'static str,
    /// Further text the message must contain (case-insensitive).
    mentions: Vec<&'static str>,
    /// Text the message must not contain (a secret, a wrong cause).
    lacks: Vec<&'static str>,
}

/// A case whose command line is `args` split at whitespace.
fn case(what: &'static str, args: &str, flag: &'static str) -> Case {
    Case {
        what,
        args: args.split_whitespace().map(String::from).collect(),
        env: Vec::new(),
        flag,
        mentions: Vec::new(),
        lacks: Vec::new(),
    }
}

/// A loopback port where nothing listens, the same for every case.
fn free() -> &'static str {
    static PORT: OnceLock<String> = OnceLock::new();
    PORT.get_or_init(|| free_port().to_string())
}

/// A case whose command line is `-p <free port>` then `args` split at
/// whitespace: a value wrongly accepted shows up as a connection error naming
/// the wrong flag.
fn at_free_port(what: &'static str, args: &str, flag: &'static str) -> Case {
    case(what, &format!("-p {} {args}", free()), flag)
}

impl Case {
    /// Adds one argument as it is (empty, or a path that may hold spaces).
    fn arg(mut self, arg: &str) -> Case {
        self.args.push(arg.to_string());
        self
    }

    fn env(mut self, name: &'static str, value: &'static str) -> Case {
        self.env.push((name, value));
        self
    }

    fn mentions(mut self, word: &'static str) -> Case {
        self.mentions.push(word);
        self
    }

    fn lacks(mut self, text: &'static str) -> Case {
        self.lacks.push(text);
        self
    }
}

fn run(case: &Case) -> Output {
    // Each run takes a CPU while it starts: a test that measures waits.
    let _share = common::machine::share();
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvbench"));
    command.args(&case.args).env_remove("KVBENCH_AUTH");
    for (name, value) in &case.env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// What is wrong with how kvbench rejected `case`, if anything.
fn check(case: &Case) -> Option<String> {
    let out = run(case);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut problems = Vec::new();
    if out.status.code() != Some(2) {
        problems.push(format!("exit status {:?}, not 2", out.status.code()));
    }
    if stderr.contains("panicked") {
        problems.push("a panic".to_string());
    }
    let line = stderr.strip_suffix('\n').unwrap_or(&stderr);
    if line.contains('\n') || line.is_empty() {
        problems.push("not exactly one line on stderr".to_string());
    }
    let prefix = format!("kvbench: error: {}: ", case.flag);
    if !line.starts_with(&prefix) {
        problems.push(format!("does not start with {prefix:?}"));
    }
    for word in &case.mentions {
        if !line.to_lowercase().contains(&word.to_lowercase()) {
            problems.push(format!("does not mention {word:?}"));
        }
    }
    for text in &case.lacks {
        if stderr.contains(text) {
            problems.push(format!("contains {text:?}"));
        }
    }
    if !stdout.is_empty() {
        problems.push("wrote a report to stdout".to_string());
    }
    (!problems.is_empty()).then(|| {
        format!(
            "{} ({:?}): {}\n    stderr: {stderr:?}",
            case.what,
            case.args,
            problems.join("; ")
        )
    })
}

/// Runs every case and fails once, listing each case that misbehaved.
fn assert_all_rejected(cases: &[Case]) {
    let failures: Vec<String> = cases.iter().filter_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases misbehaved:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn bad_values_on_the_command_line_exit_2_naming_the_flag_on_one_line() {
    // Every case aims at a port where nothing listens.
    let port = free();
    let cases = vec![
        at_free_port("ratio 0:0", "--ratio 0:0", "--ratio"),
        at_free_port("ratio without a colon", "--ratio 10", "--ratio"),
        at_free_port(
            "key-minimum above key-maximum",
            "--key-minimum 10 --key-maximum 5",
            "--key-minimum",
        ),
        at_free_port("pipeline 0", "--pipeline 0", "--pipeline"),
        at_free_port(
            "unknown key pattern letter",
            "--key-pattern X:R",
            "--key-pattern",
        ),
        at_free_port(
            "key pattern without a colon",
            "--key-pattern RR",
            "--key-pattern",
        ),
        at_free_port(
            "P slices for more connections than keys",
            "-t 2 -c 3 --key-pattern P:P --key-minimum 1 --key-maximum 5",
            "--key-pattern",
        ),
        at_free_port(
            "malformed data-size-list",
            "--data-size-list 100",
            "--data-size-list",
        ),
        at_free_port(
            "data-size-list with a bad weight",
            "--data-size-list 100:x",
            "--data-size-list",
        ),
        at_free_port(
            "malformed data-size-range",
            "--data-size-range 10",
            "--data-size-range",
        ),
        at_free_port(
            "inverted data-size-range",
            "--data-size-range 20-10",
            "--data-size-range",
        ),
        at_free_port("data-size 0", "-d 0", "--data-size"),
        at_free_port("requests 0", "-n 0", "--requests"),
        at_free_port("requests foo", "-n foo", "--requests"),
        at_free_port("threads 0", "--threads 0", "--threads"),
        at_free_port("clients 0", "--clients 0", "--clients"),
        at_free_port("run-count 0", "-x 0", "--run-count"),
        at_free_port("test-time 0", "--test-time 0", "--test-time"),
        // A run this short is no rate: the shortest is one whole second.
        at_free_port(
            "test-time of 100 ns",
            "--test-time 0.0000001 -n 1",
            "--test-time",
        )
        .mentions("at least 1 second"),
        at_free_port("test-time under a second", "--test-time 0.5", "--test-time")
            .mentions("e.g. --test-time 1"),
        case(
            "suite test-time under a second",
            &format!("suite -p {} --test-time 0.5", free()),
            "--test-time",
        )
        .mentions("at least 1 second"),
        // A unit after a seconds value: the advice gives the seconds.
        at_free_port("test-time with a unit", "--test-time 10s", "--test-time")
            .mentions("give seconds, e.g. --test-time 10"),
        at_free_port(
            "warmup-time in minutes",
            "--warmup-time 1m",
            "--warmup-time",
        )
        .mentions("give seconds, e.g. --warmup-time 60"),
        at_free_port(
            "request-timeout in ms",
            "--request-timeout=250ms",
            "--request-timeout",
        )
        .mentions("e.g. --request-timeout 0.25"),
        case(
            "suite test-time with a unit",
            &format!("suite -p {} --test-time 5sec", free()),
            "--test-time",
        )
        .mentions("e.g. --test-time 5"),
        at_free_port("a huge test-time", "--test-time 1e300", "--test-time")
            .mentions("(got 1e300)"),
        at_free_port("negative warmup-time", "--warmup-time=-1", "--warmup-time"),
        at_free_port(
            "connection-timeout 0",
            "--connection-timeout 0",
            "--connection-timeout",
        ),
        at_free_port("unknown protocol", "-P http", "--protocol").mentions("memcache_binary"),
        at_free_port("protocol in capitals", "-P RESP3", "--protocol"),
        // redis-benchmark's quiet mode on the benchmark's line: the suite's.
        at_free_port("redis-benchmark's -q", "-q", "-q").mentions("kvbench suite -q"),
        at_free_port(
            "memcached with a password",
            "-P memcache_text -a pw",
            "--authenticate",
        )
        .mentions("memcached has no AUTH"),
        at_free_port(
            "memcached with a password from the environment",
            "-P memcache_binary",
            "--authenticate",
        )
        .env("KVBENCH_AUTH", "pw"),
        at_free_port(
            "memcached with a database",
            "-P memcache_text --select-db 2",
            "--select-db",
        ),
        at_free_port(
            "memcached with the slow log",
            "-P memcache_binary --slowlog",
            "--slowlog",
        ),
        at_free_port(
            "memcached with a command",
            "-P memcache_text --command",
            "--command",
        )
        .arg("INCR __key__")
        .mentions("not supported with -P memcache_text"),
        at_free_port(
            "memcached key longer than 250 bytes",
            &format!("-P memcache_text --key-prefix {}", "k".repeat(245)),
            "--key-prefix",
        )
        .mentions("at most 250"),
        case(
            "TLS option with a plain uri",
            &format!("-u redis://127.0.0.1:{port} --cacert ca.pem"),
            "--cacert",
        ),
        case(
            "uri with a non-numeric db",
            "-u redis://127.0.0.1/x",
            "--uri",
        ),
        at_free_port(
            "memtier 2.5's read endpoint, not HOST:PORT",
            "--read-server 127.0.0.1",
            "--read-server",
        )
        .mentions("is not HOST:PORT"),
        at_free_port(
            "a read fallback kvbench cannot honour",
            "--cluster-mode --read-preference secondary --read-preference-fallback error",
            "--read-preference-fallback",
        )
        .mentions("use primary"),
        at_free_port(
            "a run label named as one of kvbench's own",
            "--prometheus-port 0 --prometheus-run-label run=nightly",
            "--prometheus-run-label",
        )
        .mentions("name=nightly"),
        at_free_port(
            "miss tracking off without --command",
            "--command-miss-tracking off",
            "--command-miss-tracking",
        )
        .mentions("add --command"),
        at_free_port(
            "non-numeric percentile",
            "--print-percentiles 50,abc",
            "--print-percentiles",
        ),
        at_free_port(
            "percentile above 100",
            "--print-percentiles 50,101",
            "--print-percentiles",
        ),
        at_free_port(
            "percentile 0",
            "--print-percentiles 0",
            "--print-percentiles",
        ),
        at_free_port("inverted cpu range", "--cpus 5-1", "--cpus"),
        at_free_port("cpus with no-pin", "--cpus 0 --no-pin", "--cpus"),
        at_free_port("-4 and -6 together", "-4 -6", "-4/-6"),
        at_free_port(
            "data-size-range and data-size-list together",
            "--data-size-range 10-20 --data-size-list 10:1",
            "--data-size-range",
        ),
        case(
            "unix socket and server together",
            "--unix-socket /nonexistent/redis.sock --server 127.0.0.1",
            "--unix-socket",
        ),
        at_free_port(
            "zipf exponent 0",
            "--key-pattern Z:Z --key-zipf-exp 0",
            "--key-zipf-exp",
        ),
        // memtier refuses a key-minimum of 0; Z ranks keys from 1.
        at_free_port(
            "zipf keys from 0",
            "--key-pattern Z:Z --key-minimum 0",
            "--key-minimum",
        )
        .mentions("--key-minimum 1"),
        at_free_port(
            "zipf GETs from key 0",
            "--key-pattern R:Z --key-minimum 0 --key-maximum 100",
            "--key-minimum",
        )
        .mentions("zipf"),
        at_free_port(
            "a zipf command from key 0",
            "--command-key-pattern Z --key-minimum 0 --command",
            "--key-minimum",
        )
        .arg("GET __key__")
        .mentions("zipf"),
        at_free_port(
            "gaussian median outside the range",
            "--key-pattern G:G --key-maximum 100 --key-median 500",
            "--key-median",
        ),
        at_free_port(
            "gaussian stddev 0",
            "--key-pattern G:G --key-stddev 0",
            "--key-stddev",
        ),
        at_free_port(
            "zipf exponent 5, outside memtier's (0, 5)",
            "--key-pattern Z:Z --key-zipf-exp 5",
            "--key-zipf-exp",
        ),
        at_free_port(
            "key median without a G pattern",
            "--key-pattern R:R --key-median 500",
            "--key-median",
        )
        .mentions("G (gaussian)"),
        at_free_port(
            "key stddev without a G pattern",
            "--key-pattern Z:S --key-stddev 10",
            "--key-stddev",
        )
        .mentions("G (gaussian)"),
        at_free_port(
            "--randomize with a fixed --seed",
            "--memtier-compat --randomize --seed 3",
            "--randomize",
        ),
        at_free_port("empty password", "-a", "--authenticate").arg(""),
        at_free_port("empty KVBENCH_AUTH", "", "--authenticate").env("KVBENCH_AUTH", ""),
        case(
            "nothing listening",
            &format!("-s 127.0.0.1 -p {port}"),
            "--server/--port",
        )
        .mentions("refused"),
        case(
            "no socket at the unix path",
            "--unix-socket /nonexistent/redis.sock",
            "--unix-socket",
        ),
        at_free_port(
            "reconnect backoff factor below 1",
            "--reconnect-backoff-factor 0.5",
            "--reconnect-backoff-factor",
        )
        .mentions("between 1 and 100"),
        at_free_port(
            "reconnect backoff factor not a number",
            "--reconnect-backoff-factor nan",
            "--reconnect-backoff-factor",
        ),
        at_free_port(
            "request-timeout 0",
            "--request-timeout 0",
            "--request-timeout",
        ),
        at_free_port(
            "negative request-timeout",
            "--request-timeout=-1",
            "--request-timeout",
        ),
        at_free_port(
            "no-reconnect with reconnect-on-error",
            "--no-reconnect --reconnect-on-error",
            "--no-reconnect",
        )
        .mentions("--reconnect-on-error"),
        at_free_port(
            "sweep-warmup neither each nor first",
            "--sweep-warmup sometimes",
            "--sweep-warmup",
        )
        .mentions("sometimes"),
        at_free_port(
            "rate-limiting with a swept client count",
            "--rate-limiting 10 -c 1,2",
            "--rate-limiting",
        )
        .mentions("--rate"),
    ];
    assert!(cases.len() >= 20);
    assert_all_rejected(&cases);
}

#[test]
fn bad_config_files_exit_2_naming_config_and_the_fault() {
    let dir = TempDir::new("cli-errors");
    let file = |name: &str, text: &str| -> String {
        let path = dir.path(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let unknown = file("unknown.toml", "threads = 2\nthread = 3\n");
    let syntax = file("syntax.toml", "threads = 2\nclients = = 3\n");
    let wrong_type = file("type.toml", "threads = \"two\"\n");
    let unit = file("unit.toml", "test-time = \"10s\"\n");
    let zero = file("zero.toml", "clients = 0\n");
    let redirects = file("redirects.toml", "max-redirects = 3\n");
    let memcached_cluster = file(
        "memcached-cluster.toml",
        "cluster-mode = true\nprotocol = \"memcache_text\"\n",
    );
    let missing = dir.path("missing.toml").to_str().unwrap().to_string();
    let with = |what, path: &str, flag| at_free_port(what, "--config", flag).arg(path);
    let cases = vec![
        with("unknown config key", &unknown, "--config").mentions("did you mean 'threads'"),
        with("TOML syntax error", &syntax, "--config").mentions("line 2"),
        with("a string where a number belongs", &wrong_type, "--config").mentions("line 1"),
        with("missing config file", &missing, "--config").mentions("missing.toml"),
        with("seconds with a unit in the file", &unit, "--config")
            .mentions("write it as test-time = 10"),
        // A value that parses but is invalid names the flag, as on the command line.
        with("clients 0 in the file", &zero, "--clients"),
        with(
            "max-redirects in a file without cluster-mode",
            &redirects,
            "--max-redirects",
        )
        .mentions("add --cluster-mode"),
        with(
            "cluster-mode with memcached in the file",
            &memcached_cluster,
            "--cluster-mode",
        ),
    ];
    assert_all_rejected(&cases);
}

#[test]
fn config_key_typos_and_wrong_types_are_one_short_line_with_the_fix() {
    let dir = TempDir::new("cli-errors-keys");
    let port = free();
    for (name, text, expected) in [
        (
            "typo.toml",
            "# a workload\nserver = \"127.0.0.1\"\nthreds = 2\n",
            "unknown key 'threds' at line 3; did you mean 'threads'?",
        ),
        (
            "ratio.toml",
            "threads = 2\nratio = 14\n",
            "ratio at line 2: takes a string, not integer `14`; write it as ratio = \"1:4\"",
        ),
        // Unquoted, TOML reads it as a time of day ("invalid time").
        (
            "time.toml",
            "ratio = 1:4\n",
            "ratio at line 1: is read by TOML as a time of day, not text: put the value in quotes; write it as ratio = \"1:4\"",
        ),
        // kvbench's words, not the parser's: no "untagged enum NumListRepr".
        (
            "clients.toml",
            "threads = 2\nclients = -3\n",
            "clients at line 2: must be a whole number, or a list of them to sweep ([1, 4]); write it as clients = 1",
        ),
        (
            "requests.toml",
            "requests = true\n",
            "requests at line 1: must be a whole number of requests, or \"allkeys\"; write it as requests = 1000",
        ),
        (
            "empty.toml",
            "threads =\n",
            "threads at line 1: has no value, or text without its quotes; write it as threads = 1",
        ),
        (
            "float.toml",
            "\ntest-time = 1.5.5\n",
            "test-time at line 2: is not a number; write it as test-time = 1",
        ),
        (
            "section.toml",
            "threads = 2\n[server]\nport = 1\n",
            " at line 2: [server] is a section, and the file has none; write its keys at the top, KEY = VALUE (e.g. server = \"127.0.0.1\")",
        ),
    ] {
        let path = dir.path(name);
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let out = common::kvbench(&["-p", port, "--config", path]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        let line = stderr.strip_suffix('\n').unwrap();
        assert!(!line.contains('\n'), "{name}: {stderr}");
        let prefix = format!("kvbench: error: --config: {path}");
        assert!(line.starts_with(&prefix), "{name}: {line}");
        for parser_word in ["untagged", "variant", "expected", "literal string"] {
            assert!(!line.contains(parser_word), "{name}: {line}");
        }
        // The message after the file name, bounded on both sides.
        let message = &line[prefix.len()..];
        assert!(message.len() > expected.len() / 2, "{name}: {line}");
        assert!(
            message.len() < 200,
            "{name}: {} chars: {line}",
            message.len()
        );
        assert!(message.ends_with(expected), "{name}: {line}");
        assert!(!line.contains("cannot connect"), "{name}: {line}");
    }
}

#[test]
fn bad_auth_files_exit_2_naming_auth_file() {
    let dir = TempDir::new("cli-errors-auth");
    let file = |name: &str, text: &str| -> String {
        let path = dir.path(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let empty = file("empty", "");
    let blank_first_line = file("blank", "\n  \nsecret123\n");
    let only_blank = file("only-blank", "\n \n\n");
    let good = file("good", "secret123\n");
    let missing = dir.path("missing-auth").to_str().unwrap().to_string();
    let with = |what, path: &str| at_free_port(what, "--auth-file", "--auth-file").arg(path);
    assert_all_rejected(&[
        with("auth file that does not exist", &missing).mentions("missing-auth"),
        with("empty auth file", &empty).mentions("empty"),
        with("auth file whose first line is blank", &blank_first_line)
            .mentions("first line is blank")
            .mentions("line 3")
            .lacks("empty")
            .lacks("secret123"),
        with("auth file of blank lines", &only_blank)
            .mentions("no line with text")
            .lacks("empty"),
        with("auth file and -a together", &good)
            .arg("-a")
            .arg("other")
            .mentions("-a"),
    ]);
}

#[test]
fn connection_settings_a_real_server_rejects_exit_2_naming_the_flag() {
    let open = Redis::start();
    let protected = Redis::start_protected("secret123", None);
    let open_port = open.port.to_string();
    let port = protected.port.to_string();
    let at = |port: &str, what, extra: &str, flag| {
        let args = format!("-s 127.0.0.1 -p {port} -t 1 -c 1 -n 10 {extra}");
        case(what, &args, flag)
    };
    let wrong_password = at(&port, "wrong password", "-a wrongpass999", "--authenticate");
    let cases = vec![
        wrong_password.clone().mentions("WRONGPASS"),
        at(
            &port,
            "wrong password from KVBENCH_AUTH",
            "",
            "--authenticate",
        )
        .env("KVBENCH_AUTH", "wrongpass999"),
        at(&port, "password required, none given", "", "--authenticate").mentions("NOAUTH"),
        at(
            &open_port,
            "database the server lacks",
            "--select-db 99999",
            "--select-db",
        )
        .mentions("out of range"),
    ];
    assert_all_rejected(&cases);
    // Rejected before any load, and the wrong password was not echoed.
    assert_eq!(open.calls("set") + open.calls("get"), 0);
    let out = run(&wrong_password);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("wrongpass999"));
}

#[test]
fn values_the_argument_parser_rejects_get_the_same_one_line_form() {
    // Values of the wrong type and unknown flags are usage errors too; they
    // should look like every other one: code 2, one `kvbench: error:` line.
    assert_all_rejected(&[
        at_free_port("threads foo", "--threads foo", "--threads"),
        at_free_port("negative clients", "--clients=-1", "--clients"),
        at_free_port(
            "negative max-reconnect-attempts",
            "--max-reconnect-attempts=-1",
            "--max-reconnect-attempts",
        ),
        at_free_port("negative max-errors", "--max-errors=-5", "--max-errors"),
        at_free_port(
            "negative reconnect-interval",
            "--reconnect-interval=-1",
            "--reconnect-interval",
        ),
        case("port out of range", "-p 70000", "--port"),
        at_free_port("unknown flag", "--no-such-flag", "--no-such-flag"),
    ]);
}

#[test]
fn bad_command_templates_and_their_lists_exit_2_naming_the_flag() {
    let cases = vec![
        at_free_port("empty command", "--command", "--command")
            .arg("")
            .mentions("empty"),
        at_free_port("blank command", "--command", "--command")
            .arg("   ")
            .mentions("empty"),
        at_free_port("unknown placeholder", "--command", "--command")
            .arg("SET __kye__ __data__")
            .mentions("__kye__"),
        at_free_port("unbalanced quotes", "--command", "--command")
            .arg("SET __key__ \"value")
            .mentions("quote"),
        at_free_port("placeholder as the name", "--command", "--command")
            .arg("__key__ x")
            .mentions("literal"),
        at_free_port(
            "ratio list longer than the commands",
            "--command-ratio 1,2",
            "--command-ratio",
        )
        .arg("--command")
        .arg("GET __key__")
        .mentions("one per command"),
        at_free_port(
            "ratio that is no number",
            "--command-ratio x",
            "--command-ratio",
        )
        .arg("--command")
        .arg("GET __key__"),
        at_free_port(
            "key-pattern list longer than the commands",
            "--command-key-pattern R,S,G",
            "--command-key-pattern",
        )
        .arg("--command")
        .arg("GET __key__")
        .arg("--command")
        .arg("SET __key__ __data__")
        .mentions("one per command"),
        at_free_port(
            "unknown command key pattern",
            "--command-key-pattern Q",
            "--command-key-pattern",
        )
        .arg("--command")
        .arg("GET __key__"),
        at_free_port(
            "unknown breakdown",
            "--command-stats-breakdown cmd",
            "--command-stats-breakdown",
        )
        .arg("--command")
        .arg("GET __key__"),
        at_free_port(
            "command ratio without commands",
            "--command-ratio 1",
            "--command-ratio",
        ),
        at_free_port("--ratio beside --command", "--ratio 1:1", "--ratio")
            .arg("--command")
            .arg("GET __key__")
            .mentions("--command-ratio"),
    ];
    assert_all_rejected(&cases);
}

#[test]
fn cluster_options_that_cannot_work_exit_2_naming_the_flag() {
    let cases = vec![
        at_free_port(
            "max-redirects without cluster mode",
            "--max-redirects 3",
            "--max-redirects",
        )
        .mentions("add --cluster-mode"),
        at_free_port(
            "read-from without cluster mode",
            "--read-from replica",
            "--read-from",
        )
        .mentions("add --cluster-mode"),
        at_free_port(
            "max-redirects 0",
            "--cluster-mode --max-redirects 0",
            "--max-redirects",
        )
        .mentions("1 to 1000"),
        at_free_port(
            "max-redirects above 1000",
            "--cluster-mode --max-redirects 1001",
            "--max-redirects",
        )
        .mentions("1 to 1000"),
        at_free_port(
            "unknown read-from",
            "--cluster-mode --read-from master",
            "--read-from",
        )
        .mentions("primary, replica, any or nearest"),
        at_free_port(
            "cluster mode with memcached text",
            "--cluster-mode -P memcache_text",
            "--cluster-mode",
        )
        .mentions("memcache_text"),
        at_free_port(
            "cluster mode with memcached binary",
            "--cluster-mode -P memcache_binary",
            "--cluster-mode",
        )
        .mentions("memcache_binary"),
        case(
            "cluster mode over a unix socket",
            "--cluster-mode --unix-socket /nonexistent/redis.sock",
            "--cluster-mode",
        )
        .mentions("Unix socket"),
        case(
            "cluster mode with nothing listening",
            &format!("--cluster-mode -s 127.0.0.1 -p {}", free()),
            "--server/--port",
        )
        .mentions("refused"),
    ];
    assert_all_rejected(&cases);
}

#[test]
fn bad_shards_and_start_times_exit_2_naming_the_flag() {
    let cases = vec![
        at_free_port(
            "shard index without count",
            "--shard-index 1",
            "--shard-index",
        )
        .mentions("--shard-count too"),
        at_free_port(
            "shard count without index",
            "--shard-count 3",
            "--shard-count",
        )
        .mentions("--shard-index too"),
        at_free_port(
            "shard index at the count",
            "--shard-index 3 --shard-count 3",
            "--shard-index",
        )
        .mentions("0 to 2"),
        at_free_port(
            "shard count 0",
            "--shard-index 0 --shard-count 0",
            "--shard-count",
        )
        .mentions("at least 1"),
        at_free_port("negative shard index", "--shard-index -1", "--shard-index"),
        // The prefill splits the key range among every shard's connections.
        at_free_port(
            "more shards than keys with --prefill",
            "--shard-index 0 --shard-count 4294967295 --prefill",
            "--shard-count",
        )
        .mentions("--prefill"),
        at_free_port(
            "a shard left without keys to prefill",
            "--shard-index 0 --shard-count 3 -t 1 -c 5 --prefill --key-minimum 1 --key-maximum 10",
            "--shard-count",
        )
        .mentions("at most 2 shards"),
        at_free_port(
            "a Kubernetes shard left without keys to prefill",
            "--shard-count 5 --prefill --key-minimum 1 --key-maximum 4 -t 1 -c 1",
            "--shard-count",
        )
        .env("JOB_COMPLETION_INDEX", "0")
        .mentions("widen the key range"),
        at_free_port("a Kubernetes index without a count", "", "--shard-count")
            .env("JOB_COMPLETION_INDEX", "1")
            .mentions("KVBENCH_SHARD_COUNT"),
        at_free_port("a garbled Slurm rank", "", "SLURM_PROCID")
            .env("SLURM_PROCID", "one")
            .mentions("whole number"),
        at_free_port("a Slurm rank without its task count", "", "SLURM_PROCID")
            .env("SLURM_PROCID", "1")
            .mentions("SLURM_NTASKS"),
        at_free_port("an Open MPI world of 0", "", "OMPI_COMM_WORLD_SIZE")
            .env("OMPI_COMM_WORLD_RANK", "0")
            .env("OMPI_COMM_WORLD_SIZE", "0")
            .mentions("at least 1"),
        at_free_port("a Slurm job of 0 tasks", "", "SLURM_NTASKS")
            .env("SLURM_PROCID", "0")
            .env("SLURM_NTASKS", "0")
            .mentions("launcher"),
        at_free_port(
            "a start time that is no time",
            "--start-at soon",
            "--start-at",
        )
        .mentions("RFC 3339"),
        at_free_port(
            "a start time without a zone",
            "--start-at 2026-12-01T10:30:00",
            "--start-at",
        ),
        at_free_port(
            "a start time in the past",
            "--start-at 1000000000",
            "--start-at",
        )
        .mentions("in the past"),
        at_free_port(
            "a start time centuries ahead",
            "--start-at 2999-01-01T00:00:00Z",
            "--start-at",
        )
        .mentions("days ahead"),
        at_free_port(
            "a start tolerance without a start",
            "--start-tolerance 2",
            "--start-tolerance",
        )
        .mentions("add --start-at"),
        at_free_port("a run gap without a start", "--run-gap 2", "--run-gap")
            .mentions("add --start-at"),
        at_free_port(
            "a zero start tolerance",
            "--start-at +30s --start-tolerance 0",
            "--start-tolerance",
        ),
        at_free_port(
            "a negative run gap",
            "--start-at +30s --run-gap -1",
            "--run-gap",
        ),
        at_free_port(
            "a start time for a sweep",
            "--start-at +30s --pipeline 1,4",
            "--start-at",
        )
        .mentions("sweep"),
    ];
    assert_all_rejected(&cases);
}

#[test]
fn subcommands_without_their_arguments_name_them_with_an_example() {
    assert_all_rejected(&[
        case("compare without files", "compare", "kvbench compare")
            .mentions("<FILE>... is required")
            .mentions("e.g. kvbench compare before.json after.json")
            .mentions("see kvbench compare --help")
            .lacks("not provided:;"),
        case("report without files", "report", "kvbench report")
            .mentions("<FILE>... is required")
            .mentions("e.g. kvbench report run.json -o run.html"),
        case(
            "merge without files",
            "merge --allow-partial",
            "kvbench merge",
        )
        .mentions("<FILE>... is required")
        .mentions("e.g. kvbench merge shard-0.json shard-1.json"),
        case(
            "completions without a shell",
            "completions",
            "kvbench completions",
        )
        .mentions("<SHELL> is required")
        .mentions("e.g. kvbench completions bash"),
        case("completions for tcsh", "completions tcsh", "<SHELL>")
            .mentions("use one of: bash, zsh, fish")
            .mentions("see kvbench completions --help"),
        // memtier's -h is the server; alone it asks for one, and says where help is.
        case("-h alone", "-h", "--server")
            .mentions("e.g. --server 127.0.0.1")
            .mentions("help is --help or kvbench help")
            .lacks("use one of: ;"),
        case("suite -h alone", "suite -h", "--host")
            .mentions("e.g. --host 127.0.0.1")
            .mentions("help is --help or kvbench help suite"),
        case("a flag without its value", "--test-time", "--test-time")
            .mentions("e.g. --test-time 10"),
        case(
            "a choice without its value",
            "compare a.json --format",
            "--format",
        )
        .mentions("use one of: text, md, csv")
        .mentions("see kvbench compare --help"),
        case("a subcommand after flags", "-p 1 compare a.json", "kvbench")
            .mentions("a subcommand must be the first word")
            .mentions("e.g. kvbench compare before.json after.json")
            .lacks("compare a.json"),
        case("help for no such subcommand", "help nope", "kvbench help")
            .mentions("use one of: suite, capacity, compare"),
    ]);
}
