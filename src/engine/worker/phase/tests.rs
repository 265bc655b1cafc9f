//! The phase clock, the stall bound of request-bound phases, and what a
//! worker sends when its phase starts late.

use std::io::Read;
use std::sync::Arc;

use clap::Parser;

use super::*;
use crate::cli::Cli;
use crate::config::Config;
use crate::engine::interrupt::Interrupt;
use crate::engine::worker::WorkerBuilder;

#[test]
fn a_phase_stalls_only_after_the_limit_without_a_new_reply() {
    let t0 = Instant::now();
    let limit = Duration::from_secs(10);
    let mut p = Progress {
        banked: 0,
        replies: 0,
        at: t0,
    };
    assert!(!p.stalled(0, t0 + Duration::from_secs(9), limit));
    // A reply at 9 s starts the wait afresh.
    assert!(!p.stalled(1, t0 + Duration::from_secs(9), limit));
    // The second is reported: its count moves to the bank, no progress.
    p.banked += 1;
    assert!(!p.stalled(0, t0 + Duration::from_secs(19), limit));
    assert!(p.stalled(0, t0 + Duration::from_millis(19_001), limit));
    assert!(!p.stalled(1, t0 + Duration::from_millis(19_002), limit));
}

#[test]
fn a_timed_phase_holds_until_its_deadline_unless_interrupted() {
    let t0 = Instant::now();
    let mut clock = PhaseClock::new(Stop::Time(Duration::from_secs(4)), t0);
    assert!(clock.holds(t0 + Duration::from_millis(3999)));
    assert!(!clock.holds(t0 + Duration::from_secs(4)));
    clock.interrupt(t0 + Duration::from_secs(1));
    assert!(!clock.holds(t0 + Duration::from_secs(2)));
    // A request-bound phase ends when its requests are done.
    assert!(!PhaseClock::new(Stop::Requests(10), t0).holds(t0));
}

#[test]
fn a_timed_phase_that_starts_after_its_deadline_sends_nothing() {
    // memcache text needs no handshake, so a bare listener is the server.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let args = [
        "kvbench",
        "-p",
        &port,
        "-P",
        "memcache_text",
        "-t",
        "1",
        "-c",
        "1",
    ];
    let args = Cli::try_parse_from(args.iter().chain(&["--test-time", "1"]))
        .unwrap()
        .run;
    let (command_tx, commands) = crossbeam_channel::unbounded();
    let (reports_tx, reports) = crossbeam_channel::unbounded();
    let worker = WorkerBuilder {
        thread: 0,
        config: Arc::new(Config::from_args(args).unwrap()),
        commands,
        interrupt: Interrupt::default(),
        early_end: Default::default(),
        reports: reports_tx,
        cluster: None,
        failed_keys: None,
    }
    .build()
    .unwrap();
    let (mut server, _) = listener.accept().unwrap();
    // The worker gets the phase after its deadline and its drain have passed
    // (a thread that started that late on a loaded machine): anything it
    // sent would fall outside the run time that every rate is computed over.
    let started_at = Instant::now() - (Duration::from_secs(1) + DRAIN_LIMIT * 2);
    command_tx
        .send(Command::Phase {
            index: 1,
            stop: Stop::Time(Duration::from_secs(1)),
            started_at,
            prefill: false,
        })
        .unwrap();
    drop(command_tx);
    worker.run();
    let last = reports
        .try_iter()
        .find_map(|r| match r {
            Report::Second {
                last: true, stats, ..
            } => Some(stats),
            _ => None,
        })
        .unwrap();
    assert_eq!(last.replies(), 0);
    // The worker is gone, so its connection is closed: read to the end.
    server
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut sent = Vec::new();
    server.read_to_end(&mut sent).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&sent),
        "",
        "bytes sent after the deadline"
    );
}
