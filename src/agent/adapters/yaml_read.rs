//! A file added to the `read:` list of Aider's `.aider.conf.yml`, so every
//! Aider session loads it read-only (Aider's documented way to give it
//! conventions: `read: CONVENTIONS.md`).
//!
//! The YAML is edited as lines, not re-serialised, so the user's comments and
//! layout stay as they are:
//! * no `read:` key: a marked block with one is appended;
//! * `read:` followed by a block list: our item is inserted first, marked
//!   with a trailing `# agent-handover` comment;
//! * `read:` with an inline value (`read: X`, `read: [X, Y]`): refused with
//!   the line to add by hand, and the file is left untouched.

use std::path::Path;

use crate::base::error::{Error, Result};

/// Marks the line (or block) we add.
const MARK: &str = "# agent-handover";
const BEGIN: &str = "# agent-handover:begin aider";
const END: &str = "# agent-handover:end aider";

/// The config text with `file` in its `read:` list.
pub fn add(existing: &str, file: &str, path: &Path) -> Result<String> {
    if lists(existing, file) {
        return Ok(existing.to_string());
    }
    let lines: Vec<&str> = existing.split_inclusive('\n').collect();
    let Some(at) = lines.iter().position(|l| is_read_key(l)) else {
        let block = format!("{BEGIN}\nread:\n  - {file}\n{END}\n");
        return Ok(match existing {
            "" => block,
            t if t.ends_with('\n') => format!("{t}{block}"),
            t => format!("{t}\n{block}"),
        });
    };
    let value = lines[at].trim_end().trim_start_matches("read:").trim();
    if !value.is_empty() && !value.starts_with('#') {
        return Err(Error::Corrupt {
            path: path.into(),
            detail: format!(
                "its `read:` has an inline value ({value}), which agent-handover does not rewrite"
            ),
            fix: format!(
                "make `read:` a list and add `  - {file}` to it by hand (or add it to the inline list); agent-handover left the file untouched"
            ),
        });
    }
    let mut out: String = lines[..=at].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("  - {file}  {MARK}\n"));
    out.push_str(&lines[at + 1..].concat());
    Ok(out)
}

/// The config text without what [`add`] put in (`None`: nothing of ours).
pub fn remove(existing: &str) -> Option<String> {
    if let Some(b) = existing.find(BEGIN)
        && let Some(e) = existing[b..].find(END).map(|e| b + e + END.len())
    {
        let end = if existing[e..].starts_with('\n') {
            e + 1
        } else {
            e
        };
        return Some(format!("{}{}", &existing[..b], &existing[end..]));
    }
    let kept: Vec<&str> = existing
        .split_inclusive('\n')
        .filter(|l| !(l.trim_start().starts_with("- ") && l.trim_end().ends_with(MARK)))
        .collect();
    let out = kept.concat();
    (out != existing).then_some(out)
}

/// Whether the config's `read:` list names `file` (our line or the user's).
pub fn lists(existing: &str, file: &str) -> bool {
    let mut in_read = false;
    for line in existing.lines() {
        if is_read_key(line) {
            in_read = true;
            let inline = line.trim_start_matches("read:");
            if inline.contains(file) {
                return true;
            }
            continue;
        }
        if in_read {
            let item = line.trim_start();
            if let Some(value) = item.strip_prefix("- ") {
                let value = value
                    .split(" #")
                    .next()
                    .unwrap_or("")
                    .trim()
                    .trim_matches(['"', '\'']);
                if value == file {
                    return true;
                }
            } else if !item.is_empty() && !item.starts_with('#') {
                in_read = false;
            }
        }
    }
    false
}

fn is_read_key(line: &str) -> bool {
    line.starts_with("read:")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new(".aider.conf.yml")
    }

    #[test]
    fn adds_a_block_or_an_item_and_removes_exactly_that() {
        for user in [
            "",
            "model: sonnet\n",
            "model: sonnet",
            "# mine\nread:\n  - NOTES.md\nauto-commits: false\n",
        ] {
            let added = add(user, "CONVENTIONS.md", p()).unwrap();
            assert!(lists(&added, "CONVENTIONS.md"), "{added}");
            assert_eq!(
                add(&added, "CONVENTIONS.md", p()).unwrap(),
                added,
                "idempotent"
            );
            let back = remove(&added).unwrap();
            if user.ends_with('\n') || user.is_empty() {
                assert_eq!(back, user);
            }
            if user.contains("NOTES.md") {
                assert!(lists(&added, "NOTES.md"), "the user's item kept: {added}");
            }
        }
        assert_eq!(
            remove("read:\n  - CONVENTIONS.md\n"),
            None,
            "the user's own line is not ours"
        );
        assert_eq!(
            add("read:\n  - CONVENTIONS.md\n", "CONVENTIONS.md", p()).unwrap(),
            "read:\n  - CONVENTIONS.md\n"
        );
    }

    #[test]
    fn an_inline_read_value_is_refused() {
        let err = add("read: [A.md, B.md]\n", "CONVENTIONS.md", p())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(".aider.conf.yml") && err.contains("untouched"),
            "{err}"
        );
    }
}
