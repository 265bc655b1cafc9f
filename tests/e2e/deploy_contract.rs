//! The Kubernetes Job in deploy/kubernetes/kvbench-job.yaml, held to what
//! kvbench reads: the manifest's own environment (names and values, read from
//! the YAML text) and its own argument list, with Kubernetes' `$(VAR)`
//! expansion, run once per completion index against a private redis-server,
//! the pods launched apart as a scheduler would; they meet at the barrier
//! under the Job's name (`--start-at barrier`, `KVBENCH_RUN_ID`), start
//! together, print their reports on stdout, and their logs (stdout and
//! stderr in one, as `kubectl logs` gives them), reduced to the JSON by the
//! recipe's own `sed`, merge into exactly what the server executed. A
//! change to the manifest that kvbench would not understand breaks this test.

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::{Redis, TempDir, kvbench, pipeline, read_json, total, u};

const MANIFEST: &str = include_str!("../../deploy/kubernetes/kvbench-job.yaml");

/// The value of the first `key: value` line (any indentation), unquoted.
fn scalar<'a>(key: &str) -> &'a str {
    MANIFEST
        .lines()
        .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix(':'))
        .map(|v| v.trim().trim_matches('"'))
        .unwrap_or_else(|| panic!("the manifest has no `{key}:`"))
}

/// The container's `env:` entries: name → literal value (`None` for a
/// `valueFrom`).
fn env_entries() -> Vec<(String, Option<String>)> {
    let mut lines = MANIFEST
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
fn manifest_args() -> Vec<String> {
    MANIFEST
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

#[test]
fn the_manifests_shape_is_what_kvbench_reads() {
    assert_eq!(scalar("completionMode"), "Indexed");
    assert!(
        !MANIFEST.contains("kind: ConfigMap"),
        "no start time is computed in advance"
    );
    let field_paths: Vec<&str> = MANIFEST
        .lines()
        .filter_map(|l| l.trim().strip_prefix("fieldPath:"))
        .map(str::trim)
        .collect();
    assert_eq!(
        field_paths,
        [
            "metadata.annotations['batch.kubernetes.io/job-completion-index']",
            "metadata.labels['batch.kubernetes.io/job-name']"
        ],
        "the index from the Job's annotation, the run id from its name"
    );
    let env = env_entries();
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
    assert_eq!(scalar("completions"), count, "one shard per completion");
    assert_eq!(scalar("parallelism"), count, "every shard runs at once");
    let args = manifest_args();
    assert!(args.contains(&"--start-at=barrier".to_string()), "{args:?}");
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
    // The collection the manifest and the docs give is the one the test
    // below runs.
    assert!(MANIFEST.contains(COLLECT), "the manifest's collect loop");
    assert!(DOCS.contains(COLLECT), "docs/scale-out.md's collect loop");
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

#[test]
fn the_jobs_pods_as_the_manifest_starts_them_merge_into_the_servers_counts() {
    let redis = Redis::start();
    redis.reset_stats();
    let dir = TempDir::new("k8s-job");
    let env = env_entries();
    let count: u64 = env
        .iter()
        .find(|(n, _)| n == "KVBENCH_SHARD_COUNT")
        .and_then(|(_, v)| v.as_deref())
        .expect("KVBENCH_SHARD_COUNT has a literal value")
        .parse()
        .expect("KVBENCH_SHARD_COUNT is a number");
    // What the Job controller's label gives every pod of one Job.
    let job_name = format!("kvbench-contract-{}", redis.port);

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
    let mut args = manifest_args();
    for (flag, value) in scaled {
        let arg = args
            .iter_mut()
            .find(|a| a.starts_with(&format!("{flag}=")))
            .unwrap_or_else(|| panic!("the manifest's args have no {flag}="));
        *arg = format!("{flag}={value}");
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
                    "KVBENCH_RUN_ID" => job_name.clone(),
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
    for (i, mut child) in children.into_iter().enumerate() {
        let status = child.wait().unwrap();
        let log = dir.path(&format!("pod-{i}.log"));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(status.success(), "pod {i}: {status}\n{text}");
        // The log holds more than the report: the text report and the
        // barrier's messages, which the collection leaves out.
        assert!(text.contains("ALL STATS"), "pod {i}'s log: {text}");
        collected(&log, &dir.path(&format!("run-{i}.json")));
    }

    let files: Vec<String> = (0..count)
        .map(|i| {
            dir.path(&format!("run-{i}.json"))
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let mut starts = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let doc = read_json(file.as_ref());
        let shard = &doc["kvbench"]["shard"];
        assert_eq!(shard["source"], "kubernetes", "{shard}");
        assert_eq!(u(&shard["index"]), i as u64, "{shard}");
        assert_eq!(u(&shard["count"]), count, "{shard}");
        assert!(shard["late"].is_null(), "{shard}");
        assert_eq!(shard["barrier"]["run_id"], job_name.as_str(), "{shard}");
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
