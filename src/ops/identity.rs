//! The project's identity (`identity.md`) as `identity show` prints it.

use std::path::PathBuf;

use serde::Serialize;

use crate::base::error::Result;
use crate::base::secrets;
use crate::domain::memory::identity::Identity;
use crate::workspace::Workspace;

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

/// `ws`'s identity, redacted.
pub fn show(ws: &Workspace) -> Result<IdentityShown> {
    let id = Identity::new(&ws.memory, ws.identity_history_dir());
    let mut text = id.read()?;
    text.iter_mut().for_each(secrets::redact_in_place);
    Ok(IdentityShown {
        path: id.path().to_path_buf(),
        text,
        versions: id.versions()?.len(),
    })
}
