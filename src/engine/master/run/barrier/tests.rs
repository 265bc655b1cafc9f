//! The barrier's steps against an in-memory board shared by threads.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{Board, Failure, Outcome, Want, wait};
use crate::engine::interrupt::Interrupt;

/// Every key of one barrier, as a server would hold them.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<HashMap<String, i64>>>);

impl Shared {
    fn add(&self, key: &str, by: i64) -> u64 {
        let mut m = self.0.lock().unwrap();
        let v = m.entry(key.to_string()).or_insert(0);
        *v += by;
        (*v).max(0) as u64
    }
    fn keys(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

impl Board for Shared {
    fn check_in(&mut self, index: u32, _: Duration) -> io::Result<bool> {
        Ok(self.add(&format!("in:{index}"), 1) == 1)
    }
    fn present(&mut self, count: u32) -> io::Result<u64> {
        let m = self.0.lock().unwrap();
        Ok((0..count)
            .filter(|i| m.contains_key(&format!("in:{i}")))
            .count() as u64)
    }
    fn arrive(&mut self, _: Duration) -> io::Result<u64> {
        Ok(self.add("arrivals", 1))
    }
    fn publish(&mut self, t_us: u64, _: Duration) -> io::Result<u64> {
        let mut m = self.0.lock().unwrap();
        Ok(*m.entry("t".into()).or_insert(t_us as i64) as u64)
    }
    fn read_t(&mut self) -> io::Result<Option<u64>> {
        Ok(self.0.lock().unwrap().get("t").map(|t| *t as u64))
    }
    fn withdraw(&mut self, index: u32) -> io::Result<()> {
        self.0.lock().unwrap().remove(&format!("in:{index}"));
        Ok(())
    }
    fn remove(&mut self, _: u32) -> io::Result<()> {
        self.0.lock().unwrap().clear();
        Ok(())
    }
    fn post_failure(&mut self, index: u32, _: &str, _: Duration) -> io::Result<()> {
        let mut m = self.0.lock().unwrap();
        m.entry("failed".into()).or_insert(i64::from(index) + 1);
        Ok(())
    }
    fn failure(&mut self) -> io::Result<Option<Failure>> {
        let m = self.0.lock().unwrap();
        Ok(m.get("failed").map(|n| Failure {
            index: (*n - 1) as u32,
            why: None,
        }))
    }
}

fn want(index: u32, count: u32, timeout_ms: u64) -> Want {
    Want {
        index,
        count,
        timeout: Duration::from_millis(timeout_ms),
        offset_ms: 0.0,
    }
}

#[test]
fn every_shard_gets_one_start_and_the_last_out_removes_the_keys() {
    let board = Shared::default();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let mut b = board.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(30 * u64::from(i)));
                wait(&mut b, want(i, 4, 10_000), &Interrupt::default()).unwrap()
            })
        })
        .collect();
    let met: Vec<_> = handles
        .into_iter()
        .map(|h| match h.join().unwrap() {
            Outcome::Met(m) => m,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(met.iter().all(|m| m.published == met[0].published));
    let mut order: Vec<u64> = met.iter().map(|m| m.arrival).collect();
    order.sort_unstable();
    assert_eq!(order, [1, 2, 3, 4]);
    // The first waited for the last (90 ms later), the last for nobody.
    assert!(met[0].waited >= Duration::from_millis(60), "{:?}", met[0]);
    assert_eq!(board.keys(), 0);
}

#[test]
fn a_second_check_in_of_one_index_is_stale() {
    let mut board = Shared::default();
    board.add("in:1", 1);
    let got = wait(&mut board, want(1, 2, 1_000), &Interrupt::default()).unwrap();
    assert_eq!(got, Outcome::Stale);
}

#[test]
fn a_barrier_short_of_shards_times_out_and_leaves_no_key() {
    let board = Shared::default();
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let mut b = board.clone();
            std::thread::spawn(move || wait(&mut b, want(i, 3, 200), &Interrupt::default()))
        })
        .collect();
    let outcomes: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().unwrap().unwrap())
        .collect();
    // The first to give up says how many had come; the other stops on its
    // post, naming it, rather than counting again.
    let timed_out: Vec<_> = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::TimedOut(_)))
        .collect();
    assert_eq!(timed_out.len(), 1, "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Outcome::TimedOut(2) | Outcome::Failed(_))),
        "{outcomes:?}"
    );
    assert_eq!(board.keys(), 0);
}

#[test]
fn a_posted_failure_stops_the_waiting_shards_long_before_their_timeout() {
    let board = Shared::default();
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let mut b = board.clone();
            std::thread::spawn(move || {
                let started = std::time::Instant::now();
                let got = wait(&mut b, want(i, 3, 60_000), &Interrupt::default()).unwrap();
                (got, started.elapsed())
            })
        })
        .collect();
    // Shard 2 cannot come: it posts so before it ever arrives.
    std::thread::sleep(Duration::from_millis(100));
    let mut poster = board.clone();
    poster
        .post_failure(2, "could not connect", Duration::from_secs(60))
        .unwrap();
    for h in handles {
        let (got, took) = h.join().unwrap();
        assert_eq!(
            got,
            Outcome::Failed(Failure {
                index: 2,
                why: None
            })
        );
        assert!(took < Duration::from_secs(30), "{took:?}");
    }
    // The last of the waiting shards out removed every key, the post too.
    assert_eq!(board.keys(), 0);
}

#[test]
fn the_published_start_is_on_the_servers_clock() {
    let mut board = Shared::default();
    let w = Want {
        offset_ms: 10_000.0,
        ..want(0, 1, 1_000)
    };
    let Outcome::Met(m) = wait(&mut board, w, &Interrupt::default()).unwrap() else {
        panic!()
    };
    let gap = m.published.duration_since(m.local).unwrap();
    assert_eq!(gap, Duration::from_secs(10));
}

#[test]
fn a_start_an_hour_ahead_written_by_another_client_is_refused_at_once() {
    let board = Shared::default();
    let hour_ahead = std::time::SystemTime::now() + Duration::from_secs(3600);
    let t = hour_ahead
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64;
    board.0.lock().unwrap().insert("t".into(), t);
    let started = std::time::Instant::now();
    let outcome = wait(
        &mut board.clone(),
        want(0, 2, 60_000),
        &Interrupt::default(),
    )
    .unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(!matches!(outcome, Outcome::Met(_)), "{outcome:?}");
    let text = format!("{outcome:?}");
    assert!(text.starts_with("ForeignStart("), "{text}");
    // This shard's check-in was taken back.
    assert!(!board.0.lock().unwrap().contains_key("in:0"));
}

#[test]
fn a_count_written_by_another_client_starts_no_shard_alone() {
    // Another client (or an earlier run) left counts in the run's keys, as
    // if three of four shards had come: shard 0 still waits for the others.
    let board = Shared::default();
    board.add("arrivals", 3);
    board.add("left", 2);
    let got = wait(&mut board.clone(), want(0, 4, 300), &Interrupt::default()).unwrap();
    assert_eq!(got, Outcome::TimedOut(1));
}
