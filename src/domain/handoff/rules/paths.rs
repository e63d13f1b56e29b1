//! Stale references: project files the handoff names that do not exist. A
//! token counts as a path when it has a `/` and a file extension
//! (`src/lib.rs`, `./scripts/x.sh`, `/abs/file.py:45`). Only paths inside the
//! workspace are checked: relative ones, and absolute ones under the project
//! root (a handoff may name `/etc/promtail/config.yml` or `/Users/me/x.md`
//! on purpose). Home paths (`~/`), domains (`github.com/a/b.git`), code
//! blocks and traceback lines (they quote foreign paths), and lines that say
//! the file was deleted, removed, renamed or moved are left alone.

use std::collections::HashSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::{Finding, STALE_PATH};
use crate::base::patterns::pattern;
use crate::domain::handoff::context::LintContext;
use crate::domain::handoff::document::HandoffDocument;

static PATH_SHAPE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(r"^(?:\.{1,2}/|/)?(?:[\w.@+-]+/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}$")
});
static LINE_SUFFIX: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?::\d+){1,2}$"));
/// A line of a stack trace: Python's `File "x.py", line 3`, Java's and
/// JavaScript's `at f (x.js:1:2)`, Rust's `at src/x.rs:1:2`.
static TRACEBACK: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"^\s*(?:File "[^"]+", line \d+|at\s+\S+|\d+:\s+0x[0-9a-f]+)"#));
static GONE_ON_PURPOSE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\b(?:delet|remov|renam|mov|drop)(?:e|ed|es|ing)?\b"));

pub(super) fn check(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    let Some(root) = &ctx.root else {
        return;
    };
    let mut seen = HashSet::new();
    for line in doc.lines.iter().filter(|l| !l.fenced) {
        if GONE_ON_PURPOSE.is_match(line.text) || TRACEBACK.is_match(line.text) {
            continue;
        }
        for path in line.text.split_whitespace().filter_map(path_token) {
            let Some(inside) = in_workspace(root, path) else {
                continue;
            };
            if seen.insert(path) && !exists(root, inside) {
                out.push(STALE_PATH.at(
                    Some(line.number),
                    format!(
                        "{path} does not exist in {}: update the reference, or say it was removed",
                        root.display()
                    ),
                ));
            }
        }
    }
}

/// The path in a whitespace-separated token, if it is one.
fn path_token(raw: &str) -> Option<&str> {
    let token = raw
        .trim_start_matches(|c: char| "`'\"([<{*".contains(c))
        .trim_end_matches(|c: char| "`'\"()[]<>{},;!?*.:".contains(c));
    let token = LINE_SUFFIX
        .find(token)
        .map_or(token, |m| &token[..m.start()]);
    let first = token.split('/').next().unwrap_or("");
    let is_domain = first.contains('.') && !first.starts_with('.');
    (PATH_SHAPE.is_match(token) && !is_domain).then_some(token)
}

/// The path relative to the project root, when it is inside the project:
/// relative paths are, absolute ones only under the root.
fn in_workspace<'a>(root: &Path, path: &'a str) -> Option<&'a str> {
    if !path.starts_with('/') {
        return Some(path);
    }
    let relative = Path::new(path).strip_prefix(root).ok()?;
    let relative = relative.to_str()?;
    Some(&path[path.len() - relative.len()..])
}

fn exists(root: &Path, path: &str) -> bool {
    root.join(path).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_tokens() {
        for (raw, path) in [
            ("src/lib.rs", Some("src/lib.rs")),
            ("(`src/engine/plan.rs:45`).", Some("src/engine/plan.rs")),
            ("./scripts/soak-crash.sh,", Some("./scripts/soak-crash.sh")),
            ("/etc/hosts.conf:3:9", Some("/etc/hosts.conf")),
            (".github/workflows/ci.yml", Some(".github/workflows/ci.yml")),
            ("github.com/owner/repo.git", None),
            ("https://example.com/a.html", None),
            ("~/notes/x.md", None),
            ("30/90", None),
            ("and/or", None),
            ("charge/refund", None),
            ("Cargo.toml", None),
        ] {
            assert_eq!(path_token(raw), path, "{raw}");
        }
    }

    #[test]
    fn missing_paths_fire_once_existing_and_removed_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        let doc = HandoffDocument::parse(
            "see src/lib.rs and src/gone.rs\nagain src/gone.rs\ndeleted src/old.rs\n```\nat /rustc/x/src/ops.rs\n```\nconfig in /etc/promtail/config.yml and /Users/me/notes/x.md\n  File \"lib/missing.py\", line 3\n    at run (lib/missing.js:1:2)\n",
        );
        let ctx = LintContext {
            root: Some(dir.path().into()),
            ..LintContext::default()
        };
        let mut out = Vec::new();
        check(&doc, &ctx, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].line, Some(1));
        assert!(out[0].message.starts_with("src/gone.rs does not exist"));

        let mut out = Vec::new();
        check(&doc, &LintContext::default(), &mut out);
        assert!(out.is_empty(), "no root, no check");

        let inside = format!(
            "{}/src/lib.rs and {}/src/gone2.rs",
            dir.path().display(),
            dir.path().display()
        );
        let doc = HandoffDocument::parse(&inside);
        let mut out = Vec::new();
        check(&doc, &ctx, &mut out);
        assert_eq!(
            out.len(),
            1,
            "absolute paths inside the project are checked: {out:?}"
        );
        assert!(out[0].message.contains("gone2.rs"));
    }
}
