//! The truth rules: the handoff held against its project
//! ([`crate::domain::handoff::truth`]), each finding with its evidence.
//!
//! - `work-not-covered`: the session's commits changed an area the handoff
//!   never mentions (by its name, a file of it, the commit's id or its
//!   words).
//! - `next-step-done-later`: a commit made after the handoff meets its next
//!   step, by the rule that judges a next step acted on
//!   ([`commit_meets_step`]): the handoff no longer says where things stand.
//! - `unknown-ref`: a commit id or a branch the handoff names that the
//!   repository does not have.
//! - `contradicts-previous`: something listed as not working that the
//!   previous handoff listed as done, with no word of it breaking again.
//!
//! Which session a handoff describes: the current state was written by the
//! last handover, so its session is that handover's and what came after is
//! "later"; any other text (a draft, a note being handed over) describes
//! the work since the last handover, and nothing is later yet.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::{CONTRADICTS_PREVIOUS, Finding, NEXT_STEP_DONE_LATER, UNKNOWN_REF, WORK_NOT_COVERED};
use crate::base::patterns::pattern;
use crate::domain::handoff::context::LintContext;
use crate::domain::handoff::document::{HandoffDocument, SectionKind};
use crate::domain::handoff::text::{content_words, gist, snippet};
use crate::domain::handoff::truth::{ProjectTruth, TouchedCommit, Truth};
use crate::domain::handoff::usefulness::{StepMatch, commit_meets_step};

/// A line about a branch that is to be made or is gone on purpose.
static BRANCH_ON_PURPOSE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b(?:creat|new\b|open|start|cut\b|will\b|delet|remov|renam|merged|drop|prun|squash)",
    )
});

/// Folders that hold a project's areas rather than name one.
const CONTAINERS: &[&str] = &[
    "src", "lib", "app", "apps", "pkg", "packages", "crates", "internal", "cmd", "source",
    "sources", "main", "java", "kotlin", "python", "js", "ts", "modules", ".github",
];
/// Most areas reported as not covered.
const MAX_AREAS: usize = 3;
/// Words that say a thing broke again (a regression is no contradiction).
const AGAIN: &[&str] = &["again", "regress", "reopened"];

pub(super) fn check(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    contradicts_previous(doc, ctx, out);
    let Truth::Checked(truth) = &ctx.truth else {
        return;
    };
    let current = ctx
        .previous
        .first()
        .is_some_and(|p| p.text.trim() == doc.text.trim());
    let (session, cut, later) = if current {
        (
            truth.last_session.as_deref(),
            truth.last_session_cut,
            truth.since_last.as_deref(),
        )
    } else {
        (truth.since_last.as_deref(), truth.since_last_cut, None)
    };
    if let Some(session) = session {
        work_not_covered(doc, session, cut, out);
    }
    if let Some(later) = later {
        next_step_done_later(doc, later, out);
    }
    unknown_refs(doc, truth, out);
}

/// The area a path belongs to: its first folder that is not a container
/// (`src/auth/token.rs`: `auth`), else its file's stem (`README.md`: `readme`).
fn area(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let (file, folders) = parts.split_last().unwrap_or((&"", &[]));
    folders
        .iter()
        .find(|f| !CONTAINERS.contains(&f.to_ascii_lowercase().as_str()))
        .map(|f| f.to_string())
        .unwrap_or_else(|| {
            let file = file.trim_start_matches('.');
            file.split('.').next().unwrap_or(file).to_string()
        })
        .to_lowercase()
}

/// Whether the handoff's words mention `name`: a word of it starts with it
/// (`auth` in "authentication"), for names of three letters or more.
fn mentions(words: &HashSet<String>, lower_text: &str, name: &str) -> bool {
    if name.chars().count() < 3 {
        // `ui`, `db`: as a word of their own.
        return words.contains(name);
    }
    lower_text.contains(name) || words.iter().any(|w| w.starts_with(name))
}

fn work_not_covered(
    doc: &HandoffDocument<'_>,
    session: &[TouchedCommit],
    truncated: bool,
    out: &mut Vec<Finding>,
) {
    let lower = doc.text.to_lowercase();
    let words: HashSet<String> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let said = content_words(doc.text);
    let covered = |c: &TouchedCommit| {
        lower.contains(&c.id[..7])
            || c.paths.iter().any(|p| {
                let file = p.rsplit('/').next().unwrap_or(p).to_lowercase();
                lower.contains(&file)
            })
            || content_words(&c.summary)
                .iter()
                .filter(|w| said.contains(*w))
                .count()
                >= 2
    };
    // The uncovered commits by area, in the order first met (newest first).
    let mut areas: BTreeMap<String, (usize, Vec<&TouchedCommit>)> = BTreeMap::new();
    for (n, commit) in session.iter().filter(|c| !covered(c)).enumerate() {
        let mut seen = HashSet::new();
        for path in &commit.paths {
            let name = area(path);
            if !name.is_empty() && seen.insert(name.clone()) {
                areas.entry(name).or_insert((n, Vec::new())).1.push(commit);
            }
        }
    }
    let mut missed: Vec<(String, usize, Vec<&TouchedCommit>)> = areas
        .into_iter()
        .filter(|(name, _)| !mentions(&words, &lower, name))
        .map(|(name, (first, commits))| (name, first, commits))
        .collect();
    missed.sort_by_key(|(_, first, commits)| (std::cmp::Reverse(commits.len()), *first));
    for (name, _, commits) in missed.into_iter().take(MAX_AREAS) {
        let more = if truncated { " or more" } else { "" };
        let shown: Vec<String> = commits
            .iter()
            .take(2)
            .map(|c| format!("{} \"{}\"", &c.id[..7], snippet(&c.summary, 50)))
            .collect();
        let n = commits.len();
        out.push(WORK_NOT_COVERED.at(
            None,
            format!(
                "{n}{more} commit{} of the session changed `{name}` ({}) and the handoff never mentions it: say what {} did, or why it does not matter",
                if n == 1 { "" } else { "s" },
                shown.join(", "),
                if n == 1 { "it" } else { "they" },
            ),
        ));
    }
}

fn next_step_done_later(
    doc: &HandoffDocument<'_>,
    later: &[TouchedCommit],
    out: &mut Vec<Finding>,
) {
    let Some(step) = doc.next_step() else {
        return;
    };
    // The oldest commit that meets it: the first to have done it.
    let Some((commit, how)) = later
        .iter()
        .rev()
        .find_map(|c| Some((c, commit_meets_step(&step.text, &c.summary, &c.paths)?)))
    else {
        return;
    };
    let evidence = match how {
        StepMatch::Words => "its message says what the step says".to_string(),
        StepMatch::File(path) => format!("it changed `{path}`, which the step names"),
    };
    out.push(NEXT_STEP_DONE_LATER.at(
        Some(step.line),
        format!(
            "the next step \"{}\" may be done: commit {} \"{}\" came after this handoff ({evidence}); check, and hand over where things stand now",
            snippet(&step.text, 60),
            &commit.id[..7],
            snippet(&commit.summary, 60)
        ),
    ));
}

fn unknown_refs(doc: &HandoffDocument<'_>, truth: &ProjectTruth, out: &mut Vec<Finding>) {
    for id in &truth.missing_commits {
        // Gathered for the text it was asked for: this one must name it.
        let Some(line) = doc
            .lines
            .iter()
            .find(|l| l.text.contains(id.as_str()))
            .map(|l| l.number)
        else {
            continue;
        };
        let line = Some(line);
        out.push(UNKNOWN_REF.at(
            line,
            format!(
                "commit {id} is not in this repository: fetch it, or correct the id (`git log --oneline` lists them)"
            ),
        ));
    }
    if truth.branches.is_empty() {
        return;
    }
    for line in doc.lines.iter() {
        if BRANCH_ON_PURPOSE.is_match(line.text) {
            continue;
        }
        for name in named_branches(line.text) {
            let known = truth
                .branches
                .iter()
                .any(|b| b == name || b.split_once('/').is_some_and(|(_, rest)| rest == name));
            if !known {
                out.push(UNKNOWN_REF.at(
                    Some(line.number),
                    format!(
                        "branch `{name}` is not in this repository (local or remote-tracking): renamed, merged and deleted, or not fetched? (`git branch -a` lists them)"
                    ),
                ));
            }
        }
    }
}

/// The branch names a line gives in code spans next to the word "branch":
/// "branch `feature/x`", "the `feature/x` branch".
fn named_branches(line: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let spans: Vec<(usize, usize)> = line
        .match_indices('`')
        .map(|(i, _)| i)
        .collect::<Vec<_>>()
        .chunks_exact(2)
        .map(|p| (p[0], p[1]))
        .collect();
    for (open, close) in spans {
        let name = &line[open + 1..close];
        let before = line[..open].trim_end().to_lowercase();
        let after = line[close + 1..].trim_start().to_lowercase();
        let beside = before.ends_with("branch")
            || before.ends_with("branch:")
            || after.starts_with("branch");
        let shaped = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '/' | '-' | '_' | '.'))
            && !name.starts_with(['-', '.', '/'])
            && !name.ends_with(['/', '.']);
        if beside && shaped {
            names.push(name);
        }
    }
    names
}

fn contradicts_previous(doc: &HandoffDocument<'_>, ctx: &LintContext, out: &mut Vec<Finding>) {
    let Some(previous) = ctx
        .previous
        .iter()
        .find(|p| p.text.trim() != doc.text.trim())
        .map(|p| HandoffDocument::parse(&p.text))
    else {
        return;
    };
    for item in doc.items_of(SectionKind::NotWorking) {
        let lower = item.text.to_lowercase();
        if AGAIN.iter().any(|w| lower.contains(w)) {
            continue;
        }
        let words = subject_words(&item.text);
        if let Some(done) = previous
            .items_of(SectionKind::Done)
            .find(|d| same_subject(&words, &subject_words(&d.text)))
        {
            out.push(CONTRADICTS_PREVIOUS.at(
                Some(item.line),
                format!(
                    "\"{}\" is listed as not working, but the previous handoff listed it as done (\"{}\"): say that it broke again, or correct one of them",
                    snippet(&item.text, 60),
                    snippet(&done.text, 60)
                ),
            ));
        }
    }
}

/// Words that say how a thing stands, not what it is.
const STANDING: &[&str] = &[
    "work", "fail", "pass", "broken", "break", "done", "finish", "complet", "error", "end", "ok",
    "green", "red", "now", "still", "fix",
];

/// What an item is about: its gist's content words, less those that say
/// how it stands ("works", "fails").
fn subject_words(item: &str) -> HashSet<String> {
    let mut words = content_words(gist(item));
    words.retain(|w| !STANDING.iter().any(|s| w.starts_with(s)));
    words
}

/// Whether two items are about the same thing: at least 3 words shared,
/// and 70% of the shorter one's.
fn same_subject(a: &HashSet<String>, b: &HashSet<String>) -> bool {
    let shared = a.intersection(b).count();
    shared >= 3 && shared * 10 >= a.len().min(b.len()) * 7
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::handoff::context::PreviousHandoff;

    fn commit(id: &str, summary: &str, paths: &[&str]) -> TouchedCommit {
        TouchedCommit {
            id: format!("{id:0<10}"),
            summary: summary.into(),
            paths: paths.iter().map(|p| p.to_string()).collect(),
        }
    }

    fn fired(text: &str, current: bool, truth: ProjectTruth) -> Vec<Finding> {
        let ctx = LintContext {
            previous: current
                .then(|| PreviousHandoff {
                    source: "state".into(),
                    text: text.into(),
                })
                .into_iter()
                .collect(),
            truth: Truth::Checked(truth),
            ..LintContext::default()
        };
        let doc = HandoffDocument::parse(text);
        let mut out = Vec::new();
        check(&doc, &ctx, &mut out);
        out
    }

    #[test]
    fn areas_skip_container_folders() {
        assert_eq!(area("src/auth/token.rs"), "auth");
        assert_eq!(area("crates/core/src/lib.rs"), "core");
        assert_eq!(area("README.md"), "readme");
        assert_eq!(area("src/main.rs"), "main");
        assert_eq!(area(".gitignore"), "gitignore");
        let words: HashSet<String> = ["the", "ui", "header"].map(String::from).into();
        assert!(mentions(&words, "the ui header", "ui"));
        assert!(
            !mentions(&words, "the ui header", "db"),
            "a short name, as a word"
        );
    }

    #[test]
    fn a_session_area_the_handoff_never_mentions_is_flagged_and_a_mentioned_one_is_not() {
        let truth = ProjectTruth {
            since_last: Some(vec![
                commit(
                    "a1b2c3d",
                    "refresh tokens on expiry",
                    &["src/auth/token.rs"],
                ),
                commit(
                    "b2c3d4e",
                    "store the refresh secret",
                    &["src/auth/store.rs"],
                ),
                commit("c3d4e5f", "count tokens", &["src/parser/count.rs"]),
            ]),
            ..ProjectTruth::default()
        };
        let text = "# Handoff\n## Done\n- The parser counts its input.\n";
        let found = fired(text, false, truth.clone());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "work-not-covered");
        assert!(found[0].message.contains("2 commits") && found[0].message.contains("`auth`"));
        assert!(
            found[0]
                .message
                .contains("a1b2c3d \"refresh tokens on expiry\"")
        );
        let told =
            "# Handoff\n## Done\n- Authentication refreshes its tokens; the parser counts.\n";
        assert!(fired(told, false, truth).is_empty());
    }

    #[test]
    fn or_more_is_said_only_when_the_sessions_own_range_was_cut() {
        let billing = || vec![commit("b1c2d3e", "billing: round", &["src/billing/a.rs"])];
        let text = "# Handoff\n## Done\n- the parser\n";
        // The current state's session is the last one; what came after was cut.
        let truth = ProjectTruth {
            last_session: Some(billing()),
            since_last: Some(Vec::new()),
            since_last_cut: true,
            ..ProjectTruth::default()
        };
        let said = fired(text, true, truth);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].message.starts_with("1 commit of"), "{said:?}");
        let truth = ProjectTruth {
            last_session: Some(billing()),
            last_session_cut: true,
            ..ProjectTruth::default()
        };
        assert!(
            fired(text, true, truth)[0]
                .message
                .starts_with("1 or more commit")
        );
    }

    #[test]
    fn a_later_commit_that_does_the_next_step_is_evidence_against_the_current_state() {
        let text = "# Handoff\n## Next step\nFix the \\u{...} escape form in `src/lexer.rs`.\n";
        let truth = ProjectTruth {
            since_last: Some(vec![commit(
                "d4e5f6a",
                "lexer: fix the \\u{...} escape form",
                &["src/lexer.rs"],
            )]),
            last_session: Some(Vec::new()),
            ..ProjectTruth::default()
        };
        let found = fired(text, true, truth.clone());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "next-step-done-later");
        assert!(found[0].message.contains("d4e5f6a"), "{}", found[0].message);
        // A new handoff being written: those commits are its session, not later.
        assert!(
            fired(text, false, truth)
                .iter()
                .all(|f| f.rule != "next-step-done-later")
        );
        let nothing_later = ProjectTruth {
            since_last: Some(vec![commit("e5f6a7b", "docs: typo", &["docs/x.md"])]),
            last_session: Some(Vec::new()),
            ..ProjectTruth::default()
        };
        assert!(fired(text, true, nothing_later).is_empty());
    }

    #[test]
    fn commits_and_branches_the_repository_lacks_are_named() {
        let truth = ProjectTruth {
            branches: ["main", "origin/feature/login"].map(String::from).into(),
            missing_commits: vec!["a1b2c3d".into()],
            ..ProjectTruth::default()
        };
        let text = "# Handoff\nFixed in a1b2c3d on branch `feature/login`.\nThe `feat/old` branch holds the spike; `main` branch is green.\nRun `cargo test` in `x` first.\n";
        let found = fired(text, false, truth);
        let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(found.len(), 2, "{messages:?}");
        assert!(messages[0].starts_with("commit a1b2c3d") && found[0].line == Some(2));
        assert!(messages[1].contains("`feat/old`") && found[1].line == Some(3));
        // A branch to be made, or gone on purpose, is no wrong reference.
        let planned = "# Handoff\nNext: create branch `fix/login`; the `spike/old` branch was merged and deleted.\n";
        let truth = ProjectTruth {
            branches: ["main".to_string()].into(),
            ..ProjectTruth::default()
        };
        assert!(fired(planned, false, truth).is_empty());
    }

    #[test]
    fn not_working_what_the_previous_handoff_called_done_is_a_contradiction_unless_it_broke_again()
    {
        let previous = "# Before\n## Done\n- The login flow with refresh tokens works end to end\n";
        let ctx = || LintContext {
            previous: vec![PreviousHandoff {
                source: "p".into(),
                text: previous.into(),
            }],
            ..LintContext::default()
        };
        let run = |text: &str| {
            let doc = HandoffDocument::parse(text);
            let mut out = Vec::new();
            check(&doc, &ctx(), &mut out);
            out
        };
        let found =
            run("# Now\n## Not working\n- The login flow with refresh tokens fails on expiry\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, "contradicts-previous");
        assert!(run("# Now\n## Not working\n- The login flow with refresh tokens broke again on expiry\n").is_empty());
    }
}
