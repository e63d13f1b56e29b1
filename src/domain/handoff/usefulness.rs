//! Was the previous handoff useful? Judged by what happened in the session
//! after it, when the next handover completes: was its next step acted on
//! (a commit or a changed file names it, or the new handoff lists it as
//! done), was one of its failed approaches tried again, were its waits
//! resolved, did its numbers move. The engine keeps the outcome with the
//! run (`history`, `lint --json` and the dashboard show it), so the lint
//! rules' weights can be checked against what handoffs were worth.

use std::collections::HashSet;
use std::sync::LazyLock;

use chrono::Timelike;
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::document::{HandoffDocument, SectionKind};
use super::text::{content_words, gist, proposes_again, snippet};
use super::verdict::SessionVerdict;
use crate::base::patterns::pattern;
use crate::domain::memory::history::StateHistory;
use crate::workspace::Workspace;
use crate::workspace::activity::{self, Activity, Baseline};

/// Points for a next step acted on (or off, when it was not).
const ACTED_POINTS: i32 = 30;
/// Points off for each failed approach tried again, at most twice.
const RETRY_POINTS: i32 = 20;
/// Points for the share of waits resolved.
const WAITS_POINTS: i32 = 10;
/// Points for numbers that moved (or off, when they did not).
const NUMBERS_POINTS: i32 = 10;
/// A step and an activity share at least this many content words...
const MIN_SHARED_WORDS: usize = 2;
/// ...and at least this share of the step's gist (percent) to match.
const MIN_SHARED_PERCENT: usize = 30;

/// A count: `30/90`, `97.2%`.
static COUNT: LazyLock<Regex> = LazyLock::new(|| pattern(r"\d+\s*/\s*\d+|\d+(?:[.,]\d+)?\s*%"));

/// What the session after a handoff made of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usefulness {
    /// 0-100: 50, plus or minus what the signals below say.
    pub score: u8,
    /// Its next step was acted on; `None` when it had none.
    pub next_step_acted_on: Option<bool>,
    /// Its failed approaches that were tried again (their gists).
    pub failed_retried: Vec<String>,
    /// How many of its waits are no longer waited on.
    pub waits_resolved: usize,
    /// How many waits it had.
    pub waits: usize,
    /// Its counts ("30/90", "41%") changed; `None` when it had none.
    pub numbers_moved: Option<bool>,
    /// The verdict of the session that used it, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<SessionVerdict>,
}

impl Usefulness {
    /// One line: `useful 80/100: next step acted on, 1 of 2 waits resolved`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match self.next_step_acted_on {
            Some(true) => parts.push("next step acted on".to_string()),
            Some(false) => parts.push("next step not acted on".to_string()),
            None => {}
        }
        if !self.failed_retried.is_empty() {
            parts.push(format!(
                "{} failed approach{} tried again",
                self.failed_retried.len(),
                if self.failed_retried.len() == 1 {
                    ""
                } else {
                    "es"
                }
            ));
        }
        if self.waits > 0 {
            parts.push(format!(
                "{} of {} waits resolved",
                self.waits_resolved, self.waits
            ));
        }
        match self.numbers_moved {
            Some(true) => parts.push("numbers moved".to_string()),
            Some(false) => parts.push("numbers did not move".to_string()),
            None => {}
        }
        if let Some(v) = &self.verdict {
            parts.push(v.describe());
        }
        format!("useful {}/100: {}", self.score, parts.join(", "))
    }
}

/// Judge `previous` (the handoff the session started from) by `current`
/// (the handoff it ended with) and `activity` (the commits and changed
/// files since `previous` was written).
pub fn assess(previous: &str, current: &str, activity: &Activity) -> Usefulness {
    let before = HandoffDocument::parse(previous);
    let after = HandoffDocument::parse(current);
    let done: Vec<HashSet<String>> = after
        .items_of(SectionKind::Done)
        .chain(
            after
                .sections
                .iter()
                .filter(|s| !s.past)
                .flat_map(|s| s.items.iter())
                .filter(|i| i.checked == Some(true)),
        )
        .map(|i| content_words(&i.text))
        .collect();
    let commits: Vec<HashSet<String>> = activity
        .commits
        .iter()
        .map(|c| content_words(&c.summary))
        .collect();
    let steps: Vec<&str> = before
        .items_of(SectionKind::NextStep)
        .map(|i| i.text.as_str())
        .collect();
    let next_step_acted_on = (!steps.is_empty()).then(|| {
        steps.iter().any(|step| {
            let words = content_words(gist(step));
            let names_changed = named_files(step).any(|file| {
                activity
                    .changed_files
                    .iter()
                    .any(|f| f.path.rsplit('/').next() == Some(file.as_str()))
                    || activity.commits.iter().any(|c| c.summary.contains(&file))
            });
            names_changed || done.iter().chain(&commits).any(|w| shares(&words, w))
        })
    });
    let later: Vec<HashSet<String>> = after
        .items_of(SectionKind::NextStep)
        .map(|i| content_words(&i.text))
        .chain(done.iter().cloned())
        .chain(commits.iter().cloned())
        .collect();
    let failed_retried: Vec<String> = before
        .items_of(SectionKind::FailedApproaches)
        .filter(|f| later.iter().any(|w| proposes_again(&f.text, w)))
        .map(|f| snippet(gist(&f.text), 60))
        .collect();
    let waits: Vec<&str> = before
        .items_of(SectionKind::WaitingOn)
        .map(|i| i.text.as_str())
        .filter(|t| !is_nobody(t))
        .collect();
    let still: Vec<HashSet<String>> = after
        .items_of(SectionKind::WaitingOn)
        .map(|i| content_words(&i.text))
        .collect();
    let waits_resolved = waits
        .iter()
        .filter(|w| !still.iter().any(|s| shares(&content_words(gist(w)), s)))
        .count();
    let counts = |doc: &HandoffDocument<'_>| -> Vec<String> {
        let status: Vec<&str> = doc
            .items_of(SectionKind::Status)
            .map(|i| i.text.as_str())
            .collect();
        let text = if status.is_empty() {
            doc.text.to_string()
        } else {
            status.join("\n")
        };
        COUNT
            .find_iter(&text)
            .map(|m| m.as_str().replace(' ', ""))
            .collect()
    };
    let (old, new) = (counts(&before), counts(&after));
    let numbers_moved = (!old.is_empty()).then(|| old != new);
    let mut score = 50;
    score += match next_step_acted_on {
        Some(true) => ACTED_POINTS,
        Some(false) => -ACTED_POINTS,
        None => 0,
    };
    score -= RETRY_POINTS * failed_retried.len().min(2) as i32;
    if !waits.is_empty() {
        score += WAITS_POINTS * waits_resolved as i32 / waits.len() as i32;
    }
    score += match numbers_moved {
        Some(true) => NUMBERS_POINTS,
        Some(false) => -NUMBERS_POINTS,
        None => 0,
    };
    Usefulness {
        score: score.clamp(0, 100) as u8,
        next_step_acted_on,
        failed_retried,
        waits_resolved,
        waits: waits.len(),
        numbers_moved,
        verdict: None,
    }
}

/// How useful the handoff run `run_id` started from was: the version of the
/// current state before the one this run wrote, judged by this run's
/// version and the work done since the older one's run covered the work
/// tree (`covered_by` gives what a run covered, by its id). `None` when
/// the run wrote no new current state or there was none before it; best
/// effort (an unreadable version is no judgement). The session's own
/// `verdict` is kept with it; given without anything to judge by the work,
/// it is kept with the neutral 50.
pub fn judge_run(
    ws: &Workspace,
    run_id: &str,
    verdict: Option<SessionVerdict>,
    covered_by: impl Fn(&str) -> Option<Baseline>,
) -> Option<Usefulness> {
    match judge_by_work(ws, run_id, covered_by) {
        Some(judged) => Some(Usefulness { verdict, ..judged }),
        None => verdict.map(|verdict| Usefulness {
            score: 50,
            next_step_acted_on: None,
            failed_retried: Vec::new(),
            waits_resolved: 0,
            waits: 0,
            numbers_moved: None,
            verdict: Some(verdict),
        }),
    }
}

/// [`judge_run`] by the work alone: what was done after the judged
/// handoff's run covered the work tree (by the commit graph), or, when it
/// recorded nothing (0.5.1, or no git), after it was written.
fn judge_by_work(
    ws: &Workspace,
    run_id: &str,
    covered_by: impl Fn(&str) -> Option<Baseline>,
) -> Option<Usefulness> {
    let history = StateHistory::new(ws.state_history_dir());
    let versions = history.list().ok()?;
    let at = versions.iter().position(|v| v.label == run_id)?;
    let previous = versions.get(at + 1)?;
    let current = history.read(&versions[at]).ok()?;
    let before = history.read(previous).ok()?;
    let work = match covered_by(&previous.label) {
        Some(covered) => activity::since_covered(ws, &covered),
        None => {
            // Commit times have whole seconds: a commit in the second the
            // older version was written counts as after it.
            let since = previous.at.with_nanosecond(0).unwrap_or(previous.at);
            activity::since(ws, Some(since))
        }
    };
    Some(assess(&before, &current, &work))
}

/// The paths of files a next step names, as written (`src/lib.rs`,
/// `proration.py:88` gives `proration.py`), without a leading `./` or a
/// trailing `.`: runs of word characters, `.`, `/` and `-` that end in a
/// file name with an extension (`.rs`, `.tsx`: a letter, then up to seven
/// letters or digits). Absolute paths and ones leaving the project are left
/// out. (Read by hand, not by a regex: the brief at every session start
/// asks for them.)
pub fn named_paths(step: &str) -> Vec<String> {
    let in_path = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
    let mut paths: Vec<String> = Vec::new();
    for run in step.split(|c: char| !in_path(c)) {
        let run = run.trim_end_matches('.');
        let run = run.strip_prefix("./").unwrap_or(run);
        let Some((stem, ext)) = run.rsplit_once('.') else {
            continue;
        };
        let ext_ok = ext.chars().count() <= 8
            && ext.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && ext.chars().all(|c| c.is_ascii_alphanumeric());
        let stem_ok = stem
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-'));
        let inside = !run.starts_with('/') && !run.split('/').any(|part| part == "..");
        if ext_ok && stem_ok && inside && !paths.iter().any(|p| p == run) {
            paths.push(run.to_string());
        }
    }
    paths
}

/// The file names a next step names (`src/lib.rs` gives `lib.rs`).
fn named_files(step: &str) -> impl Iterator<Item = String> {
    named_paths(step)
        .into_iter()
        .map(|p| p.rsplit('/').next().unwrap_or(&p).to_string())
}

/// What a commit has in common with a next step, by the rule that judges a
/// next step acted on: a file the step names that the commit changed (or
/// names in its message), else enough of the step's words in its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepMatch {
    /// The commit changed (or names) this file, which the step names.
    File(String),
    /// Its message says much of what the step says.
    Words,
}

/// What `summary` (a commit's message) and `paths` (the files it changed)
/// share with `step`, if anything.
pub fn commit_meets_step(step: &str, summary: &str, paths: &[String]) -> Option<StepMatch> {
    let changed = named_files(step).find(|file| {
        summary.contains(file.as_str())
            || paths
                .iter()
                .any(|p| p.rsplit('/').next() == Some(file.as_str()))
    });
    if let Some(file) = changed {
        let path = paths
            .iter()
            .find(|p| p.rsplit('/').next() == Some(file.as_str()))
            .cloned()
            .unwrap_or(file);
        return Some(StepMatch::File(path));
    }
    shares(&content_words(gist(step)), &content_words(summary)).then_some(StepMatch::Words)
}

/// Whether two sets of content words say the same thing: at least
/// [`MIN_SHARED_WORDS`] shared, and [`MIN_SHARED_PERCENT`] of `step`.
fn shares(step: &HashSet<String>, other: &HashSet<String>) -> bool {
    let shared = step.iter().filter(|w| other.contains(*w)).count();
    shared >= MIN_SHARED_WORDS && shared * 100 >= step.len() * MIN_SHARED_PERCENT
}

/// "Nobody", "none": not a wait.
fn is_nobody(text: &str) -> bool {
    let t = text.trim().trim_end_matches('.').to_lowercase();
    matches!(t.as_str(), "nobody" | "none" | "no one" | "nothing" | "n/a")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::activity::{ChangedFile, Commit};

    const PREVIOUS: &str = "# Handoff 2026-11-20\n## Status\n- 30/90 tests pass\n## Failed approaches\n- Switching to Decimal everywhere -> 40 unrelated tests broke\n## Next step\nMove the `round()` call in `billing/proration.py:88` after the tax split.\n## Waiting on\n- Priya for read access to the Kafka topic\n- Legal on the withdrawal wording\n";

    fn commit(summary: &str) -> Commit {
        Commit {
            id: "0123456789".into(),
            summary: summary.into(),
            time: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_handoff_acted_on_scores_high() {
        let activity = Activity {
            commits: vec![commit("billing: round after the tax split")],
            changed_files: vec![ChangedFile {
                path: "billing/proration.py".into(),
                change: "modified",
            }],
            git: true,
            ..Activity::default()
        };
        let current = "# Handoff 2026-11-21\n## Status\n- 41/90 tests pass\n## Done\n- Rounding moved after the tax split\n## Waiting on\n- Legal on the withdrawal wording\n";
        let u = assess(PREVIOUS, current, &activity);
        assert_eq!(u.next_step_acted_on, Some(true));
        assert!(u.failed_retried.is_empty());
        assert_eq!((u.waits_resolved, u.waits), (1, 2));
        assert_eq!(u.numbers_moved, Some(true));
        assert_eq!(u.score, 95);
        assert_eq!(
            u.describe(),
            "useful 95/100: next step acted on, 1 of 2 waits resolved, numbers moved"
        );
    }

    #[test]
    fn a_handoff_ignored_and_a_failure_retried_scores_low() {
        let activity = Activity {
            commits: vec![commit("Switch to Decimal everywhere in billing")],
            ..Activity::default()
        };
        let current = "# Handoff 2026-11-21\n## Status\n- 30/90 tests pass\n## Done\n- Switched to Decimal everywhere\n## Waiting on\n- Priya for read access to the Kafka topic\n- Legal on the withdrawal wording\n";
        let u = assess(PREVIOUS, current, &activity);
        assert_eq!(u.next_step_acted_on, Some(false));
        assert_eq!(u.failed_retried, ["Switching to Decimal everywhere"]);
        assert_eq!(u.waits_resolved, 0);
        assert_eq!(u.numbers_moved, Some(false));
        assert_eq!(u.score, 0);
    }

    #[test]
    fn nothing_to_judge_is_neutral() {
        let u = assess("# notes\n", "# notes\n", &Activity::default());
        assert_eq!(u.next_step_acted_on, None);
        assert_eq!(u.numbers_moved, None);
        assert_eq!(u.score, 50);
    }

    #[test]
    fn the_files_a_step_names_are_read_as_the_paths_they_are() {
        assert_eq!(
            named_paths(
                "Fix `src/parse.rs` (line 88), then proration.py:88 and ./web/App.tsx; not /etc/hosts, ../x.rs, v1.2.3 or the end."
            ),
            ["src/parse.rs", "proration.py", "web/App.tsx"]
        );
        assert_eq!(named_paths("Rerun the tests"), Vec::<String>::new());
    }

    #[test]
    fn a_commit_meets_a_step_by_the_file_it_names_or_by_its_words() {
        let step =
            "Fix the off-by-one in `src/parse.rs` (the span end), then rerun `cargo test parse`";
        assert_eq!(
            commit_meets_step(step, "tidy", &["src/parse.rs".into()]),
            Some(StepMatch::File("src/parse.rs".into()))
        );
        assert_eq!(
            commit_meets_step(step, "tidy the linter", &["src/lint.rs".into()]),
            None
        );
        assert_eq!(
            commit_meets_step(
                "Wire the parser into the linter",
                "wire parser into linter",
                &[]
            ),
            Some(StepMatch::Words)
        );
    }
}
