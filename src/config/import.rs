//! `--data-import`, `--generate-keys`, `--no-expiry`, `--data-verify` and
//! `--verify-only` validated, and the import file read, before any connection.
//!
//! Without `--generate-keys` the file names the keys: the key range becomes the
//! item numbers `1..=items` (so memtier's refusal of `--key-minimum`,
//! `--key-maximum` and `--key-prefix` holds), SETs walk the items in file
//! order as memtier's reader does, and GETs draw item numbers by the GET key
//! pattern. With it, keys are numbered as in any run and only the values (and
//! expiries) come from the file. Combinations memtier refuses are refused
//! here, as are those kvbench does not carry over to imported items yet.

use std::path::PathBuf;
use std::sync::Arc;

use crate::cli::Args;
use crate::error::UsageError;
use crate::protocol::resp::ExpiryCommand;
use crate::protocol::wire::Protocol;
use crate::workload::import::{Imported, parse};
use crate::workload::keys::KeyPattern;
use crate::workload::ops::{Encoding, OpTable};

/// When the server's values are checked against the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// Not at all.
    Off,
    /// `--data-verify`: after the run.
    AfterRun,
    /// `--verify-only`: instead of a run.
    Only,
}

/// A validated `--data-import`.
#[derive(Debug, Clone)]
pub struct DataImport {
    /// The file, as given.
    pub path: PathBuf,
    /// Its items and their requests.
    pub items: Arc<Imported>,
    /// `--generate-keys`.
    pub generate_keys: bool,
    /// `--no-expiry`.
    pub no_expiry: bool,
    /// `--data-verify` / `--verify-only`.
    pub verify: Verify,
}

/// Reads `--data-import` and checks its companions. Without `--generate-keys`
/// it sets the key range to the item numbers, for `build_keys` to take.
pub(super) fn build_import(a: &mut Args) -> Result<Option<DataImport>, UsageError> {
    let Some(path) = a.data_import.clone() else {
        for (flag, given) in [
            ("--data-verify", a.data_verify),
            ("--verify-only", a.verify_only),
            ("--generate-keys", a.generate_keys),
            ("--no-expiry", a.no_expiry),
        ] {
            if given {
                return Err(UsageError::new(
                    flag,
                    "applies to imported data, and no --data-import was given; add --data-import FILE (memtier's import file) or drop it",
                ));
            }
        }
        return Ok(None);
    };
    refuse_companions(a)?;
    let bytes = std::fs::read(&path).map_err(|e| {
        UsageError::new(
            "--data-import",
            format!(
                "cannot read {}: {e}; give a readable import file",
                path.display()
            ),
        )
    })?;
    let items = parse(&bytes).map_err(|e| {
        UsageError::new(
            "--data-import",
            format!(
                "{}: {e}; memtier's import format is described in docs/memtier-compat.md",
                path.display()
            ),
        )
    })?;
    let count = items.len() as u64;
    // Expiring items as kvbench sets expiring keys: SET … EX n, or memtier's
    // SETEX under --memtier-compat.
    let command = if a.memtier_compat {
        ExpiryCommand::Setex
    } else {
        ExpiryCommand::SetWithEx
    };
    let mut imported = Imported::new(items, a.no_expiry, command)
        .with_sets_in_file_order(a.memtier_compat && !a.generate_keys);
    if a.generate_keys {
        imported = imported.with_generated_min(a.key_minimum.unwrap_or(0));
    } else {
        a.key_minimum = Some(1);
        a.key_maximum = Some(count);
    }
    Ok(Some(DataImport {
        path,
        items: Arc::new(imported),
        generate_keys: a.generate_keys,
        no_expiry: a.no_expiry,
        verify: match (a.verify_only, a.data_verify) {
            (true, _) => Verify::Only,
            (false, true) => Verify::AfterRun,
            (false, false) => Verify::Off,
        },
    }))
}

/// The flags an import refuses: memtier's refusals first, then kvbench's.
fn refuse_companions(a: &Args) -> Result<(), UsageError> {
    let key_flag = [
        ("--key-minimum", a.key_minimum.is_some()),
        ("--key-maximum", a.key_maximum.is_some()),
        ("--key-prefix", a.key_prefix.is_some()),
    ]
    .into_iter()
    .find(|(_, given)| *given)
    .map_or("--key-minimum", |(flag, _)| flag);
    let keys_given = a.key_minimum.is_some() || a.key_maximum.is_some() || a.key_prefix.is_some();
    let refused = [
        (
            "--cluster-mode",
            a.cluster_mode,
            "cannot be combined with --data-import, as memtier refuses it; import into one server",
        ),
        (
            "--data-size",
            a.data_size.is_some() || a.data_size_range.is_some() || a.data_size_list.is_some(),
            "the values come from --data-import's file, as in memtier; drop --data-size, --data-size-range and --data-size-list",
        ),
        (
            "--random-data",
            a.random_data,
            "the values come from --data-import's file, as in memtier; drop --random-data",
        ),
        (
            key_flag,
            keys_given && !a.generate_keys,
            "--data-import's file names the keys; add --generate-keys to number them from --key-prefix, --key-minimum and --key-maximum, or drop those flags (as memtier requires)",
        ),
        (
            "--command",
            a.command.as_ref().is_some_and(|c| !c.is_empty()),
            "--data-import feeds memtier's SET/GET pair; drop --command",
        ),
        (
            "--prefill",
            a.prefill,
            "writes generated values; with --data-import, load the file with --ratio 1:0 -n allkeys instead",
        ),
        (
            "--data-offset",
            a.data_offset.is_some_and(|o| o > 0),
            "is not supported with --data-import yet; drop it",
        ),
        (
            "--multi-key-get",
            a.multi_key_get.is_some(),
            "is not supported with --data-import yet; drop it",
        ),
        (
            "--expiry-range",
            a.expiry_range.is_some(),
            "is not supported with --data-import yet: the file's own expiries are used (--no-expiry drops them); drop it",
        ),
    ];
    match refused.into_iter().find(|(_, given, _)| *given) {
        Some((flag, _, fix)) => Err(UsageError::new(flag, fix)),
        None => Ok(()),
    }
}

/// Makes the pair's SET and GET send the imported items; refuses memcached.
pub(super) fn apply(
    import: &DataImport,
    protocol: Protocol,
    compat: bool,
    table: &mut OpTable,
) -> Result<(), UsageError> {
    if matches!(protocol, Protocol::MemcacheText | Protocol::MemcacheBinary) {
        return Err(UsageError::new(
            "--data-import",
            format!(
                "is supported with the Redis protocols only so far, and -P is {}; use -P redis, resp2 or resp3",
                protocol.name()
            ),
        ));
    }
    for op in &mut table.ops {
        match (op.spec.name().as_str(), import.generate_keys) {
            ("SET", false) => {
                op.encoding = Encoding::ImportSet;
                // memtier's SETs read the file in order whatever the pattern.
                // Under --memtier-compat a SET of R, G or Z keeps its pattern:
                // it draws a key, as memtier's does, and sends the next item
                // (`Imported::sets_in_file_order`). memtier's P over an
                // import has no key range to share out, so P walks as S.
                let draws = matches!(
                    op.pattern,
                    KeyPattern::Uniform | KeyPattern::Gaussian { .. } | KeyPattern::Zipfian { .. }
                );
                if !(compat && draws) {
                    op.pattern = KeyPattern::Sequential;
                }
            }
            ("SET", true) => op.encoding = Encoding::ImportGeneratedSet,
            ("GET", false) => op.encoding = Encoding::ImportGet,
            _ => {}
        }
    }
    // Under --memtier-compat the server counts an expiring item's SET as
    // SETEX: the cross-check reads `cmdstat_setex` when every item expires (a
    // file that mixes both counts its plain SETs only, and the check says so).
    let all_expire = import.items.items().iter().all(|i| i.expiry_s > 0);
    if compat
        && !import.no_expiry
        && all_expire
        && let Some(row) = table.rows.first_mut()
    {
        row.witness = "setex".to_string();
    }
    table.import = Some(Arc::clone(&import.items));
    Ok(())
}
