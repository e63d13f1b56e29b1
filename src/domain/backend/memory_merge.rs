//! Merging two machines' memory by layer, so a publish never fails on
//! memory that can be merged (git's line merge is the first pass; this
//! settles what it leaves, and re-merges what it merged by lines but a
//! layer merges otherwise):
//!
//! * layer-1 notes and inbox messages are append-only: both sides' files are
//!   kept; when both wrote the same name with different texts, the incoming
//!   (remote) one is renamed to the next free name (`-2`, `-3`, …), unless
//!   this side already holds its text under another name of that folder;
//! * layer-3 archives merge by their note markers, each note once
//!   ([`compact::merge_archives`]);
//! * read marks merge as the union ([`read_state::merge_marks`]);
//! * the memory index and the knowledge files merge by fact
//!   ([`knowledge::merge`]), each fact once;
//! * `current-state.md` merges section by section ([`state_merge`]): when
//!   both changed a section, the side that changed it last (by the
//!   `Handover-At:` trailer of its commits, else their commit time) wins,
//!   and the superseded text is reported as drift for the caller to keep;
//! * `identity.md` merges section by section the same way, its superseded
//!   text reported as drift too.
//!
//! Files outside the memory layout are left to git: their real conflicts
//! stay conflicts.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use git2::{Commit, Index, IndexEntry, Oid, Repository, Sort};

use crate::domain::inbox::read_state;
use crate::domain::knowledge;
use crate::domain::memory::compact;
use crate::domain::memory::history::VersionedFile;
use crate::domain::memory::note_name::NoteName;
use crate::domain::memory::state_merge::{self, Side};
use crate::domain::memory::versions::handover_time;

/// Where the memory lives, relative to the repository's work tree, with a
/// trailing `/` (`memory/`), or `""` for the work tree itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryPrefixes {
    /// The memory root.
    pub memory: String,
    /// The messages root.
    pub messages: String,
}

/// What a layer merge settled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settled {
    /// Files settled by a layer's rule (path: how).
    pub files: Vec<String>,
    /// Sections a merge by section superseded, one entry per file and side.
    pub drift: Vec<SectionDrift>,
}

/// One side's sections of a file merged by section that the other side's
/// newer text superseded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionDrift {
    /// The file (current-state.md or identity.md).
    pub file: VersionedFile,
    /// The superseded side's whole text.
    pub superseded: String,
    /// The sections it lost (their heading lines).
    pub sections: Vec<String>,
    /// Whose text it was.
    pub side: Side,
    /// When that side's handover was made.
    pub written_at: DateTime<Utc>,
    /// The merged text that replaced it.
    pub merged: String,
}

/// What kind of memory file a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Note,
    Message,
    Archive,
    Marks,
    State,
    Identity,
    Knowledge,
    Other,
}

fn kind(path: &str, p: &MemoryPrefixes) -> Kind {
    if let Some(rest) = path.strip_prefix(p.memory.as_str()) {
        // The one current state, or a workstream's (`layer2/<branch>/`).
        if rest == "layer2/current-state.md"
            || rest
                .strip_prefix("layer2/")
                .and_then(|r| r.strip_suffix("/current-state.md"))
                .is_some_and(crate::workspace::store::is_stream_name)
        {
            return Kind::State;
        }
        if rest == "identity.md" {
            return Kind::Identity;
        }
        if rest == "MEMORY.md"
            || rest
                .strip_prefix("knowledge/")
                .is_some_and(|f| f.ends_with(".md") && !f.contains('/'))
        {
            return Kind::Knowledge;
        }
        if let Some(name) = rest.strip_prefix("layer3/")
            && name.ends_with("-archive.md")
            && !name.contains('/')
        {
            return Kind::Archive;
        }
        if let Some(month_file) = rest.strip_prefix("layer1/")
            && let Some((_, file)) = month_file.split_once('/')
            && !file.contains('/')
            && NoteName::parse(file).is_some()
        {
            return Kind::Note;
        }
    }
    if let Some(rest) = path.strip_prefix(p.messages.as_str()) {
        if let Some(file) = rest.strip_prefix(".read/") {
            if file.ends_with(".json") && !file.contains('/') {
                return Kind::Marks;
            }
        } else if let Some((queue, file)) = rest.split_once('/')
            && (queue == "shared" || queue.starts_with("for_"))
            && !file.contains('/')
            && !file.starts_with('.')
        {
            return Kind::Message;
        }
    }
    Kind::Other
}

/// Settle, in `index` (the merge of `ours` and `theirs`), every memory file
/// a layer rule merges. Conflicts outside the memory stay in the index.
pub fn settle(
    repo: &Repository,
    index: &mut Index,
    ours: &Commit<'_>,
    theirs: &Commit<'_>,
    base: Option<&Commit<'_>>,
    prefixes: &MemoryPrefixes,
) -> Result<Settled, git2::Error> {
    let mut settled = Settled::default();
    let conflicts: Vec<_> = index.conflicts()?.collect::<Result<_, _>>()?;
    for c in conflicts {
        let path = [&c.our, &c.their, &c.ancestor]
            .into_iter()
            .flatten()
            .map(|e| String::from_utf8_lossy(&e.path).into_owned())
            .next()
            .unwrap_or_default();
        let kind = kind(&path, prefixes);
        if matches!(kind, Kind::Other | Kind::State | Kind::Identity) {
            continue; // state, identity: settled below, whatever git made of it
        }
        let text = |id: git2::Oid| -> Result<String, git2::Error> {
            Ok(String::from_utf8_lossy(repo.find_blob(id)?.content()).into_owned())
        };
        let (our_id, their_id) = (c.our.as_ref().map(|e| e.id), c.their.as_ref().map(|e| e.id));
        let mode = c
            .our
            .as_ref()
            .or(c.their.as_ref())
            .map_or(0o100644, |e| e.mode);
        // What goes where: blobs kept as they are (no byte re-encoded), or
        // texts a layer merged.
        let resolved: Vec<(String, Oid)> = match (kind, our_id, their_id) {
            // Deleted on one side, changed on the other: keep the text.
            (_, Some(kept), None) | (_, None, Some(kept)) => {
                settled
                    .files
                    .push(format!("{path}: kept (deleted on one side only)"));
                vec![(path.clone(), kept)]
            }
            (Kind::Note | Kind::Message, Some(o), Some(t)) => match held_beside(index, &path, t) {
                // Kept here already under another name (a publish that was
                // stopped after keeping it beside ours): once is enough.
                Some(at) => {
                    settled
                        .files
                        .push(format!("{path}: ours kept, theirs already here as {at}"));
                    vec![(path.clone(), o)]
                }
                None => {
                    let renamed = free_name(index, &path);
                    settled
                        .files
                        .push(format!("{path}: both kept, theirs as {renamed}"));
                    vec![(path.clone(), o), (renamed, t)]
                }
            },
            (Kind::Archive, Some(o), Some(t)) => {
                settled.files.push(format!("{path}: merged by note"));
                let merged = compact::merge_archives(&text(o)?, &text(t)?);
                vec![(path.clone(), repo.blob(merged.as_bytes())?)]
            }
            (Kind::Marks, Some(o), Some(t)) => {
                match read_state::merge_marks(&text(o)?, &text(t)?) {
                    Some(merged) => {
                        settled.files.push(format!("{path}: read marks united"));
                        vec![(path.clone(), repo.blob(merged.as_bytes())?)]
                    }
                    None => continue, // not ours to read: a real conflict
                }
            }
            _ => continue,
        };
        index.remove_path(Path::new(&path))?;
        for (p, id) in resolved {
            put_blob(index, &p, id, mode)?;
        }
    }
    settle_changed_on_both(repo, index, ours, theirs, base, prefixes, &mut settled)?;
    Ok(settled)
}

/// Archives and current-state.md changed on both sides are merged by their
/// layer's rule even when git merged their lines cleanly (lines are not
/// notes or sections).
fn settle_changed_on_both(
    repo: &Repository,
    index: &mut Index,
    ours: &Commit<'_>,
    theirs: &Commit<'_>,
    base: Option<&Commit<'_>>,
    prefixes: &MemoryPrefixes,
    settled: &mut Settled,
) -> Result<(), git2::Error> {
    let (our_tree, their_tree) = (ours.tree()?, theirs.tree()?);
    let base_tree = base.map(Commit::tree).transpose()?;
    let mut both = Vec::new();
    our_tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
        let path = format!("{root}{}", entry.name().unwrap_or_default());
        if matches!(
            kind(&path, prefixes),
            Kind::Archive | Kind::State | Kind::Identity | Kind::Knowledge
        ) {
            both.push((path, entry.id(), entry.filemode() as u32));
        }
        git2::TreeWalkResult::Ok
    })?;
    for (path, our_id, mode) in both {
        let Ok(their_entry) = their_tree.get_path(Path::new(&path)) else {
            continue;
        };
        let base_id = base_tree
            .as_ref()
            .and_then(|t| t.get_path(Path::new(&path)).ok())
            .map(|e| e.id());
        let their_id = their_entry.id();
        if our_id == their_id || base_id == Some(our_id) || base_id == Some(their_id) {
            continue; // one side only (git took it), or the same text
        }
        let read = |id: Oid| -> Result<String, git2::Error> {
            Ok(String::from_utf8_lossy(repo.find_blob(id)?.content()).into_owned())
        };
        let (o, t) = (read(our_id)?, read(their_id)?);
        let b = base_id.map(read).transpose()?;
        index.remove_path(Path::new(&path))?;
        match kind(&path, prefixes) {
            Kind::Archive => {
                put(repo, index, &path, &compact::merge_archives(&o, &t), mode)?;
                settled.files.push(format!("{path}: merged by note"));
                continue;
            }
            Kind::Knowledge => {
                let merged = knowledge::merge(b.as_deref().unwrap_or_default(), &o, &t);
                put(repo, index, &path, &merged, mode)?;
                settled.files.push(format!("{path}: merged by fact"));
                continue;
            }
            _ => {}
        }
        let our_times = section_times(repo, ours, base, &path)?;
        let their_times = section_times(repo, theirs, base, &path)?;
        let merged = state_merge::merge(b.as_deref(), &o, &t, |key| {
            match (our_times.get(key), their_times.get(key)) {
                (Some(a), Some(b)) if b > a => Side::Theirs,
                (None, Some(_)) => Side::Theirs,
                _ => Side::Ours,
            }
        });
        put(repo, index, &path, &merged.text, mode)?;
        settled.files.push(format!("{path}: merged by section"));
        let file = match kind(&path, prefixes) {
            Kind::Identity => VersionedFile::Identity,
            _ => VersionedFile::CurrentState,
        };
        for side in [Side::Ours, Side::Theirs] {
            let lost: Vec<String> = merged
                .drift
                .iter()
                .filter(|(_, s)| *s == side)
                .map(|(k, _)| k.clone())
                .collect();
            if !lost.is_empty() {
                let (text, tip) = match side {
                    Side::Ours => (o.clone(), ours),
                    Side::Theirs => (t.clone(), theirs),
                };
                settled.drift.push(SectionDrift {
                    file,
                    superseded: text,
                    sections: lost,
                    side,
                    written_at: handover_time(tip),
                    merged: merged.text.clone(),
                });
            }
        }
    }
    Ok(())
}

/// For each section of `path`, when `tip`'s side last changed it (since `base`).
fn section_times(
    repo: &Repository,
    tip: &Commit<'_>,
    base: Option<&Commit<'_>>,
    path: &str,
) -> Result<HashMap<String, DateTime<Utc>>, git2::Error> {
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    walk.push(tip.id())?;
    if let Some(b) = base {
        walk.hide(b.id())?;
    }
    let text_at = |c: &Commit<'_>| -> Option<String> {
        let id = c.tree().ok()?.get_path(Path::new(path)).ok()?.id();
        let blob = repo.find_blob(id).ok()?;
        Some(String::from_utf8_lossy(blob.content()).into_owned())
    };
    let mut times = HashMap::new();
    for id in walk {
        let commit = repo.find_commit(id?)?;
        let after = text_at(&commit).unwrap_or_default();
        let before = commit
            .parent(0)
            .ok()
            .and_then(|p| text_at(&p))
            .unwrap_or_default();
        if before == after {
            continue;
        }
        let at = handover_time(&commit);
        for key in state_merge::changed_sections(&before, &after) {
            times.entry(key).or_insert(at);
        }
    }
    Ok(times)
}

/// Stage `text` at `path` (stage 0).
fn put(
    repo: &Repository,
    index: &mut Index,
    path: &str,
    text: &str,
    mode: u32,
) -> Result<(), git2::Error> {
    put_blob(index, path, repo.blob(text.as_bytes())?, mode)
}

/// Stage blob `id` at `path` (stage 0).
pub(super) fn put_blob(
    index: &mut Index,
    path: &str,
    id: Oid,
    mode: u32,
) -> Result<(), git2::Error> {
    index.add(&IndexEntry {
        ctime: git2::IndexTime::new(0, 0),
        mtime: git2::IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode,
        uid: 0,
        gid: 0,
        file_size: 0,
        id,
        flags: 0,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    })
}

/// Another name in `path`'s folder where the merge already holds blob `id`
/// (settled, or ours in a conflict of its own).
fn held_beside(index: &Index, path: &str, id: Oid) -> Option<String> {
    let folder = |p: &str| p.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    let dir = folder(path);
    index
        .iter()
        .filter(|e| e.id == id && matches!(stage(e), 0 | 2))
        .map(|e| String::from_utf8_lossy(&e.path).into_owned())
        .find(|p| p != path && folder(p) == dir)
}

/// The merge stage of an index entry (0: settled, 1: base, 2: ours, 3: theirs).
fn stage(entry: &IndexEntry) -> u16 {
    (entry.flags >> 12) & 0b11
}

/// The next name beside `path` that the index does not hold (at any stage:
/// a conflicted name is taken too): a note
/// `<tag>-<date>.md` becomes `<tag>-<date>-2.md`, `-3`, …; any other file
/// `<stem>-2.<ext>`.
fn free_name(index: &Index, path: &str) -> String {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let candidate = |n: u32| -> String {
        let name = match NoteName::parse(file) {
            Some(note) => format!("{}-{}-{n}.md", note.tag, note.date.format("%Y-%m-%d")),
            None => match file.rsplit_once('.') {
                Some((stem, ext)) => format!("{stem}-{n}.{ext}"),
                None => format!("{file}-{n}"),
            },
        };
        if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        }
    };
    (2..)
        .map(candidate)
        .find(|p| (0..=3).all(|stage| index.get_path(Path::new(p), stage).is_none()))
        .expect("some name is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefixes() -> MemoryPrefixes {
        MemoryPrefixes {
            memory: "memory/".into(),
            messages: "messages/".into(),
        }
    }

    #[test]
    fn memory_paths_are_told_apart_by_layer() {
        let p = prefixes();
        for (path, want) in [
            ("memory/layer2/current-state.md", Kind::State),
            ("memory/identity.md", Kind::Identity),
            ("memory/layer1/2026-11/t-2026-11-23.md", Kind::Note),
            ("memory/layer1/2026-11/t-2026-11-23-4.md", Kind::Note),
            ("memory/layer1/2026-11/README.md", Kind::Other),
            ("memory/layer3/2026-09-t-archive.md", Kind::Archive),
            ("messages/for_claude/20261123-1.md", Kind::Message),
            ("messages/shared/x.md", Kind::Message),
            ("messages/.read/claude.json", Kind::Marks),
            ("memory/MEMORY.md", Kind::Knowledge),
            ("memory/knowledge/decisions.md", Kind::Knowledge),
            ("src/main.rs", Kind::Other),
        ] {
            assert_eq!(kind(path, &p), want, "{path}");
        }
    }

    /// A commit of `files` (path, text) on `parents`.
    fn commit<'r>(
        repo: &'r Repository,
        parents: &[&Commit<'r>],
        files: &[(&str, &str)],
    ) -> Commit<'r> {
        let mut update = git2::build::TreeUpdateBuilder::new();
        for (path, text) in files {
            update.upsert(
                *path,
                repo.blob(text.as_bytes()).unwrap(),
                git2::FileMode::Blob,
            );
        }
        let empty = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let tree = repo
            .find_tree(update.create_updated(repo, &empty).unwrap())
            .unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let id = repo.commit(None, &sig, &sig, "m", &tree, parents).unwrap();
        repo.find_commit(id).unwrap()
    }

    /// The merged paths and texts.
    fn merged(
        repo: &Repository,
        ours: &Commit<'_>,
        theirs: &Commit<'_>,
        base: &Commit<'_>,
    ) -> Vec<(String, String)> {
        let mut index = repo.merge_commits(ours, theirs, None).unwrap();
        settle(repo, &mut index, ours, theirs, Some(base), &prefixes()).unwrap();
        assert!(!index.has_conflicts());
        index
            .iter()
            .map(|e| {
                let text = repo.find_blob(e.id).unwrap().content().to_vec();
                (
                    String::from_utf8_lossy(&e.path).into_owned(),
                    String::from_utf8(text).unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn a_note_both_wrote_under_one_name_is_kept_twice_and_a_note_kept_here_already_once() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let (a, b) = (
            "memory/layer1/2026-12/codex-2026-12-01-5.md",
            "memory/layer1/2026-12/codex-2026-12-01-6.md",
        );
        let base = commit(
            &repo,
            &[],
            &[("memory/layer1/2026-12/codex-2026-12-01.md", "first")],
        );
        let theirs = commit(
            &repo,
            &[&base],
            &[
                ("memory/layer1/2026-12/codex-2026-12-01.md", "first"),
                (a, "theirs"),
            ],
        );
        // Both wrote a note by one name: both kept, theirs at the next free name.
        let ours = commit(
            &repo,
            &[&base],
            &[
                ("memory/layer1/2026-12/codex-2026-12-01.md", "first"),
                (a, "ours"),
            ],
        );
        let files = merged(&repo, &ours, &theirs, &base);
        let day = "memory/layer1/2026-12/codex-2026-12-01";
        let held = |p: &str, t: &str| (p.to_string(), t.to_string());
        assert_eq!(
            files,
            [
                held(&format!("{day}-2.md"), "theirs"),
                held(a, "ours"),
                held(&format!("{day}.md"), "first")
            ]
        );
        // Theirs already kept beside ours by a publish that stopped before
        // its merge: kept once.
        let ours = commit(
            &repo,
            &[&base],
            &[
                ("memory/layer1/2026-12/codex-2026-12-01.md", "first"),
                (a, "ours"),
                (b, "theirs"),
            ],
        );
        let files = merged(&repo, &ours, &theirs, &base);
        assert_eq!(
            files,
            [
                held(a, "ours"),
                held(b, "theirs"),
                held(&format!("{day}.md"), "first")
            ]
        );
    }
}
