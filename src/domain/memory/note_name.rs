//! The names of layer-1 notes: `<tag>-YYYY-MM-DD.md`, or `<tag>-YYYY-MM-DD-<n>.md`
//! for the n-th note of that tag on that day.

use chrono::NaiveDate;

/// A parsed layer-1 note file name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NoteName {
    /// The session's date.
    pub date: NaiveDate,
    /// 1 for the first note of the tag that day, then 2, 3, ...
    pub n: u32,
    /// The tag, in its file-name form.
    pub tag: String,
}

impl NoteName {
    /// Parse `name`; `None` for anything that is not a note (hidden files,
    /// temp files, other Markdown, a note without a tag).
    pub fn parse(name: &str) -> Option<NoteName> {
        let stem = name.strip_suffix(".md")?;
        if stem.starts_with('.') {
            return None;
        }
        let split_date = |s: &str| -> Option<(String, NaiveDate)> {
            let cut = s.len().checked_sub(10)?;
            let date = NaiveDate::parse_from_str(s.get(cut..)?, "%Y-%m-%d").ok()?;
            let tag = s.get(..cut)?.strip_suffix('-')?;
            (!tag.is_empty()).then(|| (tag.to_string(), date))
        };
        if let Some((rest, n)) = stem.rsplit_once('-')
            && let Ok(n) = n.parse::<u32>()
            && n >= 2
            && let Some((tag, date)) = split_date(rest)
        {
            return Some(NoteName { date, n, tag });
        }
        let (tag, date) = split_date(stem)?;
        Some(NoteName { date, n: 1, tag })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(name: &str) -> Option<(String, String, u32)> {
        NoteName::parse(name).map(|n| (n.tag, n.date.to_string(), n.n))
    }

    #[test]
    fn parses_first_and_later_notes_of_a_day() {
        assert_eq!(
            parsed("codex-2026-09-01.md"),
            Some(("codex".into(), "2026-09-01".into(), 1))
        );
        assert_eq!(
            parsed("team-codex_run-2026-09-01-12.md"),
            Some(("team-codex_run".into(), "2026-09-01".into(), 12))
        );
        // A tag that itself ends in digits is still a tag.
        assert_eq!(
            parsed("v2-2026-09-01.md"),
            Some(("v2".into(), "2026-09-01".into(), 1))
        );
    }

    #[test]
    fn refuses_what_is_not_a_note() {
        for name in [
            "README.md",
            "2026-09-01.md",
            ".codex-2026-09-01.md.abc123.tmp",
            ".codex-2026-09-01.md",
            "codex-2026-09-01.txt",
            "codex-2026-13-01.md",
            "codex-2026-09-01-x.md",
        ] {
            assert_eq!(parsed(name), None, "{name}");
        }
    }
}
