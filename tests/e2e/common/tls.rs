//! TLS test support: a CA and certificates made with the openssl CLI, a
//! redis-server with a plain port (the witness) and a TLS port (for kvbench),
//! and a kvbench run bounded in time, since a stalled TLS stream would
//! otherwise hang the test.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{
    TempDir, free_port, machine, parse_commandstats, read_json, redis_server, try_pipeline,
};

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
/// expired and a self-signed one for the same key), a client certificate it signs (and its key
/// encrypted with a passphrase), and an unrelated CA with its own client
/// certificate.
pub struct Certs {
    pub dir: TempDir,
}

impl Certs {
    pub fn make() -> Certs {
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
        // A server certificate signed by its own key, as `openssl req -x509`
        // makes one: a CA certificate serving as the server's own.
        openssl(
            d,
            &[
                "req",
                "-x509",
                "-key",
                "server.key",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-days",
                "2",
                "-out",
                "selfsigned.crt",
            ],
        );
        // The client's key encrypted with a passphrase, as `--key` cannot take it.
        openssl(
            d,
            &[
                "pkey",
                "-in",
                "client.key",
                "-aes256",
                "-passout",
                "pass:kvbench-test",
                "-out",
                "encrypted.key",
            ],
        );
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

    pub fn path(&self, name: &str) -> String {
        self.dir.path(name).to_str().unwrap().to_string()
    }
}

/// A private redis-server with a plain port (for the witness) and a TLS port
/// (for kvbench), stopped when dropped.
pub struct TlsRedis {
    child: Child,
    pub plain: u16,
    pub tls: u16,
    _dir: TempDir,
    _share: machine::Share,
}

impl TlsRedis {
    /// With `cert` as the server's certificate (for the key `server.key`) and
    /// `extra` arguments for redis-server.
    pub fn start_with(certs: &Certs, cert: &str, auth_clients: bool, extra: &[&str]) -> TlsRedis {
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
                .args(extra)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start redis-server (install it with scripts/ensure-redis.sh)");
            let mut redis = TlsRedis {
                child,
                plain,
                tls,
                _dir: dir,
                _share: machine::share(),
            };
            if redis.wait_ready() {
                return redis;
            }
        }
        panic!("redis-server with a TLS port did not start on any of 5 port pairs");
    }

    pub fn start(certs: &Certs, auth_clients: bool) -> TlsRedis {
        TlsRedis::start_with(certs, "server.crt", auth_clients, &[])
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
    pub fn calls(&self) -> (u64, u64) {
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
pub fn kvbench_bounded(port: u16, args: &[&str]) -> Output {
    // Output goes to files, not pipes: a pipe nobody reads while waiting would
    // stall a talkative kvbench and read as a hang.
    let dir = TempDir::new("tls-run");
    let (out_path, err_path) = (dir.path("stdout"), dir.path("stderr"));
    let mut child = super::kvbench_at(port)
        .args(args)
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("run kvbench");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
            panic!("kvbench {args:?} hung: {stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: std::fs::read(&out_path).unwrap(),
        stderr: std::fs::read(&err_path).unwrap(),
    }
}

/// A finished run's JSON report, asserting it exited 0.
pub fn report(port: u16, args: &[&str]) -> Value {
    let dir = TempDir::new("tls-report");
    let json = dir.path("r.json");
    let mut full = args.to_vec();
    full.extend(["--json-out-file", json.to_str().unwrap()]);
    let out = kvbench_bounded(port, &full);
    assert!(
        out.status.success(),
        "kvbench {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_json(&json)
}

/// Asserts exit 2 with an error naming `flag`; returns stderr.
pub fn usage_error(out: &Output, flag: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("error: {flag}:")),
        "wanted {flag}: {stderr}"
    );
    stderr
}

pub fn count(doc: &Value, op: &str) -> u64 {
    doc["kvbench"]["totals"][op]["count"].as_u64().unwrap()
}

pub fn error(doc: &Value, kind: &str) -> u64 {
    doc["kvbench"]["errors"][kind].as_u64().unwrap()
}

pub fn assert_no_errors(doc: &Value) {
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
