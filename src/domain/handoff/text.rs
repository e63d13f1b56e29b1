//! Small text tools the rules share: the token estimate, content words
//! for comparing items, and short quotes for messages.

use std::collections::HashSet;

/// Estimated tokens of `text`: one per 4 characters, rounded up (the usual
/// rule of thumb for English prose and code with BPE tokenizers; close
/// enough to budget a briefing), and one per Japanese, Chinese or Korean
/// character (BPE tokenizers spend at least that on them).
pub fn estimate_tokens(text: &str) -> usize {
    let (mut cjk, mut other) = (0, 0);
    for c in text.chars() {
        if super::vocabulary::is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + usize::div_ceil(other, 4)
}

/// Words that carry no meaning when comparing two items.
const STOPWORDS: &[&str] = &[
    "a", "about", "again", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "but", "by", "can", "could", "did", "do", "does", "done", "for", "from", "has", "have", "in",
    "into", "is", "it", "its", "just", "may", "more", "must", "new", "no", "not", "now", "of",
    "on", "or", "our", "should", "so", "some", "still", "than", "that", "the", "then", "these",
    "this", "those", "to", "try", "tried", "trying", "us", "use", "used", "using", "via", "was",
    "we", "were", "will", "with", "would",
];

/// The meaningful words of `text`: lowercase, at least 2 characters,
/// stopwords dropped, paths and file names left out (their fragments,
/// "src" or "rs", say nothing about the work), crudely stemmed
/// ("implemented" and "implement", "deliveries" and "delivery" match).
pub fn content_words(text: &str) -> HashSet<String> {
    text.split_whitespace()
        .filter(|token| !is_path(token))
        .flat_map(|token| token.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.len() >= 2)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A path or file name: `src/lib.rs`, `/etc/hosts`, `./x`, `lib.rs:12`.
fn is_path(token: &str) -> bool {
    let t = token.trim_matches(|c: char| "`'\"()[]{}<>,;:.!?*".contains(c));
    let t = t.trim_end_matches(|c: char| c.is_ascii_digit() || c == ':');
    let extension = t.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphabetic())
    });
    t.starts_with('/') || t.starts_with("./") || t.starts_with("~/") || extension
}

fn stem(word: &str) -> String {
    let mut w = word;
    for (suffix, min_len) in [("ing", 6), ("ed", 5), ("es", 5), ("s", 4)] {
        if w.len() >= min_len && w.ends_with(suffix) && !w.ends_with("ss") {
            w = undouble(&w[..w.len() - suffix.len()]);
            break;
        }
    }
    // "create"/"created" -> "creat", "delivery"/"deliveries" -> "deliveri".
    let w = w.strip_suffix('e').filter(|b| b.len() >= 3).unwrap_or(w);
    match w.strip_suffix('y') {
        Some(base) if base.len() >= 3 => format!("{base}i"),
        _ => w.to_string(),
    }
}

/// "pinn" (from "pinning") -> "pin", "committ" -> "commit"; "install" stays.
fn undouble(base: &str) -> &str {
    let b = base.as_bytes();
    match b {
        [.., x, y] if x == y && !b"aeiouylsfz".contains(x) && x.is_ascii_alphabetic() => {
            &base[..base.len() - 1]
        }
        _ => base,
    }
}

/// The approach or deliverable an item names, without its explanation:
/// the text before "->", " - ", ": ", " because ", "(" and the like.
pub fn gist(item: &str) -> &str {
    let first_line = item.lines().next().unwrap_or("");
    const SEPARATORS: &[&str] = &[
        "->",
        "→",
        " — ",
        " – ",
        " - ",
        ": ",
        "; ",
        ". ",
        " (",
        " because ",
        " but ",
    ];
    let cut = SEPARATORS
        .iter()
        .filter_map(|s| first_line.find(s))
        .min()
        .unwrap_or(first_line.len());
    first_line[..cut].trim()
}

/// Whether `next` (a proposed step's content words) proposes the item
/// `earlier` again: at least 3 of the words of its gist, and at least 70% of
/// them, appear in `next`.
pub fn proposes_again(earlier: &str, next: &HashSet<String>) -> bool {
    let words = content_words(gist(earlier));
    let hits = words.iter().filter(|w| next.contains(*w)).count();
    words.len() >= 3 && hits >= 3 && hits * 10 >= words.len() * 7
}

/// The first line of `text`, at most `max` characters, for quoting in a message.
pub fn snippet(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_a_quarter_of_the_characters() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens(&"word ".repeat(100)), 125);
        assert_eq!(estimate_tokens("次の一手 ok"), 4 + 1);
    }

    #[test]
    fn content_words_stem_and_drop_stopwords() {
        let w = content_words("Implemented the retry queue for webhook deliveries");
        let mut v: Vec<_> = w.into_iter().collect();
        v.sort();
        assert_eq!(v, ["deliveri", "implement", "queu", "retri", "webhook"]);
        assert!(content_words("class").contains("class"));
        for (a, b) in [
            ("pinning", "pin"),
            ("committed", "commit"),
            ("installed", "install"),
            ("passes", "pass"),
            ("created", "create"),
            ("deliveries", "delivery"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
    }

    #[test]
    fn paths_are_not_words() {
        let w = content_words("Fix `src/retry.rs:12` and /etc/hosts in lib.rs for retries");
        let mut v: Vec<_> = w.into_iter().collect();
        v.sort();
        assert_eq!(v, ["fix", "retri"]);
    }

    #[test]
    fn gist_drops_the_explanation() {
        assert_eq!(
            gist("monkey-patching stripe to translate v2 events -> fails silently"),
            "monkey-patching stripe to translate v2 events"
        );
        assert_eq!(
            gist("Schema migration script (payments/migrate_v3.py) - tested"),
            "Schema migration script"
        );
        assert_eq!(gist("plain"), "plain");
    }

    #[test]
    fn proposes_again_needs_most_of_the_gist() {
        let next = content_words("Monkey-patch the stripe library to translate v2 events");
        assert!(proposes_again(
            "monkey-patching stripe library to translate v2 events -> fails on refunds",
            &next
        ));
        assert!(!proposes_again(
            "Using stripe's v2 compatibility mode -> deprecated",
            &next
        ));
        assert!(
            !proposes_again("stripe events", &next),
            "too short to judge"
        );
    }

    #[test]
    fn snippet_cuts_long_lines() {
        assert_eq!(snippet("short\nsecond", 10), "short");
        assert_eq!(snippet("a long line of text", 8), "a long…");
    }
}
