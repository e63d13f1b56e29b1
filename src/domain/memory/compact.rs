//! Layer-3 compaction: the layer-1 notes of older months are folded into one
//! archive per month and tag, `layer3/YYYY-MM-<tag>-archive.md` (0.5.1's
//! path), then removed from layer 1.
//!
//! Crash safety, without a journal:
//!
//! * every archived note is preceded by a marker line naming the note and the
//!   git blob id of its exact content
//!   (`<!-- agent-handover:note name=<file> blob=<16 hex> -->`), followed by
//!   the note's full text;
//! * a month's archives are written first (atomically and durably, one write
//!   per archive however many notes it gains);
//! * only then are the month's notes removed from layer 1, and only those
//!   untouched since they were read (same inode, size, mtime and ctime);
//!   the removals are made durable together, with one directory sync.
//!
//! Re-running after a crash at any point therefore appends only notes not
//! already archived and removes only archived ones: every note ends up
//! exactly once, in layer 1 or in its archive. A note written later under an
//! archived note's name but with other content is archived as a new entry,
//! never dropped. Files that are not notes, and notes that cannot be read
//! (not UTF-8, oversized, symlinks), stay where they are and are reported.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Serialize;

use super::history::blob_id;
use super::month::YearMonth;
use super::note_name::NoteName;
use super::{MAX_MEMORY_FILE_BYTES, header};
use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::workspace::MemoryLayout;

/// Largest archive written or read back; a month and tag that would grow
/// past it keeps its remaining notes in layer 1 and says so.
pub const MAX_ARCHIVE_BYTES: u64 = 64 * 1024 * 1024;

const MARKER_PREFIX: &str = "<!-- agent-handover:note ";
const ARCHIVE_FIX: &str =
    "move the archive aside (e.g. rename it to ...-archive-1.md) and compact again";
/// Longest file name most file systems take.
const MAX_FILE_NAME_BYTES: usize = 255;

/// What compacting one month did (or, in a preview, would do).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MonthReport {
    /// The month.
    pub month: String,
    /// One entry per tag with notes that month.
    pub archives: Vec<ArchiveReport>,
    /// Notes removed (or to be removed) from layer 1.
    pub removed: usize,
    /// Files left in layer 1, each with the reason.
    pub skipped: Vec<Skipped>,
}

/// One archive of a month's compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ArchiveReport {
    /// The tag (file-name form).
    pub tag: String,
    /// `layer3/YYYY-MM-<tag>-archive.md`.
    pub path: PathBuf,
    /// Notes appended to it.
    pub appended: usize,
    /// Notes found already in it (from an earlier, interrupted compaction).
    pub already_archived: usize,
    /// Its size afterwards, in bytes.
    pub bytes: u64,
}

/// A file compaction left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why it stayed, and what to do about it.
    pub reason: String,
}

impl MonthReport {
    /// Notes appended to archives.
    pub fn appended(&self) -> usize {
        self.archives.iter().map(|a| a.appended).sum()
    }
}

/// The months that have a `layer1/YYYY-MM/` folder, oldest first.
pub fn layer1_months(layout: &MemoryLayout) -> Result<Vec<YearMonth>> {
    let dir = layout.layer1_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    let mut months: Vec<YearMonth> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    months.sort();
    Ok(months)
}

/// Whether `month`'s layer-1 folder holds any file named like a note (a
/// folder holding only other files is left alone, not compacted again and again).
pub fn has_notes(layout: &MemoryLayout, month: YearMonth) -> bool {
    std::fs::read_dir(layout.layer1_month_dir(month)).is_ok_and(|entries| {
        entries.filter_map(|e| e.ok()).any(|e| {
            e.file_type().is_ok_and(|t| t.is_file())
                && e.file_name().to_str().and_then(NoteName::parse).is_some()
        })
    })
}

/// Work out what compacting `month` would do, writing nothing.
pub fn preview_month(
    layout: &MemoryLayout,
    month: YearMonth,
    date: NaiveDate,
) -> Result<MonthReport> {
    Ok(MonthPlan::build(layout, month, date)?.report)
}

/// Fold `month`'s layer-1 notes into their archives (headed with `date`),
/// then remove them from layer 1. Safe to run again after a crash at any point.
pub fn compact_month(
    layout: &MemoryLayout,
    month: YearMonth,
    date: NaiveDate,
) -> Result<MonthReport> {
    let plan = MonthPlan::build(layout, month, date)?;
    for archive in &plan.writes {
        fsx::write_atomic(&archive.path, archive.text.as_bytes())?;
    }
    let removed = fsx::remove_files_durable(&plan.dir, &plan.removable()?)?;
    let mut report = plan.report;
    report.removed = removed;
    fsx::remove_dir_if_empty(&plan.dir)?;
    Ok(report)
}

/// A month's compaction, worked out in memory.
struct MonthPlan {
    dir: PathBuf,
    /// Archives to (re)write, with their whole new text.
    writes: Vec<ArchiveText>,
    /// Every note that will be in an archive.
    folded: Vec<Folded>,
    report: MonthReport,
}

/// A note that will be in an archive.
struct Folded {
    file: String,
    blob: String,
    /// Its file's identity when it was read.
    stamp: FileStamp,
    archive: PathBuf,
}

struct ArchiveText {
    path: PathBuf,
    text: String,
}

/// A readable note of the month.
struct Note {
    file: String,
    name: NoteName,
    text: String,
    stamp: FileStamp,
}

/// A file's identity and last change, as `stat` reports them: equal stamps
/// mean the file was neither replaced nor written in between.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStamp {
    /// The stamp of the regular file at `path` (`None` for anything else).
    fn of(path: &Path) -> Option<FileStamp> {
        let m = std::fs::symlink_metadata(path).ok()?;
        m.is_file().then(|| FileStamp::from(&m))
    }
}

impl From<&std::fs::Metadata> for FileStamp {
    fn from(m: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

impl MonthPlan {
    /// The folded notes that may leave layer 1: their archive on disk holds
    /// them (same name and blob; read back, so a write that went elsewhere,
    /// e.g. two tags meeting in one file on a case-insensitive file system,
    /// removes nothing), and they are untouched since they were read (a note
    /// edited meanwhile stays, to be archived next time).
    fn removable(&self) -> Result<Vec<&str>> {
        let mut on_disk: BTreeMap<&Path, HashSet<(String, String)>> = BTreeMap::new();
        let mut names = Vec::new();
        for f in &self.folded {
            if !on_disk.contains_key(f.archive.as_path()) {
                let text =
                    fsx::read_text_bounded_nofollow(&f.archive, MAX_ARCHIVE_BYTES, ARCHIVE_FIX)?;
                let held = text.map(|(t, _)| archived_notes(&t)).unwrap_or_default();
                on_disk.insert(&f.archive, held);
            }
            let held = &on_disk[f.archive.as_path()];
            if held.contains(&(f.file.clone(), f.blob.clone()))
                && FileStamp::of(&self.dir.join(&f.file)).as_ref() == Some(&f.stamp)
            {
                names.push(f.file.as_str());
            }
        }
        Ok(names)
    }

    fn build(layout: &MemoryLayout, month: YearMonth, date: NaiveDate) -> Result<MonthPlan> {
        let dir = layout.layer1_month_dir(month);
        let mut report = MonthReport {
            month: month.to_string(),
            ..MonthReport::default()
        };
        let mut by_tag: BTreeMap<String, Vec<Note>> = BTreeMap::new();
        if dir.is_dir() {
            fsx::ensure_within(&layout.root, &dir)?;
            for note in scan_notes(&dir, &mut report.skipped)? {
                by_tag.entry(note.name.tag.clone()).or_default().push(note);
            }
        }
        let mut plan = MonthPlan {
            dir,
            writes: Vec::new(),
            folded: Vec::new(),
            report,
        };
        if by_tag.is_empty() {
            return Ok(plan);
        }
        let layer3_dir = layout.layer3_dir();
        if layer3_dir.exists() {
            fsx::ensure_within(&layout.root, &layer3_dir)?;
        }
        for (tag, mut notes) in by_tag {
            notes.sort_by(|a, b| a.name.cmp(&b.name));
            let path = layout.layer3_archive(month, &tag);
            plan.fold_tag(tag, path, notes, month, date);
        }
        plan.report.removed = plan.folded.len(); // what a run would remove
        Ok(plan)
    }

    /// Fold one tag's notes into its archive text. When the archive cannot
    /// be used (unreadable, a symlink, a name too long), its notes stay in
    /// layer 1 and are reported, so a handover that compacts still completes.
    fn fold_tag(
        &mut self,
        tag: String,
        path: PathBuf,
        notes: Vec<Note>,
        month: YearMonth,
        date: NaiveDate,
    ) {
        let usable = if path.file_name().map_or(0, |n| n.len()) > MAX_FILE_NAME_BYTES {
            Err(format!(
                "the archive name for tag {tag:?} would be too long; rename these notes with a shorter tag"
            ))
        } else {
            fsx::read_text_bounded_nofollow(&path, MAX_ARCHIVE_BYTES, ARCHIVE_FIX)
                .map(|text| text.map(|(t, _)| t))
                .map_err(|e| e.to_string())
        };
        let existing = match usable {
            Ok(existing) => existing,
            Err(reason) => {
                self.report
                    .skipped
                    .extend(notes.into_iter().map(|n| Skipped {
                        path: self.dir.join(&n.file),
                        reason: reason.clone(),
                    }));
                return;
            }
        };
        let archived = existing.as_deref().map(archived_notes).unwrap_or_default();
        let mut text = match &existing {
            Some(old) => rehead(old, date),
            None => format!("{}# {tag}: session notes of {month}\n", header(3, date)),
        };
        let mut entry = ArchiveReport {
            tag,
            path: path.clone(),
            ..ArchiveReport::default()
        };
        for note in notes {
            let blob = short_blob(&note.text);
            if archived.contains(&(note.file.clone(), blob.clone())) {
                entry.already_archived += 1;
            } else {
                let addition = entry_text(&note.file, &blob, &note.text);
                if (text.len() + addition.len()) as u64 > MAX_ARCHIVE_BYTES {
                    self.report.skipped.push(Skipped {
                        path: self.dir.join(&note.file),
                        reason: format!(
                            "{} would grow past {MAX_ARCHIVE_BYTES} bytes; {ARCHIVE_FIX}",
                            path.display()
                        ),
                    });
                    continue;
                }
                text.push_str(&addition);
                entry.appended += 1;
            }
            self.folded.push(Folded {
                file: note.file,
                blob,
                stamp: note.stamp,
                archive: path.clone(),
            });
        }
        entry.bytes = text.len() as u64;
        if entry.appended > 0 {
            self.writes.push(ArchiveText { path, text });
        } else if let Some(old) = existing {
            entry.bytes = old.len() as u64;
        }
        self.report.archives.push(entry);
    }
}

/// The readable notes in a month folder; everything else goes to `skipped`.
fn scan_notes(dir: &Path, skipped: &mut Vec<Skipped>) -> Result<Vec<Note>> {
    let mut notes = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io("list", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, e))?;
        let path = entry.path();
        let Some(file) = entry.file_name().to_str().map(String::from) else {
            skipped.push(Skipped {
                path,
                reason: "its name is not UTF-8; rename it".into(),
            });
            continue;
        };
        if file.starts_with('.') {
            continue; // temp files of a crashed writer, editor swap files
        }
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        let reason = match NoteName::parse(&file) {
            None => Some("not a session note (<tag>-YYYY-MM-DD[-n].md); left as it is".to_string()),
            Some(_) if !is_file => {
                Some("not a regular file (a symlink or folder); left as it is".into())
            }
            // Opened without following links, stamped by the descriptor
            // before it is read: a change after the stamp keeps it in layer 1.
            Some(name) => match read_note(&path) {
                Ok(Some((text, meta))) if meta.is_file() => {
                    notes.push(Note {
                        file,
                        name,
                        text,
                        stamp: FileStamp::from(&meta),
                    });
                    None
                }
                Ok(Some(_)) => Some("not a regular file; left as it is".into()),
                Ok(None) => None, // removed meanwhile
                Err(e) => Some(e.to_string()),
            },
        };
        if let Some(reason) = reason {
            skipped.push(Skipped { path, reason });
        }
    }
    Ok(notes)
}

fn read_note(path: &Path) -> Result<Option<(String, std::fs::Metadata)>> {
    fsx::read_text_bounded_nofollow(
        path,
        MAX_MEMORY_FILE_BYTES,
        "move the oversized note out of layer1/ (compaction leaves it in place)",
    )
}

fn short_blob(text: &str) -> String {
    blob_id(text)[..16].to_string()
}

/// One archived note: marker, heading, the note's full text.
fn entry_text(file: &str, blob: &str, text: &str) -> String {
    let mut entry = format!(
        "\n{MARKER_PREFIX}name={} blob={blob} -->\n## {file}\n\n{text}",
        encode_name(file)
    );
    if !entry.ends_with('\n') {
        entry.push('\n');
    }
    entry
}

/// `(file name, blob)` of every note an archive holds.
fn archived_notes(archive: &str) -> HashSet<(String, String)> {
    archive
        .lines()
        .filter_map(|line| {
            let fields = line.strip_prefix(MARKER_PREFIX)?.strip_suffix("-->")?;
            let mut name = None;
            let mut blob = None;
            for field in fields.split_whitespace() {
                if let Some(v) = field.strip_prefix("name=") {
                    name = decode_name(v);
                } else if let Some(v) = field.strip_prefix("blob=") {
                    blob = Some(v.to_string());
                }
            }
            Some((name?, blob?))
        })
        .collect()
}

/// Two machines' versions of one archive, merged by their note markers:
/// ours as it is, then every note only theirs holds, each note once (by
/// name and blob). The later header date wins. Text before the first
/// marker that only theirs has is kept too: nothing is dropped.
pub fn merge_archives(ours: &str, theirs: &str) -> String {
    let (our_head, our_entries) = split_entries(ours);
    let (their_head, their_entries) = split_entries(theirs);
    let (our_line, our_rest) = header_line(our_head);
    let (their_line, their_rest) = header_line(their_head);
    // Same prefix, so the later date sorts last.
    let mut text = our_line.max(their_line).to_string();
    text.push_str(our_rest);
    if !their_rest.trim().is_empty() && !our_rest.contains(their_rest.trim()) {
        text.push_str(their_rest);
    }
    text.push_str(our_entries);
    let have = archived_notes(ours);
    for entry in entries_of(their_entries) {
        let notes = archived_notes(entry);
        if !notes.is_empty() && notes.is_subset(&have) {
            continue;
        }
        text.push_str(entry);
    }
    text
}

/// An archive's layer-3 header line (empty if it has none) and the rest.
fn header_line(head: &str) -> (&str, &str) {
    if head.starts_with("<!-- agent-handover | layer3 |") {
        head.split_at(head.find('\n').map_or(head.len(), |i| i + 1))
    } else {
        ("", head)
    }
}

/// An archive cut before its first marker (the `\n` before it starts the entries).
fn split_entries(archive: &str) -> (&str, &str) {
    let first = archive
        .find(&format!("\n{MARKER_PREFIX}"))
        .unwrap_or(archive.len());
    archive.split_at(first)
}

/// The entries of an archive's marker part, each from its `\n<marker>` on.
fn entries_of(part: &str) -> Vec<&str> {
    let sep = format!("\n{MARKER_PREFIX}");
    let mut starts: Vec<usize> = part.match_indices(&sep).map(|(i, _)| i).collect();
    starts.push(part.len());
    starts.windows(2).map(|w| &part[w[0]..w[1]]).collect()
}

/// A file name as one marker field: bytes other than ASCII letters, digits
/// and `._+@-` as `%XX`, so spaces, newlines or `-->` cannot break the marker.
fn encode_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"._+@-".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The inverse of [`encode_name`]; `None` for a malformed field.
fn decode_name(field: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(field.len());
    let mut rest = field.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// An existing archive with its header dated `date` (a header is added to
/// an archive that has none; nothing else of it changes).
fn rehead(old: &str, date: NaiveDate) -> String {
    let first_line_end = old.find('\n').map_or(old.len(), |i| i + 1);
    let body = if old.starts_with("<!-- agent-handover | layer3 |") {
        &old[first_line_end..]
    } else {
        old
    };
    let mut text = header(3, date) + body;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(dir: &Path) -> MemoryLayout {
        MemoryLayout::at(&dir.join("memory"))
    }

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn month(s: &str) -> YearMonth {
        s.parse().unwrap()
    }

    fn note(layout: &MemoryLayout, name: &str, body: &str) -> PathBuf {
        let parsed = NoteName::parse(name).unwrap();
        let dir = layout.layer1_month_dir(parsed.date);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, header(1, parsed.date) + body).unwrap();
        path
    }

    #[test]
    fn folds_a_month_per_tag_and_empties_layer1() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let a = note(&l, "codex-2026-09-01.md", "# Session\nfixed the parser\n");
        note(&l, "codex-2026-09-01-2.md", "second of the day");
        note(&l, "claude-2026-09-15.md", "claude's note");
        let report = compact_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        assert_eq!(report.appended(), 3);
        assert_eq!(report.removed, 3);
        assert!(!a.parent().unwrap().exists(), "empty month folder removed");
        let archive = std::fs::read_to_string(l.layer3_archive(month("2026-09"), "codex")).unwrap();
        assert!(archive.starts_with("<!-- agent-handover | layer3 | 2026-11-21 -->\n"));
        let first = archive.find("fixed the parser").unwrap();
        let second = archive.find("second of the day").unwrap();
        assert!(first < second, "notes in date order");
        assert!(archive.contains("<!-- agent-handover | layer1 | 2026-09-01 -->"));
        assert!(l.layer3_archive(month("2026-09"), "claude").exists());
    }

    #[test]
    fn rerunning_never_duplicates_and_a_reused_name_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let path = note(&l, "codex-2026-09-01.md", "original");
        // A crash after the archive was written but before the removal.
        let plan = MonthPlan::build(&l, month("2026-09"), day("2026-11-21")).unwrap();
        for w in &plan.writes {
            fsx::write_atomic(&w.path, w.text.as_bytes()).unwrap();
        }
        let report = compact_month(&l, month("2026-09"), day("2026-11-22")).unwrap();
        assert_eq!((report.appended(), report.removed), (0, 1));
        assert_eq!(report.archives[0].already_archived, 1);
        let archive_path = l.layer3_archive(month("2026-09"), "codex");
        let archive = std::fs::read_to_string(&archive_path).unwrap();
        assert_eq!(archive.matches("original").count(), 1);
        // Later, a different note appears under the same name: archived too.
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "rewritten").unwrap();
        let report = compact_month(&l, month("2026-09"), day("2026-11-23")).unwrap();
        assert_eq!(report.appended(), 1);
        let archive = std::fs::read_to_string(&archive_path).unwrap();
        assert_eq!(archive.matches("original").count(), 1);
        assert_eq!(archive.matches("rewritten").count(), 1);
        assert!(archive.starts_with("<!-- agent-handover | layer3 | 2026-11-23 -->\n"));
    }

    #[test]
    fn a_note_changed_after_it_was_read_stays_in_layer1() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let path = note(&l, "codex-2026-09-01.md", "first text");
        let plan = MonthPlan::build(&l, month("2026-09"), day("2026-11-21")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, "edited meanwhile").unwrap();
        for w in &plan.writes {
            fsx::write_atomic(&w.path, w.text.as_bytes()).unwrap();
        }
        assert!(
            plan.removable().unwrap().is_empty(),
            "an edited note must not be removed"
        );
        // The next compaction archives the edit as its own entry.
        let report = compact_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        assert_eq!((report.appended(), report.removed), (1, 1));
    }

    #[test]
    fn two_machines_archives_merge_by_marker_each_note_once() {
        let head = |d: &str| format!("<!-- agent-handover | layer3 | {d} -->\n");
        let a = entry_text("t-2026-09-01.md", "aaaa", "note a\n");
        let b = entry_text("t-2026-09-02.md", "bbbb", "note b\n");
        let c = entry_text("t-2026-09-03.md", "cccc", "note c\n");
        let ours = format!("{}{a}{b}", head("2026-11-20"));
        let theirs = format!("{}{a}{c}", head("2026-11-21"));
        let merged = merge_archives(&ours, &theirs);
        assert_eq!(merged, format!("{}{a}{b}{c}", head("2026-11-21")));
        assert_eq!(merge_archives(&merged, &theirs), merged, "idempotent");
        assert_eq!(archived_notes(&merged).len(), 3);
    }

    #[test]
    fn odd_note_names_survive_the_marker_and_are_never_duplicated() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let name = "my notes --> x%41-2026-09-01.md";
        note(&l, name, "odd");
        assert_eq!(decode_name(&encode_name(name)).as_deref(), Some(name));
        // A crash after the archive write: the rerun recognises the note.
        let plan = MonthPlan::build(&l, month("2026-09"), day("2026-11-21")).unwrap();
        for w in &plan.writes {
            fsx::write_atomic(&w.path, w.text.as_bytes()).unwrap();
        }
        let report = compact_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        assert_eq!((report.appended(), report.removed), (0, 1));
    }

    #[test]
    fn an_unusable_archive_keeps_its_notes_in_layer1() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let kept = note(&l, "codex-2026-09-01.md", "stays");
        note(&l, "claude-2026-09-01.md", "goes");
        std::fs::create_dir_all(l.layer3_dir()).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", l.layer3_archive(month("2026-09"), "codex"))
            .unwrap();
        let report = compact_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        assert_eq!(report.removed, 1, "{report:?}");
        assert!(report.skipped[0].reason.contains("symlink"), "{report:?}");
        assert!(kept.exists());
    }

    #[test]
    fn a_note_not_in_its_archive_on_disk_is_not_removed() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let path = note(&l, "codex-2026-09-01.md", "must stay");
        let plan = MonthPlan::build(&l, month("2026-09"), day("2026-11-21")).unwrap();
        // The archive write "went elsewhere": what is on disk lacks the note.
        std::fs::create_dir_all(l.layer3_dir()).unwrap();
        std::fs::write(l.layer3_archive(month("2026-09"), "codex"), "other text").unwrap();
        assert!(plan.removable().unwrap().is_empty());
        assert!(path.exists());
    }

    #[test]
    fn preview_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let path = note(&l, "codex-2026-09-01.md", "x");
        let report = preview_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        assert_eq!(report.archives[0].appended, 1);
        assert!(path.exists());
        assert!(!l.root.join("layer3").exists());
    }

    #[test]
    fn what_is_not_a_readable_note_stays_and_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        let good = note(&l, "codex-2026-09-01.md", "ok");
        let month_dir = good.parent().unwrap().to_path_buf();
        std::fs::write(month_dir.join("README.md"), "hand-written").unwrap();
        std::fs::write(month_dir.join("codex-2026-09-02.md"), [0xff, 0xfe]).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", month_dir.join("codex-2026-09-03.md")).unwrap();
        let report = compact_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        assert_eq!(report.removed, 1);
        assert_eq!(report.skipped.len(), 3, "{:?}", report.skipped);
        assert!(month_dir.join("README.md").exists());
        assert!(month_dir.join("codex-2026-09-02.md").exists());
        assert!(std::fs::symlink_metadata(month_dir.join("codex-2026-09-03.md")).is_ok());
    }

    #[test]
    fn a_hand_made_archive_keeps_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        note(&l, "codex-2026-09-01.md", "new note");
        let archive = l.layer3_archive(month("2026-09"), "codex");
        std::fs::create_dir_all(archive.parent().unwrap()).unwrap();
        std::fs::write(&archive, "written by hand, no header").unwrap();
        compact_month(&l, month("2026-09"), day("2026-11-21")).unwrap();
        let text = std::fs::read_to_string(&archive).unwrap();
        assert!(text.starts_with(
            "<!-- agent-handover | layer3 | 2026-11-21 -->\nwritten by hand, no header\n"
        ));
        assert!(text.contains("new note"));
    }

    #[test]
    fn lists_month_folders_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let l = layout(dir.path());
        for m in ["2026-10", "2025-12", "2026-01", "misc"] {
            std::fs::create_dir_all(l.layer1_dir().join(m)).unwrap();
        }
        let months: Vec<String> = layer1_months(&l)
            .unwrap()
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(months, ["2025-12", "2026-01", "2026-10"]);
    }
}
