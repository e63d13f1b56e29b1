//! What counts as an empty text: one answer for every text with an empty
//! check (a run's note and current state, an inbox message); and how a
//! number is written.

/// Whether `text` says nothing a reader could see: once HTML comments
/// (`<!-- ... -->`, an unclosed one to the end), whitespace and invisible
/// characters (zero-width spaces and joiners, the byte-order mark, bidi
/// marks and the other format characters, variation selectors, fillers)
/// are taken out, nothing is left.
pub fn is_blank(text: &str) -> bool {
    let mut rest = text;
    loop {
        let (before, after) = match rest.split_once("<!--") {
            Some((before, after)) => (before, Some(after)),
            None => (rest, None),
        };
        if !before.chars().all(is_invisible) {
            return false;
        }
        match after.and_then(|a| a.split_once("-->")) {
            Some((_, next)) => rest = next,
            None => return true,
        }
    }
}

/// Whitespace, or a character that draws nothing: a format character
/// (Unicode category Cf), a variation selector, or one of the fillers
/// (Hangul, Braille blank) that render as empty space.
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(c,
            '\u{00AD}'                  // soft hyphen
            | '\u{034F}'                // combining grapheme joiner
            | '\u{061C}'                // Arabic letter mark
            | '\u{115F}' | '\u{1160}'   // Hangul fillers
            | '\u{17B4}' | '\u{17B5}'   // Khmer inherent vowels
            | '\u{180B}'..='\u{180F}'   // Mongolian selectors and vowel separator
            | '\u{200B}'..='\u{200F}'   // zero-width space, (non-)joiner, LRM, RLM
            | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'   // word joiner, invisible operators, bidi isolates
            | '\u{2800}'                // Braille blank
            | '\u{3164}'                // Hangul filler
            | '\u{FE00}'..='\u{FE0F}'   // variation selectors
            | '\u{FEFF}'                // byte-order mark
            | '\u{FFA0}'                // halfwidth Hangul filler
            | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotation
            | '\u{110BD}' | '\u{110CD}' // Kaithi number signs
            | '\u{1D173}'..='\u{1D17A}' // musical format characters
            | '\u{E0000}'..='\u{E0FFF}' // tags and variation selectors supplement
        )
}

/// `text` without the lines `drop` picks and the blank line after each;
/// everything else byte for byte (borrowed when nothing is dropped).
pub fn without_lines(text: &str, drop: impl Fn(&str) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.lines().any(&drop) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut skip_blank = false;
    for line in text.split_inclusive('\n') {
        if drop(line.trim_end_matches(['\n', '\r'])) {
            skip_blank = true;
            continue;
        }
        if skip_blank && line.trim().is_empty() {
            skip_blank = false;
            continue;
        }
        skip_blank = false;
        out.push_str(line);
    }
    std::borrow::Cow::Owned(out)
}

/// A number as people write it: `30`, not `30.0`; `0.25` stays `0.25`.
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_texts_are_blank() {
        for blank in [
            "",
            " \n\t",
            "\u{200B}",
            "\u{FEFF}",
            "\u{FEFF}\n\u{200B}\u{200D} \u{2060}",
            "<!-- -->",
            "<!---->",
            "\u{FEFF}<!-- a comment -->\n<!-- another\nline -->\u{200B}",
            "<!-- never closed",
            "\u{00A0}\u{3000}\u{2800}",
        ] {
            assert!(is_blank(blank), "{blank:?} counted as text");
        }
    }

    #[test]
    fn visible_texts_are_not_blank() {
        for text in [
            "x",
            "\u{200B}x",
            "<!-- c --> done",
            "done <!-- c",
            "-->",
            "<!- not a comment ->",
            "\u{FEFF}# Title",
            "😀",
        ] {
            assert!(!is_blank(text), "{text:?} counted as blank");
        }
    }
}
