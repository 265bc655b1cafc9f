//! The connection flags of `kvbench suite`, in redis-benchmark's and
//! valkey-benchmark's meaning, turned into kvbench's own (memtier-style)
//! ones: `-k`, `-3`, the TLS flags, `--cluster` with valkey-benchmark's
//! `--rfr`, and valkey-benchmark's `--rps`.

use crate::cli::{Args, SuiteArgs};
use crate::error::UsageError;

/// Sets in `args` what the connection flags of `a` ask for; `connections`
/// is `-c`, which `--rps` is shared by.
pub(super) fn apply(a: &SuiteArgs, args: &mut Args, connections: usize) -> Result<(), UsageError> {
    match a.keepalive {
        None | Some(1) => {}
        // redis-benchmark's -k 0 closes the connection after each reply and
        // opens a new one: kvbench's reconnect after every request.
        Some(0) => args.reconnect_interval = Some(1),
        Some(k) => {
            return Err(UsageError::new(
                "-k",
                format!(
                    "'{k}' is neither 1 (keep alive) nor 0 (reconnect per request); use -k 1 or -k 0"
                ),
            ));
        }
    }
    if a.resp3 {
        args.protocol = Some("resp3".to_string());
    }
    tls(a, args)?;
    args.cluster_mode = a.cluster;
    if let Some(mode) = a.rfr.as_deref() {
        if !a.cluster {
            return Err(UsageError::new(
                "--rfr",
                "reads from a cluster's replicas and applies with --cluster; add --cluster or drop --rfr",
            ));
        }
        args.read_from = Some(
            match mode {
                "no" => "primary",
                "yes" => "replica",
                "all" => "any",
                other => {
                    return Err(UsageError::new(
                        "--rfr",
                        format!("'{other}' is none of no, yes, all; e.g. --rfr yes"),
                    ));
                }
            }
            .to_string(),
        );
    }
    match a.rps {
        None => {}
        // valkey-benchmark's 0 is no limit.
        Some(0.0) => {}
        Some(rps) if rps > 0.0 && rps.is_finite() => {
            // valkey-benchmark paces the sends of all its clients together and
            // times each reply from its send: kvbench's per-connection cap,
            // which also times from the actual send, shared evenly.
            args.rate_limiting = Some(rps / connections as f64);
        }
        Some(rps) => {
            return Err(UsageError::new(
                "--rps",
                format!(
                    "'{rps}' is no rate; give requests per second above 0 (0 = no limit), e.g. --rps 10000"
                ),
            ));
        }
    }
    Ok(())
}

/// `--tls` and its certificates.
fn tls(a: &SuiteArgs, args: &mut Args) -> Result<(), UsageError> {
    let given = [
        ("--sni", a.sni.is_some()),
        ("--cacert", a.cacert.is_some()),
        ("--cacertdir", a.cacertdir.is_some()),
        ("--insecure", a.insecure),
        ("--cert", a.cert.is_some()),
        ("--key", a.key.is_some()),
    ];
    if !a.tls {
        if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
            return Err(UsageError::new(
                flag,
                "is a TLS setting and the connection is plain; add --tls or drop it",
            ));
        }
        return Ok(());
    }
    if a.cacert.is_some() && a.cacertdir.is_some() {
        return Err(UsageError::new(
            "--cacertdir",
            "and --cacert both name the CAs; give one of them",
        ));
    }
    args.tls = true;
    args.sni = a.sni.clone();
    // A directory is read whole (every PEM file in it) by the TLS settings.
    args.cacert = a.cacert.clone().or_else(|| a.cacertdir.clone());
    args.tls_skip_verify = a.insecure;
    args.cert = a.cert.clone();
    args.key = a.key.clone();
    Ok(())
}
