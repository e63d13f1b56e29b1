//! Clean filters (`filter=<name>` in .gitattributes) on memory paths.
//!
//! libgit2 runs none of the filters a user configures (git-crypt, LFS, an
//! `openssl` clean command), so a memory file under one would be committed
//! as plain text. Every blob a handover commits is made here instead: as
//! is when no filter applies to its path, through the user's own git
//! (`git hash-object --path`, which runs the filter as `git add` does)
//! when one does, and refused, naming the filter, when the repository does
//! not set that filter up.

use std::path::Path;
use std::time::Duration;

use git2::{AttrCheckFlags, AttrValue, Repository};

use super::git_cli;
use super::git_error::GitError;

/// The most a clean filter may take on one file.
const FILTER_LIMIT: Duration = Duration::from_secs(60);

/// The clean filter `.gitattributes` asks for at `path` (relative to the
/// work tree, `/`-separated): its name, if any.
pub fn filter_of(repo: &Repository, path: &str) -> Option<String> {
    let value = repo
        .get_attr(Path::new(path), "filter", AttrCheckFlags::FILE_THEN_INDEX)
        .ok()
        .flatten()?;
    match AttrValue::from_string(Some(value)) {
        AttrValue::String(name) => Some(name.to_string()),
        _ => None,
    }
}

/// The blob git would store for `bytes` at `path` (relative to the work
/// tree `workdir`), written to `repo`'s object database: `bytes` as they
/// are when no clean filter applies, what the filter makes of them when
/// one does ([`git_cli::hash_object_filtered`]);
/// [`GitError::FilterMissing`] when the filter is not set up here.
pub fn blob_for(
    repo: &Repository,
    workdir: &Path,
    path: &str,
    bytes: &[u8],
) -> Result<git2::Oid, GitError> {
    let Some(filter) = filter_of(repo, path) else {
        return repo
            .blob(bytes)
            .map_err(|e| GitError::from_git2(&e, repo.path(), workdir));
    };
    let config = repo
        .config()
        .map_err(|e| GitError::from_git2(&e, repo.path(), workdir))?;
    let set_up = ["clean", "process"]
        .iter()
        .any(|key| config.get_string(&format!("filter.{filter}.{key}")).is_ok());
    if !set_up {
        return Err(GitError::FilterMissing {
            filter,
            path: path.to_string(),
        });
    }
    git_cli::hash_object_filtered(workdir, path, &filter, bytes, FILTER_LIMIT)
}

/// The text a work tree would hold for blob `id` at `path`: through the
/// path's smudge filter (`git cat-file --filters`), as a checkout writes it.
pub fn smudged(workdir: &Path, path: &str, id: git2::Oid) -> Result<Vec<u8>, GitError> {
    git_cli::cat_file_filtered(workdir, path, id, FILTER_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::testing::git;

    #[test]
    fn a_filtered_path_is_cleaned_by_its_filter_and_an_unset_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join(".gitattributes"), "memory/** filter=rot\n").unwrap();
        let repo = Repository::open(root).unwrap();
        let plain = blob_for(&repo, root, "notes/a.md", b"hello\n").unwrap();
        assert_eq!(repo.find_blob(plain).unwrap().content(), b"hello\n");
        let missing = blob_for(&repo, root, "memory/a.md", b"hello\n").unwrap_err();
        assert!(
            matches!(&missing, GitError::FilterMissing { filter, .. } if filter == "rot"),
            "{missing:?}"
        );
        assert!(
            missing.to_string().contains("filter.rot.clean"),
            "{missing}"
        );
        git(root, &["config", "filter.rot.clean", "tr a-z n-za-m"]);
        let cleaned = blob_for(&repo, root, "memory/a.md", b"hello\n").unwrap();
        assert_eq!(repo.find_blob(cleaned).unwrap().content(), b"uryyb\n");
        git(root, &["config", "filter.rot.clean", "false"]);
        let failed = blob_for(&repo, root, "memory/a.md", b"hello\n").unwrap_err();
        assert!(
            matches!(failed, GitError::FilterFailed { .. }),
            "{failed:?}"
        );
    }
}
