//! `--tls` against a real `redis-server` with a TLS port, using certificates
//! each test makes itself with the openssl CLI: the counts over TLS equal the
//! server's own commandstats (read over its plain port, an independent
//! witness), reconnects redo the TLS handshake inside the event loop, and every
//! certificate problem a user can fix exits 2 naming the flag to change.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{
    TempDir, free_port, info_u64, parse_commandstats, read_json, redis_server, try_pipeline,
};
use serde_json::Value;

/// Runs the openssl CLI in `dir`, panicking with its stderr on failure.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl (install it with `apt-get install -y openssl`)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA, a server certificate it signs for 127.0.0.1 and localhost (and an
/// expired one for the same key), a client certificate it signs, and an
/// unrelated CA with its own client certificate.
struct Certs {
    dir: TempDir,
}

impl Certs {
    fn make() -> Certs {
        let dir = TempDir::new("tls-certs");
        let d = &dir.0;
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        for (ca, cn) in [("ca", "kvbench test CA"), ("other-ca", "another CA")] {
            let subject = format!("/CN={cn}");
            let (key, crt) = (format!("{ca}.key"), format!("{ca}.crt"));
            let mut args = vec!["req", "-x509"];
            args.extend(ec);
            args.extend([
                "-keyout", &key, "-out", &crt, "-days", "2", "-subj", &subject,
            ]);
            openssl(d, &args);
        }
        std::fs::write(
            d.join("server.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )
        .unwrap();
        std::fs::write(
            d.join("client.ext"),
            "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
        )
        .unwrap();
        for (name, ca) in [("server", "ca"), ("client", "ca"), ("rogue", "other-ca")] {
            let (key, csr, crt) = (
                format!("{name}.key"),
                format!("{name}.csr"),
                format!("{name}.crt"),
            );
            let subject = format!("/CN={name}");
            let mut args = vec!["req"];
            args.extend(ec);
            args.extend(["-keyout", &key, "-out", &csr, "-subj", &subject]);
            openssl(d, &args);
            let (ca_crt, ca_key) = (format!("{ca}.crt"), format!("{ca}.key"));
            let ext = if name == "server" {
                "server.ext"
            } else {
                "client.ext"
            };
            openssl(
                d,
                &[
                    "x509",
                    "-req",
                    "-in",
                    &csr,
                    "-CA",
                    &ca_crt,
                    "-CAkey",
                    &ca_key,
                    "-CAcreateserial",
                    "-days",
                    "2",
                    "-extfile",
                    ext,
                    "-out",
                    &crt,
                ],
            );
        }
        // `openssl ca` is the CLI's one way to give a certificate dates in the past.
        std::fs::create_dir(d.join("ca-db")).unwrap();
        std::fs::write(d.join("ca-db/index.txt"), "").unwrap();
        std::fs::write(d.join("ca-db/serial"), "01\n").unwrap();
        std::fs::write(
            d.join("ca.cnf"),
            "[ca]\ndefault_ca = test\n[test]\ndatabase = ca-db/index.txt\nnew_certs_dir = ca-db\n\
             serial = ca-db/serial\ndefault_md = sha256\npolicy = any\nx509_extensions = ext\n\
             [any]\ncommonName = supplied\n[ext]\nsubjectAltName = IP:127.0.0.1,DNS:localhost\n",
        )
        .unwrap();
        openssl(
            d,
            &[
                "ca",
                "-batch",
                "-config",
                "ca.cnf",
                "-cert",
                "ca.crt",
                "-keyfile",
                "ca.key",
                "-in",
                "server.csr",
                "-out",
                "expired.crt",
                "-startdate",
                "20200101000000Z",
                "-enddate",
                "20200102000000Z",
            ],
        );
        Certs { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path(name).to_str().unwrap().to_string()
    }
}

/// A private redis-server with a plain port (for the witness) and a TLS port
/// (for kvbench), stopped when dropped.
struct TlsRedis {
    child: Child,
    plain: u16,
    tls: u16,
    _dir: TempDir,
}

impl TlsRedis {
    /// With `cert` as the server's certificate (for the key `server.key`).
    fn start_with_cert(certs: &Certs, cert: &str, auth_clients: bool) -> TlsRedis {
        for _ in 0..5 {
            let dir = TempDir::new("tls-redis");
            let (plain, tls) = (free_port(), free_port());
            if plain == tls {
                continue;
            }
            let child = redis_server(plain, &dir.0)
                .args(["--tls-port", &tls.to_string()])
                .args(["--tls-cert-file", &certs.path(cert)])
                .args(["--tls-key-file", &certs.path("server.key")])
                .args(["--tls-ca-cert-file", &certs.path("ca.crt")])
                .args([
                    "--tls-auth-clients",
                    if auth_clients { "yes" } else { "no" },
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start redis-server (install it with scripts/ensure-redis.sh)");
            let mut redis = TlsRedis {
                child,
                plain,
                tls,
                _dir: dir,
            };
            if redis.wait_ready() {
                return redis;
            }
        }
        panic!("redis-server with a TLS port did not start on any of 5 port pairs");
    }

    fn start(certs: &Certs, auth_clients: bool) -> TlsRedis {
        TlsRedis::start_with_cert(certs, "server.crt", auth_clients)
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false; // a port was taken, or this build lacks TLS
            }
            if try_pipeline(self.plain, &[["PING"]]).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// SET and GET calls the server recorded.
    fn calls(&self) -> (u64, u64) {
        let reply = try_pipeline(self.plain, &[["INFO", "commandstats"]])
            .unwrap()
            .remove(0);
        let stats = parse_commandstats(&reply.text().unwrap());
        let calls = |name: &str| stats.get(name).map_or(0, |c| c.0);
        (calls("set"), calls("get"))
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs kvbench against 127.0.0.1:`port` and kills it if it has not finished
/// within 60 s (a stalled TLS stream would otherwise hang the test).
fn kvbench(port: u16, args: &[&str]) -> Output {
    let mut child = common::kvbench_at(port)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kvbench");
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "kvbench {args:?} hung: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A finished run's JSON report, asserting it exited 0.
fn report(port: u16, args: &[&str]) -> Value {
    let dir = TempDir::new("tls-report");
    let json = dir.path("r.json");
    let mut full = args.to_vec();
    full.extend(["--json-out-file", json.to_str().unwrap()]);
    let out = kvbench(port, &full);
    assert!(
        out.status.success(),
        "kvbench {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_json(&json)
}

/// Asserts exit 2 with an error naming `flag`; returns stderr.
fn usage_error(out: &Output, flag: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("error: {flag}:")),
        "wanted {flag}: {stderr}"
    );
    stderr
}

fn count(doc: &Value, op: &str) -> u64 {
    doc["kvbench"]["totals"][op]["count"].as_u64().unwrap()
}

fn error(doc: &Value, kind: &str) -> u64 {
    doc["kvbench"]["errors"][kind].as_u64().unwrap()
}

fn assert_no_errors(doc: &Value) {
    for kind in [
        "connection",
        "refused",
        "timeouts",
        "protocol",
        "lost_requests",
    ] {
        assert_eq!(error(doc, kind), 0, "{kind}: {}", doc["kvbench"]["errors"]);
    }
}

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
    // As over TCP (e2e_faults): 9 or 10 planned reconnects per connection.
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
    let redis = TlsRedis::start_with_cert(&certs, "expired.crt", false);
    let out = kvbench(
        redis.tls,
        &["--tls", "--cacert", &certs.path("ca.crt"), "-n", "10"],
    );
    let stderr = usage_error(&out, "--tls-skip-verify");
    assert!(stderr.contains("validity period"), "{stderr}");
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
            &["--tls", "--sni", "not a name"],
            "--sni",
            "neither a DNS name",
        ),
    ];
    for (args, flag, text) in cases {
        let out = kvbench(1, &[*args, &["-n", "10"]].concat());
        let stderr = usage_error(&out, flag);
        assert!(stderr.contains(text), "{args:?}: wanted '{text}': {stderr}");
    }
    let out = common::kvbench(&["--tls", "-S", "/nonexistent.sock", "-n", "10"]);
    usage_error(&out, "--tls");
}

#[test]
fn tls_and_its_files_are_not_shown_as_unsupported_memtier_flags() {
    let out = common::kvbench(&["--tls-protocols", "TLSv1.2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not supported yet"), "{stderr}");
    let help = common::kvbench(&["--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--tls",
        "--cert",
        "--key",
        "--cacert",
        "--tls-skip-verify",
        "--sni",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}
