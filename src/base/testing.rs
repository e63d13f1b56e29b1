//! What the unit tests share: running the real `git`.

use std::path::Path;

/// Run `git -C dir args`; the test fails, with git's words, unless it succeeds.
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}
