//! `--tls` failures a user can fix, each against a real `redis-server` with a
//! TLS port and certificates the test makes: an unknown CA, a wrong name, an
//! expired certificate, a missing or foreign client certificate, the wrong port
//! for the wire, and bad files or options, all exit 2 naming the flag to change
//! and send nothing to the server.

use std::path::PathBuf;

use crate::common;
use crate::common::tls::{
    Certs, TlsRedis, assert_no_errors, count, kvbench_bounded as kvbench, report, usage_error,
};

/// Text inside the bad key files that no message may show.
const KEY_CANARY: &str = "CANARY-key-5d81c";

#[test]
fn a_server_certificate_from_another_ca_exits_2_naming_cacert_and_skip_verify_accepts_it() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let out = kvbench(
        redis.tls,
        &["--tls", "--cacert", &certs.path("other-ca.crt"), "-n", "10"],
    );
    let stderr = usage_error(&out, "--cacert");
    assert!(stderr.contains("not signed by a CA"), "{stderr}");
    assert_eq!(
        redis.calls(),
        (0, 0),
        "nothing may be sent over an unverified connection"
    );

    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--tls-skip-verify",
            "-c",
            "2",
            "-t",
            "1",
            "-n",
            "100",
        ],
    );
    assert_no_errors(&doc);
    assert_eq!(doc["configuration"]["tls_skip_verify"], "true");
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 200);
}

#[test]
fn a_self_signed_server_certificate_exits_2_saying_so_and_naming_cacert() {
    let certs = Certs::make();
    let redis = TlsRedis::start_with(&certs, "selfsigned.crt", false, &[]);
    // Against the system's CAs, and with the certificate itself as the CA.
    for cacert in [None, Some(certs.path("selfsigned.crt"))] {
        let mut args = vec!["--tls", "-n", "10"];
        if let Some(cacert) = &cacert {
            args.extend(["--cacert", cacert]);
        }
        let out = kvbench(redis.tls, &args);
        let stderr = usage_error(&out, "--cacert");
        assert!(stderr.contains("self-signed"), "{cacert:?}: {stderr}");
        assert!(stderr.contains("--tls-skip-verify"), "{stderr}");
        assert!(!stderr.contains("speaks TLS"), "{stderr}");
    }
    assert_eq!(redis.calls(), (0, 0));
    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--tls-skip-verify",
            "-c",
            "1",
            "-t",
            "1",
            "-n",
            "20",
        ],
    );
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 20);
}

#[test]
fn a_name_the_certificate_lacks_exits_2_naming_sni() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let cacert = certs.path("ca.crt");
    let out = kvbench(
        redis.tls,
        &[
            "--tls",
            "--cacert",
            &cacert,
            "--sni",
            "wrong.example",
            "-n",
            "10",
        ],
    );
    let stderr = usage_error(&out, "--sni");
    assert!(stderr.contains("wrong.example"), "{stderr}");
    // A name the certificate holds works, though the address connected to is an IP.
    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--cacert",
            &cacert,
            "--sni",
            "localhost",
            "-c",
            "1",
            "-t",
            "1",
            "-n",
            "50",
        ],
    );
    assert_eq!(doc["configuration"]["sni"], "localhost");
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
}

#[test]
fn an_expired_server_certificate_exits_2_and_skip_verify_accepts_it() {
    let certs = Certs::make();
    let redis = TlsRedis::start_with(&certs, "expired.crt", false, &[]);
    let out = kvbench(
        redis.tls,
        &["--tls", "--cacert", &certs.path("ca.crt"), "-n", "10"],
    );
    // Named by the TLS connection that checked it, with the date it expired
    // (tests/e2e/common/tls.rs gives it 2020-01-01 to 2020-01-02) and the fix.
    let stderr = usage_error(&out, "--tls");
    assert!(
        stderr.contains("expired on 2020-01-02 00:00:00 UTC (it is now 20"),
        "{stderr}"
    );
    assert!(stderr.contains("renew it on the server"), "{stderr}");
    assert!(stderr.contains("--tls-skip-verify"), "{stderr}");
    assert_eq!(redis.calls(), (0, 0));
    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--tls-skip-verify",
            "-c",
            "1",
            "-t",
            "1",
            "-n",
            "40",
        ],
    );
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 40);
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
}

#[test]
fn mutual_tls_needs_a_client_certificate_the_servers_ca_signed() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, true);
    let cacert = certs.path("ca.crt");
    let tls = ["--tls", "--cacert", cacert.as_str()];
    let out = kvbench(redis.tls, &[&tls[..], &["-n", "10"]].concat());
    let stderr = usage_error(&out, "--cert");
    assert!(stderr.contains("wants a client certificate"), "{stderr}");

    let (rogue, rogue_key) = (certs.path("rogue.crt"), certs.path("rogue.key"));
    let out = kvbench(
        redis.tls,
        &[
            &tls[..],
            &["--cert", &rogue, "--key", &rogue_key, "-n", "10"],
        ]
        .concat(),
    );
    let stderr = usage_error(&out, "--cert");
    assert!(
        stderr.contains("refused the client certificate"),
        "{stderr}"
    );
    assert_eq!(redis.calls(), (0, 0));

    let (cert, key) = (certs.path("client.crt"), certs.path("client.key"));
    let args = [
        &tls[..],
        &[
            "--cert", &cert, "--key", &key, "-t", "2", "-c", "2", "-n", "200",
        ],
    ]
    .concat();
    let doc = report(redis.tls, &args);
    assert_no_errors(&doc);
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 800);
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
    assert_eq!(doc["configuration"]["cert"], cert.as_str());
}

#[test]
fn the_wrong_port_for_the_wire_exits_2_saying_so() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    // Plain kvbench on the TLS port: the server drops it at its first bytes.
    let out = kvbench(redis.tls, &["-n", "10"]);
    let stderr = usage_error(&out, "--server/--port");
    assert!(stderr.contains("add --tls"), "{stderr}");
    // TLS kvbench on the plain port: the server waits for a command line.
    let args = [
        "--tls",
        "--tls-skip-verify",
        "--connection-timeout",
        "1",
        "-n",
        "10",
    ];
    let out = kvbench(redis.plain, &args);
    let stderr = usage_error(&out, "--tls");
    assert!(stderr.contains("drop --tls"), "{stderr}");
    assert_eq!(redis.calls(), (0, 0));
}

#[test]
fn bad_tls_options_exit_2_naming_the_flag_before_any_connection() {
    let certs = Certs::make();
    let missing: PathBuf = certs.dir.path("missing.pem");
    let missing = missing.to_str().unwrap();
    let (cert, key) = (certs.path("client.crt"), certs.path("client.key"));
    let other_key = certs.path("rogue.key");
    // Keys whose contents must never be shown: text that is no key under a
    // PRIVATE KEY header, and a key encrypted with a passphrase.
    let garbage_key = certs.dir.path("garbage.key");
    std::fs::write(
        &garbage_key,
        format!(
            "# {KEY_CANARY}\n-----BEGIN PRIVATE KEY-----\nQ0FOQVJZLWtleS1ub3QtYS1rZXk=\n-----END PRIVATE KEY-----\n"
        ),
    )
    .unwrap();
    let garbage_key = garbage_key.to_str().unwrap();
    let encrypted_key = certs.path("encrypted.key");
    let encrypted = std::fs::read_to_string(&encrypted_key).unwrap();
    std::fs::write(&encrypted_key, format!("# {KEY_CANARY}\n{encrypted}")).unwrap();
    // Port 1: nothing listens there, so any of these reaching a connect would
    // fail with advice about --server/--port instead.
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["--cacert", &certs.path("ca.crt")],
            "--cacert",
            "add --tls",
        ),
        (&["--tls-skip-verify"], "--tls-skip-verify", "add --tls"),
        (&["--tls", "--cacert", missing], "--cacert", "cannot read"),
        (&["--tls", "--cacert", &key], "--cacert", "no CERTIFICATE"),
        (&["--tls", "--cert", &cert], "--cert", "add --key"),
        (&["--tls", "--key", &key], "--key", "add --cert"),
        (
            &["--tls", "--cert", &cert, "--key", &other_key],
            "--key",
            "not the key",
        ),
        (
            &["--tls", "--cert", &cert, "--key", missing],
            "--key",
            "cannot read",
        ),
        (
            &["--tls", "--cert", &cert, "--key", garbage_key],
            "--key",
            "cannot use",
        ),
        (
            &["--tls", "--cert", &cert, "--key", &encrypted_key],
            "--key",
            "encrypted",
        ),
        (
            &["--tls", "--sni", "not a name"],
            "--sni",
            "neither a DNS name",
        ),
        (
            &["--tls", "--tls-protocols", "TLSv1.1"],
            "--tls-protocols",
            "RFC 8996",
        ),
        (
            &["--tls", "--tls-protocols", "SSLv3"],
            "--tls-protocols",
            "unknown version",
        ),
        (
            &["--tls-protocols", "TLSv1.2"],
            "--tls-protocols",
            "add --tls",
        ),
    ];
    for (args, flag, text) in cases {
        let out = kvbench(1, &[*args, &["-n", "10"]].concat());
        let stderr = usage_error(&out, flag);
        assert!(stderr.contains(text), "{args:?}: wanted '{text}': {stderr}");
        assert!(
            !stderr.contains(KEY_CANARY),
            "{args:?}: the key shown: {stderr}"
        );
    }
    let out = common::kvbench(&["--tls", "-S", "/nonexistent.sock", "-n", "10"]);
    usage_error(&out, "--tls");
}

#[test]
fn a_server_that_hangs_up_on_the_tls_handshake_exits_2_naming_tls() {
    // A listener that closes every connection it accepts, TLS or not.
    let listener = common::listen();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            drop(socket);
        }
    });
    let out = kvbench(port, &["--tls", "--tls-skip-verify", "-n", "10"]);
    let stderr = usage_error(&out, "--tls");
    assert!(stderr.contains("closed the TLS connection"), "{stderr}");
    assert!(
        !stderr.contains("add --tls"),
        "advice for a plain connection: {stderr}"
    );
    // Without --tls, the same hang-up suggests TLS.
    let out = kvbench(port, &["-n", "10"]);
    let stderr = usage_error(&out, "--server/--port");
    assert!(stderr.contains("add --tls"), "{stderr}");
}
