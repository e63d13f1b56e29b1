//! Publish targets: where the `publish` step sends the memory.
//!
//! `null` keeps everything local (the files on disk are enough). `git` is
//! 0.5.1's default; this release reads its keys but does not publish with it
//! yet, and says so at config time rather than failing halfway through a run.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::BackendSection;

/// A backend, as staged in a run's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BackendSpec {
    /// Local only: publishing succeeds without doing anything.
    Null,
}

impl BackendSpec {
    /// The backend a `[backend]` section describes (`--no-push` given as `no_push`).
    pub fn from_config(
        section: &BackendSection,
        _memory_root: &Path,
        _root: &Path,
        _no_push: bool,
    ) -> Result<Self, String> {
        match section.kind.as_deref().unwrap_or("git") {
            "null" => Ok(BackendSpec::Null),
            "git" => Err(
                "[backend] type \"git\" (the default when [backend] has no type) is not available in this release yet\n  fix: set [backend] type = \"null\" to keep the memory local"
                    .into(),
            ),
            other => Err(format!("unknown backend type: {other:?} (expected \"git\" or \"null\")")),
        }
    }

    /// Whether publishing twice is harmless.
    pub fn is_idempotent(&self) -> bool {
        match self {
            BackendSpec::Null => true,
        }
    }

    /// Publish; returns a one-line summary of what was done.
    pub fn publish(&self, _message: &str) -> Result<String, String> {
        match self {
            BackendSpec::Null => Ok("null backend: nothing to publish".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(kind: Option<&str>) -> BackendSection {
        BackendSection {
            kind: kind.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn unknown_backend_type_is_an_error() {
        let err =
            BackendSpec::from_config(&section(Some("s3")), Path::new("m"), Path::new("."), false)
                .unwrap_err();
        assert!(err.contains("unknown backend type: \"s3\""), "{err}");
    }

    #[test]
    fn null_backend_publishes_nothing() {
        let b = BackendSpec::from_config(
            &section(Some("null")),
            Path::new("m"),
            Path::new("."),
            false,
        )
        .unwrap();
        assert!(b.is_idempotent());
        assert!(b.publish("m").is_ok());
    }
}
