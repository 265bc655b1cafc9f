//! Behind twemproxy, which refuses `TIME`, every machine measures its clock
//! offset against the first watched backend: two machines whose clocks are
//! set 0.5 s off either way (libfaketime) meet at the barrier through the
//! proxy, measure their offsets against shard 0's clock, start together and
//! merge with a start skew of at most 20 ms, corrected. Without the watched
//! backend their offsets are unknown: each starts at the barrier's time on
//! its own clock, a second apart.

use std::process::{Child, Command, Stdio};

use super::three_shards_behind_nutcracker;
use crate::common::launch::{merge_ok, wait_ok};
use crate::common::{TempDir, f, kvbench_at};

#[test]
fn clocks_set_off_behind_a_proxy_are_measured_against_a_watched_backend() {
    let (shards, proxy) = three_shards_behind_nutcracker();
    let dir = TempDir::new("watch-clock");
    let watch = format!("redis://127.0.0.1:{}", shards[0].port);
    let files: Vec<String> = (0..2)
        .map(|i| dir.path(&format!("s{i}.json")).display().to_string())
        .collect();
    let children: Vec<Child> = ["+0.5", "-0.5"]
        .iter()
        .enumerate()
        .map(|(i, offset)| {
            let base = kvbench_at(proxy.port);
            let mut c = Command::new("faketime");
            c.args(["-f", &format!("{offset}s")])
                .arg(base.get_program())
                .args(base.get_args())
                // A constant offset: the monotonic clock, which paces the
                // run, is left alone.
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env_remove("KVBENCH_AUTH")
                .env_remove("KVBENCH_RUN_ID")
                .env_remove("SLURM_JOB_ID")
                .args([
                    "-t",
                    "1",
                    "-c",
                    "2",
                    "--ratio",
                    "1:1",
                    "--key-maximum",
                    "1000",
                ])
                .args(["--test-time", "2", "--allow-invalid", "--hide-histogram"])
                .args(["--shard-count", "2", "--shard-index", &i.to_string()])
                .args(["--start-at", "barrier", "--run-id", "clock-behind-proxy"])
                .args(["--barrier-timeout", "60", "--watch", &watch])
                .args(["--json-out-file", &files[i]])
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            c.spawn()
                .expect("start kvbench under faketime (make deps installs it)")
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        wait_ok(c, &format!("machine {i}"));
    }
    for (i, file) in files.iter().enumerate() {
        let doc = crate::common::read_json(std::path::Path::new(file));
        let measured = f(&doc["kvbench"]["shard"]["clock"]["offset_start_ms"]);
        let set_off = [500.0, -500.0][i];
        // Offset is server − local: a clock 0.5 s ahead measures −500 ms.
        assert!(
            (measured + set_off).abs() < 20.0,
            "machine {i}: offset {measured} ms, its clock set {set_off} ms off"
        );
    }
    let merged = merge_ok(&files, &dir.path("merged.json"), &[]);
    let m = &merged["kvbench"]["merged"];
    assert_eq!(m["clocks_corrected"], true, "{m}");
    let skew = f(&m["start_skew_ms"]);
    assert!((0.0..=20.0).contains(&skew), "start skew {skew} ms: {m}");
}
