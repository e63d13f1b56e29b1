//! A pre-filled handoff: the template for the kind of work, with what can be
//! measured already written in (commits and changed files since the last
//! handover, the configured metrics, the previous handoff's next step and
//! failed approaches, unread mail), and the judgement sections left as
//! `TODO:` for the agent. The agent completes it and hands over with
//! `agent-handover run --note-file <draft>`.
//!
//! Hooks save drafts under `.agent-handover/drafts/` before a compaction and
//! at a session end where the agent cannot be asked, so nothing of a session
//! is lost even when no handover is written; the brief points at the newest
//! one that no handover has superseded.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::fsx;
use crate::base::secrets;
use crate::domain::handoff::document::{HandoffDocument, SectionKind};
use crate::domain::handoff::measured::DRAFT_LINE;
use crate::domain::handoff::templates::TemplateKind;
use crate::domain::inbox::{Inbox, MessageSummary};
use crate::domain::memory::MemoryStore;
use crate::engine::probe::{MetricsSample, probes_from_config, run_probes};
use crate::read::history::last_completed_at;
use crate::workspace::Workspace;
use crate::workspace::activity::{Activity, Measured};

/// Most unread messages listed.
const MAX_MESSAGES: usize = 5;
/// Most carried-over failed approaches.
const MAX_CARRIED: usize = 8;
/// Drafts a handover has used that are kept (the newest).
pub const KEEP_DRAFTS: usize = 20;
/// Drafts no handover has used yet that are kept (the newest).
pub const KEEP_UNUSED_DRAFTS: usize = 100;

/// Where the hand-over loop that the brief, `init` and `status -v` teach
/// keeps the handoff being written (relative to the project root).
pub const HANDOFF_FILE: &str = ".agent-handover/handoff.md";

/// The hand-over loop in words: draft the handoff into [`HANDOFF_FILE`],
/// complete it, hand it over. `agent` is named when given, and `config`
/// when the config is not the default `handover.toml`.
pub fn handover_loop(agent: Option<&str>, config: Option<&str>) -> String {
    let agent = agent.map(|a| format!(" --agent {a}")).unwrap_or_default();
    let config = config
        .map(|c| format!(" --config {}", crate::base::shell::word(c)))
        .unwrap_or_default();
    format!(
        "`agent-handover draft{agent}{config} -o {HANDOFF_FILE}`, replace every TODO in it, then `agent-handover run{config} --note-file {HANDOFF_FILE}`"
    )
}

/// What to draft.
#[derive(Debug, Clone, Copy)]
pub struct DraftOptions {
    /// The template's kind of work.
    pub work_type: TemplateKind,
    /// Run the configured `[[metric]]` commands now (they may be slow: a test suite).
    pub measure: bool,
    /// The handoff's date.
    pub date: NaiveDate,
}

/// A drafted handoff and the facts it was built from.
#[derive(Debug, Clone, Serialize)]
pub struct Draft {
    /// The agent it is for.
    pub agent: String,
    /// The template used.
    pub work_type: TemplateKind,
    /// What was done since the last handover.
    pub activity: Activity,
    /// The numbers measured now (`measure`), if any probe is configured.
    pub metrics: Option<MetricsSample>,
    /// Why the metrics could not be measured, if they could not.
    pub metrics_error: Option<String>,
    /// The previous handoff's next step(s).
    pub previous_next_step: Vec<String>,
    /// The previous handoff's failed approaches, carried over.
    pub previous_failed_approaches: Vec<String>,
    /// The agent's unread messages, newest first.
    pub unread: Vec<MessageSummary>,
    /// Whether a handover was completed before (else this is the first).
    #[serde(skip)]
    pub handed_over_before: bool,
    /// The handoff text to complete.
    pub text: String,
}

/// Draft a handoff for `agent` in `ws`, listing the work since the last
/// handover ([`crate::read::work`]).
pub fn draft(ws: &Workspace, agent: &str, opts: DraftOptions) -> Result<Draft> {
    let (_, work) = crate::read::work::since_last_handover(ws);
    draft_of(ws, agent, opts, work)
}

/// Draft a handoff for `agent` in `ws` listing `activity` as the work done
/// (a hook passes its session's, measured once).
pub fn draft_of(
    ws: &Workspace,
    agent: &str,
    opts: DraftOptions,
    activity: Activity,
) -> Result<Draft> {
    let (metrics, metrics_error) = if opts.measure {
        let (sample, error) = measure(ws);
        (
            sample.map(MetricsSample::redacted),
            error.map(|mut e| {
                secrets::redact_in_place(&mut e);
                e
            }),
        )
    } else {
        (None, None)
    };
    // Carried over redacted: a secret in the current state must not ride into the next note.
    let previous = MemoryStore::new(ws.memory.clone(), ws.state_history_dir())
        .read_current_state()
        .ok()
        .flatten()
        .map(|text| secrets::redact(&text).into_owned())
        .unwrap_or_default();
    let doc = HandoffDocument::parse(&previous);
    let items = |kind| -> Vec<String> {
        doc.items_of(kind)
            .map(|i| i.text.clone())
            .filter(|t| !is_placeholder(t))
            .take(MAX_CARRIED)
            .collect()
    };
    let unread = Inbox::new(ws)
        .page(Some(agent), true, MAX_MESSAGES)
        .map(|p| p.messages)
        .unwrap_or_default();
    let mut draft = Draft {
        agent: agent.to_string(),
        work_type: opts.work_type,
        activity: shown(activity),
        metrics,
        metrics_error,
        previous_next_step: items(SectionKind::NextStep),
        previous_failed_approaches: items(SectionKind::FailedApproaches),
        unread,
        handed_over_before: last_completed_at(ws).ok().flatten().is_some(),
        text: String::new(),
    };
    draft.text = render(&draft, opts.date);
    Ok(draft)
}

/// `activity` as the draft shows it, in its text and its `--json`: commit
/// summaries and paths with their secrets redacted.
fn shown(mut activity: Activity) -> Activity {
    for commit in &mut activity.commits {
        secrets::redact_in_place(&mut commit.summary);
    }
    for file in &mut activity.changed_files {
        secrets::redact_in_place(&mut file.path);
    }
    activity
}

/// A line the templates leave for the agent.
fn is_placeholder(text: &str) -> bool {
    text.trim_start_matches(['-', '*', ' ']).starts_with("TODO")
}

/// Run the configured metric probes now.
fn measure(ws: &Workspace) -> (Option<MetricsSample>, Option<String>) {
    let probes = match probes_from_config(&ws.config.metrics) {
        Ok(probes) if probes.is_empty() => return (None, None),
        Ok(probes) => probes,
        Err(e) => return (None, Some(e.to_string())),
    };
    match run_probes(&probes, &ws.root, &[]) {
        Ok(sample) => (Some(sample), None),
        Err((error, sample)) => (Some(sample), Some(error)),
    }
}

/// The template with the measured facts written under their sections.
fn render(d: &Draft, date: NaiveDate) -> String {
    let template = d.work_type.render(date);
    let mut out = String::with_capacity(template.len() * 2);
    for line in template.lines() {
        out.push_str(line);
        out.push('\n');
        if line.starts_with("# ") {
            out.push_str(&format!(
                "\n{} for {}: the measured facts are filled in. Replace every TODO with what only you know, then hand over with `agent-handover run --note-file <this file>` (this comment is not handed over). -->\n",
                crate::domain::handoff::templates::DRAFTING_COMMENTS[0],
                d.agent
            ));
            if d.handed_over_before {
                // The session that used the last handoff is its best judge.
                out.push_str(crate::domain::handoff::verdict::TEMPLATE_LINE);
                out.push('\n');
            }
            continue;
        }
        let Some(kind) = line.strip_prefix("## ").and_then(SectionKind::classify) else {
            continue;
        };
        for fact in facts(d, kind) {
            out.push_str(&fact);
            out.push('\n');
        }
    }
    out
}

/// The measured lines for a section of `kind`.
fn facts(d: &Draft, kind: SectionKind) -> Vec<String> {
    let mut lines = Vec::new();
    match kind {
        SectionKind::Status => {
            if let Some(sample) = &d.metrics {
                lines.push(format!("- {DRAFT_LINE} {}", sample.describe()));
            }
            if let Some(e) = &d.metrics_error {
                lines.push(format!("- Metrics could not be measured: {e}"));
            }
        }
        SectionKind::Done => {
            let at = |t: &DateTime<Utc>| t.format("%Y-%m-%d %H:%M UTC").to_string();
            let since = match (d.activity.from, &d.activity.since) {
                (Measured::Covered | Measured::Moment, Some(t)) => {
                    format!("since the last handover ({})", at(t))
                }
                (Measured::SessionStart, Some(t)) if d.handed_over_before => {
                    format!("this session (since it started, {})", at(t))
                }
                _ => "so far (no handover yet)".to_string(),
            };
            if !d.activity.commits.is_empty() {
                lines.push(format!("- Commits {since}:"));
                for c in &d.activity.commits {
                    // A commit subject may hold a key: the draft is handed over as it is.
                    lines.push(format!("  - `{}` {}", c.id, secrets::redact(&c.summary)));
                }
            }
            if !d.activity.changed_files.is_empty() {
                let files: Vec<String> = d
                    .activity
                    .changed_files
                    .iter()
                    .map(|f| format!("`{}` ({})", secrets::redact(&f.path), f.change))
                    .collect();
                lines.push(format!("- Changed, not committed: {}", files.join(", ")));
            }
            if d.activity.truncated {
                lines.push("- (more commits or files than listed)".into());
            }
        }
        SectionKind::FailedApproaches => {
            for item in &d.previous_failed_approaches {
                lines.push(format!("- {item} (from the previous handoff)"));
            }
        }
        SectionKind::NextStep => {
            for item in &d.previous_next_step {
                lines.push(format!(
                    "<!-- The previous handoff's next step: {item}. If it is done, list it under Done. -->"
                ));
            }
        }
        SectionKind::WaitingOn => {
            for m in &d.unread {
                lines.push(format!(
                    "- Unread message from {}: {} (`agent-handover inbox read {}`)",
                    m.from, m.subject, m.id
                ));
            }
        }
        _ => {}
    }
    lines
}

/// A draft saved on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedDraft {
    /// The file.
    pub path: PathBuf,
    /// When it was last saved.
    pub saved_at: DateTime<Utc>,
    /// What first saved it: `pre-compact`, `session-end`, `stop`, `manual`.
    pub trigger: String,
}

/// Where a draft saved now by `agent` on `trigger` goes (nothing is
/// written): a caller that records the path can then [`write`] the draft
/// and its record at once.
pub fn new_draft(ws: &Workspace, agent: &str, trigger: &str) -> Result<SavedDraft> {
    fsx::check_name("agent", agent)?;
    fsx::check_name("draft trigger", trigger)?;
    let saved_at = Utc::now();
    let stamp = saved_at.format("%Y%m%dT%H%M%S%.6fZ");
    Ok(SavedDraft {
        path: ws
            .drafts_dir()
            .join(format!("{stamp}-{agent}-{trigger}.md")),
        saved_at,
        trigger: trigger.to_string(),
    })
}

/// Writes `text` durably as the draft at `path` (in the drafts folder),
/// then prunes the oldest unused drafts.
pub fn write(ws: &Workspace, path: &Path, text: &str) -> Result<()> {
    let dir = ws.drafts_dir();
    fsx::create_dir_durable(&dir)?;
    fsx::write_atomic(path, text.as_bytes())?;
    prune(ws, &dir);
    Ok(())
}

/// The newest saved draft made (or last rewritten) after the last
/// completed handover, if any: the draft of a session that worked and has
/// not handed over since. A hook writes a draft only for work since the
/// last handover or the session's start ([`crate::read::work`], by the
/// commit graph), so one with nothing new since the handover is never
/// pointed to; the draft's file time against the handover's (both to the
/// nanosecond, this machine's clock) says only which came last.
pub fn pending(ws: &Workspace) -> Result<Option<SavedDraft>> {
    let Some(newest) = list(&ws.drafts_dir())?.pop() else {
        return Ok(None);
    };
    let handed_over = last_completed_at(ws)?;
    Ok(Some(newest).filter(|d| handed_over.is_none_or(|h| d.saved_at > h)))
}

/// Whether the draft at `path` exists and no handover completed after it
/// was last written (a handover since has used it).
pub fn is_pending(ws: &Workspace, path: &Path) -> Result<bool> {
    let Some(draft) = parse_name(path) else {
        return Ok(false);
    };
    let handed_over = last_completed_at(ws)?;
    Ok(path.is_file() && handed_over.is_none_or(|h| draft.saved_at > h))
}

/// The drafts in `dir`, oldest first.
fn list(dir: &Path) -> Result<Vec<SavedDraft>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("list", dir, e)),
    };
    let mut drafts: Vec<SavedDraft> = entries
        .flatten()
        .filter_map(|e| parse_name(&e.path()))
        .collect();
    drafts.sort_by(|a, b| a.saved_at.cmp(&b.saved_at).then(a.path.cmp(&b.path)));
    Ok(drafts)
}

/// `<stamp>-<agent>-<trigger>.md` back into its parts; saved at the later
/// of the stamp (its first save) and its modification time (a session's
/// draft is rewritten in place).
fn parse_name(path: &Path) -> Option<SavedDraft> {
    let name = path.file_name()?.to_str()?.strip_suffix(".md")?;
    let (stamp, rest) = name.split_once('-')?;
    let stamped = chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S%.fZ")
        .ok()?
        .and_utc();
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(DateTime::<Utc>::from);
    let saved_at = modified.map_or(stamped, |m| m.max(stamped));
    // Agent names may hold hyphens, and so do the triggers: match the known ones.
    let trigger = ["pre-compact", "session-end", "stop", "manual"]
        .into_iter()
        .find(|t| rest.ends_with(&format!("-{t}")))
        .unwrap_or_else(|| rest.rsplit_once('-').map_or(rest, |(_, t)| t));
    Some(SavedDraft {
        path: path.to_path_buf(),
        saved_at,
        trigger: trigger.to_string(),
    })
}

/// Remove all but the newest [`KEEP_DRAFTS`] drafts a handover has used,
/// and all but the newest [`KEEP_UNUSED_DRAFTS`] of those none has (best
/// effort): an agent may be completing one of those, so they are kept far
/// longer, but not for ever.
fn prune(ws: &Workspace, dir: &Path) {
    let handed_over = last_completed_at(ws).ok().flatten();
    let Ok(drafts) = list(dir) else {
        return;
    };
    let (used, unused): (Vec<&SavedDraft>, Vec<&SavedDraft>) = drafts
        .iter()
        .partition(|d| handed_over.is_some_and(|h| d.saved_at <= h));
    for (all, keep) in [(used, KEEP_DRAFTS), (unused, KEEP_UNUSED_DRAFTS)] {
        for old in &all[..all.len().saturating_sub(keep)] {
            let _ = std::fs::remove_file(&old.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A draft saved now by `agent` on `trigger` (what the hooks do in two
    /// steps: [`new_draft`], then [`write`]).
    fn save(ws: &Workspace, agent: &str, trigger: &str, text: &str) -> Result<SavedDraft> {
        let draft = new_draft(ws, agent, trigger)?;
        write(ws, &draft.path, text)?;
        Ok(draft)
    }
    use crate::domain::handoff::{LintContext, lint};

    fn workspace(dir: &Path) -> Workspace {
        Workspace::in_dir(dir)
    }

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    /// Issue 25: the Quick Start taken literally (`draft -o`, then
    /// `run --note-file`) handed the untouched template over and `learn`
    /// kept its hints as facts. A draft of every work type gives `learn`
    /// nothing, and its header comment is no finding of the linter.
    #[test]
    fn an_untouched_draft_of_every_work_type_teaches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        for kind in TemplateKind::ALL {
            let opts = DraftOptions {
                work_type: kind,
                measure: false,
                date: day(),
            };
            let d = draft(&ws, "claude", opts).unwrap();
            let learned = crate::domain::knowledge::extract::findings(&d.text);
            assert!(learned.is_empty(), "{kind:?}: {learned:?}");
            assert!(
                crate::domain::handoff::unfilled_template(&d.text).is_some(),
                "{kind:?}: an untouched draft is a template"
            );
            // Every TODO filled in: the header comment alone is no placeholder.
            let filled: String = d
                .text
                .lines()
                .map(|l| l.replace("TODO:", "Done:"))
                .collect::<Vec<_>>()
                .join("\n");
            let report = lint(&filled, &LintContext::default());
            let placeholders: Vec<_> = report
                .findings
                .iter()
                .filter(|f| f.rule == "placeholder" || f.rule == "unfilled-template")
                .collect();
            assert!(placeholders.is_empty(), "{kind:?}: {placeholders:?}");
        }
    }

    #[test]
    fn carries_over_the_previous_handoff_and_leaves_judgement_to_the_agent() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let state = ws.memory.current_state();
        std::fs::create_dir_all(state.parent().unwrap()).unwrap();
        std::fs::write(
            &state,
            "# Handoff\n\n## Next step\nWire the parser into `lint`.\n\n## Failed approaches\n- Regex headings -> broke on setext\n- Basic auth, curl -u ci:hunter2 -> 401\n",
        )
        .unwrap();
        let opts = DraftOptions {
            work_type: TemplateKind::Code,
            measure: false,
            date: day(),
        };
        let d = draft(&ws, "claude", opts).unwrap();
        assert_eq!(d.previous_next_step, ["Wire the parser into `lint`."]);
        assert!(
            d.text
                .contains("- Regex headings -> broke on setext (from the previous handoff)"),
            "{}",
            d.text
        );
        assert!(
            d.text
                .contains("previous handoff's next step: Wire the parser")
        );
        assert!(d.text.contains("TODO"), "judgement is left to the agent");
        assert!(
            d.text.contains("curl -u ci:[REDACTED]") && !d.text.contains("hunter2"),
            "a secret is not carried over: {}",
            d.text
        );
        let doc = HandoffDocument::parse(&d.text);
        for kind in SectionKind::ALL {
            assert!(doc.has(kind), "{kind:?} missing from the draft");
        }
        let report = lint(&d.text, &LintContext::for_workspace(&ws));
        assert!(
            report.score < 100,
            "an unfinished draft is not a finished handoff"
        );
    }

    /// Issue 40: the first draft said "Commits since the last handover"
    /// when there was none.
    #[test]
    fn the_first_draft_lists_the_commits_so_far() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("a.rs")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "add a", &tree, &[])
            .unwrap();
        let ws = workspace(dir.path());
        let opts = DraftOptions {
            work_type: TemplateKind::Code,
            measure: false,
            date: day(),
        };
        let first = draft(&ws, "claude", opts).unwrap();
        assert!(
            first
                .text
                .contains("- Commits so far (no handover yet):\n  - `"),
            "{}",
            first.text
        );
        assert!(
            !first.text.contains("since the last handover"),
            "{}",
            first.text
        );
        // From a session's start, with no handover before it: so far, too.
        let start = crate::workspace::activity::baseline(&ws);
        std::fs::write(dir.path().join("b.rs"), "fn b() {}\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("b.rs")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let parent = repo.head().unwrap().peel_to_commit().unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "add b", &tree, &[&parent])
            .unwrap();
        let work = crate::workspace::activity::since_baseline(&ws, &start);
        let session = draft_of(&ws, "claude", opts, work).unwrap();
        assert!(
            session
                .text
                .contains("- Commits so far (no handover yet):\n  - `"),
            "{}",
            session.text
        );
    }

    #[test]
    fn measures_the_configured_metrics_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("handover.toml"),
            "[[metric]]\nname = \"tests\"\nargv = [\"sh\", \"-c\", \"echo '7 passed; 1 failed'\"]\n[[metric.value]]\nname = \"passed\"\npattern = '(\\d+) passed'\n[[metric.value]]\nname = \"failed\"\npattern = '(\\d+) failed'\n",
        )
        .unwrap();
        let ws = workspace(dir.path());
        let opts = DraftOptions {
            work_type: TemplateKind::Tests,
            measure: true,
            date: day(),
        };
        let d = draft(&ws, "codex", opts).unwrap();
        assert!(
            d.text
                .contains("- Measured at hand-over: passed=7 failed=1"),
            "{}",
            d.text
        );
    }

    #[test]
    fn saved_drafts_are_pending_until_a_handover_and_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        assert_eq!(pending(&ws).unwrap(), None);
        let first = save(&ws, "claude", "pre-compact", "draft one\n").unwrap();
        assert_eq!(std::fs::read_to_string(&first.path).unwrap(), "draft one\n");
        let got = pending(&ws).unwrap().unwrap();
        assert_eq!(got.path, first.path);
        assert_eq!(got.trigger, "pre-compact");
        for i in 0..KEEP_DRAFTS + 3 {
            save(&ws, "claude", "session-end", &format!("{i}\n")).unwrap();
        }
        // No handover used them: an agent may be completing any of them.
        assert_eq!(list(&ws.drafts_dir()).unwrap().len(), KEEP_DRAFTS + 4);
        assert!(is_pending(&ws, &first.path).unwrap());
        // A handover completes: they are used, and the next save prunes.
        std::thread::sleep(std::time::Duration::from_millis(5));
        let mut cp = crate::engine::checkpoint::Checkpoint {
            status: crate::engine::checkpoint::RunStatus::Completed,
            run_id: Some("20261126-100000-aaaa".into()),
            finished_at: Some(Utc::now().to_rfc3339()),
            ..Default::default()
        };
        cp.save(&ws.checkpoint).unwrap();
        assert_eq!(pending(&ws).unwrap(), None);
        assert!(!is_pending(&ws, &first.path).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(5));
        let new = save(&ws, "claude", "stop", "after\n").unwrap();
        let left = list(&ws.drafts_dir()).unwrap();
        assert_eq!(
            left.len(),
            KEEP_DRAFTS + 1,
            "the used ones pruned, the new one kept"
        );
        assert_eq!(pending(&ws).unwrap().unwrap().path, new.path);
        // Unused drafts are kept far longer, but not for ever.
        for i in 0..KEEP_UNUSED_DRAFTS + 5 {
            save(&ws, "claude", "pre-compact", &format!("unused {i}\n")).unwrap();
        }
        let left = list(&ws.drafts_dir()).unwrap();
        assert_eq!(left.len(), KEEP_DRAFTS + KEEP_UNUSED_DRAFTS);
        assert!(save(&ws, "../x", "stop", "").is_err());
    }
}
