//! redis-benchmark's connection flags against real servers: `--tls` with
//! `--cacert`, `--cacertdir`, `--insecure` and a client certificate
//! (`--cert`/`--key`) on a TLS port whose plain port is the witness, and
//! `--cluster` (with valkey-benchmark's `--rfr`) spreading a test's keys
//! over the masters, whose calls add up to `-n`.

use std::process::Output;

use super::suite;
use crate::common::TempDir;
use crate::common::assert_success;
use crate::common::cluster::Cluster;
use crate::common::tls::{Certs, TlsRedis};

fn tls_suite(redis: &TlsRedis, flags: &[&str]) -> Output {
    let mut extra = vec!["--tls"];
    extra.extend_from_slice(flags);
    suite(redis.tls, "-t set,get -n 200 -c 2 -q -r 100", &extra)
}

#[test]
fn tls_and_its_certificate_flags_reach_the_tls_port() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, false);
    let cacert = certs.path("ca.crt");
    let out = tls_suite(&redis, &["--cacert", &cacert]);
    assert_success(&out, "--tls --cacert");
    // The TLS port speaks nothing but TLS, so every call arrived encrypted.
    assert_eq!(redis.calls(), (200, 200));
    // A directory holding the CA (and a file that is no certificate).
    let dir = TempDir::new("cacertdir");
    std::fs::copy(&cacert, dir.path("ca.pem")).unwrap();
    std::fs::write(dir.path("README"), "not a certificate\n").unwrap();
    let out = tls_suite(&redis, &["--cacertdir", dir.path("").to_str().unwrap()]);
    assert_success(&out, "--tls --cacertdir");
    assert_eq!(redis.calls(), (400, 400));
    let out = tls_suite(&redis, &["--insecure"]);
    assert_success(&out, "--tls --insecure");
    assert_eq!(redis.calls(), (600, 600));
    // An unrelated CA verifies nothing: refused, and nothing more was sent.
    let out = tls_suite(&redis, &["--cacert", &certs.path("other-ca.crt")]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(redis.calls(), (600, 600));
}

#[test]
fn tls_client_certificates_pass_a_server_that_asks_for_them() {
    let certs = Certs::make();
    let redis = TlsRedis::start(&certs, true);
    let cacert = certs.path("ca.crt");
    let (cert, key) = (certs.path("client.crt"), certs.path("client.key"));
    let out = tls_suite(
        &redis,
        &["--cacert", &cacert, "--cert", &cert, "--key", &key],
    );
    assert_success(&out, "--cert --key");
    assert_eq!(redis.calls(), (200, 200));
    // Without the client certificate the server drops the connection.
    let out = tls_suite(&redis, &["--cacert", &cacert]);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(redis.calls(), (200, 200));
}

#[test]
fn cluster_spreads_each_test_over_the_masters() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let out = suite(
        cluster.seed_port(),
        "--cluster -t set,get -n 600 -c 3 -q -r 10000",
        &[],
    );
    assert_success(&out, "--cluster");
    assert_eq!(cluster.sum_calls("set"), 600);
    assert_eq!(cluster.sum_calls("get"), 600);
    for (port, sets) in cluster.calls_by_master("set") {
        // A third each, of uniform keys over slots split in thirds.
        assert!((100..=350).contains(&sets), "master {port}: {sets} SETs");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("MOVED"), "{stderr}");
}

#[test]
fn rfr_yes_reads_from_the_replicas() {
    let cluster = Cluster::start_with_replicas(3, 1);
    cluster.reset_stats();
    let out = suite(
        cluster.seed_port(),
        "--cluster --rfr yes -t get -n 300 -c 3 -q -r 1000",
        &[],
    );
    assert_success(&out, "--rfr yes");
    let on_replicas: u64 = cluster
        .replicas()
        .iter()
        .map(|&port| cluster.calls(port, "get"))
        .sum();
    assert_eq!(on_replicas, 300);
    assert_eq!(cluster.sum_calls("get"), 0);
}
