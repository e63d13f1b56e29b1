//! Small text tools the rules share: the token estimate, content words
//! for comparing items, and short quotes for messages.

use std::collections::HashSet;

/// Estimated tokens of `text`: one per 4 characters, rounded up (the usual
/// rule of thumb for English prose and code with BPE tokenizers; close
/// enough to budget a briefing).
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
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
/// stopwords dropped, crudely
/// stemmed ("implemented" and "implement" match).
pub fn content_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w).to_string())
        .collect()
}

fn stem(word: &str) -> &str {
    for (suffix, min_len) in [("ing", 6), ("ed", 5), ("es", 5), ("s", 4)] {
        if word.len() >= min_len && word.ends_with(suffix) && !word.ends_with("ss") {
            let base = &word[..word.len() - suffix.len()];
            return undouble(base);
        }
    }
    word
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
    }

    #[test]
    fn content_words_stem_and_drop_stopwords() {
        let w = content_words("Implemented the retry queue for webhook deliveries");
        let mut v: Vec<_> = w.into_iter().collect();
        v.sort();
        assert_eq!(v, ["deliveri", "implement", "queue", "retry", "webhook"]);
        assert!(content_words("class").contains("class"));
        for (a, b) in [
            ("pinning", "pin"),
            ("committed", "commit"),
            ("installed", "install"),
            ("passes", "pass"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
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
