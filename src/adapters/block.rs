//! The marked block in a Markdown bootstrap file (`AGENTS.md`, `CLAUDE.md`,
//! a `.clinerules` file): inserted at the end the first time, replaced in
//! place after that, everything outside the markers kept byte for byte.

use std::path::Path;

use super::Edit;
use crate::error::{Error, Result};

/// Opens the block agent-handover owns (agent-handover 0.5.1's marker).
pub const BEGIN_MARKER: &str = "<!-- agent-handover:begin -->";
/// Closes it.
pub const END_MARKER: &str = "<!-- agent-handover:end -->";

/// `existing` with its marked block set to `text` (which ends with a newline).
///
/// A file with only one of the markers, or the end before the begin, is an
/// error: guessing where the block ends could eat the user's text.
pub fn splice(existing: &str, text: &str, path: &Path) -> Result<String> {
    let block = format!("{BEGIN_MARKER}\n{text}{END_MARKER}");
    let begin = existing.find(BEGIN_MARKER);
    let end = begin.and_then(|b| existing[b..].find(END_MARKER).map(|e| b + e));
    match (begin, end) {
        (Some(b), Some(e)) => Ok(format!(
            "{}{block}{}",
            &existing[..b],
            &existing[e + END_MARKER.len()..]
        )),
        (None, _) if !existing.contains(END_MARKER) => Ok(if existing.trim().is_empty() {
            block + "\n"
        } else {
            format!("{}\n\n{block}\n", existing.trim_end())
        }),
        _ => Err(Error::Corrupt {
            path: path.into(),
            detail: format!("it has `{BEGIN_MARKER}` or `{END_MARKER}` without the other"),
            fix: "remove the partial agent-handover block (or restore the missing marker), then install again; agent-handover left the file untouched".into(),
        }),
    }
}

/// Plan putting the block holding `text` into the file at `path` (created if missing).
pub(super) fn edit(path: &Path, text: &str) -> Result<Edit> {
    Edit::plan(path, |old| splice(old.unwrap_or(""), text, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("AGENTS.md")
    }

    #[test]
    fn first_install_appends_and_later_ones_replace_in_place() {
        let block = |t: &str| format!("{BEGIN_MARKER}\n{t}{END_MARKER}");
        assert_eq!(splice("", "v1\n", p()).unwrap(), block("v1\n") + "\n");
        let user = "# Rules\n\nBe nice.\n\n\n";
        let once = splice(user, "v1\n", p()).unwrap();
        assert_eq!(once, format!("# Rules\n\nBe nice.\n\n{}\n", block("v1\n")));
        let edited = once.clone() + "\nMy notes after the block.\n";
        let twice = splice(&edited, "v2\n", p()).unwrap();
        assert_eq!(
            twice,
            format!(
                "# Rules\n\nBe nice.\n\n{}\n\nMy notes after the block.\n",
                block("v2\n")
            )
        );
        assert_eq!(splice(&twice, "v2\n", p()).unwrap(), twice);
    }

    #[test]
    fn half_a_block_is_refused() {
        for text in [
            format!("a\n{BEGIN_MARKER}\nb\n"),
            format!("a\n{END_MARKER}\nb\n"),
            format!("{END_MARKER}\n{BEGIN_MARKER}\n"),
        ] {
            let err = splice(&text, "x\n", p()).unwrap_err().to_string();
            assert!(
                err.contains("AGENTS.md") && err.contains("untouched"),
                "{err}"
            );
        }
    }
}
