//! RESP3 attributes (`|`) in the load loop: a scripted server annotates some
//! replies with an attribute frame; kvbench skips each one, counts it in
//! `kvbench.errors.attributes` and on an `Attributes:` text line, and still
//! matches every reply to its request.

use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common;
use crate::common::scripted_server::{Next, Script, ScriptedServer};
use crate::common::{kvbench_json, u};

/// One attribute of one pair (`k` → 1), as the example.
const ATTRIBUTE: &[u8] = b"|1\r\n+k\r\n:1\r\n";

/// A RESP3 server that puts an attribute before every SET's reply and before
/// every third GET's, and a second one before every fourth GET's null (a GET
/// wants a value or nil, so an annotated array would be a reply of the wrong
/// type): GETs alternate between a value and null, so a reply matched to the
/// wrong request would shift the hit count.
#[derive(Default)]
struct Annotating {
    gets: AtomicU64,
    sets: AtomicU64,
    attributes: AtomicU64,
    hits: AtomicU64,
}

impl Annotating {
    fn annotate(&self, stream: &mut TcpStream) -> io::Result<()> {
        self.attributes.fetch_add(1, Ordering::SeqCst);
        stream.write_all(ATTRIBUTE)
    }
}

impl Script for Annotating {
    type Connection = ();

    fn answer(&self, stream: &mut TcpStream, name: Option<&[u8]>, (): &mut ()) -> io::Result<Next> {
        match name.unwrap_or_default() {
            b"HELLO" => stream.write_all(b"*2\r\n$5\r\nproto\r\n:3\r\n")?,
            b"PING" => stream.write_all(b"+PONG\r\n")?,
            b"GET" => {
                let n = self.gets.fetch_add(1, Ordering::SeqCst);
                if n % 3 == 0 {
                    self.annotate(stream)?;
                }
                if n % 2 == 0 {
                    self.hits.fetch_add(1, Ordering::SeqCst);
                    stream.write_all(b"$1\r\nv\r\n")?;
                } else if n % 4 == 1 {
                    // Two attributes ahead of one reply are still one reply.
                    self.annotate(stream)?;
                    stream.write_all(b"_\r\n")?;
                } else {
                    stream.write_all(b"_\r\n")?;
                }
            }
            b"SET" => {
                self.sets.fetch_add(1, Ordering::SeqCst);
                self.annotate(stream)?;
                stream.write_all(b"+OK\r\n")?;
            }
            _ => stream.write_all(b"-ERR unknown command\r\n")?,
        }
        Ok(Next::KeepReading)
    }
}

#[test]
fn attributes_before_replies_are_counted_and_every_reply_still_matched() {
    let server = ScriptedServer::spawn(Annotating::default());
    let report = kvbench_json(
        server.port,
        "-P resp3 -t 1 -c 2 -n 300 --ratio 1:2 --pipeline 4",
        &[],
    );
    let doc = &report.doc;
    common::assert_no_faults(doc, "the run");
    let errors = &doc["kvbench"]["errors"];
    let script = server.script();
    let sent = |n: &AtomicU64| n.load(Ordering::SeqCst);
    let total = |op: &str, field: &str| u(&doc["kvbench"]["totals"][op][field]);
    assert_eq!(sent(&script.sets) + sent(&script.gets), 2 * 300);
    assert_eq!(total("SET", "count"), sent(&script.sets));
    assert_eq!(total("GET", "count"), sent(&script.gets));
    // Attributes precede or sit inside the reply they annotate, so unlike a
    // trailing push none can still be in flight when the run ends.
    let attributes = u(&errors["attributes"]);
    assert_eq!(attributes, sent(&script.attributes));
    assert!(attributes > 200 && attributes < 600, "{attributes}");
    assert_eq!(errors["pushes"], 0);
    assert_eq!(total("GET", "hits"), sent(&script.hits));
    let nulls = (0..sent(&script.gets)).filter(|n| n % 2 == 1).count();
    assert_eq!(total("GET", "misses"), nulls as u64);
    assert!(
        report
            .stdout
            .contains(&format!("Attributes: {attributes} ")),
        "the text report does not say: {}",
        report.stdout
    );
}
