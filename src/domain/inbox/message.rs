//! The message file format.
//!
//! A message is one file in a queue directory, named
//! `<created>-<from>-<random>.md` where `<created>` is the UTC send time in
//! ISO 8601 basic format with nanoseconds (`20261121T093015.123456789Z`), so
//! sorting names sorts by time and two senders never pick the same name. The
//! message id is the file name without `.md`.
//!
//! The file starts with a front-matter header, then the body:
//!
//! ```text
//! ---
//! from: codex
//! to: claude
//! subject: parser done
//! created: 2026-11-21T09:30:15.123456789Z
//! reply-to: 20261121T091000.000000001Z-claude-0a1b2c3d
//! ---
//! The body, Markdown, as long as it fits in 256 KiB.
//! ```
//!
//! `reply-to` is optional; unknown keys are ignored. A file without this
//! header (dropped by hand) is a message too: its sender is `unknown`, its
//! subject its first non-empty line and its time the one in its name, else
//! its modification time.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

/// Largest message accepted by `send` (header and body), and read back whole.
pub const MAX_MESSAGE_BYTES: u64 = 256 * 1024;
/// Characters of body text in a preview.
pub const PREVIEW_CHARS: usize = 200;
/// Longest subject kept (longer ones are cut with `…`).
pub const MAX_SUBJECT_CHARS: usize = 200;
/// Sender shown for a file without a header.
pub const UNKNOWN_SENDER: &str = "unknown";

const NAME_TIME_FORMAT: &str = "%Y%m%dT%H%M%S%.9f";
const NAME_TIME_LEN: usize = 26; // 20261121T093015.123456789Z
const FENCE: &str = "---";

/// The header at the top of a message file; every field may be missing in a
/// file someone else wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The sending agent.
    pub from: Option<String>,
    /// The receiving agent, or `shared`.
    pub to: Option<String>,
    /// One line.
    pub subject: Option<String>,
    /// When it was sent.
    pub created: Option<DateTime<Utc>>,
    /// The id of the message this answers.
    pub reply_to: Option<String>,
}

impl Header {
    /// The header as it is written at the top of a file (single-line values expected).
    pub fn render(&self) -> String {
        let mut out = format!("{FENCE}\n");
        let created = self
            .created
            .map(|c| c.to_rfc3339_opts(SecondsFormat::Nanos, true));
        for (key, value) in [
            ("from", self.from.as_deref()),
            ("to", self.to.as_deref()),
            ("subject", self.subject.as_deref()),
            ("created", created.as_deref()),
            ("reply-to", self.reply_to.as_deref()),
        ] {
            if let Some(v) = value {
                out += &format!("{key}: {v}\n");
            }
        }
        out + FENCE + "\n"
    }
}

/// Split `text` into its header and body; a file without a complete header
/// is all body.
pub fn split_header(text: &str) -> (Option<Header>, &str) {
    let Some(mut rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let mut header = Header::default();
    while let Some((line, next)) = rest.split_once('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line == FENCE {
            return (Some(header), next);
        }
        let Some((key, value)) = line.split_once(':') else {
            return (None, text);
        };
        let value = Some(value.trim().to_string()).filter(|v| !v.is_empty());
        match key.trim() {
            "from" => header.from = value,
            "to" => header.to = value,
            "subject" => header.subject = value,
            "reply-to" => header.reply_to = value,
            "created" => {
                header.created = value
                    .and_then(|v| DateTime::parse_from_rfc3339(&v).ok())
                    .map(|d| d.with_timezone(&Utc));
            }
            _ => {}
        }
        rest = next;
    }
    (None, text)
}

/// Decode message bytes as text; the flag says whether they were not valid
/// UTF-8 (and were decoded lossily). `complete` is false for a prefix of a
/// file, whose last character may be cut in the middle.
pub fn decode(bytes: &[u8], complete: bool) -> (Cow<'_, str>, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), false),
        Err(e) if !complete && e.error_len().is_none() => {
            let valid = &bytes[..e.valid_up_to()];
            (
                Cow::Borrowed(std::str::from_utf8(valid).unwrap_or("")),
                false,
            )
        }
        Err(_) => (String::from_utf8_lossy(bytes), true),
    }
}

/// A new message's file name: `<created>-<from>-<random>.md`.
pub fn file_name(created: DateTime<Utc>, from: &str) -> String {
    format!(
        "{}Z-{from}-{}.md",
        created.format(NAME_TIME_FORMAT),
        random_suffix()
    )
}

/// The id of the message in file `name`: the name without `.md`.
pub fn id_of(name: &str) -> &str {
    name.strip_suffix(".md")
        .filter(|s| !s.is_empty())
        .unwrap_or(name)
}

/// The send time at the start of a file name, if it has one.
///
/// Parsed by position (`YYYYMMDDTHHMMSS.nnnnnnnnnZ`): listing calls this for
/// every file, and a format-string parser costs more than reading the name.
pub fn name_time(name: &str) -> Option<DateTime<Utc>> {
    let b = name.as_bytes().get(..NAME_TIME_LEN)?;
    if (b[8], b[15], b[25]) != (b'T', b'.', b'Z') {
        return None;
    }
    let num = |range: std::ops::Range<usize>| -> Option<u32> {
        b[range].iter().try_fold(0u32, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
        })
    };
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(4..6)?, num(6..8)?)?;
    let time = date.and_hms_nano_opt(num(9..11)?, num(11..13)?, num(13..15)?, num(16..25)?)?;
    Some(time.and_utc())
}

/// A subject line made safe for the header: control characters become
/// spaces, whitespace is collapsed, long ones are cut with `…`.
pub fn clean_subject(subject: &str) -> String {
    one_line(subject, MAX_SUBJECT_CHARS)
}

/// The subject of a message without one: its first non-empty line, without
/// Markdown heading marks.
pub fn subject_from_body(body: &str) -> String {
    let first = body
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("(no subject)");
    clean_subject(first)
}

/// The first [`PREVIEW_CHARS`] characters of a body on one line.
pub fn preview(body: &str) -> String {
    one_line(body, PREVIEW_CHARS)
}

fn one_line(text: &str, max_chars: usize) -> String {
    let words = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty());
    let mut out = String::new();
    let mut chars = 0;
    for word in words {
        let sep = usize::from(chars > 0);
        let len = word.chars().count();
        let room = max_chars.saturating_sub(chars + sep);
        if sep == 1 && room > 0 {
            out.push(' ');
        }
        if len > room {
            out.extend(word.chars().take(room));
            return out.trim_end().to_string() + "…";
        }
        out.push_str(word);
        chars += sep + len;
    }
    out
}

fn random_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // RandomState is seeded from the OS once per thread and varied per call.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    format!("{:08x}", h.finish() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T09:30:15.123456789Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn header_round_trips() {
        let h = Header {
            from: Some("codex".into()),
            to: Some("claude".into()),
            subject: Some("parser done".into()),
            created: Some(t()),
            reply_to: Some("x-1".into()),
        };
        let text = h.render() + "body\nline 2\n";
        assert!(text.starts_with("---\nfrom: codex\nto: claude\nsubject: parser done\ncreated: 2026-11-21T09:30:15.123456789Z\nreply-to: x-1\n---\nbody"));
        let (parsed, body) = split_header(&text);
        assert_eq!(parsed, Some(h));
        assert_eq!(body, "body\nline 2\n");
    }

    #[test]
    fn files_without_a_complete_header_are_all_body() {
        for text in [
            "just text",
            "---\nfrom: a\n",
            "---\nnot a key value line\n---\nx",
            "",
        ] {
            assert_eq!(split_header(text), (None, text), "{text:?}");
        }
        let (h, body) = split_header("---\r\nfrom: a\r\ncreated: junk\r\nx-y: z\r\n---\r\nb");
        let h = h.unwrap();
        assert_eq!((h.from.as_deref(), h.created), (Some("a"), None));
        assert_eq!(body, "b");
    }

    #[test]
    fn names_sort_by_time_and_carry_it() {
        let name = file_name(t(), "codex");
        assert!(
            name.starts_with("20261121T093015.123456789Z-codex-"),
            "{name}"
        );
        assert!(name.ends_with(".md"));
        assert_eq!(name_time(&name), Some(t()));
        assert_eq!(id_of(&name), name.strip_suffix(".md").unwrap());
        let later = file_name(t() + chrono::Duration::nanoseconds(1), "a");
        assert!(later > name);
        assert_ne!(file_name(t(), "codex"), name, "random part must differ");
        assert_eq!(name_time("notes.md"), None);
        for bad in [
            "20261121T093015.123456789X-a.md",
            "20261321T093015.123456789Z-a.md",
            "2026112xT093015.123456789Z-a.md",
            "20261121T093015.12345678Z-a.md",
        ] {
            assert_eq!(name_time(bad), None, "{bad}");
        }
        assert_eq!(id_of("notes.txt"), "notes.txt");
        assert_eq!(id_of(".md"), ".md");
    }

    #[test]
    fn subjects_and_previews_are_one_clean_line() {
        assert_eq!(
            subject_from_body("\n\n# Build broken\nmore"),
            "Build broken"
        );
        assert_eq!(subject_from_body("  \n"), "(no subject)");
        assert_eq!(clean_subject("a\tb\nc\u{7}d  "), "a b c d");
        let long = clean_subject(&"x".repeat(500));
        assert_eq!(long.chars().count(), MAX_SUBJECT_CHARS + 1);
        assert!(long.ends_with('…'));
        assert_eq!(preview("line one\n\nline  two"), "line one line two");
        let p = preview(&"word ".repeat(100));
        assert!(
            p.ends_with("word…") && p.chars().count() <= PREVIEW_CHARS + 1,
            "{p}"
        );
    }

    #[test]
    fn decoding_flags_bad_utf8_but_not_a_cut_prefix() {
        assert_eq!(decode("é".as_bytes(), true), (Cow::Borrowed("é"), false));
        let cut = &"aé".as_bytes()[..2];
        assert_eq!(decode(cut, false), (Cow::Borrowed("a"), false));
        let (text, lossy) = decode(&[b'a', 0xff, b'b'], false);
        assert!(lossy);
        assert_eq!(text, "a\u{fffd}b");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// A header value as `render` writes it: one line, trimmed, not empty.
        fn value() -> impl Strategy<Value = Option<String>> {
            prop::option::of("[^\r\n]{0,24}")
                .prop_map(|v| v.map(|v| v.trim().to_string()).filter(|v| !v.is_empty()))
        }

        fn time() -> impl Strategy<Value = Option<DateTime<Utc>>> {
            prop::option::of((0i64..4_102_444_800, 0u32..1_000_000_000))
                .prop_map(|t| t.and_then(|(secs, nanos)| DateTime::from_timestamp(secs, nanos)))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn split_header_never_panics_and_the_body_is_the_text_s_tail(
                text in prop_oneof![
                    "\\PC{0,200}",
                    "(---\r?\n)?([a-z-]{0,9}:[^\n]{0,20}\r?\n){0,5}(---\r?\n)?\\PC{0,40}",
                ]
            ) {
                let (header, body) = split_header(&text);
                prop_assert!(text.ends_with(body));
                if header.is_none() {
                    prop_assert_eq!(body, text.as_str());
                }
            }

            #[test]
            fn a_rendered_header_splits_back_to_itself(
                from in value(), to in value(), subject in value(), reply_to in value(),
                created in time(), body in "\\PC{0,80}",
            ) {
                let header = Header { from, to, subject, created, reply_to };
                let text = header.render() + &body;
                let (parsed, rest) = split_header(&text);
                prop_assert_eq!(parsed, Some(header));
                prop_assert_eq!(rest, body.as_str());
            }

            #[test]
            fn decode_is_exact_on_text_and_flags_only_real_damage(
                text in "\\PC{0,60}",
                bytes in prop::collection::vec(any::<u8>(), 0..200),
                cut in any::<prop::sample::Index>(),
            ) {
                prop_assert_eq!(decode(text.as_bytes(), true), (Cow::Borrowed(text.as_str()), false));
                // A prefix cut inside a character is not damage: it decodes
                // to the whole characters before the cut.
                let at = cut.index(text.len() + 1);
                let (prefix, lossy) = decode(&text.as_bytes()[..at], false);
                prop_assert!(!lossy);
                prop_assert!(text.starts_with(prefix.as_ref()) && at - prefix.len() < 4);
                // Random bytes decode (lossily when not UTF-8), whole or cut.
                let (_, lossy) = decode(&bytes, true);
                prop_assert_eq!(lossy, std::str::from_utf8(&bytes).is_err());
                let _ = decode(&bytes, false);
            }
        }
    }
}
