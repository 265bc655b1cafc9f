//! The fleet's posts against a board kept in memory and shared by the
//! shards of a test, as the hash on the server is.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{Gathered, Shares, gather, key, post_stopped};
use crate::engine::interrupt::Interrupt;

/// The hash: its fields, and whether it was deleted.
#[derive(Default)]
struct Hash {
    posts: BTreeMap<u32, String>,
    read: u64,
    removed: u32,
}

#[derive(Clone, Default)]
struct Memory(Arc<Mutex<Hash>>);

impl Shares for Memory {
    fn post(&mut self, index: u32, text: &str, _ttl: Duration) -> io::Result<()> {
        self.0.lock().unwrap().posts.insert(index, text.to_string());
        Ok(())
    }
    fn read(&mut self, count: u32) -> io::Result<Vec<Option<String>>> {
        let h = self.0.lock().unwrap();
        Ok((0..count).map(|i| h.posts.get(&i).cloned()).collect())
    }
    fn done(&mut self) -> io::Result<u64> {
        let mut h = self.0.lock().unwrap();
        h.read += 1;
        Ok(h.read)
    }
    fn withdraw(&mut self, index: u32) -> io::Result<()> {
        self.0.lock().unwrap().posts.remove(&index);
        Ok(())
    }
    fn remove(&mut self) -> io::Result<()> {
        let mut h = self.0.lock().unwrap();
        h.posts.clear();
        h.read = 0;
        h.removed += 1;
        Ok(())
    }
}

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn every_shard_reads_every_post_and_the_last_reader_deletes_the_hash() {
    let board = Memory::default();
    let shards: Vec<_> = (0..3u32)
        .map(|i| {
            let mut b = board.clone();
            std::thread::spawn(move || {
                gather(
                    &mut b,
                    i,
                    3,
                    &format!("post-{i}"),
                    WAIT,
                    &Interrupt::default(),
                )
                .unwrap()
            })
        })
        .collect();
    let expected: Vec<String> = (0..3).map(|i| format!("post-{i}")).collect();
    for s in shards {
        assert_eq!(s.join().unwrap(), Gathered::All(expected.clone()));
    }
    let h = board.0.lock().unwrap();
    assert_eq!((h.removed, h.posts.len()), (1, 0));
}

#[test]
fn a_shard_that_never_posts_ends_the_wait_and_the_posts_are_taken_back() {
    let board = Memory::default();
    let mut b = board.clone();
    let short = Duration::from_millis(100);
    let got = gather(&mut b, 0, 3, "mine", short, &Interrupt::default()).unwrap();
    assert_eq!(
        got,
        Gathered::Missing {
            missing: vec![1, 2],
            stopped: vec![]
        }
    );
    let h = board.0.lock().unwrap();
    assert_eq!((h.removed, h.posts.len()), (1, 0));
}

#[test]
fn a_stopped_shard_ends_the_others_wait_at_once() {
    let board = Memory::default();
    post_stopped(&mut board.clone(), 2, WAIT).unwrap();
    let started = std::time::Instant::now();
    let got = gather(
        &mut board.clone(),
        0,
        3,
        "mine",
        WAIT,
        &Interrupt::default(),
    )
    .unwrap();
    assert!(
        started.elapsed() < WAIT / 2,
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(
        got,
        Gathered::Missing {
            missing: vec![1],
            stopped: vec![2]
        }
    );
    // Only the stopped post was left, so the hash went with this shard's.
    assert_eq!(board.0.lock().unwrap().removed, 1);
}

#[test]
fn a_signal_ends_the_wait_without_a_verdict_on_the_others() {
    let board = Memory::default();
    let interrupt = Interrupt::default();
    interrupt.raise(2);
    let got = gather(&mut board.clone(), 1, 2, "mine", WAIT, &interrupt).unwrap();
    assert_eq!(got, Gathered::Interrupted);
    assert!(board.0.lock().unwrap().posts.is_empty());
}

#[test]
fn the_key_is_under_the_barrier_prefix_and_ends_with_a_letter() {
    assert_eq!(key("job-7.step-3"), "kvbench:barrier:{job-7.step-3}:shares");
}

#[test]
fn a_shard_that_gave_up_first_is_not_named_as_one_that_never_posted() {
    // Shard 2 never posts. Shard 0 posts, waits, gives up and takes its post
    // back; shard 1, which posted a moment later, gives up after it and
    // must name shard 2 alone: shard 0's post was there while it waited.
    let board = Memory::default();
    let mut first = board.clone();
    let zero = std::thread::spawn(move || {
        gather(
            &mut first,
            0,
            3,
            "post-0",
            Duration::from_millis(200),
            &Interrupt::default(),
        )
        .unwrap()
    });
    while board.0.lock().unwrap().posts.is_empty() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut second = board.clone();
    let one = gather(
        &mut second,
        1,
        3,
        "post-1",
        Duration::from_millis(400),
        &Interrupt::default(),
    )
    .unwrap();
    let expected = Gathered::Missing {
        missing: vec![2],
        stopped: Vec::new(),
    };
    assert_eq!(zero.join().unwrap(), expected);
    assert_eq!(one, expected);
}
