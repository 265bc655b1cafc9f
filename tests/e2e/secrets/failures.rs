//! Every error path that sees a secret, with a canary for the secret: a wrong
//! password against a real redis with `requirepass` however it is given (`-a`,
//! `-a USER:PASSWORD`, `KVBENCH_AUTH`, `--auth-file`, `-u`), a wrong SASL
//! password against a real memcached `-S`, URIs malformed in every way, a
//! config file whose error is on the line holding the password, a password
//! typed as a separate word, and a TLS key file holding the canary. Each
//! exits 2 naming its flag, and the canary is in no stdout, stderr or file
//! written (`--show-config`, text, JSON and HTML reports are all asked for).

use std::path::Path;
use std::process::Command;

use crate::common::memcached::Memcached;
use crate::common::tls::Certs;
use crate::common::{Redis, TempDir};

/// A canary string unique to this process, and a numeric one for the places
/// (a TOML integer) where only digits can be a value.
fn canaries() -> (String, String) {
    let pid = std::process::id();
    (format!("CANARY-{pid}-q7"), format!("98765{pid:07}31"))
}

/// One run that must fail without showing `secrets`.
struct Leak<'a> {
    what: &'a str,
    args: Vec<String>,
    env: Option<(&'a str, String)>,
    /// The flag the error must name.
    flag: &'a str,
}

fn leak<'a>(what: &'a str, args: &[&str], flag: &'a str) -> Leak<'a> {
    Leak {
        what,
        args: args.iter().map(|a| a.to_string()).collect(),
        env: None,
        flag,
    }
}

/// Runs each case with every output asked for, and fails once, listing each
/// case whose exit code or flag was wrong or that showed a secret.
fn assert_nothing_leaks(cases: &[Leak<'_>], secrets: &[&str]) {
    let mut problems = Vec::new();
    for case in cases {
        let dir = TempDir::new("secrets-leak");
        let path = |name: &str| dir.path(name).to_str().unwrap().to_string();
        let mut command = Command::new(env!("CARGO_BIN_EXE_kvbench"));
        command.args(&case.args);
        // `suite` writes no text file and has no --show-config.
        if case.args.first().is_none_or(|a| a != "suite") {
            command.args(["--show-config", "-o", &path("r.txt")]);
        }
        command
            .args(["--json-out-file", &path("r.json")])
            .args(["--html-out-file", &path("r.html")])
            .env_remove("KVBENCH_AUTH");
        if let Some((name, value)) = &case.env {
            command.env(name, value);
        }
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(2) {
            problems.push(format!(
                "{}: exit {:?}: {stderr}",
                case.what,
                out.status.code()
            ));
        }
        if !stderr.contains(&format!("error: {}: ", case.flag)) {
            problems.push(format!(
                "{}: does not name {}: {stderr}",
                case.what, case.flag
            ));
        }
        let mut places = vec![
            ("stdout".to_string(), out.stdout.clone()),
            ("stderr".to_string(), out.stderr.clone()),
        ];
        places.extend(files_in(&dir.0));
        for (place, bytes) in places {
            for secret in secrets {
                if bytes.windows(secret.len()).any(|w| w == secret.as_bytes()) {
                    problems.push(format!("{}: {secret} in {place}: {stderr}", case.what));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every file under `dir`, with its name, except what the test itself wrote
/// there (none: the cases write their inputs elsewhere).
fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(entry.path()).unwrap())
        })
        .collect()
}

#[test]
fn a_wrong_password_however_given_shows_nothing_of_it() {
    let (canary, _) = canaries();
    let redis = Redis::start_protected("the-right-one", Some("bench"));
    let port = redis.port.to_string();
    let inputs = TempDir::new("secrets-inputs");
    let auth_file = inputs.path("auth");
    std::fs::write(&auth_file, format!("bench:{canary}\n")).unwrap();
    let server = ["-s", "127.0.0.1", "-p", &port, "-n", "10"];
    fn with<'a>(server: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [server, extra].concat()
    }
    let user_password = format!("bench:{canary}");
    let uri = format!("redis://bench:{canary}@127.0.0.1:{port}");
    let mut from_env = leak("KVBENCH_AUTH", &server, "--authenticate");
    from_env.env = Some(("KVBENCH_AUTH", canary.clone()));
    let cases = [
        leak(
            "-a PASSWORD",
            &with(&server, &["-a", &canary]),
            "--authenticate",
        ),
        leak(
            "-a USER:PASSWORD",
            &with(&server, &["-a", &user_password]),
            "--authenticate",
        ),
        from_env,
        leak(
            "--auth-file",
            &with(&server, &["--auth-file", auth_file.to_str().unwrap()]),
            "--authenticate",
        ),
        leak("-u", &["-u", &uri, "-n", "10"], "--authenticate"),
        // The password typed as a word of its own after the user.
        leak(
            "-a USER PASSWORD",
            &with(&server, &["-a", "bench", &canary]),
            "kvbench",
        ),
        leak(
            "suite -a USER PASSWORD",
            &["suite", "-p", &port, "-a", "bench", &canary],
            "-a",
        ),
    ];
    assert_nothing_leaks(&cases, &[&canary]);
}

/// A server that knows no `AUTH` (renamed away) quotes the arguments it was
/// sent in its error ("unknown command 'AUTH', with args beginning with:
/// 'PASSWORD'"): the refusal is shown without them, however the password
/// was given, `suite` too.
#[test]
fn a_server_that_echoes_auth_arguments_shows_nothing_of_the_password() {
    let (canary, _) = canaries();
    let redis = Redis::start_with(&["--rename-command", "AUTH", ""]);
    let port = redis.port.to_string();
    let inputs = TempDir::new("secrets-echo");
    let auth_file = inputs.path("auth");
    std::fs::write(&auth_file, format!("bench:{canary}\n")).unwrap();
    let server = ["-s", "127.0.0.1", "-p", &port, "-n", "10"];
    let with = |extra: &[&str]| -> Vec<String> {
        [&server[..], extra]
            .concat()
            .iter()
            .map(|a| a.to_string())
            .collect()
    };
    let user_password = format!("bench:{canary}");
    let uri = format!("redis://bench:{canary}@127.0.0.1:{port}");
    let mut from_env = leak("KVBENCH_AUTH", &server, "--authenticate");
    from_env.env = Some(("KVBENCH_AUTH", canary.clone()));
    let mut cases = vec![
        leak("-a PASSWORD", &[], "--authenticate"),
        leak("-a USER:PASSWORD", &[], "--authenticate"),
        from_env,
        leak("--auth-file", &[], "--authenticate"),
        leak("-u", &["-u", &uri, "-n", "10"], "--authenticate"),
        leak(
            "suite -a PASSWORD",
            &["suite", "-p", &port, "-a", &canary, "-n", "10", "-t", "set"],
            // The suite names its own flags (redis-benchmark's).
            "-a",
        ),
    ];
    cases[0].args = with(&["-a", &canary]);
    cases[1].args = with(&["-a", &user_password]);
    cases[3].args = with(&["--auth-file", auth_file.to_str().unwrap()]);
    assert_nothing_leaks(&cases, &[&canary]);
}

#[test]
fn a_wrong_sasl_password_against_memcached_shows_nothing_of_it() {
    let (canary, _) = canaries();
    let m = Memcached::start_sasl("bench", "the-right-one");
    let port = m.port.to_string();
    let credentials = format!("bench:{canary}");
    let args = ["-s", "127.0.0.1", "-p", &port, "-P", "memcache_binary"];
    let cases = [leak(
        "SASL",
        &[&args[..], &["-a", &credentials, "-n", "10"]].concat(),
        "--authenticate",
    )];
    assert_nothing_leaks(&cases, &[&canary]);
    assert!(m.stat("auth_errors") > 0, "memcached saw no failed login");
}

#[test]
fn no_malformed_uri_shows_its_password() {
    let (canary, _) = canaries();
    let uris = [
        format!("redis://bench:{canary}@127.0.0.1:notaport"),
        format!("redis://bench:{canary}@/0"),
        format!("redis://bench:{canary}@127.0.0.1:6379/db"),
        format!("redis://:{canary}@[::1"),
        format!("redis:bench:{canary}@127.0.0.1"),
        format!("rediss//bench:{canary}@127.0.0.1"),
        format!("http://bench:{canary}@127.0.0.1"),
        format!("redis://bench:12/{canary}@127.0.0.1/0"),
        format!("redis://bench:{canary}@127.0.0.1:99999"),
    ];
    let cases: Vec<Leak<'_>> = uris
        .iter()
        .map(|uri| leak("a malformed URI", &["-u", uri], "--uri"))
        .collect();
    assert_nothing_leaks(&cases, &[&canary]);
}

#[test]
fn a_config_file_error_on_the_password_line_shows_nothing_of_it() {
    let (canary, digits) = canaries();
    let inputs = TempDir::new("secrets-config");
    let files = [
        format!("threads = 1\nauthenticate = \"{canary}\" trailing\n"),
        format!("authenticate = {canary}\n"),
        format!("authenticate = \"{canary}\n"),
        format!("authenticate = '{canary}\nthreads = 1\n"),
        format!("authenticate = {digits}\n"),
        format!("authenticate = {digits}.5\n"),
        format!("authenticate = \"{canary}\"\nauthenticate = \"{canary}\"\n"),
        format!("authenticate = \"{canary}\"\nthreads = \"{canary}\"\n"),
        format!("uri = {digits}\n"),
        format!("uri = \"redis:bench:{canary}@127.0.0.1\"\n"),
        format!("uri = \"redis://bench:{canary}@127.0.0.1:notaport\"\n"),
    ];
    let paths: Vec<String> = files
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let path = inputs.path(&format!("c{i}.toml"));
            std::fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_string()
        })
        .collect();
    let cases: Vec<Leak<'_>> = paths
        .iter()
        .zip(&files)
        .map(|(path, text)| {
            // A URI that reads as TOML is refused by --uri's own parse.
            let flag = if text.contains("redis:") {
                "--uri"
            } else {
                "--config"
            };
            leak("a bad config file", &["--config", path, "-p", "1"], flag)
        })
        .collect();
    assert_nothing_leaks(&cases, &[&canary, &digits]);
}

#[test]
fn a_tls_key_file_that_cannot_be_used_shows_nothing_of_it() {
    let (canary, _) = canaries();
    let certs = Certs::make();
    let cert = certs.path("client.crt");
    let inputs = TempDir::new("secrets-keys");
    // A PEM error may quote the line it stopped at, as text or as its bytes
    // in decimal (`[67, 65, 78, …]`): neither may be shown.
    let as_bytes: String = canary
        .bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let keys = [
        format!("{canary}\n-----BEGIN PRIVATE KEY-----\n{canary}\n-----END PRIVATE KEY-----\n"),
        format!("-----BEGIN {canary}\nAAAA\n"),
        format!("-----BEGIN PRIVATE KEY-----\n{canary}\n"),
    ];
    let paths: Vec<String> = keys
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let path = inputs.path(&format!("k{i}.key"));
            std::fs::write(&path, text).unwrap();
            path.to_str().unwrap().to_string()
        })
        .collect();
    let cases: Vec<Leak<'_>> = paths
        .iter()
        .map(|key| {
            let tls = ["-p", "1", "--tls", "--cert", &cert, "--key", key];
            leak("a bad --key", &tls, "--key")
        })
        .collect();
    assert_nothing_leaks(&cases, &[&canary, &as_bytes]);
}
