//! What in a repository's setup would keep a publish from committing the
//! memory as it is, checked before anything is staged and refused with the
//! fix, since each would lose notes (or hide that none left) without a word:
//! an ignore rule over a memory file, which libgit2's `add_all` skips as
//! `git add` does; a sparse checkout leaving memory files out of the work
//! tree, so that a handover writes over versions it cannot see; the branch
//! checked out in another work tree too, each committing on it from its own
//! index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::{IndexEntryExtendedFlag, Repository, StatusOptions};

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
/// (`.md`, `.json`). A tracked file under a rule is no matter: git
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

/// Whether `path` (relative to the work tree, as the index names it) lies
/// in one of `specs` (`""`: anywhere).
pub fn in_scope(specs: &[String], path: &str) -> bool {
    specs.iter().any(|s| {
        s.is_empty()
            || path == s
            || path
                .strip_prefix(s.as_str())
                .is_some_and(|r| r.starts_with('/'))
    })
}

/// Refuse ([`GitError::SparseCheckout`], with `git sparse-checkout add`)
/// when a sparse checkout (`core.sparseCheckout`, or its patterns file in
/// the git folder) leaves files under `specs` out of the work tree: index
/// entries that skip the work tree. A handover would write a note or a
/// state where another's version is hidden, and the commit replace it. A
/// sparse index, which libgit2 cannot read, is [`GitError::SparseIndex`].
pub fn check_sparse(repo: &Repository, specs: &[String]) -> Result<(), GitError> {
    let sparse = repo
        .config()
        .ok()
        .and_then(|c| c.get_bool("core.sparseCheckout").ok())
        .unwrap_or(false)
        || repo.path().join("info/sparse-checkout").is_file();
    if !sparse {
        return Ok(());
    }
    let workdir = repo.workdir().unwrap_or(repo.path()).to_path_buf();
    let index = repo
        .index()
        .map_err(|e| match e.message().contains("'sdir'") {
            // A sparse index: folders left out are one entry each, an extension
            // libgit2 refuses to read.
            true => GitError::SparseIndex {
                dir: secrets::redact(specs.first().map_or("", String::as_str)).into_owned(),
            },
            false => GitError::from_git2(&e, repo.path(), &workdir),
        })?;
    let skipped: Vec<String> = index
        .iter()
        .filter(|e| IndexEntryExtendedFlag::from_bits_truncate(e.flags_extended).is_skip_worktree())
        .map(|e| String::from_utf8_lossy(&e.path).into_owned())
        .filter(|path| in_scope(specs, path))
        .collect();
    let Some(first) = skipped.first() else {
        return Ok(());
    };
    let dir = specs
        .iter()
        .find(|s| in_scope(std::slice::from_ref(s), first))
        .cloned()
        .unwrap_or_default();
    let written_over = skipped
        .iter()
        .filter(|path| std::fs::symlink_metadata(workdir.join(path)).is_ok())
        .count();
    Err(GitError::SparseCheckout {
        dir: secrets::redact(&dir).into_owned(),
        first: secrets::redact(first).into_owned(),
        more: skipped.len() - 1,
        written_over,
    })
}

/// Refuse ([`GitError::SharedBranch`], naming the other work tree) when
/// `branch` is checked out in another work tree of `repo` too (`git worktree
/// add -f`, or a HEAD edited by hand): each commits on it from its own index,
/// so the second handover's commit drops what the first added. A work tree
/// whose folder is gone (`git worktree prune` would remove it) commits
/// nothing and is no matter.
pub fn check_worktrees(repo: &Repository, branch: &str) -> Result<(), GitError> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let here = repo.workdir().map(real);
    let target = format!("refs/heads/{branch}");
    let on_branch = |r: &Repository| {
        r.find_reference("HEAD")
            .ok()
            .and_then(|h| h.symbolic_target().ok().flatten().map(str::to_string))
            .is_some_and(|t| t == target)
    };
    let mut trees: Vec<PathBuf> = Vec::new();
    if repo.is_worktree()
        && let Ok(main) = Repository::open(repo.commondir())
        && let Some(work) = main.workdir()
        && on_branch(&main)
    {
        trees.push(real(work));
    }
    let names = repo
        .worktrees()
        .map_err(|e| GitError::from_git2(&e, repo.path(), repo.workdir().unwrap_or(repo.path())))?;
    for name in names.iter().flatten().flatten() {
        let Ok(tree) = repo.find_worktree(name) else {
            continue;
        };
        if tree.validate().is_err() {
            continue;
        }
        if Repository::open_from_worktree(&tree).is_ok_and(|r| on_branch(&r)) {
            trees.push(real(tree.path()));
        }
    }
    match trees.into_iter().find(|t| Some(t) != here.as_ref()) {
        Some(other) => Err(GitError::SharedBranch {
            branch: secrets::redact(branch).into_owned(),
            other,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::testing::git;

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

    #[test]
    fn memory_a_sparse_checkout_leaves_out_is_refused_with_the_fix() {
        let (dir, _) = repo_with_memory();
        let root = dir.path();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        git(root, &["add", "."]);
        git(
            root,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "commit",
                "-qm",
                "i",
            ],
        );
        let specs = ["memory".to_string()];
        // Skipping the work tree by hand, with no sparse checkout: as before.
        git(
            root,
            &[
                "update-index",
                "--skip-worktree",
                "memory/layer1/2026-05/a-2026-05-01.md",
            ],
        );
        check_sparse(&Repository::open(root).unwrap(), &specs).unwrap();
        git(
            root,
            &[
                "update-index",
                "--no-skip-worktree",
                "memory/layer1/2026-05/a-2026-05-01.md",
            ],
        );
        git(root, &["sparse-checkout", "set", "src"]);
        assert!(!root.join("memory").exists());
        let repo = Repository::open(root).unwrap();
        check_sparse(&repo, &["src".to_string()]).unwrap();
        let err = check_sparse(&repo, &specs).unwrap_err();
        assert!(
            matches!(&err, GitError::SparseCheckout { dir, more: 0, written_over: 0, .. } if dir == "memory"),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("`git sparse-checkout add memory`"),
            "{err}"
        );
        git(root, &["sparse-checkout", "add", "memory"]);
        check_sparse(&Repository::open(root).unwrap(), &specs).unwrap();
        git(root, &["sparse-checkout", "set", "--sparse-index", "src"]);
        let err = check_sparse(&Repository::open(root).unwrap(), &specs).unwrap_err();
        assert_eq!(
            err,
            GitError::SparseIndex {
                dir: "memory".into()
            }
        );
        assert!(err.to_string().contains("--no-sparse-index"), "{err}");
    }

    #[test]
    fn a_branch_checked_out_in_another_work_tree_is_refused_from_either() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        git(
            &main,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "i",
            ],
        );
        let open = |p: &Path| Repository::open(p).unwrap();
        check_worktrees(&open(&main), "main").unwrap();
        let other = dir.path().join("other");
        git(
            &main,
            &[
                "worktree",
                "add",
                "-q",
                "-f",
                &other.to_string_lossy(),
                "main",
            ],
        );
        let real = |p: &Path| std::fs::canonicalize(p).unwrap();
        let err = check_worktrees(&open(&main), "main").unwrap_err();
        assert!(
            matches!(&err, GitError::SharedBranch { other: o, .. } if *o == real(&other)),
            "{err:?}"
        );
        assert!(err.to_string().contains("switch -c"), "{err}");
        let err = check_worktrees(&open(&other), "main").unwrap_err();
        assert!(
            matches!(&err, GitError::SharedBranch { other: o, .. } if *o == real(&main)),
            "{err:?}"
        );
        git(&other, &["switch", "-q", "-c", "own"]);
        check_worktrees(&open(&main), "main").unwrap();
        check_worktrees(&open(&other), "own").unwrap();
        // A work tree whose folder is gone commits nothing.
        git(
            &other,
            &["switch", "-q", "main", "--ignore-other-worktrees"],
        );
        assert!(check_worktrees(&open(&main), "main").is_err());
        std::fs::remove_dir_all(&other).unwrap();
        check_worktrees(&open(&main), "main").unwrap();
    }
}
