//! The server gone between two tests of a suite: the load had started, so
//! the suite exits 3 (not 2, a usage error's "before any load"), with the
//! test done printed and saved.
//!
//! kvbench's stdout is a pipe the test has filled: kvbench prints the first
//! test's `-q` line before it starts the next test, so it waits there, and
//! the server is killed exactly between the tests.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::commandstats;
use crate::common::{Redis, TempDir, read_json};

/// A pipe whose buffer is full: (read end, write end).
fn full_pipe() -> (File, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) returns.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are new and owned here alone.
    let (read, write) = unsafe { (File::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let set = |flags: i32| {
        // SAFETY: fcntl(2) on a descriptor owned here.
        assert_eq!(unsafe { libc::fcntl(fds[1], libc::F_SETFL, flags) }, 0);
    };
    set(libc::O_NONBLOCK);
    let mut filler = File::from(write.try_clone().unwrap());
    loop {
        match filler.write(&[b'.'; 512]) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) => panic!("filling the pipe: {e}"),
        }
    }
    // The child writes with blocking writes.
    set(0);
    (read, write)
}

#[test]
fn the_server_killed_between_tests_exits_3_with_the_first_test_kept() {
    let redis = Redis::start();
    let dir = TempDir::new("suite-server-gone");
    let json = dir.path("s.json");
    let (mut stdout, write) = full_pipe();
    let child = Command::new(env!("CARGO_BIN_EXE_kvbench"))
        .args(["suite", "-p", &redis.port.to_string()])
        .args(["-t", "ping_inline,set", "-n", "200", "-c", "1", "-q"])
        .arg("--json-out-file")
        .arg(&json)
        .env_remove("KVBENCH_AUTH")
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first test's 200 PINGs served: kvbench saves it and blocks on
    // its `-q` line, before the second test.
    let give_up = Instant::now() + Duration::from_secs(60);
    while commandstats(&redis).get("ping").map_or(0, |c| c.0) < 200 {
        assert!(Instant::now() < give_up, "the first test never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        commandstats(&redis).get("set"),
        None,
        "the second test began"
    );
    drop(redis);
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        stdout.read_to_end(&mut text).unwrap();
        String::from_utf8_lossy(&text)
            .trim_start_matches('.')
            .to_string()
    });
    let out = child.wait_with_output().unwrap();
    let printed = reader.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("a test could not run after 1 of 2 tests had"),
        "{stderr}"
    );
    assert!(printed.starts_with("PING_INLINE"), "{printed}");
    let doc = read_json(&json);
    let tests = doc["suite"]["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1, "{}", doc["suite"]);
    assert_eq!(doc["kvbench"]["complete"], false, "{}", doc["kvbench"]);
}
