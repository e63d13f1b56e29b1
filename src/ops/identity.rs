//! The project's identity (`identity.md`): `identity show` as it prints
//! it, and `identity set` / `identity edit` as they change it (under the
//! identity lock, every version kept).

use std::path::PathBuf;

use serde::Serialize;

use crate::base::error::Result;
use crate::base::secrets;
use crate::domain::memory::identity::{Identity, TEMPLATE};
use crate::workspace::Workspace;

/// The label of the versions `identity set` and `identity edit` write.
pub const LABEL: &str = "identity";

/// identity.md as shown: where it is, its text redacted, how many versions
/// it has had.
#[derive(Debug, Clone, Serialize)]
pub struct IdentityShown {
    /// The file.
    pub path: PathBuf,
    /// Its text (`None`: no identity yet).
    pub text: Option<String>,
    /// How many versions its history keeps.
    pub versions: usize,
}

/// identity.md after `identity set`: where it is and its new text, redacted.
#[derive(Debug, Clone, Serialize)]
pub struct IdentitySet {
    /// The file.
    pub path: PathBuf,
    /// Its text now.
    pub text: String,
}

/// `ws`'s identity, its changes made under `ws`'s identity lock.
fn open(ws: &Workspace) -> Identity {
    Identity::new(&ws.memory, ws.identity_history_dir()).with_lock(ws.identity_lock())
}

fn today() -> chrono::NaiveDate {
    chrono::Local::now().date_naive()
}

/// `ws`'s identity, redacted.
pub fn show(ws: &Workspace) -> Result<IdentityShown> {
    let id = open(ws);
    let mut text = id.read()?;
    text.iter_mut().for_each(secrets::redact_in_place);
    Ok(IdentityShown {
        path: id.path().to_path_buf(),
        text,
        versions: id.versions()?.len(),
    })
}

/// `identity set SECTION TEXT`: replace one section's body (added when
/// missing), read and written under the identity lock so writers at once
/// lose nothing; the previous text is kept as a version.
pub fn set(ws: &Workspace, section: &str, body: &str) -> Result<IdentitySet> {
    let id = open(ws);
    let mut text = id.set_section(section, body, today(), LABEL)?;
    secrets::redact_in_place(&mut text);
    Ok(IdentitySet {
        path: id.path().to_path_buf(),
        text,
    })
}

/// The text `identity edit` opens: the file without its header, or the
/// template when there is none.
pub fn text_to_edit(ws: &Workspace) -> Result<String> {
    Ok(open(ws).read()?.unwrap_or_else(|| TEMPLATE.to_string()))
}

/// `identity edit`, once edited: replace the whole text (under the identity
/// lock; the previous text kept as a version); returns the file.
pub fn replace(ws: &Workspace, text: &str) -> Result<PathBuf> {
    open(ws).write(text, today(), LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_then_replace_keep_every_version_and_take_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::in_dir(dir.path());
        assert_eq!(text_to_edit(&ws).unwrap(), TEMPLATE);
        let set = set(&ws, "Goals", "- ship 1.0").unwrap();
        assert!(
            set.text.contains("## Goals\n\n- ship 1.0\n"),
            "{}",
            set.text
        );
        assert!(ws.identity_lock().exists());
        replace(&ws, "# Identity\n\nby hand\n").unwrap();
        let shown = show(&ws).unwrap();
        assert_eq!(shown.text.as_deref(), Some("# Identity\n\nby hand\n"));
        assert_eq!(shown.versions, 2);
    }
}
