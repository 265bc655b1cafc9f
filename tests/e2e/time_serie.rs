//! The per-second series (`Time-Serie`) and the byte rates, checked against
//! independent counts: the section's own totals and what a real redis-server
//! counted (its commandstats and its network byte counters). A partial last
//! second keeps its true rate: its replies over a whole second.

use crate::common::{Redis, f, info_u64, u};

#[test]
fn the_time_serie_adds_up_to_the_totals_and_the_server_s_own_counts() {
    let redis = Redis::start();
    let before_in = info_u64(redis.port, "stats", "total_net_input_bytes");
    let before_out = info_u64(redis.port, "stats", "total_net_output_bytes");
    // Pipelined, so that replies are still in flight at the deadline and the
    // drain makes a short last second.
    let doc = redis
        .kvbench_json("-t 1 -c 2 --pipeline 8 --test-time 2 --ratio 1:1 -d 500 --key-maximum 500")
        .doc;
    let input = info_u64(redis.port, "stats", "total_net_input_bytes") - before_in;
    let output = info_u64(redis.port, "stats", "total_net_output_bytes") - before_out;
    let section = &doc["ALL STATS"];
    let totals = &section["Totals"];
    let series = totals["Time-Serie"].as_object().unwrap();
    assert!(series.len() >= 2, "{} seconds", series.len());
    let mut count = 0;
    let (mut rx, mut tx) = (0, 0);
    for (second, s) in series {
        // Each second's rate is its replies over the whole second: never scaled up.
        assert_eq!(f(&s["Ops/sec"]), u(&s["Count"]) as f64, "second {second}");
        count += u(&s["Count"]);
        rx += u(&s["Bytes RX"]);
        tx += u(&s["Bytes TX"]);
    }
    assert_eq!(count, u(&totals["Count"]), "Time-Serie counts vs Count");
    assert_eq!(
        count,
        redis.calls("set") + redis.calls("get"),
        "Time-Serie counts vs server"
    );
    // The server read what kvbench wrote, plus a few hundred bytes of handshakes
    // and INFO commands; it wrote what kvbench read, plus its INFO replies.
    assert!(
        (tx..=tx + 4096).contains(&input),
        "server read {input}, TX {tx}"
    );
    assert!(
        (rx..=rx + 65536).contains(&output),
        "server wrote {output}, RX {rx}"
    );
    // KB/sec is those bytes over the run time.
    let secs = u(&section["Runtime"]["Total duration"]) as f64 / 1000.0;
    for (key, bytes) in [("KB/sec TX", input), ("KB/sec RX", output)] {
        let kb = f(&totals[key]) * secs * 1024.0;
        assert!(
            (kb - bytes as f64).abs() <= 0.02 * bytes as f64,
            "{key}: {kb:.0} bytes over {secs} s, server {bytes}"
        );
    }
}
