//! Merging two machines' `current-state.md` section by section.
//!
//! The file is cut at its ATX headings (outside fenced code); the text
//! before the first heading is a section too, and the layer header
//! (`<!-- agent-handover | layer2 | date -->`) is kept apart: the later date
//! wins and a differing date alone is no conflict. Against the common
//! ancestor, a section changed (or added, or removed) on one side only is
//! taken from that side; changed on both sides to different texts, the
//! side that changed it last (the caller says which) wins, and the heading
//! is reported as *drift*: the other side's text is superseded, and the
//! caller keeps that side's whole file as a version in the state history.

use std::collections::{HashMap, HashSet};

/// Between a repeated heading and its number in a section key.
const REPEAT: char = '\u{1f}';

/// How a section key reads to a person: its heading line.
fn heading_of(key: &str) -> String {
    key.split(REPEAT).next().unwrap_or_default().to_string()
}

/// One side of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// This machine's version.
    Ours,
    /// The remote's version.
    Theirs,
}

/// The outcome of [`merge`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateMerge {
    /// The merged file.
    pub text: String,
    /// Sections both sides changed differently, with the side whose text
    /// was superseded (kept in the history, not in `text`).
    pub drift: Vec<(String, Side)>,
}

/// A file cut into its header line, and its sections in order: `(key, text)`
/// where the key is the heading line (numbered when a heading repeats) and
/// the text includes the heading.
#[derive(Debug, Clone, Default)]
struct Cut<'a> {
    header: Option<&'a str>,
    sections: Vec<(String, String)>,
}

impl Cut<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, t)| t.as_str())
    }
}

/// Cut `text` at its headings.
fn cut(text: &str) -> Cut<'_> {
    let mut out = Cut::default();
    let mut body = text;
    if text.starts_with("<!-- agent-handover | layer2 |") {
        let end = text.find('\n').map_or(text.len(), |i| i + 1);
        out.header = Some(&text[..end]);
        body = &text[end..];
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut key = String::new();
    let mut current = String::new();
    let mut fence: Option<String> = None;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_string());
        } else if is_heading(line) {
            if !(key.is_empty() && current.is_empty()) {
                out.sections
                    .push((std::mem::take(&mut key), std::mem::take(&mut current)));
            }
            let heading = line.trim_end().to_string();
            let n = seen.entry(heading.clone()).or_default();
            *n += 1;
            // A repeated heading's key carries its number after a byte no
            // heading line holds, so no literal heading can take it.
            key = if *n == 1 {
                heading
            } else {
                format!("{heading}{REPEAT}{n}")
            };
        }
        current.push_str(line);
    }
    if !(key.is_empty() && current.is_empty()) {
        out.sections.push((key, current));
    }
    out
}

/// Section keys as a person reads them, joined with commas: the heading
/// line (a repeated one with its number), and "the text before the first
/// heading" for the key of what precedes every heading (empty).
pub fn section_names(keys: &[String]) -> String {
    keys.iter()
        .map(|k| match k.split_once(REPEAT) {
            _ if k.is_empty() => "the text before the first heading".to_string(),
            Some((heading, n)) => format!("{heading} (#{n})"),
            None => k.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// An ATX heading: 1-6 `#` then a space (or nothing), at most 3 spaces in.
fn is_heading(line: &str) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    indent <= 3
        && (1..=6).contains(&hashes)
        && rest[hashes..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t' || c == '\n' || c == '\r')
}

/// The keys of `base`'s sections whose text differs in `side` (added,
/// changed or removed).
fn changed(base: &Cut<'_>, side: &Cut<'_>) -> HashSet<String> {
    let mut keys: HashSet<String> = HashSet::new();
    for (k, t) in &side.sections {
        if base.get(k) != Some(t.as_str()) {
            keys.insert(k.clone());
        }
    }
    for (k, _) in &base.sections {
        if side.get(k).is_none() {
            keys.insert(k.clone());
        }
    }
    keys
}

/// The sections of the section-keyed files `ours` and `theirs` against their
/// common ancestor `base` (`None`: both added the file). `last_changed(key)`
/// says which side changed a section last when both did.
pub fn merge(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    last_changed: impl Fn(&str) -> Side,
) -> StateMerge {
    let (b, o, t) = (cut(base.unwrap_or("")), cut(ours), cut(theirs));
    let (ours_changed, theirs_changed) = (changed(&b, &o), changed(&b, &t));
    let mut drift = Vec::new();
    // Which side supplies each key's text (None: the section is gone).
    let mut pick = |key: &str| -> Option<String> {
        let (in_o, in_t) = (o.get(key), t.get(key));
        match (ours_changed.contains(key), theirs_changed.contains(key)) {
            (true, true) if in_o != in_t => {
                let winner = last_changed(key);
                let loser = match winner {
                    Side::Ours => Side::Theirs,
                    Side::Theirs => Side::Ours,
                };
                drift.push((heading_of(key), loser));
                match winner {
                    Side::Ours => in_o,
                    Side::Theirs => in_t,
                }
            }
            (false, true) => in_t,
            _ => in_o,
        }
        .map(str::to_string)
    };
    // Order: ours, with theirs' new sections after the section they follow there.
    let mut order: Vec<String> = o.sections.iter().map(|(k, _)| k.clone()).collect();
    let mut after: Option<String> = None;
    for (k, _) in &t.sections {
        if !order.contains(k) {
            let at = match &after {
                Some(prev) => order
                    .iter()
                    .position(|x| x == prev)
                    .map_or(order.len(), |i| i + 1),
                None => 0,
            };
            order.insert(at, k.clone());
        }
        after = Some(k.clone());
    }
    for (k, _) in &b.sections {
        if !order.contains(k) {
            order.push(k.clone());
        }
    }
    let mut text = match (o.header, t.header) {
        (Some(a), Some(b)) => a.max(b).to_string(), // same prefix: the later date
        (a, b) => a.or(b).unwrap_or_default().to_string(),
    };
    for key in &order {
        if let Some(section) = pick(key) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&section);
        }
    }
    StateMerge { text, drift }
}

/// The keys of the sections that differ between two versions of the file
/// (for attributing a commit's change to sections).
pub fn changed_sections(before: &str, after: &str) -> HashSet<String> {
    changed(&cut(before), &cut(after))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "<!-- agent-handover | layer2 | 2026-11-20 -->\n# Current state\n\n## Goal\nship it\n\n## Status\n3/10 pass\n\n## Next step\nfix parser\n";

    fn theirs_wins(_: &str) -> Side {
        Side::Theirs
    }

    #[test]
    fn section_names_say_what_has_no_heading() {
        let keys = [
            String::new(),
            "## Next".to_string(),
            format!("## Notes{REPEAT}2"),
        ];
        assert_eq!(
            section_names(&keys),
            "the text before the first heading, ## Next, ## Notes (#2)"
        );
    }

    #[test]
    fn sections_changed_on_one_side_are_taken_from_it() {
        let ours = BASE.replace("3/10 pass", "5/10 pass");
        let theirs = BASE
            .replace("fix parser", "fix lexer")
            .replace("2026-11-20", "2026-11-21");
        let m = merge(Some(BASE), &ours, &theirs, theirs_wins);
        assert!(m.drift.is_empty(), "{:?}", m.drift);
        assert_eq!(
            m.text,
            BASE.replace("3/10 pass", "5/10 pass")
                .replace("fix parser", "fix lexer")
                .replace("2026-11-20", "2026-11-21")
        );
    }

    #[test]
    fn a_section_changed_on_both_sides_takes_the_later_text_and_reports_drift() {
        let ours = BASE.replace("3/10 pass", "5/10 pass");
        let theirs = BASE.replace("3/10 pass", "7/10 pass");
        let m = merge(Some(BASE), &ours, &theirs, |k| {
            assert_eq!(k, "## Status");
            Side::Ours
        });
        assert!(m.text.contains("5/10 pass") && !m.text.contains("7/10"));
        assert_eq!(m.drift, [("## Status".to_string(), Side::Theirs)]);
        let m = merge(Some(BASE), &ours, &theirs, theirs_wins);
        assert!(m.text.contains("7/10 pass"));
        assert_eq!(m.drift, [("## Status".to_string(), Side::Ours)]);
    }

    #[test]
    fn new_sections_of_both_sides_are_kept_in_place_and_removals_hold() {
        let ours = BASE.replace("## Next step\n", "## Waiting on\nreview\n\n## Next step\n");
        let theirs = BASE
            .replace("## Goal\nship it\n\n", "")
            .replace("## Status\n", "## Decisions\nuse pest\n\n## Status\n");
        let m = merge(Some(BASE), &ours, &theirs, theirs_wins);
        assert!(m.drift.is_empty());
        assert!(
            !m.text.contains("## Goal"),
            "removed on one side: {}",
            m.text
        );
        let order: Vec<&str> = m.text.lines().filter(|l| l.starts_with("##")).collect();
        assert_eq!(
            order,
            ["## Decisions", "## Status", "## Waiting on", "## Next step"]
        );
    }

    #[test]
    fn headings_inside_code_fences_do_not_cut_and_repeated_headings_stay_apart() {
        let text = "## Notes\n```sh\n# not a heading\n```\n## Notes\nsecond\n";
        let c = cut(text);
        let keys: Vec<&str> = c.sections.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["## Notes", "## Notes\u{1f}2"]);
        // A literal "## Notes #2" heading is a section of its own.
        let tricky = "## Log\na\n## Log #2\nb\n## Log\nc\n";
        assert_eq!(cut(tricky).sections.len(), 3);
        let theirs = tricky.replace("c\n", "c2\n");
        assert_eq!(
            merge(Some(tricky), tricky, &theirs, theirs_wins).text,
            theirs
        );
        let theirs = text.replace("second", "changed");
        let m = merge(Some(text), text, &theirs, theirs_wins);
        assert_eq!(m.text, theirs);
    }

    #[test]
    fn both_adding_the_file_merges_by_section() {
        let ours = "<!-- agent-handover | layer2 | 2026-11-20 -->\n## Status\nA\n";
        let theirs =
            "<!-- agent-handover | layer2 | 2026-11-21 -->\n## Status\nB\n## Next step\nx\n";
        let m = merge(None, ours, theirs, |_| Side::Ours);
        assert_eq!(
            m.text,
            "<!-- agent-handover | layer2 | 2026-11-21 -->\n## Status\nA\n## Next step\nx\n"
        );
        assert_eq!(m.drift, [("## Status".to_string(), Side::Theirs)]);
    }
}
