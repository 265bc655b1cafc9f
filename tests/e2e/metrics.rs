//! Live metrics against real programs: a real Prometheus scrapes
//! `--metrics-listen` once a second, and the counts it stored for run 1 equal
//! kvbench's JSON and the server's `INFO commandstats` exactly; StatsD lines
//! reach a UDP socket once a second under memtier's names, and sends that
//! fail are counted without failing the run; a bad or taken
//! `--metrics-listen` exits 2 before the server sees a connection; a
//! slow-loris and 200 idle connections to the endpoint neither stop the scrapes
//! nor slow the run down.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::common;
use crate::common::machine;
use crate::common::{Redis, TempDir, kvbench_ok, refused_before_connecting};
use kvbench::report::model::kvbench::Kvbench;
use kvbench::report::model::{self, Document};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Debian's package puts it here; `make deps` installs it.
const PROMETHEUS: &str = "prometheus";

/// A private Prometheus scraping one target every second, stopped on drop.
struct Prometheus {
    child: Child,
    port: u16,
    _dir: TempDir,
}

impl Prometheus {
    /// Starts Prometheus on a free loopback port with its own config and
    /// storage, scraping `target` (host:port) every second.
    fn start(target: &str) -> Prometheus {
        let dir = TempDir::new("prometheus");
        let config = dir.path("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: kvbench\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        for _ in 0..5 {
            let port = common::free_port();
            let log = std::fs::File::create(dir.path("prometheus.log")).unwrap();
            let child = Command::new(PROMETHEUS)
                .arg(format!("--config.file={}", config.display()))
                .arg(format!("--storage.tsdb.path={}", dir.path("data").display()))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start prometheus ({e}); install it with `apt-get install -y prometheus` or run `make deps`, which does")
                });
            let mut p = Prometheus {
                child,
                port,
                _dir: TempDir(PathBuf::new()),
            };
            if p.wait_ready() {
                p._dir = dir;
                return p;
            }
            // Another process took the port first: try the next one.
            drop(p);
        }
        let log = std::fs::read_to_string(dir.path("prometheus.log")).unwrap_or_default();
        panic!("prometheus did not start on any of 5 free ports:\n{log}");
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if http_get(self.port, "/-/ready").is_ok_and(|(code, _)| code == 200) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// Waits until the target has been scraped once (and found down, as
    /// nothing listens yet): Prometheus applies new targets only every few
    /// seconds, and a run started before would lose its first scrapes.
    fn wait_scraping(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (_, body) = http_get(self.port, "/api/v1/targets").unwrap();
            let answer: Value = serde_json::from_str(&body).unwrap();
            let scraped = answer["data"]["activeTargets"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["health"] != "unknown"));
            if scraped {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "prometheus scraped nothing within 30 s: {body}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// An instant query's result: each series' labels and value.
    fn query(&self, promql: &str) -> Vec<(HashMap<String, String>, f64)> {
        self.query_at(promql, None)
    }

    /// An instant query's result at `time` (seconds since the epoch), or now.
    fn query_at(&self, promql: &str, time: Option<f64>) -> Vec<(HashMap<String, String>, f64)> {
        let mut path = format!(
            "/api/v1/query?query={}",
            utf8_percent_encode(promql, NON_ALPHANUMERIC)
        );
        if let Some(time) = time {
            path.push_str(&format!("&time={time:.3}"));
        }
        let (code, body) = http_get(self.port, &path).unwrap();
        assert_eq!(code, 200, "{promql}: {body}");
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["status"], "success", "{body}");
        answer["data"]["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let labels = r["metric"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect();
                let value: f64 = r["value"][1].as_str().unwrap().parse().unwrap();
                (labels, value)
            })
            .collect()
    }

    /// `query`'s values by the `op` label.
    fn by_op(&self, promql: &str) -> HashMap<String, f64> {
        self.query(promql)
            .into_iter()
            .map(|(labels, v)| (labels["op"].clone(), v))
            .collect()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.0 GET (no chunked answers), returning the status and body.
fn http_get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n")?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok((code, body.to_string()))
}

/// The `kvbench` object of a JSON report, read through the typed model.
fn kvbench_of(path: &Path) -> Kvbench {
    match model::read(path).unwrap_or_else(|e| panic!("{e}")) {
        Document::Report(r) => r.kvbench.expect("a kvbench report"),
        Document::Sweep(_) | Document::Suite(_) => {
            panic!("{} is a sweep or a suite", path.display())
        }
    }
}

#[test]
fn prometheus_scrapes_exactly_the_counts_of_the_json_and_the_server() {
    let _machine = machine::share();
    let redis = Redis::start();
    let metrics_port = common::free_port();
    let prometheus = Prometheus::start(&format!("127.0.0.1:{metrics_port}"));
    prometheus.wait_scraping();
    let dir = TempDir::new("metrics");
    let json = dir.path("r.json");
    let listen = format!("127.0.0.1:{metrics_port}");
    let out = kvbench_ok(
        redis.port,
        &[
            "--test-time",
            "4",
            "-t",
            "1",
            "-c",
            "2",
            "--metrics-listen",
            &listen,
            "--metrics-linger",
            "3",
            "--json-out-file",
            json.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("metrics at http://{listen}/metrics")),
        "{stderr}"
    );
    let kv = kvbench_of(&json);
    let run = &kv.runs[0].totals;
    // The last value scraped, ignoring the stale markers Prometheus wrote
    // once kvbench had exited. The final values were served during the linger.
    let finished = prometheus.query("max_over_time(kvbench_finished[5m])");
    assert_eq!(finished.len(), 1, "{finished:?}");
    assert_eq!(finished[0].1, 1.0, "no scrape saw the final values");
    let requests =
        prometheus.by_op(r#"last_over_time(kvbench_requests_total{phase="run",run="1"}[5m])"#);
    let latency_count = prometheus.by_op(
        r#"last_over_time(kvbench_request_duration_seconds_count{phase="run",run="1"}[5m])"#,
    );
    let inf_bucket = prometheus.by_op(
        r#"last_over_time(kvbench_request_duration_seconds_bucket{phase="run",run="1",le="+Inf"}[5m])"#,
    );
    assert_eq!(requests.len(), 2, "{requests:?}");
    for (op, witness) in [("SET", "set"), ("GET", "get")] {
        let json_count = run.get(op).unwrap_or_else(|| panic!("no {op}")).count;
        assert!(json_count > 100, "{op}: only {json_count} replies");
        assert_eq!(requests[op], json_count as f64, "{op} requests");
        assert_eq!(latency_count[op], json_count as f64, "{op} _count");
        assert_eq!(inf_bucket[op], json_count as f64, "{op} +Inf");
        // The server counted the same, independently.
        assert_eq!(redis.calls(witness), json_count, "{op} commandstats");
    }
    let hits = prometheus.by_op(r#"last_over_time(kvbench_hits_total{phase="run"}[5m])"#);
    let misses = prometheus.by_op(r#"last_over_time(kvbench_misses_total{phase="run"}[5m])"#);
    let get = run.get("GET").unwrap();
    assert_eq!(hits["GET"] + misses["GET"], get.count as f64);
    assert_eq!(hits["GET"], get.hits as f64);
    // Several scrapes during the run saw the counter grow.
    let scrapes =
        prometheus.query(r#"count_over_time(kvbench_requests_total{phase="run",op="GET"}[5m])"#);
    assert!(
        (3.0..=20.0).contains(&scrapes[0].1),
        "{scrapes:?} scrapes in a 4 s run with 3 s linger"
    );
}

/// Every StatsD line of a run, by datagram.
fn statsd_datagrams(socket: &UdpSocket) -> Vec<String> {
    socket.set_nonblocking(true).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    while let Ok(n) = socket.recv(&mut buf) {
        out.push(String::from_utf8(buf[..n].to_vec()).unwrap());
    }
    out
}

#[test]
fn statsd_lines_arrive_once_a_second_under_memtiers_names() {
    let _machine = machine::share();
    let redis = Redis::start();
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = socket.local_addr().unwrap().port().to_string();
    kvbench_ok(
        redis.port,
        &[
            "--test-time",
            "3",
            "-t",
            "1",
            "-c",
            "1",
            "--statsd-host",
            "127.0.0.1",
            "--statsd-port",
            &port,
            "--statsd-prefix",
            "kvtest.e2e",
            "--statsd-run-label",
            "run 1",
        ],
    );
    let datagrams = statsd_datagrams(&socket);
    let prefix = "kvtest.e2e.run_1.";
    for line in datagrams.iter().flat_map(|d| d.split('\n')) {
        let name = line
            .strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{line} lacks {prefix}"));
        let (metric, rest) = name.split_once(':').expect("name:value|type");
        let (value, kind) = rest.split_once('|').expect("name:value|type");
        assert!(
            metric
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{line}"
        );
        assert!(value.parse::<f64>().is_ok(), "{line}");
        assert!(["g", "ms"].contains(&kind), "{line}");
    }
    // Seconds 0 and 1 are reported while the run goes; the last one may
    // come with the end of the phase, which sends the zeroing batch instead.
    let (seconds, ends): (Vec<&String>, Vec<&String>) = datagrams
        .iter()
        .partition(|d| d.contains(&format!("{prefix}connections:")));
    assert!(
        (2..=3).contains(&seconds.len()),
        "{} per-second batches in a 3 s run: {datagrams:?}",
        seconds.len()
    );
    assert_eq!(ends.len(), 1, "{datagrams:?}");
    assert_eq!(datagrams.last(), ends.first().copied());
    assert!(ends[0].contains(&format!("{prefix}ops_sec:0|g")));
    let mut last_progress = 0.0;
    for batch in &seconds {
        assert!(
            batch.contains(&format!("{prefix}connections:1|g")),
            "{batch}"
        );
        assert!(
            batch.contains(&format!("{prefix}latency_p99_9:")),
            "{batch}"
        );
        let field = |name: &str| -> f64 {
            let key = format!("{prefix}{name}:");
            let line = batch.lines().find(|l| l.starts_with(&key)).unwrap();
            line[key.len()..]
                .split('|')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(field("ops_sec") > 0.0, "{batch}");
        let progress = field("progress_pct");
        assert!(progress > last_progress && progress <= 100.0, "{batch}");
        last_progress = progress;
    }
}

#[test]
fn statsd_sends_that_fail_are_counted_and_the_run_goes_on() {
    let _machine = machine::share();
    let redis = Redis::start();
    // A UDP port nobody listens on: the kernel answers "port unreachable",
    // which the next send on the connected socket reports.
    let closed = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port().to_string();
    drop(closed);
    let out = kvbench_ok(
        redis.port,
        &[
            "--test-time",
            "3",
            "-t",
            "1",
            "-c",
            "1",
            "--statsd-host",
            "127.0.0.1",
            "--statsd-port",
            &port,
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let said = format!("kvbench: StatsD: cannot send to 127.0.0.1:{port}");
    assert_eq!(stderr.matches(&said).count(), 1, "{stderr}");
    let summary = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("kvbench: StatsD: "))
        .find(|l| l.ends_with(" datagrams could not be sent"))
        .unwrap_or_else(|| panic!("no summary: {stderr}"));
    let numbers: Vec<u64> = summary.split(' ').filter_map(|w| w.parse().ok()).collect();
    let (failed, tried) = (numbers[0], numbers[1]);
    // 2 or 3 per-second batches and the end's zeroing batch.
    assert!((3..=4).contains(&tried), "{summary}");
    assert!((1..tried).contains(&failed), "{summary}");
}

#[test]
fn a_bad_or_taken_listen_address_exits_2_before_any_connection() {
    let redis = Redis::start();
    let stderr =
        refused_before_connecting(&redis, ["--test-time", "1", "--metrics-listen", "nonsense"]);
    assert!(stderr.contains("--metrics-listen"), "{stderr}");
    assert!(stderr.contains("ADDR:PORT"), "{stderr}");
    let taken = common::listen();
    let addr = taken.local_addr().unwrap().to_string();
    let stderr = refused_before_connecting(&redis, ["--test-time", "1", "--metrics-listen", &addr]);
    assert!(stderr.contains("--metrics-listen"), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
    let stderr = refused_before_connecting(&redis, ["--test-time", "1", "--metrics-linger", "2"]);
    assert!(stderr.contains("--metrics-linger"), "{stderr}");
}

/// How a slow-loris client's connection ended.
#[derive(Debug)]
enum LorisEnd {
    /// The server closed it (end of file, or a reset).
    Closed,
    /// Still open after every byte it had to send.
    StillOpen,
}

/// Opens a connection to `addr` and sends a request head one byte every
/// 500 ms without ever ending it, for at most `give_up`; says on `done`
/// how it ended.
fn slow_loris(addr: SocketAddr, give_up: Duration, done: mpsc::Sender<LorisEnd>) {
    let mut s = TcpStream::connect(addr).unwrap();
    // The read doubles as the 500 ms pause between two bytes.
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let head = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    let until = Instant::now() + give_up;
    let mut sent = 0;
    let mut buf = [0u8; 1024];
    let end = loop {
        if Instant::now() > until {
            break LorisEnd::StillOpen;
        }
        let byte = head.get(sent).copied().unwrap_or(b'a');
        if s.write_all(&[byte]).is_err() {
            break LorisEnd::Closed;
        }
        sent += 1;
        match s.read(&mut buf) {
            Ok(0) => break LorisEnd::Closed,
            // An answer before the head is complete would be a bug of its
            // own; the read after it tells whether the connection closed.
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break LorisEnd::Closed,
        }
    };
    let _ = done.send(end);
}

/// True once the server has closed `s`: a read returns end of file or a
/// reset within `bound` (false if it is still open after that).
fn closed_by_server(s: &mut TcpStream, bound: Duration) -> bool {
    s.set_read_timeout(Some(bound)).unwrap();
    let mut buf = [0u8; 256];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            // Whatever the server said before closing (nothing is expected).
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
}

/// Seconds since the epoch, as Prometheus' API takes them.
fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The arguments of both runs of the attack test, but for the linger.
fn run_args(listen: &str, json: &Path) -> Vec<String> {
    [
        "--test-time",
        "6",
        "-t",
        "1",
        "-c",
        "2",
        "--metrics-listen",
        listen,
        "--json-out-file",
        json.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn a_slow_loris_and_200_idle_connections_neither_stop_scrapes_nor_slow_the_run() {
    let _machine = machine::alone();
    let redis = Redis::start();
    let metrics_port = common::free_port();
    let listen = format!("127.0.0.1:{metrics_port}");
    let addr: SocketAddr = listen.parse().unwrap();
    let prometheus = Prometheus::start(&listen);
    prometheus.wait_scraping();
    let dir = TempDir::new("metrics-attack");

    // The baseline: the same run, scraped by the same Prometheus, without
    // the attackers.
    let baseline_json = dir.path("baseline.json");
    let args = run_args(&listen, &baseline_json);
    kvbench_ok(
        redis.port,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );

    let attacked_json = dir.path("attacked.json");
    let mut args = run_args(&listen, &attacked_json);
    // Long enough for the slow-loris to reach the server's deadline while
    // kvbench still serves, so that its close is the server's doing.
    args.extend(["--metrics-linger".to_string(), "5".to_string()]);
    let mut kvbench = common::kvbench_at(redis.port)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let serving_by = Instant::now() + Duration::from_secs(30);
    while !http_get(metrics_port, "/metrics").is_ok_and(|(code, _)| code == 200) {
        assert!(kvbench.try_wait().unwrap().is_none(), "kvbench ended early");
        assert!(Instant::now() < serving_by, "the endpoint never answered");
        std::thread::sleep(Duration::from_millis(50));
    }
    // 200 idle connections, which never send a byte, then the slow-loris.
    let mut idle: Vec<TcpStream> = (0..200)
        .map(|i| {
            TcpStream::connect_timeout(&addr, Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("idle connection {i} could not connect: {e}"))
        })
        .collect();
    let (loris_done, loris_end) = mpsc::channel();
    let loris = std::thread::spawn(move || slow_loris(addr, Duration::from_secs(60), loris_done));
    let attack_from = unix_now();

    let (code, body) = http_get(metrics_port, "/metrics")
        .unwrap_or_else(|e| panic!("no answer while the attackers are connected: {e}"));
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("kvbench_requests_total"), "{body}");

    let end = loris_end.recv_timeout(Duration::from_secs(90)).unwrap();
    assert!(matches!(end, LorisEnd::Closed), "{end:?}");
    // By now every idle connection is past its deadline too.
    for (i, s) in idle.iter_mut().enumerate() {
        assert!(
            closed_by_server(s, Duration::from_secs(30)),
            "idle connection {i} is still open"
        );
    }
    // Still serving, so the connections were closed by the endpoint, not by
    // kvbench's exit.
    assert!(
        kvbench.try_wait().unwrap().is_none(),
        "kvbench ended before the slow-loris was closed: make the run longer"
    );
    let (code, _) = http_get(metrics_port, "/metrics").unwrap();
    assert_eq!(code, 200);
    let attack_to = unix_now();
    loris.join().unwrap();
    let out = kvbench.wait_with_output().unwrap();
    common::assert_success(&out, "under attack");

    // Every scrape Prometheus made while the attackers were connected
    // succeeded, and there were several.
    let window_ms = ((attack_to - attack_from) * 1000.0) as u64;
    let at_end = |f: &str| -> f64 {
        let promql = format!("{f}(up{{job=\"kvbench\"}}[{window_ms}ms])");
        let result = prometheus.query_at(&promql, Some(attack_to));
        assert_eq!(result.len(), 1, "{promql}: {result:?}");
        result[0].1
    };
    let scrapes = at_end("count_over_time");
    let up = at_end("sum_over_time");
    assert!(
        scrapes >= 3.0,
        "{scrapes} scrapes in {window_ms} ms of 1 s scrapes"
    );
    assert_eq!(up, scrapes, "scrapes that failed under attack");

    // The attackers cost the run nothing: the attacked run is as fast as
    // the baseline, within the noise of a loaded machine. Two closed-loop
    // runs of a few seconds on a 2-core machine shared with redis-server,
    // Prometheus and other people's builds differ on their own: from 0.91
    // to 1.27 at a load average of 5 to 7, and down to 0.56 when other
    // tests' benchmarks overlapped (hence `machine::alone`).
    // A full-suite run here met 1.75 (its baseline slowed by parallel builds).
    // So the bounds are generous, both ways, and catch only a gross slowdown:
    // an endpoint that held the run up would stop it, far below half.
    let ops = |path: &Path| kvbench_of(path).runs[0].ops_per_sec;
    let (baseline, attacked) = (ops(&baseline_json), ops(&attacked_json));
    assert!(baseline > 100.0, "baseline: {baseline} ops/s");
    let ratio = attacked / baseline;
    assert!(
        (0.5..=2.5).contains(&ratio),
        "{attacked} ops/s under attack, {baseline} without: ratio {ratio}"
    );
}
