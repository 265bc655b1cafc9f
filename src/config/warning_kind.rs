//! [`WarningKind`]: the stable names of the warnings, as the JSON's `kind`
//! writes them and `--no-warning` reads them. It lives in `config` because
//! `--no-warning` is validated here; the warnings themselves are
//! `report::warnings`.

use crate::error::UsageError;

/// Which kind a [`crate::report::warnings::Warning`] is, without its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// [`crate::report::warnings::Warning::RateNotMet`].
    RateNotMet,
    /// [`crate::report::warnings::Warning::ClientBound`].
    ClientBound,
    /// [`crate::report::warnings::Warning::KeyRangeTooSmall`].
    KeyRangeTooSmall,
    /// [`crate::report::warnings::Warning::GetsMostlyMiss`].
    GetsMostlyMiss,
    /// [`crate::report::warnings::Warning::SameMachine`].
    SameMachine,
    /// [`crate::report::warnings::Warning::DatasetTooLarge`].
    DatasetTooLarge,
    /// [`crate::report::warnings::Warning::ShortRun`].
    ShortRun,
    /// [`crate::report::warnings::Warning::ErrorReplies`].
    ErrorReplies,
    /// [`crate::report::warnings::Warning::CountMismatch`].
    CountMismatch,
    /// [`crate::report::warnings::Warning::ServerRestarted`].
    ServerRestarted,
    /// [`crate::report::warnings::Warning::EvidenceLost`].
    EvidenceLost,
    /// [`crate::report::warnings::Warning::FsyncAlways`].
    FsyncAlways,
    /// [`crate::report::warnings::Warning::BackgroundSave`].
    BackgroundSave,
    /// [`crate::report::warnings::Warning::RunsDisagree`].
    RunsDisagree,
    /// [`crate::report::warnings::Warning::LatencyMeasuresDiverge`].
    LatencyMeasuresDiverge,
    /// [`crate::report::warnings::Warning::HotShard`].
    HotShard,
    /// [`crate::report::warnings::Warning::Stall`].
    Stall,
    /// [`crate::report::warnings::Warning::MissRateAboveThreshold`].
    MissRateAboveThreshold,
}

impl WarningKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [WarningKind; 18] = [
        WarningKind::RateNotMet,
        WarningKind::ClientBound,
        WarningKind::KeyRangeTooSmall,
        WarningKind::GetsMostlyMiss,
        WarningKind::SameMachine,
        WarningKind::DatasetTooLarge,
        WarningKind::ShortRun,
        WarningKind::ErrorReplies,
        WarningKind::CountMismatch,
        WarningKind::ServerRestarted,
        WarningKind::EvidenceLost,
        WarningKind::FsyncAlways,
        WarningKind::BackgroundSave,
        WarningKind::RunsDisagree,
        WarningKind::LatencyMeasuresDiverge,
        WarningKind::HotShard,
        WarningKind::Stall,
        WarningKind::MissRateAboveThreshold,
    ];

    /// The stable name: the JSON's `kind`.
    pub const fn as_str(self) -> &'static str {
        match self {
            WarningKind::RateNotMet => "rate_not_met",
            WarningKind::ClientBound => "client_bound",
            WarningKind::KeyRangeTooSmall => "key_range_too_small",
            WarningKind::GetsMostlyMiss => "gets_mostly_miss",
            WarningKind::SameMachine => "same_machine",
            WarningKind::DatasetTooLarge => "dataset_too_large",
            WarningKind::ShortRun => "short_run",
            WarningKind::ErrorReplies => "error_replies",
            WarningKind::CountMismatch => "count_mismatch",
            WarningKind::ServerRestarted => "server_restarted",
            WarningKind::EvidenceLost => "server_evidence_lost",
            WarningKind::FsyncAlways => "fsync_always",
            WarningKind::BackgroundSave => "background_save",
            WarningKind::RunsDisagree => "runs_disagree",
            WarningKind::LatencyMeasuresDiverge => "latency_measures_diverge",
            WarningKind::HotShard => "hot_shard",
            WarningKind::Stall => "stall",
            WarningKind::MissRateAboveThreshold => "miss_rate_above_threshold",
        }
    }

    /// The kind of that name; `None` for a name no warning has.
    pub fn parse(name: &str) -> Option<WarningKind> {
        WarningKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// `--no-warning`'s values: each must name a kind; repeats count once.
    pub fn from_flags<'a>(
        names: impl IntoIterator<Item = &'a String>,
    ) -> Result<Vec<WarningKind>, UsageError> {
        let mut kinds = Vec::new();
        for name in names {
            let kind = WarningKind::parse(name.trim()).ok_or_else(|| {
                UsageError::new(
                    "--no-warning",
                    format!(
                        "no warning is called {name:?}; give one of {}",
                        WarningKind::known()
                    ),
                )
            })?;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        Ok(kinds)
    }

    /// Every name, comma-separated, for a usage error.
    pub fn known() -> String {
        let names: Vec<&str> = WarningKind::ALL.iter().map(|k| k.as_str()).collect();
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::WarningKind;

    #[test]
    fn every_name_parses_back_to_its_kind() {
        for kind in WarningKind::ALL {
            assert_eq!(WarningKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(WarningKind::parse("short-run"), None);
        assert_eq!(WarningKind::parse(""), None);
        assert!(WarningKind::known().starts_with("rate_not_met, client_bound"));
    }

    #[test]
    fn no_warning_values_name_kinds_and_repeats_count_once() {
        let names = ["short_run", "stall", "short_run"].map(String::from);
        let kinds = WarningKind::from_flags(&names).unwrap();
        assert_eq!(kinds, [WarningKind::ShortRun, WarningKind::Stall]);
        let bad = [String::from("shortrun")];
        let e = WarningKind::from_flags(&bad).unwrap_err();
        assert_eq!(e.flag, "--no-warning");
        assert!(e.message.contains("\"shortrun\""), "{}", e.message);
        assert!(e.message.contains("short_run"), "{}", e.message);
    }
}
