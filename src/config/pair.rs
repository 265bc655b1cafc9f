//! Validation of memtier's options on its SET/GET pair: `--expiry-range`,
//! `--wait-ratio` with `--num-slaves` and `--wait-timeout`,
//! `--multi-key-get`, `--data-offset` and `--data-size-pattern`. memtier's
//! own refusals are kept (no WAIT or MGET in cluster mode, no offset with an
//! expiry), each naming the flag and the fix.

use crate::cli::Args;
use crate::error::UsageError;
use crate::protocol::resp::ExpiryCommand;
use crate::protocol::wire::Protocol;
use crate::workload::keys::KeyRange;
use crate::workload::pair::{PairOptions, Span, WaitPlan, WaitRule};
use crate::workload::values::SizeSpec;

/// memtier's largest `--data-offset`: 2^29 − 1 bytes.
const MAX_DATA_OFFSET: u32 = (1 << 29) - 1;

/// The pair's options this command line asks for; `commands` is true when
/// `--command` lines replace the pair, `protocol` the run's wire.
pub(super) fn build_pair(
    a: &Args,
    protocol: Protocol,
    commands: bool,
    swept_ratio: bool,
) -> Result<PairOptions, UsageError> {
    let resp = matches!(
        protocol,
        Protocol::Redis | Protocol::Resp2 | Protocol::Resp3
    );
    if commands {
        for (flag, given) in [
            ("--expiry-range", a.expiry_range.is_some()),
            ("--wait-ratio", a.wait_ratio.is_some()),
            ("--multi-key-get", a.multi_key_get.is_some()),
            ("--data-offset", a.data_offset.is_some_and(|n| n > 0)),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "shapes the SET/GET pair, which --command replaces; write it into the --command line (e.g. \"SET __key__ __data__ EX 60\") or drop --command",
                ));
            }
        }
    }
    let expiry = a
        .expiry_range
        .as_deref()
        .map(|text| {
            let span =
                Span::parse(text).map_err(|e| UsageError::new("--expiry-range", e.to_string()))?;
            if span.max == 0 {
                return Err(UsageError::new(
                    "--expiry-range",
                    "0-0 gives no SET an expiry; give seconds such as 10-100, or drop the flag",
                ));
            }
            let command = if a.memtier_compat {
                ExpiryCommand::Setex
            } else {
                ExpiryCommand::SetWithEx
            };
            Ok((span, command))
        })
        .transpose()?;
    let wait = build_wait(a, resp)?;
    let multi_get = match a.multi_key_get {
        None => None,
        Some(0) => {
            return Err(UsageError::new(
                "--multi-key-get",
                "must be at least 1 key per MGET, as in memtier; e.g. --multi-key-get 4",
            ));
        }
        Some(_) if !resp => {
            return Err(UsageError::new(
                "--multi-key-get",
                "kvbench sends MGET over RESP only; memcached's multi-key get is not supported yet; use -P redis or drop the flag",
            ));
        }
        Some(_) if swept_ratio => {
            return Err(UsageError::new(
                "--multi-key-get",
                "splits each --ratio cycle's GETs into MGETs, and a swept --ratio changes the cycle; give one --ratio",
            ));
        }
        Some(n) => Some(n),
    };
    let data_offset = a.data_offset.unwrap_or(0);
    if data_offset > 0 {
        let refusal = if data_offset > MAX_DATA_OFFSET {
            Some(format!(
                "{data_offset} is above memtier's limit of {MAX_DATA_OFFSET} bytes"
            ))
        } else if !resp {
            Some("writes with SETRANGE, which only Redis has; use -P redis or drop it".into())
        } else if expiry.is_some() {
            Some("cannot be used with --expiry-range (SETRANGE takes no expiry), as in memtier; drop one".into())
        } else if multi_get.is_some() {
            Some("reads with GETRANGE, one key each; drop it or --multi-key-get".into())
        } else {
            None
        };
        if let Some(message) = refusal {
            return Err(UsageError::new("--data-offset", message));
        }
    }
    if a.cluster_mode {
        for (flag, given) in [
            ("--wait-ratio", wait.is_some()),
            ("--multi-key-get", multi_get.is_some()),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "cannot be used with --cluster-mode, as in memtier (the keys of one MGET, or the replicas of a WAIT, belong to one node); drop one",
                ));
            }
        }
    }
    Ok(PairOptions {
        expiry,
        wait,
        multi_get,
        data_offset,
    })
}

fn build_wait(a: &Args, resp: bool) -> Result<Option<WaitPlan>, UsageError> {
    let span = |flag: &'static str, text: &Option<String>| -> Result<Span, UsageError> {
        match text {
            None => Ok(Span { min: 0, max: 0 }),
            Some(t) => Span::parse(t).map_err(|e| UsageError::new(flag, e.to_string())),
        }
    };
    let replicas = span("--num-slaves", &a.num_slaves)?;
    let timeout_ms = span("--wait-timeout", &a.wait_timeout)?;
    let Some(text) = a.wait_ratio.as_deref() else {
        for (flag, given) in [
            ("--num-slaves", a.num_slaves.is_some()),
            ("--wait-timeout", a.wait_timeout.is_some()),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "shapes the WAITs of --wait-ratio, and none was given; add e.g. --wait-ratio 10:1 or drop it",
                ));
            }
        }
        return Ok(None);
    };
    let (sets, waits) =
        WaitPlan::parse_ratio(text).map_err(|e| UsageError::new("--wait-ratio", e.to_string()))?;
    if waits == 0 {
        // memtier's own default, 1:0: no WAIT at all.
        return Ok(None);
    }
    if sets == 0 {
        return Err(UsageError::new(
            "--wait-ratio",
            format!("{text} has no SET for its WAITs to follow; give e.g. 10:1"),
        ));
    }
    if !resp {
        return Err(UsageError::new(
            "--wait-ratio",
            "WAIT is a Redis command; use -P redis or drop the flag",
        ));
    }
    let rule = if a.memtier_compat {
        WaitRule::Memtier
    } else {
        WaitRule::Exact
    };
    Ok(Some(WaitPlan {
        sets,
        waits,
        replicas,
        timeout_ms,
        rule,
    }))
}

/// `--data-size-pattern`: `S` turns a `--data-size-range` into sizes spread
/// over the key range; `R` (the default) leaves the sizes as they are.
pub(super) fn apply_size_pattern(
    a: &Args,
    keys: KeyRange,
    sizes: &mut [SizeSpec],
) -> Result<(), UsageError> {
    match a.data_size_pattern.as_deref() {
        None | Some("R") => Ok(()),
        Some("S") => {
            if a.data_size_range.is_none() {
                return Err(UsageError::new(
                    "--data-size-pattern",
                    "S spreads the sizes of --data-size-range over the key range, as in memtier; add e.g. --data-size-range 32-1024, or drop it",
                ));
            }
            for spec in sizes.iter_mut() {
                if let SizeSpec::Range { min, max } = *spec {
                    *spec = SizeSpec::Spread { min, max, keys };
                }
            }
            Ok(())
        }
        Some(other) => Err(UsageError::new(
            "--data-size-pattern",
            format!(
                "'{other}' is neither R nor S; use R (random sizes) or S (spread over the key range)"
            ),
        )),
    }
}
