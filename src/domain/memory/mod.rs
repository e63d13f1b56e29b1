//! The three-layer Markdown memory store, at agent-handover 0.5.1's paths and
//! with its headers, minus its defects:
//!
//! * a second layer-1 note with the same tag on the same day gets its own file
//!   (`<tag>-<date>-2.md`) instead of overwriting the first;
//! * every version of `current-state.md` is kept in a local history
//!   ([`history::StateHistory`]) before it is replaced;
//! * tags that would escape the memory root are refused, and writes never
//!   follow a symlink out of it.

pub mod compact;
pub mod conflict;
pub mod diff;
pub mod history;
pub mod identity;
pub mod note_name;
pub mod state_merge;
pub mod versions;

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};

use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::workspace::MemoryLayout;
use history::{Kept, StateHistory};

/// The calendar month naming layer-1 folders and layer-3 archives; defined
/// beside the layout that names them.
pub use crate::workspace::month;

/// Largest note or state text accepted (and largest memory file read back).
pub const MAX_MEMORY_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// How many layer-1 notes one tag may have on one day (`-2` ... `-10000`).
pub const MAX_NOTES_PER_TAG_AND_DAY: u32 = 10_000;

/// The header line every memory file starts with: `<!-- agent-handover | layerN | YYYY-MM-DD -->`.
pub fn header(layer: u8, date: NaiveDate) -> String {
    format!(
        "<!-- agent-handover | layer{layer} | {} -->\n",
        date.format("%Y-%m-%d")
    )
}

/// `text` without its [`header`] line, if it starts with one.
pub fn without_header(text: &str) -> &str {
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("<!-- agent-handover |") => rest,
        _ => text,
    }
}

/// Check a tag: letters, digits, `-`, `_` and `.` only (no separators,
/// spaces, control or bidi characters: the agent-name rule,
/// [`crate::workspace::check_agent_name`]), refused with the offending
/// character named, never rewritten behind the user's back.
pub fn file_tag(tag: &str) -> Result<String> {
    if let Some(bad) = tag
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(Error::config(
            None,
            format!(
                "tag {tag:?} has {bad:?} (U+{:04X}); a tag is letters, digits, `-`, `_` and `.` only\n  fix: e.g. {:?}",
                u32::from(bad),
                tag.chars()
                    .map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                        c
                    } else {
                        '-'
                    })
                    .collect::<String>()
            ),
        ));
    }
    crate::workspace::check_agent_name(tag)?;
    Ok(tag.to_string())
}

/// Writes and reads the memory layers under one root.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    layout: MemoryLayout,
    history: StateHistory,
}

impl MemoryStore {
    /// A store over `layout`, keeping current-state versions in `history_dir`.
    pub fn new(layout: MemoryLayout, history_dir: PathBuf) -> Self {
        MemoryStore {
            layout,
            history: StateHistory::new(history_dir),
        }
    }

    /// The store's layout.
    pub fn layout(&self) -> &MemoryLayout {
        &self.layout
    }

    /// The current-state history.
    pub fn history(&self) -> &StateHistory {
        &self.history
    }

    /// Write a layer-1 session note for `tag` on `date`; never overwrites.
    ///
    /// The names are tried in order, each once: `<tag>-<date>.md`, then
    /// `-2`, `-3`, ... up to [`MAX_NOTES_PER_TAG_AND_DAY`], then
    /// [`Error::NoteNamesExhausted`]. A symlink at a free name is an error
    /// ([`Error::Symlink`]), nothing written.
    ///
    /// Idempotent: if a note of that tag and day already holds exactly this
    /// text (an earlier attempt of the same step), its path is returned and
    /// nothing is written.
    pub fn write_session_note(&self, tag: &str, date: NaiveDate, content: &str) -> Result<PathBuf> {
        let tag = file_tag(tag)?;
        let body = header(1, date) + content;
        let dir = self.layout.layer1_month_dir(date);
        self.prepare_dir(&dir)?;
        // An earlier attempt's note, wherever it is: names need not be
        // contiguous (a merge keeps another machine's note of the same name
        // under the next name free there), so the first free name below it
        // says nothing.
        if let Some(found) = self.same_note(&dir, &tag, date, &body)? {
            return Ok(found);
        }
        for n in 1..=MAX_NOTES_PER_TAG_AND_DAY {
            let path = self.layout.layer1_note(&tag, date, n);
            let existing = match read_memory_file(&self.layout.root, &path)? {
                None if fsx::create_new(&path, body.as_bytes())? => return Ok(path),
                // Another writer took the name meanwhile: it may hold this very text.
                None => read_memory_file(&self.layout.root, &path)?,
                existing => existing,
            };
            if existing.as_deref() == Some(body.as_str()) {
                return Ok(path);
            }
        }
        Err(Error::NoteNamesExhausted { dir, tag, date })
    }

    /// The note of `tag` on `date` in `dir` that holds exactly `body`, if any.
    fn same_note(
        &self,
        dir: &Path,
        tag: &str,
        date: NaiveDate,
        body: &str,
    ) -> Result<Option<PathBuf>> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(None);
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let ours = name
                .to_str()
                .and_then(note_name::NoteName::parse)
                .is_some_and(|n| n.tag == tag && n.date == date);
            // A link is not read here: the names in order say what it is.
            if !ours || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.path();
            if read_memory_file(&self.layout.root, &path)?.as_deref() == Some(body) {
                return Ok(Some(path));
            }
        }
        Ok(None)
    }

    /// Replace `layer2/current-state.md`, keeping every version in the history.
    ///
    /// A version that is on disk but not yet in the history (edited by hand,
    /// or written by 0.5.1) is saved there first, so nothing is lost.
    /// Idempotent: writing the text already in place writes nothing.
    pub fn write_current_state(
        &self,
        date: NaiveDate,
        content: &str,
        run_id: &str,
    ) -> Result<PathBuf> {
        let body = header(2, date) + content;
        let path = self.layout.current_state();
        self.prepare_dir(path.parent().expect("layer2 has a parent"))?;
        replace_versioned(&self.layout.root, &path, &self.history, &body, run_id)?;
        Ok(path)
    }

    /// Read `current-state.md` (`None` if there is none yet).
    pub fn read_current_state(&self) -> Result<Option<String>> {
        read_memory_file(&self.layout.root, &self.layout.current_state())
    }

    fn prepare_dir(&self, dir: &Path) -> Result<()> {
        fsx::create_dir_durable(dir)?;
        fsx::ensure_within(&self.layout.root, dir)
    }
}

/// Replace `path` (in the memory tree `root`) with `body`, keeping every
/// version in `history`: the text on disk first when the history lacks it
/// (a hand edit, a 0.5.1 write), then `body` labelled `label`. Writing the
/// text already in place writes nothing.
fn replace_versioned(
    root: &Path,
    path: &Path,
    history: &StateHistory,
    body: &str,
    label: &str,
) -> Result<()> {
    let existing = read_memory_file(root, path)?;
    if let Some(old) = &existing {
        // The file replaced the newest kept version, so it is newer than
        // it, even when its mtime (the kernel's coarse clock) lags.
        let mtime: Option<DateTime<Utc>> = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .map(Into::into);
        let newest = history.list()?.first().map(|v| v.at);
        let at = match (mtime, newest) {
            (Some(m), Some(n)) => Some(m.max(n + chrono::Duration::microseconds(1))),
            (m, _) => m,
        };
        // Kept anywhere already: the text a write killed halfway left on
        // disk (its successor saved, the file not yet replaced) is not a
        // hand edit.
        history.save_unless(Kept::Anywhere, old, history::EXTERNAL_LABEL, at)?;
    }
    history.save(body, label, None)?;
    if existing.as_deref() != Some(body) {
        fsx::write_atomic(path, body.as_bytes())?;
    }
    Ok(())
}

/// Read a memory file of the tree `root`: bounded, and never through a link
/// leading out of the tree ([`fsx::read_text_within`]).
fn read_memory_file(root: &Path, path: &Path) -> Result<Option<String>> {
    fsx::read_text_within(
        root,
        path,
        MAX_MEMORY_FILE_BYTES,
        "memory files are briefings, not dumps: move the file aside and write a shorter one",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> MemoryStore {
        MemoryStore::new(MemoryLayout::at(&dir.join("memory")), dir.join("hist"))
    }

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    #[test]
    fn second_note_same_tag_same_day_gets_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let a = s.write_session_note("codex", day(), "first").unwrap();
        let b = s.write_session_note("codex", day(), "second").unwrap();
        assert_eq!(
            a,
            dir.path().join("memory/layer1/2026-11/codex-2026-11-21.md")
        );
        assert_eq!(
            b,
            dir.path()
                .join("memory/layer1/2026-11/codex-2026-11-21-2.md")
        );
        assert_eq!(
            std::fs::read_to_string(&a).unwrap(),
            "<!-- agent-handover | layer1 | 2026-11-21 -->\nfirst"
        );
        assert!(std::fs::read_to_string(&b).unwrap().ends_with("second"));
    }

    /// A merge can leave a gap below a note (another machine's note of the
    /// same name kept under the next name free there): writing the note
    /// again finds it above the gap, never a second copy in the gap.
    #[test]
    fn rewriting_a_note_above_a_gap_finds_it_there() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let first = s.write_session_note("codex", day(), "first").unwrap();
        let body = "<!-- agent-handover | layer1 | 2026-11-21 -->\nmine";
        let above = dir
            .path()
            .join("memory/layer1/2026-11/codex-2026-11-21-5.md");
        std::fs::write(&above, body).unwrap();
        assert_eq!(s.write_session_note("codex", day(), "mine").unwrap(), above);
        let files = std::fs::read_dir(first.parent().unwrap()).unwrap().count();
        assert_eq!(files, 2, "no copy written at -2");
    }

    #[test]
    fn rewriting_the_same_note_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let a = s.write_session_note("codex", day(), "same").unwrap();
        let b = s.write_session_note("codex", day(), "same").unwrap();
        assert_eq!(a, b);
        assert_eq!(std::fs::read_dir(a.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn a_dangling_symlink_at_the_next_name_is_an_error_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let first = s.write_session_note("codex", day(), "first").unwrap();
        let link = first.with_file_name("codex-2026-11-21-2.md");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        let err = s.write_session_note("codex", day(), "second").unwrap_err();
        // It points out of the memory: refused as a read through it would be.
        assert!(
            matches!(&err, Error::LinkOutside { path, .. } if *path == link),
            "{err}"
        );
        assert!(err.to_string().contains("or remove it"), "{err}");
        assert!(!dir.path().join("nowhere").exists());
        assert_eq!(
            std::fs::read_dir(first.parent().unwrap()).unwrap().count(),
            2
        );
        // The notes before it are still found: the same text is idempotent.
        assert_eq!(
            s.write_session_note("codex", day(), "first").unwrap(),
            first
        );
    }

    #[test]
    fn tags_are_mapped_like_0_5_1_and_escapes_refused() {
        assert_eq!(file_tag("codex-2.büro").unwrap(), "codex-2.büro");
        let err = file_tag("my agent").unwrap_err().to_string();
        assert!(err.contains("' '") && err.contains("\"my-agent\""), "{err}");
        let bidi = file_tag("evil\u{202e}txt").unwrap_err().to_string();
        assert!(bidi.contains("U+202E"), "{bidi}");
        for bad in ["../x", "/etc", "a/../b", "\\x", "x\ny", "", "team/codex"] {
            assert!(file_tag(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn current_state_keeps_every_version() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        s.write_current_state(day(), "v1", "run-a").unwrap();
        // A hand edit between handovers is kept too.
        std::fs::write(s.layout().current_state(), "edited by hand").unwrap();
        s.write_current_state(day(), "v2", "run-b").unwrap();
        s.write_current_state(day(), "v2", "run-b").unwrap();
        let versions = s.history().list().unwrap();
        let labels: Vec<_> = versions.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(labels, ["run-b", "external", "run-a"]);
        assert_eq!(s.history().read(&versions[1]).unwrap(), "edited by hand");
        assert!(s.read_current_state().unwrap().unwrap().ends_with("v2"));
    }

    /// A write killed after saving its version but before replacing the
    /// file, then run again, adds no version: the old text on disk is no
    /// hand edit, and the new one is kept once.
    #[test]
    fn a_write_retried_after_a_crash_adds_no_version() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        s.write_current_state(day(), "v1", "run-a").unwrap();
        let body = header(2, day()) + "v2";
        s.history().save(&body, "run-b", None).unwrap(); // then killed
        s.write_current_state(day(), "v2", "run-b").unwrap();
        let labels: Vec<String> = s
            .history()
            .list()
            .unwrap()
            .into_iter()
            .map(|v| v.label)
            .collect();
        assert_eq!(labels, ["run-b", "run-a"]);
        assert_eq!(s.read_current_state().unwrap().unwrap(), body);
    }

    #[test]
    fn symlinked_layer_dir_out_of_the_tree_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("memory/layer2")).unwrap();
        let err = store(dir.path())
            .write_current_state(day(), "x", "r")
            .unwrap_err();
        assert!(matches!(err, Error::LinkOutside { .. }), "{err}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
