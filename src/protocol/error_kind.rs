//! Server error replies grouped by kind, the same groups for every protocol:
//! a Redis `-OOM …` and memcached's `SERVER_ERROR out of memory …` are both
//! [`ServerErrorKind::Oom`], so reports and warnings count them alike.

/// Server error replies grouped by their first word, for counting per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerErrorKind {
    /// `ERR`: the generic error.
    Err,
    /// `OOM`: the server is out of memory for writes.
    Oom,
    /// `LOADING`: the server is still loading its dataset.
    Loading,
    /// `BUSY`: a script is running and blocks the server.
    Busy,
    /// `READONLY`: a write was sent to a read-only replica.
    ReadOnly,
    /// `NOAUTH`: authentication is required.
    NoAuth,
    /// `WRONGPASS`: the credentials were rejected.
    WrongPass,
    /// `WRONGTYPE`: the key holds a value of another type.
    WrongType,
    /// `NOPERM`: the user may not run the command or touch the key.
    NoPerm,
    /// `MOVED`: the key's slot lives on another cluster node.
    Moved,
    /// `ASK`: the key's slot is migrating to another cluster node.
    Ask,
    /// `TRYAGAIN`: a multi-key request met a slot in migration; retry later.
    TryAgain,
    /// `CLUSTERDOWN`: the cluster cannot serve the slot now.
    ClusterDown,
    /// `CROSSSLOT`: the keys of one request hash to different slots.
    CrossSlot,
    /// Any other first word.
    Other,
}

impl ServerErrorKind {
    /// Every kind, in declaration order, for reports that list them all.
    pub const ALL: [Self; 15] = [
        Self::Err,
        Self::Oom,
        Self::Loading,
        Self::Busy,
        Self::ReadOnly,
        Self::NoAuth,
        Self::WrongPass,
        Self::WrongType,
        Self::NoPerm,
        Self::Moved,
        Self::Ask,
        Self::TryAgain,
        Self::ClusterDown,
        Self::CrossSlot,
        Self::Other,
    ];

    /// A reply a Redis Cluster client follows rather than counts: `-MOVED`
    /// and `-ASK` name another node, `-TRYAGAIN` and `-CLUSTERDOWN` ask to
    /// try again later.
    #[must_use]
    pub fn routes(self) -> bool {
        matches!(
            self,
            Self::Moved | Self::Ask | Self::TryAgain | Self::ClusterDown
        )
    }

    /// Classifies an error reply's message (without the leading `-`) by its
    /// first space-separated word. The match is case-sensitive because Redis
    /// always sends these codes in upper case.
    #[must_use]
    pub fn classify(message: &[u8]) -> Self {
        let word = message.split(|&b| b == b' ').next().unwrap_or_default();
        match word {
            b"ERR" => Self::Err,
            b"OOM" => Self::Oom,
            b"LOADING" => Self::Loading,
            b"BUSY" => Self::Busy,
            b"READONLY" => Self::ReadOnly,
            b"NOAUTH" => Self::NoAuth,
            b"WRONGPASS" => Self::WrongPass,
            b"WRONGTYPE" => Self::WrongType,
            b"NOPERM" => Self::NoPerm,
            b"MOVED" => Self::Moved,
            b"ASK" => Self::Ask,
            b"TRYAGAIN" => Self::TryAgain,
            b"CLUSTERDOWN" => Self::ClusterDown,
            b"CROSSSLOT" => Self::CrossSlot,
            _ => Self::Other,
        }
    }

    /// The kind's name as shown in reports: its error code, or `OTHER`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Err => "ERR",
            Self::Oom => "OOM",
            Self::Loading => "LOADING",
            Self::Busy => "BUSY",
            Self::ReadOnly => "READONLY",
            Self::NoAuth => "NOAUTH",
            Self::WrongPass => "WRONGPASS",
            Self::WrongType => "WRONGTYPE",
            Self::NoPerm => "NOPERM",
            Self::Moved => "MOVED",
            Self::Ask => "ASK",
            Self::TryAgain => "TRYAGAIN",
            Self::ClusterDown => "CLUSTERDOWN",
            Self::CrossSlot => "CROSSSLOT",
            Self::Other => "OTHER",
        }
    }
}
