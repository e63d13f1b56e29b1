//! Knowledge that outlives sessions: the memory index (`MEMORY.md`) and its
//! detail files (`knowledge/<topic>.md`) in the memory tree.
//!
//! After each handover the `learn` step reads the session note's tagged
//! findings and knowledge sections ([`extract`]), keeps what is
//! future-relevant, rewrites it as facts, and merges them into what we know
//! ([`Knowledge::learn`]):
//!
//! * a fact already known (same normalised text, or words at least
//!   [`DUPLICATE_SIMILARITY`] alike, also among superseded and forgotten
//!   facts) adds nothing;
//! * a `[CORRECTION]` supersedes the current fact it is most like (at least
//!   [`CORRECTION_SIMILARITY`]): the old one stays, struck out, pointing to
//!   the new one, which takes its topic and points back;
//! * the detail files are the truth (one line per fact, see [`fact`]); the
//!   index is derived from them, kept under its cap ([`index::IndexCap`]).
//!
//! Every write is atomic and durable ([`crate::base::fsx`]); a rerun after a crash
//! finds the facts already written and adds each fact once. `forget`
//! records the fact in `knowledge/forgotten.md` before taking it out, and a
//! forgotten fact is not learned again. Merging across machines:
//! [`index::merge`].

pub mod extract;
pub mod fact;
pub mod index;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;
use serde::Serialize;

use crate::base::error::{Error, ErrorKind, ModuleError, Result, exit_code};
use crate::base::fsx;
use crate::base::patterns::pattern;
use crate::domain::memory::MAX_MEMORY_FILE_BYTES;
use crate::workspace::MemoryLayout;
pub use fact::{Fact, FactKind, Shingles};
pub use index::{IndexCap, merge};

/// Facts whose distinctive words are at least this alike are one fact.
pub const DUPLICATE_SIMILARITY: f64 = 0.8;
/// A correction supersedes the current fact most like it, if at least this alike.
pub const CORRECTION_SIMILARITY: f64 = 0.3;

/// `.gitattributes` at the memory root: line-wise union merges for the
/// knowledge files (see [`index`]).
const GITATTRIBUTES: &str = "# agent-handover: one line per fact, merged as a union\nMEMORY.md merge=union\nknowledge/*.md merge=union\n";

/// A fact id (`knowledge show`, `knowledge forget`) that names no fact, or several.
#[derive(Debug, thiserror::Error)]
pub enum FactError {
    /// No fact, or more than one, has an id starting so.
    #[error("fact {id:?} {why}\n  fix: `agent-handover knowledge list` shows the ids")]
    Unknown {
        /// The id (prefix) given.
        id: String,
        /// What is wrong with it.
        why: String,
    },
}

impl ModuleError for FactError {
    fn kind(&self) -> ErrorKind {
        ErrorKind {
            name: "unknown_fact",
            exit_code: exit_code::USAGE,
        }
    }
}

/// Every fact we know, and the ones forgotten.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FactSet {
    /// Current and superseded facts, topic by topic, oldest first.
    pub facts: Vec<Fact>,
    /// Facts taken out with `forget`.
    pub forgotten: Vec<Forgotten>,
}

/// A fact taken out with `forget`, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Forgotten {
    /// The fact as it was.
    pub fact: Fact,
    /// When it was forgotten.
    pub on: NaiveDate,
    /// Why, if given.
    pub reason: Option<String>,
}

static FORGOTTEN_TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r" _\(forgotten from ([a-z-]+) on (\d{4}-\d{2}-\d{2})(?:: (.*?))?\)_$")
});

impl Forgotten {
    fn to_line(&self) -> String {
        format!(
            "{} _(forgotten from {} on {}{})_",
            self.fact.to_line(),
            self.fact.kind.topic(),
            self.on.format("%Y-%m-%d"),
            self.reason
                .as_deref()
                .map(|r| format!(": {}", r.replace(['\n', '\r'], " ")))
                .unwrap_or_default()
        )
    }

    fn parse_line(line: &str) -> Option<Forgotten> {
        let caps = FORGOTTEN_TRAILER.captures(line)?;
        let kind = FactKind::parse(&caps[1])?;
        let on = NaiveDate::parse_from_str(&caps[2], "%Y-%m-%d").ok()?;
        let fact = Fact::parse_line(kind, &line[..caps.get(0)?.start()])?;
        Some(Forgotten {
            fact,
            on,
            reason: caps.get(3).map(|m| m.as_str().to_string()),
        })
    }
}

impl FactSet {
    /// The current (not superseded) facts.
    pub fn current(&self) -> impl Iterator<Item = &Fact> {
        self.facts.iter().filter(|f| f.is_current())
    }

    /// The fact whose id starts with `prefix` (at least 4 hex digits).
    pub fn find(&self, prefix: &str) -> Result<&Fact> {
        let unknown = |why: &str| {
            Error::from(FactError::Unknown {
                id: prefix.to_string(),
                why: why.to_string(),
            })
        };
        if prefix.len() < 4 {
            return Err(unknown(
                "is too short (give at least 4 characters of the id)",
            ));
        }
        let mut found = self.facts.iter().filter(|f| f.id.starts_with(prefix));
        match (found.next(), found.next()) {
            (Some(f), None) => Ok(f),
            (None, _) => Err(unknown("names no fact")),
            (Some(_), Some(_)) => Err(unknown("names several facts; give more of the id")),
        }
    }

    /// Facts whose text holds every word of `query` (or whose id starts
    /// with it), newest first.
    pub fn search(&self, query: &str) -> Vec<&Fact> {
        let wanted: Vec<String> = fact::normalized(query)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let mut hits: Vec<&Fact> = self
            .facts
            .iter()
            .filter(|f| {
                let text = fact::normalized(&f.text);
                let words: HashSet<&str> = text.split(' ').collect();
                f.id.starts_with(query.trim())
                    || (!wanted.is_empty() && wanted.iter().all(|w| words.contains(w.as_str())))
            })
            .collect();
        hits.sort_by_key(|f| std::cmp::Reverse(f.date));
        hits
    }
}

/// What one `learn` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LearnReport {
    /// Facts added.
    pub added: Vec<Fact>,
    /// Ids of the facts a correction superseded.
    pub superseded: Vec<String>,
    /// Findings already known.
    pub known: usize,
    /// Files written.
    pub written: Vec<PathBuf>,
}

impl LearnReport {
    /// One line: what was learned.
    pub fn summary(&self) -> String {
        format!(
            "learned {} fact{} ({} superseded, {} already known)",
            self.added.len(),
            if self.added.len() == 1 { "" } else { "s" },
            self.superseded.len(),
            self.known
        )
    }
}

/// The knowledge files of one memory tree.
#[derive(Debug, Clone)]
pub struct Knowledge {
    layout: MemoryLayout,
    cap: IndexCap,
    lock: Option<PathBuf>,
}

impl Knowledge {
    /// The knowledge of the memory tree `layout`, its index within the default cap.
    pub fn new(layout: MemoryLayout) -> Self {
        Knowledge {
            layout,
            cap: IndexCap::default(),
            lock: None,
        }
    }

    /// The same, holding an advisory lock on `file` (outside the memory
    /// tree, never deleted) while it learns or forgets, so that a `learn`
    /// step and a `knowledge forget` never lose each other's change.
    pub fn with_lock(mut self, file: PathBuf) -> Self {
        self.lock = Some(file);
        self
    }

    /// Take the lock, if one is set; it is held until the file is dropped.
    fn locked(&self) -> Result<Option<std::fs::File>> {
        fsx::lock_if_set(self.lock.as_deref())
    }

    /// The same, with another cap on the index.
    pub fn with_cap(mut self, cap: IndexCap) -> Self {
        self.cap = cap;
        self
    }

    /// Its layout.
    pub fn layout(&self) -> &MemoryLayout {
        &self.layout
    }

    /// Read every detail file and the forgotten record (missing ones are empty).
    pub fn load(&self) -> Result<FactSet> {
        let mut set = FactSet::default();
        let mut seen: HashSet<String> = HashSet::new();
        for kind in FactKind::ALL {
            let Some(text) = read(&self.layout, &self.layout.knowledge_topic(kind.topic()))? else {
                continue;
            };
            for fact in text.lines().filter_map(|l| Fact::parse_line(kind, l)) {
                // A union merge may hold a fact twice: the struck-out form wins.
                if !seen.insert(fact.id.clone()) {
                    if !fact.is_current()
                        && let Some(old) = set.facts.iter_mut().find(|f| f.id == fact.id)
                    {
                        *old = fact;
                    }
                    continue;
                }
                set.facts.push(fact);
            }
        }
        if let Some(text) = read(&self.layout, &self.layout.knowledge_forgotten())? {
            set.forgotten = text.lines().filter_map(Forgotten::parse_line).collect();
        }
        Ok(set)
    }

    /// Read the index, `None` if there is none.
    pub fn read_index(&self) -> Result<Option<String>> {
        read(&self.layout, &self.layout.memory_index())
    }

    /// Learn the findings of `note` (learned from `source`, on `date`):
    /// new facts added, corrections applied, files written; idempotent.
    pub fn learn(&self, note: &str, source: &str, date: NaiveDate) -> Result<LearnReport> {
        let findings = extract::findings(note);
        let _lock = self.locked()?;
        let mut set = self.load()?;
        crate::base::failpoint::hit("learn-loaded");
        let mut report = LearnReport::default();
        let mut known: Vec<(String, Shingles)> = set
            .facts
            .iter()
            .chain(set.forgotten.iter().map(|f| &f.fact))
            .map(|f| (f.id.clone(), Shingles::of(&f.text)))
            .collect();
        let mut changed: HashSet<FactKind> = HashSet::new();
        for finding in findings {
            let id = fact::fact_id(&finding.text);
            let shingles = Shingles::of(&finding.text);
            let is_known = known.iter().any(|(k, s)| {
                *k == id
                    || (finding.kind != FactKind::Correction
                        && s.similarity(&shingles) >= DUPLICATE_SIMILARITY)
            });
            if is_known {
                report.known += 1;
                continue;
            }
            let mut new = Fact::new(finding.kind, &finding.text, date, Some(source.to_string()));
            if finding.kind == FactKind::Correction
                && let Some(target) = most_alike(&set, &shingles)
            {
                let old = &mut set.facts[target];
                old.superseded_by = Some(new.id.clone());
                new.kind = old.kind;
                new.corrects = Some(old.id.clone());
                report.superseded.push(old.id.clone());
            }
            changed.insert(new.kind);
            known.push((new.id.clone(), shingles));
            report.added.push(new.clone());
            set.facts.push(new);
        }
        for kind in FactKind::ALL.into_iter().filter(|k| changed.contains(k)) {
            let path = self.layout.knowledge_topic(kind.topic());
            self.write(&path, &topic_file(kind, &set.facts))?;
            report.written.push(path);
        }
        report.written.extend(self.refresh_index(&set)?);
        Ok(report)
    }

    /// Forget the fact `id_prefix` names: recorded in `knowledge/forgotten.md`
    /// first (with `reason`), then taken out of its detail file and the index.
    /// A fact already forgotten is forgotten again without error, and what a
    /// killed `forget` left undone (its topic file, the index) is finished.
    pub fn forget(&self, id_prefix: &str, reason: Option<&str>, on: NaiveDate) -> Result<Fact> {
        let _lock = self.locked()?;
        let mut set = self.load()?;
        let fact = match set.find(id_prefix) {
            Ok(fact) => fact.clone(),
            // Forgotten already, by a `forget` killed before it rewrote the
            // index (the fact is in the record, out of its topic file): the
            // index is finished now, and the answer is the same.
            Err(unknown) => {
                let done = set
                    .forgotten
                    .iter()
                    .find(|f| id_prefix.len() >= 4 && f.fact.id.starts_with(id_prefix))
                    .map(|f| f.fact.clone());
                let Some(fact) = done else {
                    return Err(unknown);
                };
                if !set.facts.iter().any(|f| f.id == fact.id) {
                    self.write(
                        &self.layout.knowledge_topic(fact.kind.topic()),
                        &topic_file(fact.kind, &set.facts),
                    )?;
                }
                self.refresh_index(&set)?;
                return Ok(fact);
            }
        };
        // Recorded once, even when a killed `forget` recorded it already.
        if !set.forgotten.iter().any(|f| f.fact.id == fact.id) {
            set.forgotten.push(Forgotten {
                fact: fact.clone(),
                on,
                reason: reason.map(str::to_string),
            });
            let mut record = String::from(
                "<!-- agent-handover | knowledge | forgotten -->\n# Forgotten facts\n\nTaken out with `agent-handover knowledge forget`; never learned again.\n\n",
            );
            for f in &set.forgotten {
                record.push_str(&f.to_line());
                record.push('\n');
            }
            self.write(&self.layout.knowledge_forgotten(), &record)?;
        }
        set.facts.retain(|f| f.id != fact.id);
        self.write(
            &self.layout.knowledge_topic(fact.kind.topic()),
            &topic_file(fact.kind, &set.facts),
        )?;
        self.refresh_index(&set)?;
        Ok(fact)
    }

    /// Write the index (and `.gitattributes`) if they differ from what
    /// `set` gives; nothing when there are no facts and no index yet.
    fn refresh_index(&self, set: &FactSet) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        let path = self.layout.memory_index();
        let existing = read(&self.layout, &path)?;
        if set.facts.is_empty() && existing.is_none() {
            return Ok(written);
        }
        let attributes = self.layout.gitattributes();
        if read(&self.layout, &attributes)?.is_none() {
            self.write(&attributes, GITATTRIBUTES)?;
            written.push(attributes);
        }
        let text = index::render(&set.facts, self.cap);
        if existing.as_deref() != Some(text.as_str()) {
            self.write(&path, &text)?;
            written.push(path);
        }
        Ok(written)
    }

    fn write(&self, path: &Path, text: &str) -> Result<()> {
        let dir = path.parent().expect("knowledge files have a folder");
        fsx::create_dir_durable(dir)?;
        fsx::ensure_within(&self.layout.root, dir)?;
        fsx::write_atomic(path, text.as_bytes())
    }
}

/// The current fact a correction with these words corrects, if any.
fn most_alike(set: &FactSet, words: &Shingles) -> Option<usize> {
    set.facts
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_current())
        .map(|(i, f)| (i, Shingles::of(&f.text).similarity(words)))
        .filter(|(_, s)| *s >= CORRECTION_SIMILARITY)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The detail file of `kind`: its facts in `facts`, in order.
fn topic_file(kind: FactKind, facts: &[Fact]) -> String {
    let mut out = format!(
        "<!-- agent-handover | knowledge | {} -->\n# {}\n\nEvery fact of this topic, oldest first, one line each: `- [id] learned-on fact`. A superseded fact is struck out and names the fact that replaced it.\n\n",
        kind.topic(),
        kind.title()
    );
    for f in facts.iter().filter(|f| f.kind == kind) {
        out.push_str(&f.to_line());
        out.push('\n');
    }
    out
}

fn read(layout: &MemoryLayout, path: &Path) -> Result<Option<String>> {
    fsx::read_text_within(
        &layout.root,
        path,
        MAX_MEMORY_FILE_BYTES,
        "a knowledge file this large is not ours: move it aside; `agent-handover knowledge list` rebuilds from the rest",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn knowledge(dir: &Path) -> Knowledge {
        Knowledge::new(MemoryLayout::at(&dir.join("memory")))
    }

    const NOTE_EN: &str = "\
# Handoff 2026-11-23

## Key decisions
- Use flock for the run lock, because the kernel releases it when the holder dies

## Gotchas
- A rename is durable only after an fsync of its directory

Later: ([REUSE] write every state file through fsx::write_atomic)
- [GOTCHA] tmux capture-pane needs -e to keep the colours
";

    const NOTE_DE: &str = "\
# Übergabe 2026-11-24

## Wichtige Entscheidungen
- Use flock for the run lock because the kernel releases it when the holder dies

## Stolperfallen
- Ein rename ist erst nach fsync des Verzeichnisses dauerhaft

## Fehlgeschlagene Ansätze
- Den Push in einer Schleife wiederholen: der Server lehnt ihn gleich ab
";

    #[test]
    fn three_forms_two_languages_each_fact_once_and_a_repeat_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let k = knowledge(dir.path());
        let first = k.learn(NOTE_EN, "run a", day(23)).unwrap();
        assert_eq!(first.added.len(), 4, "{first:?}");
        let second = k.learn(NOTE_DE, "run b", day(24)).unwrap();
        let kinds: Vec<_> = second.added.iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            [FactKind::Gotcha, FactKind::FailedApproach],
            "{second:?}"
        );
        assert_eq!(second.known, 1);
        let again = k.learn(NOTE_EN, "run c", day(25)).unwrap();
        assert!(
            again.added.is_empty() && again.written.is_empty(),
            "{again:?}"
        );
        let set = k.load().unwrap();
        assert_eq!(set.facts.len(), 6);
        let index = k.read_index().unwrap().unwrap();
        for f in &set.facts {
            assert_eq!(index.matches(&format!("[{}]", f.id)).count(), 1, "{index}");
        }
        assert!(dir.path().join("memory/.gitattributes").is_file());
    }

    #[test]
    fn a_correction_supersedes_and_keeps_the_old_text() {
        let dir = tempfile::tempdir().unwrap();
        let k = knowledge(dir.path());
        k.learn(
            "## Decisions\n- The lock is a pid file in the state folder\n",
            "run a",
            day(20),
        )
        .unwrap();
        let report = k
            .learn(
                "[CORRECTION] The lock is an flock on run.lock, not a pid file",
                "run b",
                day(21),
            )
            .unwrap();
        assert_eq!(report.superseded.len(), 1);
        let set = k.load().unwrap();
        let old = set.facts.iter().find(|f| !f.is_current()).unwrap();
        let new = set.current().next().unwrap();
        assert_eq!(old.superseded_by.as_deref(), Some(new.id.as_str()));
        assert_eq!(new.corrects.as_deref(), Some(old.id.as_str()));
        assert_eq!(new.kind, FactKind::Decision);
        assert_eq!(old.text, "The lock is a pid file in the state folder");
        let index = k.read_index().unwrap().unwrap();
        assert!(
            !index.contains(&old.id) && index.contains(&new.id),
            "{index}"
        );
        // The same correction again changes nothing; the old fact stays out.
        assert!(
            k.learn(
                "[CORRECTION] The lock is an flock on run.lock, not a pid file",
                "run c",
                day(22)
            )
            .unwrap()
            .added
            .is_empty()
        );
        assert!(
            k.learn(
                "## Decisions\n- The lock is a pid file in the state folder\n",
                "run d",
                day(22)
            )
            .unwrap()
            .added
            .is_empty()
        );
    }

    #[test]
    fn forget_keeps_a_record_and_a_forgotten_fact_is_not_learned_again() {
        let dir = tempfile::tempdir().unwrap();
        let k = knowledge(dir.path());
        let r = k
            .learn(
                "[GOTCHA] The CI runner has no tmux installed at all",
                "run a",
                day(20),
            )
            .unwrap();
        let id = &r.added[0].id;
        let err = k.forget("zz", None, day(21)).unwrap_err();
        assert!(
            matches!(err.module(), Some(FactError::Unknown { .. })),
            "{err}"
        );
        let gone = k
            .forget(&id[..6], Some("tmux is installed now"), day(21))
            .unwrap();
        assert_eq!(&gone.id, id);
        let set = k.load().unwrap();
        assert!(set.facts.is_empty());
        assert_eq!(set.forgotten.len(), 1);
        assert_eq!(
            set.forgotten[0].reason.as_deref(),
            Some("tmux is installed now")
        );
        assert!(!k.read_index().unwrap().unwrap().contains(id.as_str()));
        assert!(
            k.learn(
                "[GOTCHA] The CI runner has no tmux installed at all",
                "run b",
                day(22)
            )
            .unwrap()
            .added
            .is_empty()
        );
    }

    #[test]
    fn a_note_without_findings_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let r = knowledge(dir.path())
            .learn("Finished the parser.\nNext: wire it.", "run a", day(20))
            .unwrap();
        assert_eq!(r, LearnReport::default());
        assert!(!dir.path().join("memory").exists());
    }

    #[test]
    fn search_finds_by_words_and_id() {
        let dir = tempfile::tempdir().unwrap();
        let k = knowledge(dir.path());
        k.learn(NOTE_EN, "run a", day(23)).unwrap();
        let set = k.load().unwrap();
        assert_eq!(set.search("FSYNC directory").len(), 1);
        assert_eq!(set.search(&set.facts[0].id[..5]).len(), 1);
        assert!(set.search("nothing like it").is_empty());
    }
}
