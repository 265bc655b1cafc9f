//! Why a report could not be read back (the typed model's reading of a JSON
//! file, `report::model`) or drawn as a page (`report::html`).

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

/// Why the page of a JSON document could not be drawn. The bytes are the
/// JSON report kvbench just wrote, so either is kvbench's fault, not the
/// user's; [`crate::error::OutputError::Page`] names the file it was for.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    /// The bytes are not UTF-8.
    #[error(transparent)]
    NotUtf8(#[from] std::str::Utf8Error),
    /// The report model could not read them.
    #[error(transparent)]
    Model(#[from] ModelError),
}
