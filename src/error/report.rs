//! Why a report could not be read back (the typed model's reading of a JSON
//! file, `report::model`).

use std::fmt;

/// Why a file could not be read into the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError {
    /// The file, as given.
    pub file: String,
    /// The jq path of the field at fault (`.` for the whole document).
    pub path: String,
    /// What is wrong, with serde's line and column.
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: at {}: {}", self.file, self.path, self.message)
    }
}

impl std::error::Error for ModelError {}
