//! `--cluster-mode` against real Redis Clusters on loopback, each test with
//! its own: kvbench's SET and GET counts equal the masters' summed
//! `INFO commandstats`, a hash tag keeps every request on one master, a
//! reshard during a run is followed (MOVED/ASK counted, nothing lost) and a
//! failover during a run costs no second of traffic. The first test proves
//! the harness itself: roles flip, slots move, witnesses count.

use std::time::Duration;

use crate::common;
use crate::common::cluster::kvbench::{
    Running, ask_per_sec, assert_counts_match_masters, assert_no_error_replies, errors_and_by_kind,
    kvbench_cluster, moved_per_sec, node, node_count, nodes, redirects, redirects_per_second, row,
    runtime_ms, seconds,
};
use crate::common::cluster::{Cluster, Role};
use crate::common::{assert_no_faults, total, u, warning_kinds};
use kvbench::engine::cluster::slot::key_slot;

// ---------------------------------------------------------------------------
// The harness, on its own.
// ---------------------------------------------------------------------------

#[test]
fn cluster_harness_reshards_and_fails_over() {
    let cluster = Cluster::start_with_replicas(3, 1);
    let (masters, replicas) = (cluster.masters(), cluster.replicas());
    assert_eq!(masters, cluster.ports()[..3]);
    assert_eq!(replicas, cluster.ports()[3..]);
    let before: Vec<usize> = masters.iter().map(|&p| cluster.slot_count(p)).collect();
    assert_eq!(before.iter().sum::<usize>(), 16_384);
    assert!(
        before.iter().all(|&n| (5_461..=5_462).contains(&n)),
        "{before:?}"
    );
    for &r in &replicas {
        assert_eq!(cluster.slot_count(r), 0);
        assert!(masters.contains(&cluster.master_of(r)));
    }

    // The witnesses: 300 SETs to their owners, counted on masters once and
    // on replicas again (they execute what their master propagates).
    cluster.reset_stats();
    for n in 0..300 {
        let key = format!("key:{n}");
        let owner = cluster.owner(key_slot(key.as_bytes()));
        assert_eq!(common::ask(owner, &["SET", &key, "v"]), "OK");
    }
    assert_eq!(cluster.sum_calls("set"), 300);
    assert_eq!(cluster.dbsize_sum(), 300);
    let spread = cluster.calls_by_master("set");
    assert!(
        spread.iter().all(|&(_, c)| (60..=140).contains(&c)),
        "{spread:?}"
    );
    common::cluster::wait(
        || cluster.sum_calls_all("set") == 600,
        "the replicas to execute the propagated SETs",
    );

    // A reshard moves exactly the slots asked for, keys with them.
    let reshard = cluster.reshard(masters[0], masters[1], 300);
    let log = reshard.finish(Duration::from_secs(120));
    assert!(log.contains("Moving slot"), "{log}");
    cluster.wait_settled(3, 3);
    assert_eq!(cluster.slot_count(masters[0]), before[0] - 300);
    assert_eq!(cluster.slot_count(masters[1]), before[1] + 300);
    assert_eq!(cluster.slot_count(masters[2]), before[2]);
    assert_eq!(cluster.dbsize_sum(), 300, "keys lost in the reshard");

    // A failover flips the roles of a replica and its master.
    let replica = *replicas
        .iter()
        .find(|&&r| cluster.master_of(r) == masters[2])
        .unwrap();
    cluster.failover(replica);
    assert_eq!(cluster.role(replica), Role::Master);
    assert_eq!(cluster.role(masters[2]), Role::Replica);
    assert_eq!(cluster.master_of(masters[2]), replica);
    let now: Vec<u16> = cluster.masters();
    assert_eq!(now, [masters[0], masters[1], replica]);
    assert_eq!(cluster.slot_count(replica), before[2]);
    assert_eq!(cluster.dbsize_sum(), 300, "keys lost in the failover");

    // GETs on the new master count there, over masters and over all nodes.
    cluster.reset_stats();
    let key = (0..)
        .map(|n| format!("key:{n}"))
        .find(|k| cluster.owner(key_slot(k.as_bytes())) == replica)
        .unwrap();
    assert_eq!(common::ask(replica, &["GET", &key]), "v");
    assert_eq!(cluster.calls(replica, "get"), 1);
    assert_eq!(cluster.sum_calls("get"), 1);
    assert_eq!(cluster.sum_calls_all("get"), 1);
}

// ---------------------------------------------------------------------------
// kvbench against a cluster.
// ---------------------------------------------------------------------------

#[test]
fn set_and_get_counts_equal_the_masters_sums_and_spread_over_every_master() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let r = kvbench_cluster(
        &cluster,
        "-t 2 -c 4 -n 2000 --ratio 1:1 --key-minimum 1 --key-maximum 10000",
        &[],
    );
    let doc = &r.doc;
    // 8 clients × 2 000 requests, SET and GET alternating.
    assert_eq!(total(doc, "SET", "count"), 8_000);
    assert_eq!(total(doc, "GET", "count"), 8_000);
    assert_counts_match_masters(&cluster, doc, "a 1:1 run");
    for &port in &cluster.masters() {
        let served = cluster.calls(port, "set") + cluster.calls(port, "get");
        // A third each: uniform keys over slots split in thirds.
        assert!(
            (3_200..=7_520).contains(&served),
            "master {port} served {served} of 16 000"
        );
        // Per-shard truth: kvbench's own count for the node is the node's.
        let mine = node(doc, port);
        assert_eq!(node_count(mine, "count"), served, "{mine}");
        assert_eq!(node_count(mine, "errors"), 0, "{mine}");
        assert_eq!(mine["role"], "master", "{mine}");
        let slots = u(&mine["slots"]);
        assert!((5_461..=5_462).contains(&slots), "{mine}");
    }
    assert_no_faults(doc, "a 1:1 run");
    assert_no_error_replies(doc, "a 1:1 run");
    // The map was right from the start: nothing redirected.
    for name in ["Sets", "Gets", "Totals"] {
        assert_eq!(moved_per_sec(row(doc, name)), 0.0, "{name} MOVED/sec");
        assert_eq!(ask_per_sec(row(doc, name)), 0.0, "{name} ASK/sec");
    }
    assert_eq!(redirects(doc, "moved"), 0);
    assert_eq!(redirects(doc, "ask"), 0);
    assert_eq!(u(&row(doc, "Totals")["Count"]), 16_000);
    // Uniform keys over a wide range and an even slot split: no shard is hot.
    let kinds = warning_kinds(doc);
    assert!(!kinds.contains(&"hot_shard"), "{kinds:?}");
}

#[test]
fn a_hash_tag_in_the_prefix_sends_every_request_to_one_master() {
    let cluster = Cluster::start(3);
    cluster.reset_stats();
    let r = kvbench_cluster(
        &cluster,
        "-t 1 -c 2 -n 500 --key-maximum 999",
        &[
            "--key-prefix",
            "user:{42}:",
            "--command",
            "SET __key__ __data__",
            "--command",
            "GET __key__",
        ],
    );
    let doc = &r.doc;
    let (sets, gets) = (total(doc, "SET", "count"), total(doc, "GET", "count"));
    // 2 clients × 500 requests, the two commands alternating.
    assert_eq!(sets + gets, 1_000);
    assert!(sets > 0 && gets > 0, "SET {sets}, GET {gets}");
    let owner = cluster.owner(key_slot(b"user:{42}:1"));
    for &port in &cluster.masters() {
        let (set, get) = (cluster.calls(port, "set"), cluster.calls(port, "get"));
        if port == owner {
            assert_eq!((set, get), (sets, gets), "the tag's owner {port}");
            assert_eq!(node_count(node(doc, port), "count"), 1_000);
        } else {
            assert_eq!(
                (set, get),
                (0, 0),
                "master {port} does not own slot of {{42}}"
            );
        }
    }
    // Every key kvbench wrote carries the tag, so they all live on the owner.
    let keys = cluster.dbsize(owner);
    assert!(
        keys > 0 && keys <= sets,
        "{keys} keys on the owner, {sets} SETs"
    );
    assert_eq!(cluster.dbsize_sum(), keys);
    assert_no_faults(doc, "a tagged run");
    assert_no_error_replies(doc, "a tagged run");
    assert_eq!(redirects(doc, "moved"), 0);
    // One master carried every reply of a three-master cluster (1 000, the
    // warning's minimum): the hottest shard there can be, and the tag is why.
    let kinds = warning_kinds(doc);
    assert!(
        kinds.contains(&"hot_shard"),
        "no hot_shard warning: {kinds:?}"
    );
    let warning = doc["kvbench"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "hot_shard")
        .unwrap();
    let message = warning["message"].as_str().unwrap();
    assert!(message.contains(&format!("127.0.0.1:{owner}")), "{message}");
    assert!(message.contains("hash tag"), "{message}");
}

#[test]
fn a_reshard_during_a_run_is_followed_without_losing_a_request() {
    let cluster = Cluster::start(3);
    let masters = cluster.masters();
    let slots_before = cluster.slot_count(masters[0]);
    cluster.reset_stats();
    let mut run = Running::start(
        &cluster,
        "-t 2 -c 4 --test-time 6 --ratio 1:1 --key-minimum 1 --key-maximum 20000",
    );
    cluster.wait_for_traffic(&mut run.child);
    std::thread::sleep(Duration::from_secs(1));
    let reshard = cluster.reshard(masters[0], masters[1], 300);
    reshard.finish(Duration::from_secs(60));
    let r = run.finish(Duration::from_secs(60));
    let doc = &r.doc;
    assert_eq!(cluster.slot_count(masters[0]), slots_before - 300);

    // The run kept its length: 6 s and the drain of what was in flight.
    let ms = runtime_ms(doc);
    assert!((5_900..=8_000).contains(&ms), "the run lasted {ms} ms");
    // The slots moved under kvbench's feet, and it followed.
    let totals = row(doc, "Totals");
    assert!(
        moved_per_sec(totals) + ask_per_sec(totals) > 0.0,
        "no MOVED/sec or ASK/sec in {totals}"
    );
    let (moved, ask) = (redirects(doc, "moved"), redirects(doc, "ask"));
    assert!(moved + ask > 0, "moved {moved}, ask {ask}");
    let per_node_moved: u64 = nodes(doc).iter().map(|n| node_count(n, "moved")).sum();
    let per_node_ask: u64 = nodes(doc).iter().map(|n| node_count(n, "ask")).sum();
    assert_eq!((per_node_moved, per_node_ask), (moved, ask));
    // Every MOVED asks for a refresh; at most one per MOVED.
    let refreshes = redirects(doc, "refreshes");
    assert!(
        moved == 0 || (1..=moved).contains(&refreshes),
        "{refreshes} refreshes after {moved} MOVED"
    );
    // Nothing lost or invented: the masters executed exactly what kvbench counted.
    assert_counts_match_masters(&cluster, doc, "a run across a reshard");
    assert_no_faults(doc, "a run across a reshard");
    assert_no_error_replies(doc, "a run across a reshard");
    assert_eq!(redirects(doc, "node_down"), 0);

    // The per-second series shows the moment: no redirect in the first second
    // (the reshard began after it), some later, every second with traffic.
    let series = seconds(totals);
    assert!((6..=8).contains(&series.len()), "{} seconds", series.len());
    // Every whole second of the 6 s run; a partial second after it (the
    // drain) may end before any reply lands in it.
    for (i, second) in series.iter().take(6).enumerate() {
        assert!(u(&second["Count"]) > 0, "second {i} had no reply: {second}");
    }
    let per_second = redirects_per_second(doc);
    assert_eq!(per_second.len(), series.len(), "{per_second:?}");
    assert_eq!(per_second[0], 0, "{per_second:?}");
    assert_eq!(
        per_second.iter().sum::<u64>(),
        moved + ask,
        "{per_second:?}"
    );
    assert!(per_second[1..].iter().any(|&n| n > 0), "{per_second:?}");
}

#[test]
fn a_failover_during_a_get_run_costs_no_second_of_traffic() {
    let cluster = Cluster::start_with_replicas(3, 1);
    kvbench_cluster(
        &cluster,
        "-t 1 -c 4 -n 1000 --ratio 1:0 --key-minimum 1 --key-maximum 5000",
        &[],
    );
    let masters = cluster.masters();
    let replica = *cluster
        .replicas()
        .iter()
        .find(|&&r| cluster.master_of(r) == masters[0])
        .unwrap();
    cluster.reset_stats();
    let mut run = Running::start(
        &cluster,
        "-t 2 -c 4 --test-time 6 --ratio 0:1 --key-minimum 1 --key-maximum 5000",
    );
    cluster.wait_for_traffic(&mut run.child);
    std::thread::sleep(Duration::from_secs(2));
    cluster.failover(replica);
    let r = run.finish(Duration::from_secs(60));
    let doc = &r.doc;
    assert_eq!(cluster.role(replica), Role::Master);
    assert_eq!(cluster.role(masters[0]), Role::Replica);

    let series = seconds(row(doc, "Totals"));
    assert!((6..=8).contains(&series.len()), "{} seconds", series.len());
    // Every whole second of the 6 s run; a partial second after it (the
    // drain) may end before any reply lands in it.
    for (i, second) in series.iter().take(6).enumerate() {
        assert!(u(&second["Count"]) > 0, "second {i} had no reply: {second}");
    }
    let gets = total(doc, "GET", "count");
    assert!(gets > 0);
    assert_eq!(total(doc, "SET", "count"), 0);
    // Errors, if any, are counted by kind, and every GET that was no error
    // reply was executed by some node: the demoted master's before the
    // failover, the promoted replica's after it (an error reply is a
    // rejection, never a call).
    let (errors, by_kind) = errors_and_by_kind(doc, "GET");
    assert_eq!(errors, by_kind, "GET errors vs their kinds");
    assert!(errors * 100 <= gets, "{errors} of {gets} GETs failed");
    // A request lost on a broken connection may have been executed: the
    // witness lies between the replies and the replies plus the lost.
    let lost = u(&doc["kvbench"]["errors"]["lost_requests"]);
    let calls = cluster.sum_calls_all("get");
    assert!(
        (gets - errors..=gets - errors + lost).contains(&calls),
        "{calls} GET calls on all nodes, kvbench {gets} GETs, {errors} errors, {lost} lost"
    );
    assert!(
        cluster.calls(replica, "get") > 0,
        "nothing read from the new master"
    );
    assert!(
        cluster.calls(masters[0], "get") > 0,
        "nothing read before the failover"
    );
    // 8 clients at pipeline 1: at most 8 GETs in flight on the demoted master.
    assert!(
        lost <= 8,
        "{lost} lost: more than the 8 clients had in flight"
    );
}
