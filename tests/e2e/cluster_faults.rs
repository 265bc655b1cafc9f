//! `--cluster-mode` through the moments a cluster is not at rest, made by
//! hand so that what kvbench must do is known in advance: a slot half
//! migrated (its keys split between two masters, `-ASK` for those that
//! left), then the migration finished; and a master killed with SIGKILL in
//! the middle of a run, its replica promoted by the others, once with the
//! other shards serving throughout (`cluster-require-full-coverage no`) and
//! once with Redis's default, under which the whole cluster answers
//! `-CLUSTERDOWN` until the promotion. The nodes' own `INFO commandstats`
//! are the witness every time.

use std::time::{Duration, Instant};

use crate::common;
use crate::common::cluster::kvbench::{
    Running, assert_no_error_replies, fault, kvbench_cluster, node, node_count, nodes, redirects,
    row, runtime_ms, seconds, server_errors,
};
use crate::common::cluster::{Cluster, wait};
use crate::common::{assert_no_faults, total, u};
use kvbench::engine::cluster::slot::key_slot;

/// Every key of these tests carries this hash tag, so all of them live in one slot.
const TAGGED: &str = "{t}:";

/// The keys `{t}:first..={t}:last` whose number is odd (`odd`) or even.
fn tagged_keys(first: u64, last: u64, odd: bool) -> Vec<String> {
    (first..=last)
        .filter(|n| (n % 2 == 1) == odd)
        .map(|n| format!("{TAGGED}{n}"))
        .collect()
}

#[test]
fn a_slot_in_migration_is_read_through_ask_then_through_its_new_owner() {
    let cluster = Cluster::start(3);
    let slot = key_slot(format!("{TAGGED}1").as_bytes());
    let from = cluster.owner(slot);
    let masters = cluster.masters();
    let others: Vec<u16> = masters.iter().copied().filter(|&m| m != from).collect();
    let (to, bystander) = (others[0], others[1]);

    // 200 keys, every one in the tag's slot, so on its owner.
    let prefill = kvbench_cluster(
        &cluster,
        "-t 1 -c 1 --ratio 1:0 --key-pattern P:P -n allkeys --key-minimum 1 --key-maximum 200",
        &["--key-prefix", TAGGED],
    );
    assert_eq!(total(&prefill.doc, "SET", "count"), 200);
    assert_eq!(cluster.dbsize(from), 200);

    // The slot half moved: the odd keys on the importing node, the even
    // ones still on the source, which answers -ASK for the keys it lost.
    cluster.begin_migration(slot, from, to);
    cluster.migrate_keys(from, to, &tagged_keys(1, 200, true));
    assert_eq!((cluster.dbsize(from), cluster.dbsize(to)), (100, 100));
    cluster.reset_stats();
    let gets_args = "-t 1 -c 4 -n 500 --ratio 0:1 --key-minimum 1 --key-maximum 200";
    let r = kvbench_cluster(&cluster, gets_args, &["--key-prefix", TAGGED]);
    let doc = &r.doc;
    // 4 clients × 500 GETs, each of a key that exists on one node or the other.
    let gets = total(doc, "GET", "count");
    assert_eq!(gets, 2_000);
    assert_eq!(total(doc, "GET", "hits"), gets, "a GET missed");
    assert_eq!(total(doc, "GET", "misses"), 0);
    assert_no_faults(doc, "reads across a migration");
    assert_no_error_replies(doc, "reads across a migration");
    let (moved, ask) = (redirects(doc, "moved"), redirects(doc, "ask"));
    assert_eq!(
        moved, 0,
        "the map was right: the slot is still the source's"
    );
    // Uniform keys, half of them moved: about 1 000 ASKs (σ ≈ 22).
    assert!((800..=1_200).contains(&ask), "{ask} ASK of {gets} GETs");
    assert_eq!(
        node_count(node(doc, from), "ask"),
        ask,
        "{}",
        node(doc, from)
    );
    assert_eq!(node_count(node(doc, to), "ask"), 0, "{}", node(doc, to));
    // The witnesses: each GET ran once, on the node holding its key; every
    // GET on the importing node came after an ASK, preceded by ASKING.
    let (on_from, on_to) = (cluster.calls(from, "get"), cluster.calls(to, "get"));
    assert_eq!(on_from + on_to, gets, "GET calls: {on_from} + {on_to}");
    assert_eq!(on_to, ask, "GETs the importing node ran vs ASK followed");
    assert_eq!(
        cluster.calls(to, "asking"),
        ask,
        "ASKING calls vs ASK followed"
    );
    assert_eq!(cluster.calls(bystander, "get"), 0);
    // kvbench's own per-node counts agree (an ASK is no reply of the source's).
    assert_eq!(node_count(node(doc, from), "count"), on_from);
    assert_eq!(node_count(node(doc, to), "count"), on_to);

    // The migration finished: every key on the new owner, which every
    // master names for the slot. A new run's discovery already routes there;
    // a client that learns it from a MOVED instead follows it once.
    cluster.migrate_keys(from, to, &tagged_keys(1, 200, false));
    cluster.end_migration(slot, to);
    assert_eq!(cluster.owner(slot), to);
    assert_eq!((cluster.dbsize(from), cluster.dbsize(to)), (0, 200));
    cluster.reset_stats();
    let r = kvbench_cluster(&cluster, gets_args, &["--key-prefix", TAGGED]);
    let doc = &r.doc;
    let gets = total(doc, "GET", "count");
    assert_eq!(gets, 2_000);
    assert_eq!(total(doc, "GET", "hits"), gets, "a GET missed");
    assert_no_faults(doc, "reads after a migration");
    assert_no_error_replies(doc, "reads after a migration");
    assert_eq!(redirects(doc, "ask"), 0);
    let moved = redirects(doc, "moved");
    assert!(moved <= 4, "{moved} MOVED: more than one per client");
    assert_eq!(cluster.calls(to, "get"), gets);
    assert_eq!(cluster.calls(from, "get"), 0);
    assert_eq!(cluster.calls(to, "asking"), 0);
    assert_eq!(node_count(node(doc, to), "count"), gets);
}

/// What [`kill_a_master_during_a_get_run`] leaves for the test to check.
struct Killed {
    cluster: Cluster,
    /// The masters before the kill, in start order.
    masters: Vec<u16>,
    victim: u16,
    /// The victim's replica, a master now.
    heir: u16,
    report: common::Report,
    /// When the kill and the promotion happened, for messages.
    what: String,
}

/// A 3 + 3 cluster whose nodes run with `extra` and a node timeout of 1 s
/// (its replica is elected a few seconds after a master dies), prefilled;
/// then a 10 s GET run of 4 clients during which one master (not the seed:
/// the point is a shard dying, not the address kvbench was given) is killed
/// at 2 s. Waits for kvbench's end for at most `limit` from its start.
fn kill_a_master_during_a_get_run(extra: &[&str], limit: Duration) -> Killed {
    let mut args = vec!["--cluster-node-timeout", "1000"];
    args.extend_from_slice(extra);
    let mut cluster = Cluster::start_with_args(3, 1, &args);
    kvbench_cluster(
        &cluster,
        "-t 1 -c 4 --ratio 1:0 --key-pattern P:P -n allkeys --key-minimum 1 --key-maximum 4000",
        &[],
    );
    let masters = cluster.masters();
    let victim = masters[1];
    let heir = *cluster
        .replicas()
        .iter()
        .find(|&&r| cluster.master_of(r) == victim)
        .unwrap();
    let slots = cluster.slot_count(victim);
    wait(
        || cluster.dbsize(heir) == cluster.dbsize(victim),
        "the replica to hold every key of its master",
    );
    cluster.reset_stats();

    let started = Instant::now();
    let mut run = Running::start(
        &cluster,
        "-t 2 -c 2 --test-time 10 --ratio 0:1 --key-minimum 1 --key-maximum 4000",
    );
    cluster.wait_for_traffic(&mut run.child);
    std::thread::sleep(Duration::from_secs(2).saturating_sub(started.elapsed()));
    cluster.kill(victim);
    let killed_at = started.elapsed();
    // Generous: on a loaded 2-core machine the election can take a while;
    // the event is waited for, not a fixed time.
    cluster.wait_promoted(heir, slots, Duration::from_secs(30));
    let promoted_at = started.elapsed();
    // Requests for the dead master's slots were not sent while it was down:
    // the run survives, and its verdict says the load was not all offered.
    let report = run.finish_with(limit.saturating_sub(started.elapsed()), 3);
    assert_nodes_down_flagged(&report);
    Killed {
        cluster,
        masters,
        victim,
        heir,
        report,
        what: format!("killed at {killed_at:?}, replica promoted at {promoted_at:?}"),
    }
}

/// Asserts the verdict names the requests never sent to the dead master,
/// with the count the report's own `node_down` counter has, and that the
/// text report says it before any number.
fn assert_nodes_down_flagged(r: &common::Report) {
    let verdict = &r.doc["kvbench"]["verdict"];
    assert_eq!(verdict["valid"], false, "{verdict}");
    let reason = verdict["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "nodes_down")
        .unwrap_or_else(|| panic!("no nodes_down reason: {verdict}"));
    let node_down = redirects(&r.doc, "node_down");
    assert!(node_down > 0);
    let message = reason["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("{node_down} of ")),
        "{message} vs node_down {node_down}"
    );
    assert!(r.stdout.starts_with("INVALID RESULT:"), "{}", r.stdout);
}

/// The promoted replica's entry in the report, if it answered anything.
fn heir_entry(doc: &serde_json::Value, heir: u16) -> Option<&serde_json::Value> {
    let address = format!("127.0.0.1:{heir}");
    nodes(doc)
        .iter()
        .find(|n| n["address"] == address.as_str() && node_count(n, "count") > 0)
}

#[test]
fn a_master_killed_during_a_run_is_replaced_by_its_replica_and_the_run_goes_on() {
    // Without full coverage the other masters keep serving their slots
    // while the dead one's have no owner: what this test asserts is that
    // the other shards' traffic never stops.
    let Killed {
        cluster,
        masters,
        victim,
        heir,
        report: r,
        what,
    } = kill_a_master_during_a_get_run(
        &["--cluster-require-full-coverage", "no"],
        Duration::from_secs(40),
    );
    let doc = &r.doc;

    // The run kept its length, and no second went without replies.
    let ms = runtime_ms(doc);
    assert!(
        (9_900..=12_000).contains(&ms),
        "the run lasted {ms} ms; {what}"
    );
    let series = seconds(row(doc, "Totals"));
    assert!(
        (10..=12).contains(&series.len()),
        "{} seconds",
        series.len()
    );
    // Every whole second of the 10 s run; a partial second after it (the
    // drain) may end before any reply lands in it.
    for (i, second) in series.iter().take(10).enumerate() {
        assert!(
            u(&second["Count"]) > 0,
            "second {i} had no reply: {second}; {what}"
        );
    }

    // The damage, counted by kind: the 4 clients' connections to the victim
    // broke (one each: pipeline 1, one request in flight at most on each),
    // and what was drawn for its slots while they were down was not sent.
    let connection = fault(doc, "connection");
    let lost = fault(doc, "lost_requests");
    let node_down = redirects(doc, "node_down");
    let server = server_errors(doc);
    let replies_failed: u64 = server.iter().map(|k| k.1).sum();
    assert!(
        (1..=4).contains(&connection),
        "{connection} connections lost; {what}"
    );
    assert!(
        lost <= 4,
        "{lost} lost: more than the 4 clients had in flight"
    );
    // Error replies are counted once per row and once per kind.
    let gets = total(doc, "GET", "count");
    // Only the victim's requests went unsent, and only while it was down:
    // some, and less than its third of the slots' share of all requests due.
    assert!(
        node_down > 0 && node_down * 3 < gets + node_down,
        "{node_down} not sent, {gets} GETs; {what}"
    );
    let errors = total(doc, "GET", "errors");
    assert_eq!(
        errors, replies_failed,
        "GET errors vs their kinds {server:?}"
    );
    assert!(
        errors * 100 <= gets,
        "{errors} of {gets} GETs failed: {server:?}"
    );

    // The client followed the failover: it asked for the new topology, and
    // the promoted replica served reads (its slots' requests were not sent
    // while they had no live owner, and only then), the surviving masters
    // all along.
    assert!(
        heir_entry(doc, heir).is_some(),
        "kvbench did not follow the failover: nothing read from the promoted replica \
         {heir} ({} refreshes, {node_down} requests not sent as node_down); {what}",
        redirects(doc, "refreshes"),
    );
    assert!(
        redirects(doc, "refreshes") >= 1,
        "no topology refresh; {what}"
    );
    assert!(
        node_count(node(doc, victim), "count") > 0,
        "nothing read before the kill"
    );
    let live: Vec<u16> = masters.iter().copied().filter(|&m| m != victim).collect();
    for &m in &live {
        assert!(
            node_count(node(doc, m), "count") > 0,
            "nothing read from {m}"
        );
    }
    // The witness: every live node's connections stayed up, so each GET it
    // ran was answered and counted, at that node. The victim's own count
    // died with it: kvbench's GETs are bounded from below by the live
    // nodes' sum, and the difference is what kvbench says the victim served.
    let mut live_calls = 0;
    for port in live.iter().copied().chain([heir]) {
        let entry = node(doc, port);
        let calls = cluster.calls(port, "get");
        assert_eq!(
            node_count(entry, "count") - node_count(entry, "errors"),
            calls,
            "{port}: kvbench's replies vs its GET calls; {entry}"
        );
        live_calls += calls;
    }
    assert!(
        live_calls <= gets - errors,
        "{live_calls} GET calls, {gets} GETs"
    );
    let per_node: u64 = nodes(doc).iter().map(|n| node_count(n, "count")).sum();
    assert_eq!(per_node, gets, "per-node counts vs the GET row");
    let victim_entry = node(doc, victim);
    assert_eq!(
        gets - errors - live_calls,
        node_count(victim_entry, "count") - node_count(victim_entry, "errors"),
        "the GETs no live node ran are those the victim answered; {victim_entry}"
    );
}

#[test]
fn a_master_killed_under_full_coverage_stops_the_cluster_for_a_moment_and_not_the_run() {
    // Redis's default: while a master is failing and not yet replaced, every
    // node answers -CLUSTERDOWN. kvbench retries after a backoff, and the
    // run still ends on time, its clients on the promoted replica.
    let Killed {
        heir,
        report: r,
        what,
        ..
    } = kill_a_master_during_a_get_run(&[], Duration::from_secs(25));
    let doc = &r.doc;
    let ms = runtime_ms(doc);
    assert!(
        (9_900..=12_000).contains(&ms),
        "the run lasted {ms} ms; {what}"
    );
    let retries = redirects(doc, "retries");
    assert!(retries > 0, "no retry after CLUSTERDOWN; {what}");
    assert!(
        redirects(doc, "refreshes") >= 1,
        "no refresh after CLUSTERDOWN; {what}"
    );
    assert!(
        heir_entry(doc, heir).is_some(),
        "nothing read from the promoted replica {heir}; {what}"
    );
    let gets = total(doc, "GET", "count");
    let errors = total(doc, "GET", "errors");
    let replies_failed: u64 = server_errors(doc).iter().map(|k| k.1).sum();
    assert_eq!(errors, replies_failed, "{:?}", server_errors(doc));
    assert!(errors * 100 <= gets, "{errors} of {gets} GETs failed");
}
