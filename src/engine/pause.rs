//! The PAUSE brake: while any of the workspace's PAUSE files exists, nothing
//! runs. It is checked before a run and before every step; a paused run stays
//! resumable. `~/.agent_handover/PAUSE` (global) and the project's pause file
//! are both honoured. A PAUSE file's text, if any, is its reason.

use std::path::{Path, PathBuf};

use chrono::Utc;

use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::workspace::Workspace;

const MAX_REASON_BYTES: u64 = 4096;

/// An active PAUSE file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PauseInfo {
    /// The file.
    pub file: PathBuf,
    /// Its first line, if it has text.
    pub reason: Option<String>,
    /// Who paused and when (its second line, as `pause` writes it), if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Whether it is the global file (`~/.agent_handover/PAUSE`), which
    /// stops every workspace.
    pub global: bool,
}

impl PauseInfo {
    /// The command that removes it.
    pub fn unpause_command(&self) -> String {
        if self.global {
            "agent-handover unpause --global".into()
        } else {
            "agent-handover unpause".into()
        }
    }

    /// The file, its reason and who pulled it, in a few words.
    pub fn describe(&self) -> String {
        let mut text = self.file.display().to_string();
        if let Some(r) = &self.reason {
            text += &format!(": {r}");
        }
        if let Some(by) = &self.by {
            text += &format!(", {by}");
        }
        text
    }
}

/// The first PAUSE file present among `files` (the workspace's
/// [`Workspace::pause_files`]: the project's, then the global one), if any.
/// Anything at the path counts, a dangling symlink too: a brake that looks
/// half-pulled is pulled.
pub fn active_pause(files: &[PathBuf]) -> Option<PauseInfo> {
    files
        .iter()
        .position(|f| f.symlink_metadata().is_ok())
        .map(|at| {
            let file = &files[at];
            let (reason, by) = read_reason(file);
            PauseInfo {
                reason,
                by,
                global: at > 0,
                file: file.clone(),
            }
        })
}

/// The global PAUSE at `file` ([`crate::workspace::global_pause_file`]),
/// if it is pulled.
pub fn global_pause(file: &Path) -> Option<PauseInfo> {
    active_pause(&[file.to_path_buf()]).map(|p| PauseInfo { global: true, ..p })
}

/// Fail with [`Error::Paused`] when a PAUSE file is present.
pub fn ensure_not_paused(files: &[PathBuf]) -> Result<()> {
    match active_pause(files) {
        Some(p) => Err(Error::Paused {
            file: p.file,
            reason: p.reason,
        }),
        None => Ok(()),
    }
}

/// The reason (first line) and who paused (second line, `paused by …`).
fn read_reason(file: &Path) -> (Option<String>, Option<String>) {
    let Some(text) = fsx::read_text_bounded(file, MAX_REASON_BYTES, "")
        .ok()
        .flatten()
    else {
        return (None, None);
    };
    let mut lines = text.lines().map(str::trim);
    let reason = lines.next().filter(|l| !l.is_empty()).map(str::to_string);
    let by = lines
        .next()
        .and_then(|l| l.strip_prefix("paused by "))
        .map(str::to_string);
    (reason, by)
}

/// Pause the workspace (its project PAUSE file, or the global one); returns the file.
///
/// The file's first line is the reason, the second who paused and when.
pub fn pause(ws: &Workspace, global: bool, reason: Option<&str>) -> Result<PathBuf> {
    let file = target(ws, global)?;
    let reason = reason.unwrap_or("").replace(['\n', '\r'], " ");
    let body = format!(
        "{reason}\npaused by {} at {}\n",
        super::identity::who(),
        Utc::now().format("%Y-%m-%dT%H:%M:%SZ")
    );
    fsx::write_atomic(&file, body.as_bytes())?;
    Ok(file)
}

/// Remove the workspace's PAUSE file (or the global one); returns it if it existed.
pub fn unpause(ws: &Workspace, global: bool) -> Result<Option<PathBuf>> {
    let file = target(ws, global)?;
    match std::fs::remove_file(&file) {
        Ok(()) => {
            fsx::sync_parent(&file)?;
            Ok(Some(file))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("remove", file, e)),
    }
}

fn target(ws: &Workspace, global: bool) -> Result<PathBuf> {
    if global {
        ws.global_pause_file.clone().ok_or_else(|| {
            Error::config(
                None,
                "no home directory known for the global PAUSE file; set $HOME",
            )
        })
    } else {
        Ok(ws.project_pause_file.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::WorkspaceOptions;

    #[test]
    fn pause_and_unpause_round_trip_with_reason() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(dir.path().join("home")),
            ..Default::default()
        })
        .unwrap();
        assert!(active_pause(&ws.pause_files()).is_none());
        let file = pause(&ws, false, Some("reviewing")).unwrap();
        let info = active_pause(&ws.pause_files()).unwrap();
        assert_eq!(
            (info.file, info.reason.as_deref()),
            (file.clone(), Some("reviewing"))
        );
        assert!(
            ensure_not_paused(&ws.pause_files())
                .unwrap_err()
                .to_string()
                .contains("reviewing")
        );
        assert_eq!(unpause(&ws, false).unwrap(), Some(file));
        assert_eq!(unpause(&ws, false).unwrap(), None);

        pause(&ws, true, None).unwrap();
        let info = active_pause(&ws.pause_files()).unwrap();
        assert_eq!(info.file, dir.path().join("home/.agent_handover/PAUSE"));
        assert_eq!(info.reason, None);
    }

    #[test]
    fn the_global_brake_is_read_from_its_file_alone_as_global() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(home.clone()),
            ..Default::default()
        })
        .unwrap();
        let file = crate::workspace::global_pause_file(&home);
        assert_eq!(ws.global_pause_file.as_ref(), Some(&file));
        assert_eq!(global_pause(&file), None);
        pause(&ws, true, Some("lunch")).unwrap();
        let info = global_pause(&file).unwrap();
        assert!(info.global);
        assert_eq!(info.reason.as_deref(), Some("lunch"));
        assert!(info.by.is_some());
    }

    #[test]
    fn an_empty_touched_file_pauses_too() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("PAUSE");
        std::fs::write(&f, "").unwrap();
        assert_eq!(active_pause(std::slice::from_ref(&f)).unwrap().reason, None);
    }
}
