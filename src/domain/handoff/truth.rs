//! What only the project can show about a handoff: the commits of the
//! session it describes and those made after it, by the commit graph (from
//! the `HEAD`s the handovers covered), the repository's branches, and which
//! commit ids it names that the repository does not have. Gathered once
//! ([`gather`]) into the [`super::LintContext`], so the truth rules
//! (`rules/truth.rs`) stay pure; [`Truth::NotRun`] says why they were not
//! run, and the report says so.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use git2::{Oid, Repository, Sort};
use regex::Regex;
use serde::Serialize;

use crate::base::patterns::pattern;

/// Most commits read of a session, or after a handoff.
pub const MAX_COMMITS: usize = 30;
/// Most changed paths kept of one commit.
pub const MAX_PATHS: usize = 50;

/// A word that may be a commit id: 7 to 40 hex digits.
static COMMIT_ID: LazyLock<Regex> = LazyLock::new(|| pattern(r"\b[0-9a-f]{7,40}\b"));
/// A line that speaks of commits (a short hex word elsewhere may be a trace
/// id, a checksum or a container's).
static ABOUT_COMMITS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:commit|sha|rev(?:ision)?|cherry-?pick|revert|rebase|HEAD|git (?:log|show|checkout|reset))",
    )
});

/// Whether the truth checks ran, with what they read, or why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "ran", rename_all = "snake_case")]
pub enum Truth {
    /// Not run; the reason says why.
    NotRun {
        /// Why, in words.
        why: NotRun,
    },
    /// Run against the project.
    Checked(ProjectTruth),
}

impl Default for Truth {
    fn default() -> Self {
        Truth::NotRun {
            why: NotRun::NoProject,
        }
    }
}

/// Why the truth checks did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotRun {
    /// No project holds the handoff (or it was linted from text alone).
    NoProject,
    /// The project is not a git repository, or it has no commit.
    NoRepository,
    /// Not asked for: [`super::LintContext::for_workspace`] gathers no
    /// commits (`crate::engine::lint_context` does).
    NotGathered,
}

impl NotRun {
    /// In words, for the report.
    pub fn describe(self) -> &'static str {
        match self {
            NotRun::NoProject => {
                "no project holds this handoff, so nothing was checked against commits and files (lint it inside its project, or with --root DIR)"
            }
            NotRun::NoRepository => {
                "the project is not a git repository with commits, so the session's work and what came after were not checked"
            }
            NotRun::NotGathered => "the project's commits were not gathered for this score",
        }
    }
}

/// One commit and the paths it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TouchedCommit {
    /// Abbreviated id (10 hex digits).
    pub id: String,
    /// First line of its message.
    pub summary: String,
    /// Paths it changed against its first parent, relative to the
    /// repository, `/`-separated (at most [`MAX_PATHS`]).
    pub paths: Vec<String>,
}

/// What the project shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProjectTruth {
    /// Commits `HEAD` has that the last handover's `HEAD` had not, newest
    /// first: after the current state, or the session of a handoff being
    /// written now. `None`: no handover recorded the `HEAD` it covered.
    pub since_last: Option<Vec<TouchedCommit>>,
    /// The last handover's own session: commits its `HEAD` had that the
    /// handover before it had not. `None`: fewer than two handovers
    /// recorded their `HEAD`.
    pub last_session: Option<Vec<TouchedCommit>>,
    /// `since_last` was cut at [`MAX_COMMITS`].
    pub since_last_cut: bool,
    /// `last_session` was cut at [`MAX_COMMITS`].
    pub last_session_cut: bool,
    /// Local and remote-tracking branch names (`feature/x`, `origin/feature/x`).
    pub branches: BTreeSet<String>,
    /// Commit ids the text names that the repository does not have (none
    /// looked for in a shallow clone, which lacks old commits).
    pub missing_commits: Vec<String>,
}

/// Read the project at `root` for the handoff `text`: `covered` are the
/// `HEAD`s the newest handovers covered, newest first; a commit that
/// changed only `excluded` paths (the memory, agent-handover's own state)
/// is no work. Best effort: what cannot be read is left out.
pub fn gather(root: &Path, covered: &[String], text: &str, excluded: &[String]) -> Truth {
    let Ok(repo) = Repository::discover(root) else {
        return Truth::NotRun {
            why: NotRun::NoRepository,
        };
    };
    let Some(head) = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .map(|c| c.id())
    else {
        return Truth::NotRun {
            why: NotRun::NoRepository,
        };
    };
    let oid = |i: usize| covered.get(i).and_then(|h| Oid::from_str(h).ok());
    let range = |from: Oid, hide: Oid| commits_between(&repo, from, Some(hide), excluded);
    let (since_last, since_last_cut) = match oid(0) {
        Some(last) => {
            let (commits, cut) = range(head, last);
            (Some(commits), cut)
        }
        None => (None, false),
    };
    let (last_session, last_session_cut) = match (oid(0), oid(1)) {
        (Some(last), Some(before)) => {
            let (commits, cut) = range(last, before);
            (Some(commits), cut)
        }
        _ => (None, false),
    };
    let branches = repo
        .branches(None)
        .map(|all| {
            all.flatten()
                .filter_map(|(b, _)| b.name().ok().flatten().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let missing_commits = if repo.is_shallow() {
        Vec::new()
    } else {
        named_commit_ids(text)
            .into_iter()
            .filter(|id| !names_a_commit(&repo, id))
            .collect()
    };
    Truth::Checked(ProjectTruth {
        since_last,
        last_session,
        since_last_cut,
        last_session_cut,
        branches,
        missing_commits,
    })
}

/// The commits reachable from `from` and not from `hide`, newest first
/// (at most [`MAX_COMMITS`]; the flag says it was cut), without those that
/// changed only `excluded` paths.
fn commits_between(
    repo: &Repository,
    from: Oid,
    hide: Option<Oid>,
    excluded: &[String],
) -> (Vec<TouchedCommit>, bool) {
    let Ok(mut walk) = repo.revwalk() else {
        return (Vec::new(), false);
    };
    if walk.push(from).is_err() || walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME).is_err() {
        return (Vec::new(), false);
    }
    if let Some(hide) = hide
        && walk.hide(hide).is_err()
    {
        // What the handover covered is gone (rewritten): nothing can be told.
        return (Vec::new(), false);
    }
    let hidden_time = hide
        .and_then(|h| repo.find_commit(h).ok())
        .map(|c| c.committer().when().seconds());
    let mut out = Vec::new();
    for oid in walk.flatten() {
        if out.len() == MAX_COMMITS {
            return (out, true);
        }
        let Ok(commit) = repo.find_commit(oid) else {
            continue;
        };
        // A merge brings others' work; so does a pull of commits made
        // before the handover's `HEAD`.
        if commit.parent_count() > 1
            || hidden_time.is_some_and(|t| commit.committer().when().seconds() < t)
        {
            continue;
        }
        let paths = changed_paths(repo, &commit);
        let work = paths
            .iter()
            .any(|p| !excluded.iter().any(|e| p.starts_with(e.as_str())));
        if !work && !paths.is_empty() {
            continue;
        }
        let id = oid.to_string();
        out.push(TouchedCommit {
            id: id[..10].to_string(),
            // Quoted in findings, cut: redacted whole first.
            summary: crate::base::secrets::redact(commit.summary().ok().flatten().unwrap_or(""))
                .into_owned(),
            paths,
        });
    }
    (out, false)
}

/// The paths `commit` changed against its first parent (all of its tree
/// for a first commit), at most [`MAX_PATHS`].
fn changed_paths(repo: &Repository, commit: &git2::Commit<'_>) -> Vec<String> {
    let Ok(tree) = commit.tree() else {
        return Vec::new();
    };
    let parent = commit.parent(0).ok().and_then(|p| p.tree().ok());
    let Ok(diff) = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), None) else {
        return Vec::new();
    };
    diff.deltas()
        .filter_map(|d| d.new_file().path().or_else(|| d.old_file().path()))
        .filter_map(|p| p.to_str().map(str::to_string))
        .take(MAX_PATHS)
        .collect()
}

/// The words of `text` that look like commit ids: 7-40 lowercase hex
/// digits standing alone (not part of a path, a URL, a `#colour` or a
/// UUID), with a digit and a letter among them (a number or a word of a-f
/// alone is not one), on a line that speaks of commits (or the full 40),
/// once each.
pub fn named_commit_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for line in text.lines() {
        let about = ABOUT_COMMITS.is_match(line);
        for m in COMMIT_ID.find_iter(line) {
            let id = m.as_str();
            let before = line[..m.start()].chars().next_back();
            let after = line[m.end()..].chars().next();
            let inside = |c: Option<char>, set: &str| c.is_some_and(|c| set.contains(c));
            if inside(before, "./#-_") || inside(after, "/-_") || !(about || id.len() == 40) {
                continue;
            }
            let digit = id.chars().any(|c| c.is_ascii_digit());
            let letter = id.chars().any(|c| c.is_ascii_alphabetic());
            if digit && letter && !ids.iter().any(|i| i == id) {
                ids.push(id.to_string());
            }
        }
    }
    ids
}

/// Whether `id` names a commit of `repo` (an ambiguous prefix names one).
fn names_a_commit(repo: &Repository, id: &str) -> bool {
    match repo.revparse_single(id) {
        Ok(object) => object.peel_to_commit().is_ok(),
        Err(e) => e.code() == git2::ErrorCode::Ambiguous,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::testing::git;

    #[test]
    fn commit_ids_are_hex_words_with_a_digit_and_a_letter() {
        let text = "Fixed in commit `a1b2c3d` and b2c3d4e5f6, then 0123456789abcdef0123456789abcdef01234567.\n\
                    Commits, not: deadbeef (no digit), 12345678 (no letter), a1b2c3 (six), \
                    550e8400-e29b-41d4 (a UUID), https://x.io/a1b2c3d4e, src/9f8e7d6c.rs, #a1b2c3d4\n\
                    trace id 3f2a9c1d8e (nothing of version control on its line)";
        assert_eq!(
            named_commit_ids(text),
            [
                "a1b2c3d",
                "b2c3d4e5f6",
                "0123456789abcdef0123456789abcdef01234567"
            ]
        );
    }

    #[test]
    fn the_sessions_are_read_from_the_graph_and_memory_only_commits_are_no_work() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        let commit = |rel: &str, message: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, message).unwrap();
            git(root, &["add", rel]);
            git(
                root,
                &[
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@example.com",
                    "commit",
                    "-qm",
                    message,
                ],
            );
            git(root, &["rev-parse", "HEAD"])
        };
        let first = commit("README.md", "start");
        commit("src/auth/token.rs", "auth: refresh tokens");
        let second = commit("memory/layer2/current-state.md", "handover: t session");
        let later = commit("src/lexer.rs", "lexer: fix the escape form");
        let text = format!(
            "Done in commit `{}`; see deadbee0 and `a1b2c3d4e5`.",
            &later[..7]
        );
        let Truth::Checked(truth) = gather(
            root,
            &[second.clone(), first.clone()],
            &text,
            &["memory/".to_string()],
        ) else {
            panic!("ran");
        };
        let summaries = |c: &Option<Vec<TouchedCommit>>| -> Vec<String> {
            c.as_ref()
                .unwrap()
                .iter()
                .map(|c| c.summary.clone())
                .collect()
        };
        assert_eq!(summaries(&truth.since_last), ["lexer: fix the escape form"]);
        assert_eq!(
            summaries(&truth.last_session),
            ["auth: refresh tokens"],
            "the memory-only commit is no work"
        );
        assert_eq!(truth.last_session.unwrap()[0].paths, ["src/auth/token.rs"]);
        assert!(truth.branches.contains("main"), "{:?}", truth.branches);
        assert_eq!(truth.missing_commits, ["deadbee0", "a1b2c3d4e5"]);
        // One handover recorded: its session cannot be told.
        let Truth::Checked(one) = gather(root, &[second], "", &[]) else {
            panic!("ran");
        };
        assert!(one.last_session.is_none() && one.since_last.is_some());
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(
            gather(outside.path(), &[], "", &[]),
            Truth::NotRun {
                why: NotRun::NoRepository
            }
        );
    }
}
