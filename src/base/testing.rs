//! What the unit tests share: running the real `git`.

use std::path::Path;

/// Run `git -C dir args`; the test fails, with git's words, unless it
/// succeeds. Its output, trimmed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
