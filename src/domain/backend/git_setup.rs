//! What in a repository's setup would keep a publish from committing the
//! memory as it is, checked before anything is staged and refused with the
//! fix, since each would lose notes (or hide that none left) without a word:
//! an ignore rule over a memory file, which libgit2's `add_all` skips as
//! `git add` does.

use std::time::Duration;

use git2::{Repository, StatusOptions};

use super::git_cli;
use super::git_error::GitError;
use crate::base::secrets;

/// The most `git check-ignore` may take to name a rule.
const RULE_LIMIT: Duration = Duration::from_secs(10);

/// How the memory's own files are named: its notes, states, archives, index
/// and facts, messages (`.md`), read marks and task files (`.json`). An
/// ignored file named otherwise (an editor's backup `current-state.md~`, a
/// Finder `.DS_Store`, a merge tool's `.orig`) is litter the ignore rule is
/// right to keep out.
const MEMORY_FILE_ENDINGS: [&str; 2] = [".md", ".json"];

/// Refuse ([`GitError::Ignored`], naming the first file and its rule) when
/// an ignore rule keeps out of git a file under `specs` (paths relative to
/// the work tree; `""`, the whole work tree, is never checked: what it
/// ignores, it means to) that the publish would send: any file of a
/// configured path that is ignored as a whole, and every memory file
/// ([`MEMORY_FILE_ENDINGS`]). A tracked file under a rule is no matter: git
/// tracks it, and the publish commits it.
pub fn check_ignored(repo: &Repository, specs: &[String]) -> Result<(), GitError> {
    let specs: Vec<&str> = specs
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    if specs.is_empty() {
        return Ok(());
    }
    let workdir = repo.workdir().unwrap_or(repo.path()).to_path_buf();
    let git = |e: git2::Error| GitError::from_git2(&e, repo.path(), &workdir);
    let mut opts = StatusOptions::new();
    opts.include_ignored(true)
        .recurse_ignored_dirs(true)
        .include_untracked(true)
        .recurse_untracked_dirs(true)
        .exclude_submodules(true);
    for spec in &specs {
        opts.pathspec(spec);
    }
    let whole: Vec<&str> = specs
        .iter()
        .copied()
        .filter(|s| repo.is_path_ignored(s).unwrap_or(false))
        .collect();
    let under = |path: &str, spec: &str| {
        path == spec
            || path
                .strip_prefix(spec)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let statuses = repo.statuses(Some(&mut opts)).map_err(git)?;
    let kept_out: Vec<String> = statuses
        .iter()
        .filter(|e| e.status().is_ignored())
        .map(|e| String::from_utf8_lossy(e.path_bytes()).into_owned())
        .filter(|path| specs.iter().any(|s| under(path, s)))
        .filter(|path| {
            whole.iter().any(|s| under(path, s))
                || MEMORY_FILE_ENDINGS.iter().any(|end| path.ends_with(end))
        })
        .collect();
    let Some(first) = kept_out.first() else {
        return Ok(());
    };
    Err(GitError::Ignored {
        path: secrets::redact(first).into_owned(),
        rule: git_cli::ignore_rule(&workdir, first, RULE_LIMIT)
            .map(|rule| secrets::redact(&rule).into_owned()),
        more: kept_out.len() - 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn repo_with_memory() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let note = dir.path().join("memory/layer1/2026-05/a-2026-05-01.md");
        std::fs::create_dir_all(note.parent().unwrap()).unwrap();
        std::fs::write(&note, "note").unwrap();
        (dir, repo)
    }

    #[test]
    fn an_ignored_memory_file_is_named_with_its_rule() {
        let (dir, repo) = repo_with_memory();
        let specs = ["memory".to_string()];
        check_ignored(&repo, &specs).unwrap();
        std::fs::write(dir.path().join(".gitignore"), "# notes\nlayer1/\n").unwrap();
        let err = check_ignored(&repo, &specs).unwrap_err();
        let GitError::Ignored { path, rule, more } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(path, "memory/layer1/2026-05/a-2026-05-01.md");
        assert_eq!(rule.as_deref(), Some(".gitignore:2:layer1/"));
        assert_eq!(*more, 0);
        let shown = err.to_string();
        assert!(
            shown.contains("nothing was committed") && shown.contains("type = \"null\""),
            "{shown}"
        );
        assert!(
            check_ignored(&repo, &[String::new()]).is_ok(),
            "the whole work tree means what it ignores"
        );
    }

    #[test]
    fn tracked_files_and_litter_under_a_rule_are_no_matter() {
        let (dir, repo) = repo_with_memory();
        let mut index = repo.index().unwrap();
        index
            .add_path(Path::new("memory/layer1/2026-05/a-2026-05-01.md"))
            .unwrap();
        index.write().unwrap();
        std::fs::write(dir.path().join("memory/notes.md~"), "backup").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "*.md\n*~\n").unwrap();
        let specs = ["memory".to_string()];
        check_ignored(&repo, &specs).unwrap();
        // A configured path ignored as a whole: every file of it counts.
        std::fs::write(dir.path().join(".gitignore"), "/memory/\n").unwrap();
        let err = check_ignored(&repo, &specs).unwrap_err();
        assert!(
            matches!(&err, GitError::Ignored { path, .. } if path == "memory/notes.md~"),
            "{err:?}"
        );
    }
}
