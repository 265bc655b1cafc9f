//! The HTML page (`--html-out-file`): drawn from the save's model document
//! ([`super::Rendering::document`], the value the JSON file serializes), so
//! the page of a run is the page `kvbench report` draws of its JSON file
//! (the figures rounded as the file writes them).
//! Rendering costs milliseconds next to a phase, so it is rewritten after
//! every phase.

use std::path::Path;

use super::{Exporter, Rendering, Unrendered};
use crate::report::html::{Source, page};
use crate::report::model::rounded::AsWritten;

/// `--html-out-file`, and the name the page gives the run.
pub struct Html {
    label: String,
}

impl Html {
    /// A page naming the run by `named`'s file name: the JSON file's when
    /// there is one, the page's own otherwise.
    pub fn named_by(named: &Path) -> Html {
        let label = named
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| named.display().to_string());
        Html { label }
    }
}

impl Exporter for Html {
    fn render(&self, rendering: &Rendering<'_>) -> Result<Vec<u8>, Unrendered> {
        // The page shows the file's figures, rounded as the JSON writes them.
        let mut content = rendering.document().clone();
        content.round_as_written();
        let source = Source {
            label: self.label.clone(),
            content,
        };
        Ok(page(&[source]).into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::Html;

    #[test]
    fn the_page_is_named_by_the_json_file_or_its_own() {
        assert_eq!(Html::named_by("results/s.json".as_ref()).label, "s.json");
        assert_eq!(Html::named_by("/tmp/s.html".as_ref()).label, "s.html");
        assert_eq!(Html::named_by("/".as_ref()).label, "/");
    }
}
