//! The HTML page (`--html-out-file`): drawn from the JSON document's bytes,
//! read back into the typed model ([`crate::report::html::page_of_json`]), so the page
//! of a run is the page `kvbench report` draws of its JSON file. Rendering
//! costs milliseconds next to a phase, so it is rewritten after every phase.

use std::path::Path;

use super::json::Json;
use super::{Exporter, Subject, Unrendered};

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
    fn render(&self, subject: &Subject<'_>) -> Result<Vec<u8>, Unrendered> {
        let json = Json.render(subject)?;
        crate::report::html::page_of_json(&self.label, &json)
            .map(String::into_bytes)
            .map_err(Unrendered::Page)
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
