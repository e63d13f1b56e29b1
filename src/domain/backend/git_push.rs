//! Where a publish pushes when the config leaves it to git (no `[backend]
//! type`, and `remote` or `branch` unset): where `git push`, with no
//! arguments, would push the branch. The remote: `branch.<b>.pushRemote`,
//! then `remote.pushDefault`, then `branch.<b>.remote`, else `origin`. The
//! ref there: a `remote.<r>.push` refspec that maps the branch (Gerrit's
//! `refs/heads/main:refs/for/main`), else by `push.default` (`upstream` or
//! `tracking`: the upstream, `branch.<b>.merge`; `simple`, git's default, and
//! `current`: the same name, refused as git refuses it when the upstream on
//! that remote has another name; `nothing`: refused). A push git would not
//! make is refused with its reason ([`NoPush`]), never made somewhere else.

use git2::Config;

use super::git_error::NoPush;

/// Where a publish pushes: a remote, and the ref it updates there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushTarget {
    /// The remote.
    pub remote: String,
    /// The ref updated there (full name: `refs/heads/main`, `refs/for/main`).
    pub dest: String,
}

impl PushTarget {
    /// The branch it updates on the remote, if it is one.
    pub fn branch(&self) -> Option<&str> {
        self.dest.strip_prefix("refs/heads/")
    }

    /// The destination after the remote's name: a branch's name, or the
    /// full ref when it is no branch.
    pub fn to(&self) -> &str {
        self.branch().unwrap_or(&self.dest)
    }

    /// As a summary names it: `origin/main`, or `origin/refs/for/main`.
    pub fn shown(&self) -> String {
        format!("{}/{}", self.remote, self.to())
    }
}

/// The upstream `branch` is set to track: its remote and the ref there
/// (`branch.<b>.remote`, `branch.<b>.merge`).
fn upstream(config: &Config, branch: &str) -> Option<(String, String)> {
    let remote = config.get_string(&format!("branch.{branch}.remote")).ok()?;
    let merge = config.get_string(&format!("branch.{branch}.merge")).ok()?;
    Some((remote, merge))
}

/// The remote `git push` would push `branch` to: `branch.<b>.pushRemote`,
/// then `remote.pushDefault`, then `branch.<b>.remote`, else `origin`.
pub fn push_remote(config: &Config, branch: &str) -> String {
    [
        format!("branch.{branch}.pushRemote"),
        "remote.pushDefault".to_string(),
        format!("branch.{branch}.remote"),
    ]
    .iter()
    .find_map(|key| config.get_string(key).ok().filter(|r| !r.is_empty()))
    .unwrap_or_else(|| "origin".to_string())
}

/// The ref `git push <remote>` (no refspec) would update for `branch`, or
/// why it would push nothing of it (see the module docs).
pub fn destination(config: &Config, branch: &str, remote: &str) -> Result<String, NoPush> {
    let local = format!("refs/heads/{branch}");
    let mut refspecs = Vec::new();
    if let Ok(mut entries) = config.multivar(&format!("remote.{remote}.push"), None) {
        while let Some(Ok(entry)) = entries.next() {
            if let Ok(value) = entry.value() {
                refspecs.push(value.to_string());
            }
        }
    }
    if !refspecs.is_empty() {
        let excluded = refspecs
            .iter()
            .filter_map(|r| r.strip_prefix('^'))
            .any(|negative| matches(negative, &local).is_some());
        return refspecs
            .iter()
            .filter(|_| !excluded)
            .find_map(|r| mapped(r, &local))
            .ok_or(NoPush::NotInRefspecs);
    }
    let upstream = upstream(config, branch);
    let mode = config.get_string("push.default").ok();
    match mode.as_deref().unwrap_or("simple") {
        "nothing" => Err(NoPush::Nothing),
        "upstream" | "tracking" => match upstream {
            Some((r, merge)) if r == remote => Ok(merge),
            other => Err(NoPush::NotUpstream {
                upstream_remote: other.map(|(r, _)| r),
            }),
        },
        // `current`, `matching` (for this branch), `simple` and unset: the
        // same name; `simple` refuses an upstream of another name on the
        // remote it pulls from.
        mode => match upstream {
            Some((r, merge)) if mode != "current" && r == remote && merge != local => {
                Err(NoPush::OtherName { upstream: merge })
            }
            _ => Ok(local),
        },
    }
}

/// A ref name as git reads one in a push refspec: full, or a branch's.
fn full(name: &str) -> String {
    if name.starts_with("refs/") {
        name.to_string()
    } else {
        format!("refs/heads/{name}")
    }
}

/// What of `local` the refspec's source `src` matches: `Some("")` for a
/// plain match, the part a `*` stands for in a pattern.
fn matches(src: &str, local: &str) -> Option<String> {
    if matches!(src, "HEAD" | "@") {
        return Some(String::new());
    }
    let src = full(src);
    match src.split_once('*') {
        Some((before, after)) => local
            .strip_prefix(before)?
            .strip_suffix(after)
            .map(str::to_string),
        None => (src == local).then(String::new),
    }
}

/// Where the push refspec `spec` sends `local`, if it maps it.
fn mapped(spec: &str, local: &str) -> Option<String> {
    let spec = spec.strip_prefix('+').unwrap_or(spec);
    if spec.starts_with('^') {
        return None;
    }
    let (src, dst) = spec.split_once(':').unwrap_or((spec, spec));
    if src.is_empty() {
        // `:`: the matching branches, this one under its own name.
        return dst.is_empty().then(|| local.to_string());
    }
    let star = matches(src, local)?;
    if matches!(dst, "HEAD" | "@" | "") {
        return Some(local.to_string());
    }
    Some(full(dst).replacen('*', &star, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(lines: &[(&str, &str)]) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(&path, "").unwrap();
        let mut config = Config::open(&path).unwrap();
        for (key, value) in lines {
            config.set_multivar(key, "^$", value).unwrap();
        }
        (dir, config)
    }

    const TRACKING: [(&str, &str); 2] = [
        ("branch.main.remote", "origin"),
        ("branch.main.merge", "refs/heads/main"),
    ];

    #[test]
    fn the_remote_is_the_one_git_push_would_use() {
        let (_d, c) = config(&[]);
        assert_eq!(push_remote(&c, "main"), "origin");
        let (_d, c) = config(&[("branch.main.remote", "up")]);
        assert_eq!(push_remote(&c, "main"), "up");
        let (_d, c) = config(&[("branch.main.remote", "up"), ("remote.pushDefault", "fork")]);
        assert_eq!(push_remote(&c, "main"), "fork");
        let (_d, c) = config(&[
            ("branch.main.remote", "up"),
            ("remote.pushDefault", "fork"),
            ("branch.main.pushRemote", "mine"),
        ]);
        assert_eq!(push_remote(&c, "main"), "mine");
    }

    #[test]
    fn the_ref_follows_push_default() {
        let dest = |lines: &[(&str, &str)], branch: &str, remote: &str| {
            let (_d, c) = config(lines);
            destination(&c, branch, remote)
        };
        assert_eq!(
            dest(&TRACKING, "main", "origin"),
            Ok("refs/heads/main".into())
        );
        let renamed = [
            ("branch.trunk.remote", "origin"),
            ("branch.trunk.merge", "refs/heads/main"),
        ];
        assert_eq!(
            dest(&renamed, "trunk", "origin"),
            Err(NoPush::OtherName {
                upstream: "refs/heads/main".into()
            }),
            "simple refuses an upstream of another name"
        );
        assert_eq!(
            dest(&renamed, "trunk", "fork"),
            Ok("refs/heads/trunk".into()),
            "to another remote than the upstream's, simple pushes the same name"
        );
        let upstream = [renamed[0], renamed[1], ("push.default", "upstream")];
        assert_eq!(
            dest(&upstream, "trunk", "origin"),
            Ok("refs/heads/main".into())
        );
        assert_eq!(
            dest(&upstream, "trunk", "fork"),
            Err(NoPush::NotUpstream {
                upstream_remote: Some("origin".into())
            })
        );
        let current = [renamed[0], renamed[1], ("push.default", "current")];
        assert_eq!(
            dest(&current, "trunk", "origin"),
            Ok("refs/heads/trunk".into())
        );
        assert_eq!(
            dest(&[("push.default", "nothing")], "main", "origin"),
            Err(NoPush::Nothing)
        );
        assert_eq!(
            dest(&[], "main", "origin"),
            Ok("refs/heads/main".into()),
            "no upstream: the same name"
        );
    }

    #[test]
    fn a_push_refspec_that_maps_the_branch_wins() {
        let dest = |specs: &[&str]| {
            let lines: Vec<(&str, &str)> = TRACKING
                .into_iter()
                .chain(specs.iter().map(|s| ("remote.origin.push", *s)))
                .collect();
            let (_d, c) = config(&lines);
            destination(&c, "main", "origin")
        };
        let for_main = Ok("refs/for/main".to_string());
        assert_eq!(dest(&["refs/heads/main:refs/for/main"]), for_main);
        assert_eq!(dest(&["HEAD:refs/for/main"]), for_main);
        assert_eq!(dest(&["+main:refs/for/main"]), for_main);
        assert_eq!(dest(&["refs/heads/*:refs/for/*"]), for_main);
        assert_eq!(
            dest(&["refs/heads/other:refs/for/other", "main:review"]),
            Ok("refs/heads/review".into())
        );
        assert_eq!(dest(&[":"]), Ok("refs/heads/main".into()));
        assert_eq!(dest(&["HEAD"]), Ok("refs/heads/main".into()));
        assert_eq!(
            dest(&["refs/heads/other:refs/heads/other"]),
            Err(NoPush::NotInRefspecs),
            "git pushes what the refspecs say, nothing of this branch"
        );
        assert_eq!(
            dest(&["refs/heads/*:refs/heads/*", "^refs/heads/main"]),
            Err(NoPush::NotInRefspecs)
        );
    }

    #[test]
    fn a_target_names_a_branch_by_its_name_and_any_other_ref_in_full() {
        let t = |dest: &str| PushTarget {
            remote: "origin".into(),
            dest: dest.into(),
        };
        assert_eq!(t("refs/heads/main").shown(), "origin/main");
        assert_eq!(t("refs/heads/main").branch(), Some("main"));
        assert_eq!(t("refs/for/main").shown(), "origin/refs/for/main");
        assert_eq!(t("refs/for/main").branch(), None);
    }
}
