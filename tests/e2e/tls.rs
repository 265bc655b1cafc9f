//! `--tls` against a real `redis-server` with a TLS port, using certificates
//! each test makes itself with the openssl CLI: the counts over TLS equal the
//! server's own commandstats (read over its plain port, an independent
//! witness), large replies cross many TLS records, reconnects redo the TLS
//! handshake inside the event loop, a second connection resumes the first's
//! session, `rediss://` means `--tls`, and `--tls-protocols` limits what is
//! offered. The failures a user can fix are in `tls_errors.rs`.

use clap::Parser;
use kvbench::cli::Cli;
use kvbench::config::Config;
use kvbench::engine::worker::net::{self, BlockingStream};
use rustls::HandshakeKind;
use serde_json::Value;

use crate::common::tls::{
    Certs, TlsRedis, assert_no_errors, count, error, kvbench_bounded as kvbench, report,
    usage_error,
};
use crate::common::{info_u64, try_pipeline};

#[test]
fn counts_over_tls_equal_the_servers_commandstats() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let cacert = certs.path("ca.crt");
    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--cacert",
            &cacert,
            "-t",
            "2",
            "-c",
            "2",
            "-n",
            "500",
            "--pipeline",
            "4",
            "--ratio",
            "1:1",
        ],
    );
    assert_no_errors(&doc);
    let (sets, gets) = (count(&doc, "SET"), count(&doc, "GET"));
    assert_eq!(sets + gets, 2 * 2 * 500);
    assert!(sets > 0 && gets > 0, "{sets} SETs, {gets} GETs");
    // The TLS port speaks nothing but TLS, so every call arrived encrypted.
    assert_eq!(redis.calls(), (sets, gets));
    let config = &doc["configuration"];
    assert_eq!(config["tls"], "true");
    assert_eq!(config["cacert"], cacert.as_str());
    assert_eq!(config["tls_skip_verify"], "false");
    let typed = &doc["kvbench"]["config"]["tls"];
    assert_eq!(typed["server_name"], "127.0.0.1");
    assert_eq!(typed["verify"], true);
    assert_eq!(
        typed["protocols"],
        serde_json::json!(["TLSv1.2", "TLSv1.3"])
    );
    // The TLS values validate against the published schema.
    let schema: Value =
        serde_json::from_str(include_str!("../../docs/output.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn large_values_and_deep_pipelines_cross_many_tls_records_without_stalling() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    // 40 kB values span three 16 kB TLS records each, and 16 of them in flight
    // overflow a read: the stream must hand out what it decrypted and read the
    // socket dry, or the edge-triggered loop waits forever (the 60 s bound).
    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--cacert",
            &certs.path("ca.crt"),
            "-t",
            "1",
            "-c",
            "2",
            "-n",
            "300",
            "--pipeline",
            "16",
            "-d",
            "40000",
            "--ratio",
            "1:1",
            "--key-maximum",
            "50",
        ],
    );
    assert_no_errors(&doc);
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 600);
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
    let hits = doc["kvbench"]["totals"]["GET"]["hits"].as_u64().unwrap();
    assert!(hits > 0 && hits <= count(&doc, "GET"), "{hits} hits");
}

#[test]
fn reconnects_redo_the_tls_handshake_in_the_event_loop() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let before = info_u64(redis.plain, "stats", "total_connections_received");
    let doc = report(
        redis.tls,
        &[
            "--tls",
            "--cacert",
            &certs.path("ca.crt"),
            "-t",
            "1",
            "-c",
            "2",
            "-n",
            "500",
            "--ratio",
            "1:1",
            "--reconnect-interval",
            "50",
        ],
    );
    let accepted = info_u64(redis.plain, "stats", "total_connections_received") - before;
    assert_no_errors(&doc);
    // As over TCP (tests/e2e/faults.rs): 9 or 10 planned reconnects per connection.
    let reconnects = error(&doc, "reconnects");
    assert!((18..=20).contains(&reconnects), "{reconnects} reconnects");
    assert!(
        accepted >= reconnects + 2,
        "{accepted} accepted for {reconnects} reconnects"
    );
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 1000);
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
}

#[test]
fn tls_protocols_offers_only_the_versions_given() {
    let certs = Certs::make();
    let only_12 = ["--tls-protocols", "TLSv1.2"];
    let redis = TlsRedis::start_with(&certs, "server.crt", false, &only_12);
    let cacert = certs.path("ca.crt");
    let out = kvbench(
        redis.tls,
        &[
            "--tls",
            "--cacert",
            &cacert,
            "--tls-protocols",
            "TLSv1.3",
            "-n",
            "10",
        ],
    );
    let stderr = usage_error(&out, "--tls-protocols");
    assert!(stderr.contains("none of the TLS versions"), "{stderr}");
    assert_eq!(redis.calls(), (0, 0));
    let args = [
        "--tls",
        "--cacert",
        &cacert,
        "--tls-protocols",
        "TLSv1.3,TLSv1.2",
        "-c",
        "1",
        "-t",
        "1",
        "-n",
        "30",
    ];
    let doc = report(redis.tls, &args);
    assert_eq!(count(&doc, "SET") + count(&doc, "GET"), 30);
    assert_eq!(redis.calls(), (count(&doc, "SET"), count(&doc, "GET")));
}

#[test]
fn a_rediss_uri_connects_over_tls_like_tls() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let uri = format!("rediss://127.0.0.1:{}/2", redis.tls);
    let cacert = certs.path("ca.crt");
    let args = [
        "-u", &uri, "--cacert", &cacert, "-c", "1", "-t", "1", "-n", "60", "--ratio", "1:0",
    ];
    let doc = report(redis.tls, &args);
    assert_no_errors(&doc);
    assert_eq!(doc["configuration"]["tls"], "true");
    assert_eq!(redis.calls(), (60, 0));
    // The URI's database was selected over TLS: the keys are in db 2 only.
    let keys = |db: &str| {
        let reply = try_pipeline(redis.plain, &[vec!["SELECT", db], vec!["DBSIZE"]]).unwrap();
        format!("{:?}", reply[1])
    };
    assert_eq!(keys("0"), "Integer(0)");
    assert_ne!(keys("2"), "Integer(0)");
}

#[test]
fn a_second_connection_resumes_the_tls_session_of_the_first() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let port = redis.tls.to_string();
    let cacert = certs.path("ca.crt");
    let args = [
        "kvbench",
        "-s",
        "127.0.0.1",
        "-p",
        &port,
        "--tls",
        "--cacert",
        &cacert,
    ];
    let config = Config::from_args(Cli::try_parse_from(args).unwrap().run).unwrap();
    // One config serves every connection, so its session cache carries the
    // server's ticket from one connection (a reconnect, say) to the next.
    let kinds: Vec<_> = (0..3)
        .map(|_| match net::connect_blocking(&config.target).unwrap().0 {
            BlockingStream::Tls(stream) => stream.conn.handshake_kind(),
            other => panic!("--tls gave a plain stream: {other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            Some(HandshakeKind::Full),
            Some(HandshakeKind::Resumed),
            Some(HandshakeKind::Resumed)
        ]
    );
}
