//! The Kubernetes Jobs in deploy/kubernetes/ (kvbench-job.yaml, reports on
//! stdout; kvbench-job-volume.yaml, the whitepaper's length with reports on
//! a volume), held to what kvbench reads: the manifest's own environment (names and values, read from
//! the YAML text) and its own argument list, with Kubernetes' `$(VAR)`
//! expansion, run once per completion index against a private redis-server,
//! the pods launched apart as a scheduler would; they meet at the barrier
//! under the Job's uid (`--start-at barrier`, `KVBENCH_RUN_ID`), start
//! together, and their reports — the stdout Job's logs (stdout and stderr in
//! one, as `kubectl logs` gives them) reduced to the JSON by the recipe's own
//! `sed`, the volume Job's files — merge into exactly what the server
//! executed. The stdout Job's load keeps its report under the kubelet's log
//! cap. A change to a manifest that kvbench would not understand breaks this
//! test.

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::{Redis, TempDir, kvbench, pipeline, read_json, total, u};

const MANIFEST: &str = include_str!("../../deploy/kubernetes/kvbench-job.yaml");
const VOLUME_MANIFEST: &str = include_str!("../../deploy/kubernetes/kvbench-job-volume.yaml");

/// What the kubelet keeps of a container's log by default
/// (`containerLogMaxSize`, 10 Mi).
const LOG_CAP: f64 = 10.0 * 1024.0 * 1024.0;

/// Bytes of JSON report a second of load makes, per-second histograms
/// included (measured: a 10 s `-t 4 -c 50 --ratio 1:10` run wrote 150 KB).
const REPORT_BYTES_PER_SECOND: f64 = 11_000.0;

/// The value of the first `key: value` line (any indentation), unquoted.
fn scalar<'a>(manifest: &'a str, key: &str) -> &'a str {
    manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix(':'))
        .map(|v| v.trim().trim_matches('"'))
        .unwrap_or_else(|| panic!("the manifest has no `{key}:`"))
}

/// The container's `env:` entries: name → literal value (`None` for a
/// `valueFrom`).
fn env_entries(manifest: &str) -> Vec<(String, Option<String>)> {
    let mut lines = manifest
        .lines()
        .skip_while(|l| l.trim() != "env:")
        .skip(1)
        .peekable();
    let mut entries = Vec::new();
    while let Some(line) = lines.next() {
        let Some(name) = line.trim().strip_prefix("- name:") else {
            if line.trim().starts_with('#') || line.starts_with("              ") {
                continue;
            }
            break;
        };
        let value = lines
            .peek()
            .and_then(|next| next.trim().strip_prefix("value:"))
            .map(|v| v.trim().trim_matches('"').to_string());
        entries.push((name.trim().to_string(), value));
    }
    entries
}

/// The container's `args:` list, unquoted.
fn manifest_args(manifest: &str) -> Vec<String> {
    manifest
        .lines()
        .skip_while(|l| l.trim() != "args:")
        .skip(1)
        .map_while(|l| l.trim().strip_prefix("- "))
        .map(|a| a.trim_matches('"').to_string())
        .collect()
}

/// Kubernetes' expansion of `$(VAR)` in an argument.
fn expand(arg: &str, env: &HashMap<String, String>) -> String {
    env.iter().fold(arg.to_string(), |arg, (name, value)| {
        arg.replace(&format!("$({name})"), value)
    })
}

/// The seconds of load a manifest's args ask for: warm-up and runs.
fn load_seconds(args: &[String]) -> f64 {
    let value = |flag: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(&format!("{flag}=")))
            .unwrap_or_else(|| panic!("no {flag}= in {args:?}"))
            .parse::<f64>()
            .unwrap()
    };
    value("--warmup-time") + value("--run-count") * value("--test-time")
}

/// What both Jobs share: an Indexed Job with no start computed in advance,
/// the index from its annotation, the run id from its uid (a new one on
/// each apply, labelled so by every Kubernetes version), one shard per
/// completion, all at once, meeting at the barrier.
fn assert_job_shape(manifest: &str) {
    assert_eq!(scalar(manifest, "completionMode"), "Indexed");
    assert!(
        !manifest.contains("kind: ConfigMap"),
        "no start time is computed in advance"
    );
    let field_paths: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("fieldPath:"))
        .map(str::trim)
        .collect();
    assert_eq!(
        field_paths,
        [
            "metadata.annotations['batch.kubernetes.io/job-completion-index']",
            "metadata.labels['controller-uid']"
        ],
        "the index from the Job's annotation, the run id from its uid"
    );
    let env = env_entries(manifest);
    let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "JOB_COMPLETION_INDEX",
            "KVBENCH_SHARD_COUNT",
            "KVBENCH_RUN_ID"
        ]
    );
    let count = env[1]
        .1
        .as_deref()
        .expect("KVBENCH_SHARD_COUNT has a value");
    assert_eq!(
        scalar(manifest, "completions"),
        count,
        "one shard per completion"
    );
    assert_eq!(
        scalar(manifest, "parallelism"),
        count,
        "every shard runs at once"
    );
    let args = manifest_args(manifest);
    assert!(args.contains(&"--start-at=barrier".to_string()), "{args:?}");
}

#[test]
fn the_manifests_shape_is_what_kvbench_reads() {
    assert_job_shape(MANIFEST);
    let args = manifest_args(MANIFEST);
    // The default path needs no shared storage: each pod's report is its
    // log, and no volume is asked for (ReadWriteMany is often missing).
    let json: Vec<&String> = args
        .iter()
        .filter(|a| a.starts_with("--json-out-file"))
        .collect();
    assert_eq!(
        json,
        ["--json-out-file=-"],
        "the report on stdout: {args:?}"
    );
    let yaml: Vec<&str> = MANIFEST
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    for absent in [
        "PersistentVolumeClaim",
        "ReadWriteMany",
        "volumeMounts:",
        "volumes:",
    ] {
        assert!(
            !yaml.iter().any(|l| l.contains(absent)),
            "the default Job has no {absent}"
        );
    }
    // Its log is its report only while the kubelet keeps all of it.
    // Half again as much as measured still fits.
    let bytes = load_seconds(&args) * REPORT_BYTES_PER_SECOND;
    assert!(
        bytes * 1.5 < LOG_CAP,
        "{} s of load make about {bytes} bytes of report: too near the log cap",
        load_seconds(&args)
    );
    // The collection the manifest and the docs give is the one the test
    // below runs.
    assert!(MANIFEST.contains(COLLECT), "the manifest's collect loop");
    assert!(DOCS.contains(COLLECT), "docs/scale-out.md's collect loop");
}

#[test]
fn the_volume_manifest_runs_the_whitepapers_length_onto_its_claim() {
    assert_job_shape(VOLUME_MANIFEST);
    let args = manifest_args(VOLUME_MANIFEST);
    // 180 s of warm-up, then 3 runs of 600 s: over the log cap.
    assert_eq!(load_seconds(&args), 180.0 + 3.0 * 600.0, "{args:?}");
    assert!(load_seconds(&args) * REPORT_BYTES_PER_SECOND > LOG_CAP);
    let json: Vec<&String> = args
        .iter()
        .filter(|a| a.starts_with("--json-out-file"))
        .collect();
    assert_eq!(
        json,
        ["--json-out-file=/results/run-$(KVBENCH_RUN_ID)-{shard}.json"],
        "one file per apply and pod on the volume: {args:?}"
    );
    for present in [
        "kind: PersistentVolumeClaim",
        "accessModes: [\"ReadWriteMany\"]",
        "mountPath: /results",
        "claimName: kvbench-results",
        "fsGroup: 65532",
    ] {
        assert!(VOLUME_MANIFEST.contains(present), "no {present}");
    }
    assert!(DOCS.contains("kvbench-job-volume.yaml"), "docs name it");
}

/// What keeps the JSON document of a pod's log (`kubectl logs` mixes
/// stdout with stderr): from its first line, `{`, to its last, `}`.
const COLLECT: &str = "sed -n '/^{$/,/^}$/p'";

const DOCS: &str = include_str!("../../docs/scale-out.md");

/// A pod's log as `kubectl logs` gives it, stdout and stderr interleaved,
/// reduced to its JSON by [`COLLECT`], as the recipe does.
fn collected(log: &std::path::Path, json: &std::path::Path) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{COLLECT} < \"$0\" > \"$1\""))
        .arg(log)
        .arg(json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Where a Job's pods put their reports.
#[derive(Clone, Copy)]
enum Reports {
    /// On stdout: each pod's log, reduced by the recipe's `sed`.
    Logs,
    /// On the claim mounted at `/results`, here a directory of the test's.
    Volume,
}

#[test]
fn the_jobs_pods_as_the_manifest_starts_them_merge_into_the_servers_counts() {
    run_job(MANIFEST, Reports::Logs);
}

#[test]
fn the_volume_jobs_pods_write_their_files_there_and_merge_into_the_servers_counts() {
    run_job(VOLUME_MANIFEST, Reports::Volume);
}

/// Runs `manifest`'s pods as Kubernetes would start them, scaled to this
/// machine, against a private redis-server; their reports, collected as
/// `reports` says, merge into exactly what the server executed.
fn run_job(manifest: &str, reports: Reports) {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("k8s-job");
    let env = env_entries(manifest);
    let count: u64 = env
        .iter()
        .find(|(n, _)| n == "KVBENCH_SHARD_COUNT")
        .and_then(|(_, v)| v.as_deref())
        .expect("KVBENCH_SHARD_COUNT has a literal value")
        .parse()
        .expect("KVBENCH_SHARD_COUNT is a number");
    // What the Job controller's label gives every pod of one Job: its uid.
    let job_uid = format!("0d6f2c1e-contract-{}", redis.port);
    let results = dir.path("results");
    std::fs::create_dir(&results).unwrap();

    // The manifest's load, scaled to this machine; every flag the test
    // changes must be in the manifest, spelled as kvbench spells it.
    let port = redis.port.to_string();
    let scaled: [(&str, &str); 7] = [
        ("--server", "127.0.0.1"),
        ("--port", &port),
        ("--threads", "1"),
        ("--clients", "2"),
        ("--test-time", "1"),
        ("--warmup-time", "0"),
        ("--run-count", "1"),
    ];
    let mut args = manifest_args(manifest);
    for (flag, value) in scaled {
        let arg = args
            .iter_mut()
            .find(|a| a.starts_with(&format!("{flag}=")))
            .unwrap_or_else(|| panic!("the manifest's args have no {flag}="));
        *arg = format!("{flag}={value}");
    }
    // The claim's mount point is a directory of the test's.
    for arg in &mut args {
        *arg = arg.replace("/results/", &format!("{}/", results.display()));
    }
    let children: Vec<Child> = (0..count)
        .map(|index| {
            // Pods are scheduled and pulled apart: the barrier lines them up.
            if index > 0 {
                std::thread::sleep(Duration::from_millis(500));
            }
            let mut pod_env: HashMap<String, String> = HashMap::new();
            for (name, value) in &env {
                let value = match name.as_str() {
                    // What Kubernetes fills in from the annotation and the label.
                    "JOB_COMPLETION_INDEX" => index.to_string(),
                    "KVBENCH_RUN_ID" => job_uid.clone(),
                    _ => value
                        .clone()
                        .unwrap_or_else(|| panic!("{name} needs a value")),
                };
                pod_env.insert(name.clone(), value);
            }
            let args: Vec<String> = args.iter().map(|a| expand(a, &pod_env)).collect();
            // The container runtime keeps both streams in one log.
            let log = std::fs::File::create(dir.path(&format!("pod-{index}.log"))).unwrap();
            Command::new(env!("CARGO_BIN_EXE_kvbench"))
                .args(&args)
                .envs(&pod_env)
                .env_remove("KVBENCH_AUTH")
                .stdout(Stdio::from(log.try_clone().unwrap()))
                .stderr(Stdio::from(log))
                .spawn()
                .unwrap()
        })
        .collect();
    let mut files = Vec::new();
    for (i, mut child) in children.into_iter().enumerate() {
        let status = child.wait().unwrap();
        let log = dir.path(&format!("pod-{i}.log"));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(status.success(), "pod {i}: {status}\n{text}");
        // The log holds the text report either way.
        assert!(text.contains("ALL STATS"), "pod {i}'s log: {text}");
        let file = match reports {
            Reports::Logs => {
                let json = dir.path(&format!("run-{i}.json"));
                collected(&log, &json);
                json
            }
            // Named by the Job's uid and the pod's index.
            Reports::Volume => results.join(format!("run-{job_uid}-{i}.json")),
        };
        files.push(file.to_str().unwrap().to_string());
    }
    let mut starts = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let doc = read_json(file.as_ref());
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["source"], "kubernetes", "{shard}");
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert_eq!(u(&shard["count"]), count, "{shard}");
        assert!(shard["late"].is_null(), "{shard}");
        assert_eq!(shard["barrier"]["run_id"], job_uid.as_str(), "{shard}");
        starts.push(u(&doc["kvbench"]["runs"][0]["start_time_ms"]));
    }
    let spread = starts.iter().max().unwrap() - starts.iter().min().unwrap();
    assert!(spread <= 50, "the pods started at {starts:?}");
    let keys = pipeline(redis.port, &[["KEYS", "kvbench:barrier:*"]]).remove(0);
    assert_eq!(
        keys,
        kvbench::protocol::value::Value::Array(vec![]),
        "no barrier key is left"
    );
    let merged = dir.path("total.json");
    let mut merge = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    merge.extend(["-o", merged.to_str().unwrap()]);
    let out = kvbench(&merge);
    assert!(
        out.status.success(),
        "kvbench merge: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = read_json(&merged);
    let (sets, gets) = (redis.calls("set"), redis.calls("get"));
    assert!(
        sets > 0 && gets > 0,
        "the server saw {sets} SETs, {gets} GETs"
    );
    assert_eq!(total(&doc, "SET", "count"), sets);
    assert_eq!(total(&doc, "GET", "count"), gets);
}
