//! The topology refresher: one thread for the whole run that re-reads the
//! cluster's topology when a worker asks (after a `-MOVED`, or when a node's
//! connection broke) and hands the result to every worker.
//!
//! Asks coalesce: every worker's handle shares one request channel of
//! capacity one, so a thousand clients that see the same MOVED cause one
//! refresh. Refreshes are at least `min_interval` apart, whoever asks: a
//! reshard that moves slots for minutes must not turn into a stream of
//! `CLUSTER SHARDS` calls competing with the benchmark. The thread holds no
//! lock and is never joined: stopping it is a message, and a refresh in
//! progress (bounded by `--connection-timeout`) finishes on its own while
//! the run ends.

use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded, select, unbounded};

use crate::config::target::Target;

use super::discover::discover_any;
use super::map::Node;
use super::topology::{RefreshHandle, Topology};

/// The least time between two refreshes, for the whole run.
pub const MIN_REFRESH_INTERVAL: Duration = Duration::from_secs(1);

/// The refresher thread; it stops when this is dropped or [`Refresher::stop`]ped.
#[derive(Debug)]
pub struct Refresher {
    stop: Option<Sender<()>>,
    /// Never joined (a refresh in progress must not hold the run up);
    /// kept to tell whether the thread has ended.
    thread: Option<JoinHandle<()>>,
}

impl Refresher {
    /// Tells the thread to stop, without waiting for it.
    pub fn stop(&mut self) {
        // Dropping the only sender disconnects the channel, which the
        // thread sees at once, whether it waits for a request or for the
        // rate limit.
        self.stop = None;
    }

    /// True once the thread has ended (or never started).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }
}

impl Drop for Refresher {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Starts the refresher for a cluster reached through `target`'s
/// credentials and TLS: it asks `seeds` in turn (first that answers), and
/// after each refresh the nodes it found, then the seeds. Returns one
/// handle per worker.
pub fn spawn(
    target: Target,
    seeds: Vec<Node>,
    workers: usize,
    min_interval: Duration,
) -> (Refresher, Vec<RefreshHandle>) {
    let mut known = seeds.clone();
    let fetch = move || {
        let found = discover_any(&target, &known)?;
        known = found.all_nodes();
        for seed in &seeds {
            if !known.iter().any(|n| n.address() == seed.address()) {
                known.push(seed.clone());
            }
        }
        Some(found)
    };
    spawn_with(fetch, workers, min_interval)
}

/// [`spawn`] with the reading of the topology given as `fetch` (`None`
/// when no node answered), so that the rate limit is testable without a
/// cluster.
pub fn spawn_with<F>(
    fetch: F,
    workers: usize,
    min_interval: Duration,
) -> (Refresher, Vec<RefreshHandle>)
where
    F: FnMut() -> Option<Topology> + Send + 'static,
{
    let (request_tx, request_rx) = bounded(1);
    let (stop_tx, stop_rx) = bounded::<()>(0);
    let mut updates = Vec::with_capacity(workers);
    let mut handles = Vec::with_capacity(workers);
    for _ in 0..workers {
        // Unbounded: at one refresh a second, a worker that reads its
        // updates only at its next tick holds a few Arcs at most.
        let (tx, rx) = unbounded();
        updates.push(tx);
        handles.push(RefreshHandle::new(request_tx.clone(), rx));
    }
    drop(request_tx);
    let spawned = thread::Builder::new()
        .name("kvbench-refresh".into())
        .spawn(move || refresh_loop(fetch, &request_rx, &stop_rx, &updates, min_interval));
    let thread = match spawned {
        Ok(thread) => Some(thread),
        Err(e) => {
            // Without the thread, asks are refused (the request channel is
            // disconnected) and the run goes on with the map it has: MOVED
            // still updates it one slot at a time.
            crate::error::note(format_args!(
                "kvbench: cannot start the cluster topology refresher ({e}); slots are updated from MOVED replies only"
            ));
            None
        }
    };
    let refresher = Refresher {
        stop: Some(stop_tx),
        thread,
    };
    (refresher, handles)
}

fn refresh_loop(
    mut fetch: impl FnMut() -> Option<Topology>,
    requests: &Receiver<()>,
    stop: &Receiver<()>,
    updates: &[Sender<Arc<Topology>>],
    min_interval: Duration,
) {
    let mut last: Option<Instant> = None;
    loop {
        select! {
            recv(requests) -> asked => if asked.is_err() { return },
            recv(stop) -> _ => return,
        }
        if let Some(last) = last {
            let wait = (last + min_interval).saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                select! {
                    recv(stop) -> _ => return,
                    default(wait) => {}
                }
            }
        }
        last = Some(Instant::now());
        if let Some(topology) = fetch() {
            let topology = Arc::new(topology);
            for tx in updates {
                // A worker that has exited no longer needs it.
                let _ = tx.send(Arc::clone(&topology));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use super::spawn_with;
    use crate::engine::cluster::map::{Node, SlotMap};
    use crate::engine::cluster::topology::Topology;

    fn topology(port: u16) -> Topology {
        let node = Node {
            host: "h".into(),
            port,
            id: None,
        };
        Topology::masters(SlotMap::from_ranges([(0, 16383, node)]).unwrap())
    }

    /// A fetch that records when it ran and answers with port = its count.
    fn recording() -> (Arc<Mutex<Vec<Instant>>>, impl FnMut() -> Option<Topology>) {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&calls);
        let fetch = move || {
            let mut calls = seen.lock().unwrap();
            calls.push(Instant::now());
            Some(topology(calls.len() as u16))
        };
        (calls, fetch)
    }

    fn wait_for(mut done: impl FnMut() -> bool) {
        let give_up = Instant::now() + Duration::from_secs(10);
        while !done() {
            assert!(Instant::now() < give_up, "gave up after 10 s");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn many_asks_make_refreshes_at_least_the_interval_apart_for_every_worker() {
        let interval = Duration::from_millis(100);
        let (calls, fetch) = recording();
        let (_refresher, handles) = spawn_with(fetch, 3, interval);
        let started = Instant::now();
        while started.elapsed() < Duration::from_millis(550) {
            for h in &handles {
                h.request();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let asked_for = started.elapsed();
        for h in &handles {
            assert!(h.latest().is_some());
        }
        let calls = calls.lock().unwrap().clone();
        // One at once, then one per interval at most, whatever the asks.
        let most = (asked_for.as_millis() / interval.as_millis()) as usize + 2;
        assert!(
            calls.len() >= 2 && calls.len() <= most,
            "{} refreshes",
            calls.len()
        );
        for pair in calls.windows(2) {
            assert!(pair[1] - pair[0] >= interval, "{:?}", pair[1] - pair[0]);
        }
    }

    #[test]
    fn every_worker_receives_the_newest_topology_and_asks_coalesce() {
        let (calls, fetch) = recording();
        let (_refresher, handles) = spawn_with(fetch, 2, Duration::from_secs(60));
        assert!(handles[0].latest().is_none());
        assert!(handles[0].request());
        for h in &handles {
            let mut received = None;
            wait_for(|| {
                received = h.latest();
                received.is_some()
            });
            assert_eq!(received.unwrap().map.nodes[0].port, 1);
            assert!(h.latest().is_none());
        }
        // The next refresh waits a minute: the first ask is taken and
        // waits, the second fills the channel, the third is refused.
        assert!(handles[0].request());
        wait_for(|| !handles[1].request());
        assert_eq!(calls.lock().unwrap().len(), 1);
    }

    #[test]
    fn stopping_the_refresher_ends_its_thread_even_during_the_rate_limit_wait() {
        let (calls, fetch) = recording();
        let (mut refresher, handles) = spawn_with(fetch, 1, Duration::from_secs(3600));
        handles[0].request();
        wait_for(|| calls.lock().unwrap().len() == 1);
        handles[0].request();
        assert!(!refresher.is_finished());
        refresher.stop();
        wait_for(|| refresher.is_finished());
        // With the thread gone, asks are refused.
        assert!(!handles[0].request());
        assert_eq!(calls.lock().unwrap().len(), 1);
    }
}
