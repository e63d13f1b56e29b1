//! The library's own regular expressions (the linter's, the secret
//! detector's) are compiled one way: with ASCII word boundaries.

use regex::Regex;

/// `pattern` with ASCII word boundaries: a Unicode `\b` makes the regex
/// engine leave its fast path on non-ASCII text ("—", "’"), which handoffs
/// are full of (it made linting 10x slower).
pub fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

/// Compile one of the library's own patterns (with [`ascii_boundaries`]).
pub fn pattern(pattern: &str) -> Regex {
    Regex::new(&ascii_boundaries(pattern)).expect("the library's own patterns are valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_use_ascii_word_boundaries() {
        assert_eq!(ascii_boundaries(r"\bkey\b"), r"(?-u:\b)key(?-u:\b)");
        assert!(pattern(r"\bkey\b").is_match("a—key—b"));
        assert!(!pattern(r"\bkey\b").is_match("keys"));
    }
}
