//! The identity layer: `identity.md` in the memory tree, the slow-changing
//! part of memory (behavioural policies, long-term goals, core parameters),
//! kept apart from the volatile current state because mixing the two causes
//! bugs: volatile status in identity makes it grow stale, standing policy
//! in current-state.md is overwritten by the next handover.
//!
//! A handover never writes it: only `agent-handover identity` (or a hand
//! edit) does. Every version is kept, like current-state.md's, in
//! `.agent-handover/history/identity/`; a hand edit is saved there before
//! the next command replaces it. `brief` loads it within its budget.
//!
//! A change is read, made and written under one lock ([`Identity::with_lock`]),
//! so two `identity set` at once (of different sections) both land: the
//! second reads the first's text, never the text before it.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use super::history::{StateHistory, StateVersion};
use super::{MAX_MEMORY_FILE_BYTES, read_memory_file, replace_versioned, without_header};
use crate::base::error::{Error, Result};
use crate::base::{fsx, secrets};
use crate::workspace::MemoryLayout;

/// The text a new identity file starts from.
pub const TEMPLATE: &str = "\
# Identity

Slow-changing: policies, goals, parameters. Changed with `agent-handover identity`, never by a handover.

## Policies

## Goals

## Parameters
";

/// What to do about a secret in the identity text.
const REFUSED_FIX: &str = "nothing was written; identity.md is read into every brief and published with the memory, so keep the secret in a secret manager or an environment variable and name that (rotate it if it was real)";

/// The identity file of a memory tree and its versions.
#[derive(Debug, Clone)]
pub struct Identity {
    root: PathBuf,
    path: PathBuf,
    history: StateHistory,
    lock: Option<PathBuf>,
}

impl Identity {
    /// The identity of the memory tree `layout`, its versions kept in `history_dir`.
    pub fn new(layout: &MemoryLayout, history_dir: PathBuf) -> Self {
        Identity {
            root: layout.root.clone(),
            path: layout.identity(),
            history: StateHistory::new(history_dir),
            lock: None,
        }
    }

    /// The same, holding an advisory lock on `file` (outside the memory
    /// tree, never deleted) while it changes the file, so that writers at
    /// once never lose each other's change.
    pub fn with_lock(mut self, file: PathBuf) -> Self {
        self.lock = Some(file);
        self
    }

    /// Take the lock, if one is set; it is held until the file is dropped.
    fn locked(&self) -> Result<Option<std::fs::File>> {
        fsx::lock_if_set(self.lock.as_deref())
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its text without the header line; `None` when there is no file.
    pub fn read(&self) -> Result<Option<String>> {
        Ok(read_memory_file(&self.root, &self.path)?.map(|t| without_header(&t).to_string()))
    }

    /// Every kept version, newest first.
    pub fn versions(&self) -> Result<Vec<StateVersion>> {
        self.history.list()
    }

    /// Replace the text (dated `date`, the version labelled `label`),
    /// keeping the previous one; writing the same text writes nothing.
    /// A text holding a secret is refused ([`secrets::check`]), nothing
    /// written: identity.md is read into every brief and published.
    pub fn write(&self, text: &str, date: NaiveDate, label: &str) -> Result<PathBuf> {
        let _lock = self.locked()?;
        self.write_locked(text, date, label)
    }

    /// [`Self::write`], the lock held by the caller.
    fn write_locked(&self, text: &str, date: NaiveDate, label: &str) -> Result<PathBuf> {
        secrets::check("the identity text", text, REFUSED_FIX)?;
        let body = format!(
            "<!-- agent-handover | identity | {} -->\n{}",
            date.format("%Y-%m-%d"),
            text
        );
        // Read whole at every session start: never written larger than it
        // can be read back.
        if body.len() as u64 > MAX_MEMORY_FILE_BYTES {
            return Err(Error::TooLarge {
                path: self.path.clone(),
                size: body.len() as u64,
                limit: MAX_MEMORY_FILE_BYTES,
                fix: "nothing was written; identity.md is who we are and how we work, read at every session start: keep it short, and put reference material in the knowledge (`agent-handover knowledge`)",
            });
        }
        fsx::create_dir_durable(&self.root)?;
        // What a killed `identity set` left (an unlocked temp file) goes first.
        fsx::remove_orphan_temps(&self.root, std::time::Duration::MAX);
        replace_versioned(&self.root, &self.path, &self.history, &body, label)?;
        Ok(self.path.clone())
    }

    /// Replace the body of section `## <section>` (case-insensitive; added
    /// at the end when missing) with `body`; returns the new text. Read,
    /// changed and written under the lock.
    pub fn set_section(
        &self,
        section: &str,
        body: &str,
        date: NaiveDate,
        label: &str,
    ) -> Result<String> {
        let _lock = self.locked()?;
        let text = self.read()?.unwrap_or_else(|| TEMPLATE.to_string());
        let new = with_section(&text, section, body);
        self.write_locked(&new, date, label)?;
        Ok(new)
    }
}

/// `text` with the body of `## <section>` replaced by `body`.
fn with_section(text: &str, section: &str, body: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let is_heading = |l: &str| l.starts_with("## ");
    let start = lines
        .iter()
        .position(|l| is_heading(l) && l[3..].trim().eq_ignore_ascii_case(section.trim()));
    let body = body.trim();
    let mut out = String::with_capacity(text.len() + body.len());
    let mut push = |l: &str| {
        out.push_str(l);
        out.push('\n');
    };
    match start {
        Some(at) => {
            let end = lines[at + 1..]
                .iter()
                .position(|l| is_heading(l) || l.starts_with("# "))
                .map_or(lines.len(), |n| at + 1 + n);
            lines[..=at].iter().for_each(|l| push(l));
            push("");
            body.lines().for_each(&mut push);
            if end < lines.len() {
                push("");
            }
            lines[end..].iter().for_each(|l| push(l));
        }
        None => {
            lines.iter().for_each(|l| push(l));
            push("");
            push(&format!("## {}", section.trim()));
            push("");
            body.lines().for_each(&mut push);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    /// The identity of a memory in `dir`, under its lock.
    fn locked_in(dir: &Path) -> Identity {
        Identity::new(&MemoryLayout::at(&dir.join("memory")), dir.join("h"))
            .with_lock(dir.join("identity.lock"))
    }

    #[test]
    fn a_section_too_large_to_read_back_is_refused_and_nothing_written() {
        let dir = tempfile::tempdir().unwrap();
        let id = locked_in(dir.path());
        id.set_section("Who", "- us", day(), "identity").unwrap();
        let before = id.read().unwrap();
        let huge = "x".repeat(MAX_MEMORY_FILE_BYTES as usize);
        let err = id
            .set_section("Notes", &huge, day(), "identity")
            .unwrap_err();
        assert!(matches!(err, Error::TooLarge { .. }), "{err}");
        assert!(err.to_string().contains("nothing was written"), "{err}");
        assert_eq!(id.read().unwrap(), before);
    }

    /// Issue 41: two `identity set` at once lost one section. Under the
    /// lock (each writer its own `Identity`, as each process has), every
    /// section lands and every change is a version.
    #[test]
    fn writers_at_once_lose_no_section() {
        let dir = tempfile::tempdir().unwrap();
        let open = || locked_in(dir.path());
        std::thread::scope(|s| {
            for t in 0..4 {
                let id = open();
                s.spawn(move || {
                    for i in 0..5 {
                        id.set_section(&format!("S{t}-{i}"), "- x", day(), "identity")
                            .unwrap();
                    }
                });
            }
        });
        let text = open().read().unwrap().unwrap();
        for t in 0..4 {
            for i in 0..5 {
                assert!(
                    text.contains(&format!("## S{t}-{i}\n")),
                    "S{t}-{i} lost:\n{text}"
                );
            }
        }
        assert_eq!(open().versions().unwrap().len(), 20);
    }

    #[test]
    fn set_replaces_one_section_and_keeps_every_version() {
        let dir = tempfile::tempdir().unwrap();
        let id = Identity::new(
            &MemoryLayout::at(&dir.path().join("memory")),
            dir.path().join("h"),
        );
        assert_eq!(id.read().unwrap(), None);
        let text = id
            .set_section(
                "policies",
                "- Never push to main without tests",
                day(),
                "identity",
            )
            .unwrap();
        assert!(
            text.contains("## Policies\n\n- Never push to main without tests\n\n## Goals"),
            "{text}"
        );
        // A hand edit is kept as a version before the next change.
        let on_disk = std::fs::read_to_string(id.path()).unwrap();
        std::fs::write(id.path(), on_disk.replace("main", "trunk")).unwrap();
        let text = id
            .set_section("Owners", "- ops team", day(), "identity")
            .unwrap();
        assert!(
            text.contains("trunk") && text.ends_with("## Owners\n\n- ops team\n"),
            "{text}"
        );
        let labels: Vec<String> = id
            .versions()
            .unwrap()
            .into_iter()
            .map(|v| v.label)
            .collect();
        assert_eq!(labels, ["identity", "external", "identity"]);
        let numbers: Vec<Option<u64>> = id.versions().unwrap().iter().map(|v| v.seq).collect();
        assert_eq!(numbers, [Some(3), Some(2), Some(1)]);
        assert!(
            std::fs::read_to_string(id.path())
                .unwrap()
                .starts_with("<!-- agent-handover | identity | 2026-11-23 -->\n# Identity")
        );
    }
}
