//! `MEMORY.md`: the memory index, and the merge rule of every knowledge file.
//!
//! The index lists the current facts by topic, one line each, newest first,
//! each linking to its detail file:
//!
//! ```text
//! ## Decisions
//! - [3f9a2c1e0b] Use flock for the run lock. → [decisions](knowledge/decisions.md)
//! - … 812 more in [knowledge/decisions.md](knowledge/decisions.md)
//! ```
//!
//! It is derived from the detail files and kept under its cap ([`IndexCap`],
//! default 200 lines / 25 KB, the limit Claude Code applies to its own
//! MEMORY.md) by showing fewer facts per topic, newest kept, and long facts
//! cut: the rest stays in the detail files. No fact is ever dropped.
//!
//! **Merge rule** ([`merge`]), for the index and the detail files alike:
//! lines starting `- [<id>]` are keyed by their id and merged three-way
//! (added on either side: kept; removed on one side and unchanged on the
//! other: removed; changed on both: the struck-out (superseded) one, else
//! ours); every other line is taken from ours. Two machines adding facts
//! therefore never conflict. The git backend's merge by layer
//! (`backend::memory_merge`) calls it whenever both sides changed a file;
//! for a merge made by hand (`git pull`), `.gitattributes` asks git for its
//! `union` driver, which keeps both sides' lines; the readers take each id
//! once, and the next `learn` rewrites the files whole.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::fact::{Fact, FactKind};

/// The first line of `MEMORY.md`.
pub const INDEX_HEADER: &str = "<!-- agent-handover | index -->";

/// The size the index must stay within.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IndexCap {
    /// Most lines.
    pub max_lines: usize,
    /// Most bytes.
    pub max_bytes: usize,
}

/// The smallest cap accepted: room for the headings and a few facts.
const MIN_CAP: IndexCap = IndexCap {
    max_lines: 20,
    max_bytes: 2 * 1024,
};

/// A `[knowledge]` cap below [`MIN_CAP`]: too small to index anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "[knowledge] max_index_lines = {} / max_index_bytes = {} is too small to index anything\n  fix: use at least {} lines and {} bytes (defaults: {} and {})",
    asked.max_lines,
    asked.max_bytes,
    MIN_CAP.max_lines,
    MIN_CAP.max_bytes,
    IndexCap::default().max_lines,
    IndexCap::default().max_bytes
)]
pub struct CapTooSmall {
    /// The cap the section asks for.
    pub asked: IndexCap,
}

impl IndexCap {
    /// The cap `[knowledge]` sets (defaults for what it leaves out);
    /// `Err` says which key is below the minimum.
    pub fn from_config(
        section: &crate::workspace::config::KnowledgeSection,
    ) -> Result<Self, CapTooSmall> {
        let default = IndexCap::default();
        let cap = IndexCap {
            max_lines: section.max_index_lines.unwrap_or(default.max_lines),
            max_bytes: section.max_index_bytes.unwrap_or(default.max_bytes),
        };
        if cap.max_lines < MIN_CAP.max_lines || cap.max_bytes < MIN_CAP.max_bytes {
            return Err(CapTooSmall { asked: cap });
        }
        Ok(cap)
    }
}

impl Default for IndexCap {
    fn default() -> Self {
        IndexCap {
            max_lines: 200,
            max_bytes: 25 * 1024,
        }
    }
}

/// Longest fact text shown in the index; longer ones are cut there (the
/// whole text is in the detail file).
pub const MAX_INDEX_FACT_CHARS: usize = 160;

/// The index of `facts` (current ones only), within `cap`. Undated, so
/// that two machines' headers never differ.
pub fn render(facts: &[Fact], cap: IndexCap) -> String {
    let mut by_kind: Vec<(FactKind, Vec<&Fact>)> = FactKind::ALL
        .iter()
        .map(|k| {
            let mut of_kind: Vec<&Fact> = facts
                .iter()
                .filter(|f| f.kind == *k && f.is_current())
                .collect();
            of_kind.reverse(); // detail files are oldest first; the index newest first
            of_kind.sort_by_key(|f| std::cmp::Reverse(f.date));
            (*k, of_kind)
        })
        .filter(|(_, fs)| !fs.is_empty())
        .collect();
    by_kind.sort_by_key(|(k, _)| *k);
    let most = by_kind.iter().map(|(_, fs)| fs.len()).max().unwrap_or(0);
    let fits = |text: &str| text.len() <= cap.max_bytes && text.lines().count() <= cap.max_lines;
    // The most facts per topic that fit (binary search; 0 always "fits" as
    // far as we can make it: headings and pointers only).
    let (mut lo, mut hi) = (0, most);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&render_with(&by_kind, mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    render_with(&by_kind, lo)
}

fn render_with(by_kind: &[(FactKind, Vec<&Fact>)], per_topic: usize) -> String {
    let mut out = format!(
        "{INDEX_HEADER}\n# Memory index\n\nPermanent facts learned from handovers, one line each, newest first; every fact with its history is in `knowledge/`, from which this file is rebuilt (edit those, or use `agent-handover knowledge`).\n"
    );
    for (kind, facts) in by_kind {
        let topic = kind.topic();
        let _ = write!(out, "\n## {}\n", kind.title());
        for f in facts.iter().take(per_topic) {
            let _ = writeln!(
                out,
                "- [{}] {} → [{topic}](knowledge/{topic}.md)",
                f.id,
                cut(&f.text, MAX_INDEX_FACT_CHARS)
            );
        }
        if facts.len() > per_topic {
            let _ = writeln!(
                out,
                "- … {} more in [knowledge/{topic}.md](knowledge/{topic}.md)",
                facts.len() - per_topic
            );
        }
    }
    out
}

fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The id of a keyed line (`- [<id>] …`).
pub fn line_key(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("- [")?;
    let (id, _) = rest.split_once(']')?;
    (id.len() >= 6 && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
}

/// Three-way merge of a knowledge file (the index or a detail file) by the
/// rule in the module docs. Pure: texts in, text out.
pub fn merge(base: &str, ours: &str, theirs: &str) -> String {
    let keyed = |text: &str| -> HashMap<String, String> {
        text.lines()
            .filter_map(|l| line_key(l).map(|k| (k.to_string(), l.to_string())))
            .collect()
    };
    let (b, o, t) = (keyed(base), keyed(ours), keyed(theirs));
    let resolve = |key: &str| -> Option<String> {
        match (b.get(key), o.get(key), t.get(key)) {
            (_, Some(o), Some(t)) if o == t => Some(o.clone()),
            (Some(b), Some(o), Some(t)) if b == o => Some(t.clone()),
            (Some(b), Some(o), Some(t)) if b == t => Some(o.clone()),
            (_, Some(o), Some(t)) => Some(
                if t.contains("~~ _(superseded by") && !o.contains("~~ _(superseded by") {
                    t.clone()
                } else {
                    o.clone()
                },
            ),
            // Removed on one side: gone unless the other side changed it.
            (Some(b), Some(o), None) => (o != b).then(|| o.clone()),
            (Some(b), None, Some(t)) => (t != b).then(|| t.clone()),
            (None, Some(o), None) => Some(o.clone()),
            (None, None, Some(t)) => Some(t.clone()),
            (_, None, None) => None,
        }
    };
    let mut out = String::with_capacity(ours.len() + theirs.len());
    let mut written: HashSet<String> = HashSet::new();
    // Theirs-only lines go after the line they follow in theirs (or at the
    // end of ours' section of the same heading).
    let mut after: HashMap<String, Vec<String>> = HashMap::new();
    let mut anchor = String::new();
    for line in theirs.lines() {
        match line_key(line) {
            Some(k) if !o.contains_key(k) => {
                if let Some(resolved) = resolve(k) {
                    after.entry(anchor.clone()).or_default().push(resolved);
                }
                continue;
            }
            _ => {}
        }
        anchor = line.to_string();
    }
    let flush = |out: &mut String,
                 after: &mut HashMap<String, Vec<String>>,
                 anchor: &str,
                 written: &mut HashSet<String>| {
        for line in after.remove(anchor).unwrap_or_default() {
            if written.insert(line_key(&line).unwrap_or_default().to_string()) {
                out.push_str(&line);
                out.push('\n');
            }
        }
    };
    flush(&mut out, &mut after, "", &mut written);
    for line in ours.lines() {
        match line_key(line) {
            Some(k) => {
                if let Some(resolved) = resolve(k)
                    && written.insert(k.to_string())
                {
                    out.push_str(&resolved);
                    out.push('\n');
                }
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
        flush(&mut out, &mut after, line, &mut written);
    }
    // Lines anchored to something ours no longer has.
    let rest: Vec<String> = after.keys().cloned().collect();
    for anchor in rest {
        flush(&mut out, &mut after, &anchor, &mut written);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use chrono::NaiveDate;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    fn facts(n: usize) -> Vec<Fact> {
        (0..n)
            .map(|i| {
                Fact::new(
                    FactKind::ALL[i % 4],
                    &format!(
                        "fact number {i} says something durable about the module {}",
                        i * 7
                    ),
                    day(),
                    None,
                )
            })
            .collect()
    }

    #[test]
    fn the_index_stays_under_its_cap_and_names_what_moved_out() {
        let all = facts(2_000);
        let text = render(&all, IndexCap::default());
        assert!(text.lines().count() <= 200, "{}", text.lines().count());
        assert!(text.len() <= 25 * 1024);
        let shown = text.lines().filter(|l| line_key(l).is_some()).count();
        let more: usize = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("- … ")?
                    .split(' ')
                    .next()?
                    .parse::<usize>()
                    .ok()
            })
            .sum();
        assert_eq!(shown + more, 2_000, "every fact is shown or counted");
        assert!(shown > 150, "{shown}");
        let small = render(&all[..10], IndexCap::default());
        assert_eq!(small.lines().filter(|l| line_key(l).is_some()).count(), 10);
        assert!(!small.contains("more in"));
    }

    #[test]
    fn two_sides_adding_facts_merge_to_both_and_a_removal_wins() {
        let base = "# Decisions\n- [aaaaaaaaaa] 2026-11-01 one\n- [bbbbbbbbbb] 2026-11-01 two\n";
        let ours = "# Decisions\n- [aaaaaaaaaa] 2026-11-01 one\n- [bbbbbbbbbb] 2026-11-01 two\n- [cccccccccc] 2026-11-02 ours\n";
        let theirs =
            "# Decisions\n- [bbbbbbbbbb] 2026-11-01 two\n- [dddddddddd] 2026-11-03 theirs\n";
        let merged = merge(base, ours, theirs);
        assert_eq!(
            merged,
            "# Decisions\n- [bbbbbbbbbb] 2026-11-01 two\n- [dddddddddd] 2026-11-03 theirs\n- [cccccccccc] 2026-11-02 ours\n"
        );
        // Symmetric in content.
        let mut a: Vec<_> = merged.lines().collect();
        let swapped = merge(base, theirs, ours);
        let mut b: Vec<_> = swapped.lines().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
        // A supersession on one side wins over the plain line on the other.
        let struck =
            "# Decisions\n- [aaaaaaaaaa] 2026-11-01 ~~one~~ _(superseded by [cccccccccc])_\n";
        let merged = merge(
            base,
            struck,
            "# Decisions\n- [aaaaaaaaaa] 2026-11-01 one (edited)\n",
        );
        assert!(merged.contains("~~one~~"), "{merged}");
        // Merging with itself changes nothing.
        assert_eq!(merge(base, ours, ours), ours);
    }
}
