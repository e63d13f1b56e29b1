//! One agent's marked block in a shared Markdown file (`AGENTS.md`,
//! `CLAUDE.md`, `GEMINI.md`, `CONVENTIONS.md`, ...):
//!
//! ```text
//! <!-- agent-handover:begin codex -->
//! ...
//! <!-- agent-handover:end codex -->
//! ```
//!
//! Each agent owns its own block, so installing one agent never rewrites
//! another's. The block is appended the first time and replaced in place
//! after that; everything outside it is kept byte for byte. A block written
//! by agent-handover 0.5.1 (`<!-- agent-handover:begin -->`, no name) is
//! taken over by the agent its text names (`--agent <name>`), or by the
//! first agent installed when it names none.

use std::path::Path;

use crate::base::error::{Error, Result};

/// The begin marker of agent-handover 0.5.1, which had one block per file.
pub const LEGACY_BEGIN: &str = "<!-- agent-handover:begin -->";
/// Its end marker.
pub const LEGACY_END: &str = "<!-- agent-handover:end -->";

/// How a file's comments look, which is how its markers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comment {
    /// Markdown: `<!-- ... -->`.
    Html,
    /// TOML, YAML, shell: `# ...`.
    Hash,
}

impl Comment {
    fn wrap(self, text: &str) -> String {
        match self {
            Comment::Html => format!("<!-- {text} -->"),
            Comment::Hash => format!("# {text}"),
        }
    }
}

/// The begin marker of `agent`'s block in Markdown.
pub fn begin_marker(agent: &str) -> String {
    Comment::Html.wrap(&format!("agent-handover:begin {agent}"))
}

/// The end marker of `agent`'s block in Markdown.
pub fn end_marker(agent: &str) -> String {
    Comment::Html.wrap(&format!("agent-handover:end {agent}"))
}

/// `agent`'s block markers in a file commented with `style`.
fn markers(style: Comment, agent: &str) -> (String, String) {
    (
        style.wrap(&format!("agent-handover:begin {agent}")),
        style.wrap(&format!("agent-handover:end {agent}")),
    )
}

/// Where `agent`'s block is in `text`: the byte range from its begin marker
/// to the end of its end marker. `Ok(None)` when there is none; an error for
/// half a block, because guessing where it ends could eat the user's text.
fn find(
    text: &str,
    style: Comment,
    agent: &str,
    path: &Path,
) -> Result<Option<std::ops::Range<usize>>> {
    let named = markers(style, agent);
    if let Some(range) = find_pair(text, &named.0, &named.1, path)? {
        return Ok(Some(range));
    }
    if style != Comment::Html {
        return Ok(None);
    }
    let Some(range) = find_pair(text, LEGACY_BEGIN, LEGACY_END, path)? else {
        return Ok(None);
    };
    let body = &text[range.clone()];
    let names_agent = body.contains(&format!("--agent {agent}"));
    let names_none = !body.contains("--agent ");
    Ok((names_agent || names_none).then_some(range))
}

fn find_pair(
    text: &str,
    begin: &str,
    end: &str,
    path: &Path,
) -> Result<Option<std::ops::Range<usize>>> {
    let b = text.find(begin);
    let e = b.and_then(|b| text[b..].find(end).map(|e| b + e + end.len()));
    match (b, e) {
        (Some(b), Some(e)) => Ok(Some(b..e)),
        (None, _) if !text.contains(end) => Ok(None),
        _ => Err(Error::Corrupt {
            path: path.into(),
            detail: format!("it has `{begin}` or `{end}` without the other"),
            fix: "remove the partial agent-handover block (or restore the missing marker), then install again; agent-handover left the file untouched".into(),
        }),
    }
}

/// `existing` with `agent`'s block set to `body` (which ends with a newline).
pub fn splice(
    existing: &str,
    style: Comment,
    agent: &str,
    body: &str,
    path: &Path,
) -> Result<String> {
    let (begin, end) = markers(style, agent);
    let block = format!("{begin}\n{body}{end}");
    Ok(match find(existing, style, agent, path)? {
        Some(range) => format!(
            "{}{block}{}",
            &existing[..range.start],
            &existing[range.end..]
        ),
        None if existing.trim().is_empty() => block + "\n",
        None if existing.ends_with('\n') => format!("{existing}\n{block}\n"),
        None => format!("{existing}\n\n{block}\n"),
    })
}

/// `existing` without `agent`'s block (and the blank line and newline that
/// [`splice`] put around it); `None` when it has no block of that agent.
pub fn remove(existing: &str, style: Comment, agent: &str, path: &Path) -> Result<Option<String>> {
    let Some(range) = find(existing, style, agent, path)? else {
        return Ok(None);
    };
    let mut start = range.start;
    let mut end = range.end;
    if existing[end..].starts_with('\n') {
        end += 1;
    }
    if existing[..start].ends_with("\n\n") {
        start -= 1;
    } else if start == 0 && existing[end..].starts_with('\n') {
        // First in the file: the blank line after it went in with the next block.
        end += 1;
    }
    Ok(Some(format!("{}{}", &existing[..start], &existing[end..])))
}

/// Whether `text` holds `agent`'s block with exactly `body`.
pub fn holds(text: &str, style: Comment, agent: &str, body: &str) -> bool {
    let (begin, end) = markers(style, agent);
    text.contains(&format!("{begin}\n{body}{end}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Comment = Comment::Html;

    fn p() -> &'static Path {
        Path::new("AGENTS.md")
    }

    #[test]
    fn first_install_appends_later_ones_replace_and_removal_inverts() {
        let block = |a: &str, t: &str| format!("{}\n{t}{}", begin_marker(a), end_marker(a));
        assert_eq!(
            splice("", H, "codex", "v1\n", p()).unwrap(),
            block("codex", "v1\n") + "\n"
        );
        for user in [
            "# Rules\n\nBe nice.\n",
            "# Rules\n\nBe nice.\n\n\n",
            "no newline",
        ] {
            let once = splice(user, H, "codex", "v1\n", p()).unwrap();
            let both = splice(&once, H, "opencode", "o1\n", p()).unwrap();
            assert!(both.contains(&block("codex", "v1\n")), "{both}");
            assert!(both.contains(&block("opencode", "o1\n")), "{both}");
            let updated = splice(&both, H, "codex", "v2\n", p()).unwrap();
            assert!(
                updated.contains(&block("opencode", "o1\n")),
                "the other block kept"
            );
            assert_eq!(splice(&updated, H, "codex", "v2\n", p()).unwrap(), updated);
            assert!(holds(&updated, H, "codex", "v2\n"));
            assert!(!holds(&updated, H, "codex", "v1\n"));
            let without_codex = remove(&updated, H, "codex", p()).unwrap().unwrap();
            let without_both = remove(&without_codex, H, "opencode", p()).unwrap().unwrap();
            if user.ends_with('\n') {
                assert_eq!(without_both, user, "removal inverts insertion");
            }
            assert_eq!(remove(&without_both, H, "codex", p()).unwrap(), None);
        }
    }

    #[test]
    fn a_legacy_block_belongs_to_the_agent_it_names() {
        let legacy = format!("intro\n\n{LEGACY_BEGIN}\nrun brief --agent opencode\n{LEGACY_END}\n");
        let codex = splice(&legacy, H, "codex", "c\n", p()).unwrap();
        assert!(
            codex.contains(LEGACY_BEGIN),
            "opencode's legacy block is not codex's"
        );
        let opencode = splice(&codex, H, "opencode", "o\n", p()).unwrap();
        assert!(!opencode.contains(LEGACY_BEGIN), "{opencode}");
        assert!(holds(&opencode, H, "opencode", "o\n") && holds(&opencode, H, "codex", "c\n"));
    }

    #[test]
    fn half_a_block_is_refused() {
        for text in [
            format!("a\n{}\nb\n", begin_marker("codex")),
            format!("a\n{}\nb\n", end_marker("codex")),
            format!("a\n{LEGACY_BEGIN}\nb\n"),
        ] {
            let err = splice(&text, H, "codex", "x\n", p())
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("AGENTS.md") && err.contains("untouched"),
                "{err}"
            );
        }
    }
}
