//! Reading a fleet row: the workspace at a directory, cheaply (its run
//! state, PAUSE, drift; with details, the mail, the newest session and the
//! last activity), and its score, read apart because linting takes longer.

use std::path::Path;

use agent_handover::agent::hooks::session;
use agent_handover::agent::sessions;
use agent_handover::base::error::FIX_MARK;
use agent_handover::domain::capacity::warn_at;
use agent_handover::domain::handoff::{HandoffDocument, lint};
use agent_handover::domain::inbox::{HUMAN, Inbox};
use agent_handover::engine::checkpoint::StepState;
use agent_handover::engine::lint_context;
use agent_handover::engine::pause::PauseInfo;
use agent_handover::read::brief::other_workstreams;
use agent_handover::read::history::latest_previous_handoff;
use agent_handover::read::{NextAction, RunSnapshot};
use agent_handover::{MemoryStore, Workspace, WorkspaceOptions};

use super::{Detail, Health, Row, Score};
use crate::tui::watch;
use crate::tui::widgets::ago_at;

/// One row of the fleet: what the list shows of the workspace at `dir`,
/// read cheaply (the checkpoint, PAUSE, the queue and the drift record;
/// with `details`, also the inbox's counts, the newest session record and
/// a few `stat`s). The first frame shows the states alone, as the
/// single-workspace dashboard's shows the run snapshot alone.
pub fn row(dir: &Path, details: bool) -> Row {
    let mut row = Row::loading(dir.to_path_buf());
    // A missing or unreadable workspace has nothing more to read.
    row.details = true;
    if !dir.is_dir() {
        row.health = Health::Missing;
        return row;
    }
    let ws = match Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    }) {
        Ok(ws) => ws,
        Err(e) => {
            row.health = Health::Unreadable;
            row.error = Some(e.to_string());
            return row;
        }
    };
    row.notify = ws.config.dashboard.notify.clone();
    match RunSnapshot::load(&ws) {
        Ok(snap) => {
            row.run = snap.state.own_kind();
            row.needs_decision = matches!(
                snap.state.next_action().unpaused(),
                NextAction::Decide { .. } | NextAction::Repair { .. } | NextAction::Upgrade { .. }
            );
            row.pause = snap.paused.clone();
            row.drift = !snap.drift.is_empty();
            row.health = Health::Run(snap.state.kind());
        }
        Err(e) => {
            row.health = Health::Unreadable;
            row.error = Some(e.to_string());
        }
    }
    if !details {
        row.details = false;
        return row;
    }
    row.activity = watch::fingerprint(&ws)
        .iter()
        .flatten()
        .map(|(t, _)| *t)
        .max()
        .map(chrono::DateTime::<chrono::Utc>::from);
    row.score_stamp = watch::score_stamp(&ws);
    row.agent = session::newest(&ws, |_| true).map(|r| r.agent);
    let live = sessions::live(&ws);
    row.context = live.iter().filter_map(|s| s.context_percent).max();
    row.context_low = row.context.is_some_and(|p| p >= warn_at(&ws));
    match Inbox::new(&ws).queues() {
        Ok(queues) => {
            for q in queues {
                if q.agent == HUMAN {
                    row.for_human = q.unread;
                } else {
                    row.unread += q.unread;
                }
            }
        }
        Err(e) => {
            row.error.get_or_insert(e.to_string());
        }
    }
    row
}

/// The slower part of a fleet row: the current state's score (linted as
/// `lint` does, with its context) and the newest judgement of how useful
/// the previous handoff was.
pub fn score(dir: &Path) -> Score {
    let Ok(ws) = Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    }) else {
        return Score::default();
    };
    let store = MemoryStore::new(ws.memory.clone(), ws.state_history_dir());
    let report = store
        .read_current_state()
        .ok()
        .flatten()
        .map(|text| lint(&text, &lint_context(&ws, &text)));
    Score {
        score: report.as_ref().map(|r| r.score),
        low_confidence: report.is_some_and(|r| r.low_confidence.is_some()),
        outcome: latest_previous_handoff(&ws),
    }
}

/// Lines of a step's output the detail pane shows.
const OUTPUT_TAIL: usize = 3;

/// What the fleet's detail pane says of the workspace at `dir`: its run
/// state and the next action (the library's words, as `check` says them),
/// the step in progress or the failed one with its output's tail, the next
/// step its current state names, the newest message for the human, PAUSE's
/// reason and author, its score with the finding that costs most, drift,
/// and each live agent session's context. Read for the selected row only.
pub fn detail(dir: &Path, now: chrono::DateTime<chrono::Utc>) -> Detail {
    let mut detail = Detail {
        path: dir.to_path_buf(),
        ..Detail::default()
    };
    if !dir.is_dir() {
        detail.state = format!("{} is gone", dir.display());
        detail.next = Some(
            "`agent-handover workspaces forget --missing` drops it from the list (or bring the folder back)"
                .into(),
        );
        return detail;
    }
    let ws = match Workspace::resolve(WorkspaceOptions {
        cwd: Some(dir.to_path_buf()),
        ..Default::default()
    }) {
        Ok(ws) => ws,
        Err(e) => {
            detail.state = e.to_string();
            return detail;
        }
    };
    // What only the rest of the row can say (mail, context, PAUSE, a push,
    // drift) when the run's state asks for nothing, in the order of urgency.
    let mut beyond_the_run = None;
    let mut paused = None;
    match RunSnapshot::load(&ws) {
        Ok(snap) => {
            detail.state = snap.state.describe();
            detail.next = run_next(&snap);
            paused = snap.paused.as_ref().map(pause_next);
            beyond_the_run = snap.memory.pending_advice().or_else(|| {
                    snap.drift.first().map(|d| {
                        format!(
                            "a merge superseded text of {}: `{}` shows it; keep what is right in the current state",
                            d.file.file_name(),
                            d.diff_command()
                        )
                    })
                });
            // The step in progress, or the one that stopped the run.
            let step = snap.steps.iter().find(|s| {
                matches!(
                    s.state,
                    StepState::Running | StepState::Interrupted | StepState::Failed
                )
            });
            if let Some(step) = step {
                detail.step = Some(match &step.last_error {
                    Some(e) => format!(
                        "{} ({}): {}",
                        step.name,
                        step.state.as_str(),
                        e.lines().next().unwrap_or("")
                    ),
                    None => format!("{} ({})", step.name, step.state.as_str()),
                });
                detail.output = step
                    .output
                    .iter()
                    .flat_map(|o| o.lines())
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>();
                let keep = detail.output.len().saturating_sub(OUTPUT_TAIL);
                detail.output.drain(..keep);
            }
            detail.pause = snap.paused.as_ref().map(|p| {
                let reason = p.reason.clone().unwrap_or_else(|| "no reason given".into());
                let by = p.by.as_ref().map(|b| format!(" ({b})")).unwrap_or_default();
                let scope = if p.global { "global PAUSE" } else { "PAUSE" };
                format!("{scope}: {reason}{by}")
            });
            detail.drift = snap
                .drift
                .iter()
                .map(|d| {
                    format!(
                        "{} ({}) superseded text from {} {} ago: `{}`",
                        d.file.file_name(),
                        d.section_names(),
                        d.from,
                        ago_at(now, d.at),
                        d.diff_command()
                    )
                })
                .collect();
        }
        Err(e) => detail.state = e.to_string(),
    }
    detail.workstreams = other_workstreams(&ws)
        .into_iter()
        .map(|w| {
            format!(
                "{}: {}",
                w.name,
                w.next_step.as_deref().unwrap_or("no next step written")
            )
        })
        .collect();
    let store = MemoryStore::new(ws.memory.clone(), ws.state_history_dir());
    if let Ok(Some(text)) = store.read_current_state() {
        let doc = HandoffDocument::parse(&text);
        detail.next_step = doc.next_step().map(|i| i.text.clone());
        let report = lint(&text, &lint_context(&ws, &text));
        let top = report
            .findings
            .iter()
            .max_by_key(|f| f.points)
            .filter(|f| f.points > 0);
        let confidence = report
            .low_confidence
            .as_ref()
            .map(|why| format!(" (low confidence: {why})"))
            .unwrap_or_default()
            + &report
                .adjustment_line()
                .map(|line| format!(" ({})", line.replace(FIX_MARK, "; fix: ")))
                .unwrap_or_default();
        detail.score = Some(match top {
            Some(f) => format!(
                "{}/100{confidence}; costs most: {} (-{}) {}",
                report.score, f.rule, f.points, f.message
            ),
            None => format!("{}/100{confidence}, no finding", report.score),
        });
    }
    detail.outcome =
        latest_previous_handoff(&ws).map(|u| format!("previous handoff {}", u.describe()));
    if let Ok(messages) = Inbox::new(&ws).list(Some(HUMAN), true)
        && let Some(m) = messages
            .iter()
            .filter(|m| m.queue == HUMAN)
            .max_by_key(|m| m.created)
    {
        detail.for_human = Some(format!(
            "from {} {} ago: {}",
            m.from,
            ago_at(now, m.created),
            m.subject
        ));
    }
    let live = sessions::live(&ws);
    let mail_next = detail
        .for_human
        .as_ref()
        .map(|m| format!("enter opens your queue to answer: {m}"));
    let context_next = hand_over_now(&ws, &live);
    if detail.next.is_none() {
        detail.next = mail_next.or(context_next).or(paused).or(beyond_the_run);
    }
    detail.sessions = live
        .iter()
        .map(|s| {
            let context = s
                .context
                .as_ref()
                .map_or_else(|| "context unknown".to_string(), |c| c.describe());
            let compactions = match s.compactions {
                0 => String::new(),
                1 => ", compacted once".into(),
                n => format!(", compacted {n} times"),
            };
            let handed = match (s.handed_over, s.work_since_handover) {
                (true, true) => ", handed over, work since",
                (true, false) => ", handed over",
                (false, _) => ", no handover yet",
            };
            format!(
                "{} started {} ago: {context}{compactions}{handed}",
                s.agent,
                ago_at(now, s.started_at)
            )
        })
        .collect();
    detail.last_handover = agent_handover::read::history::last_completed_at(&ws)
        .ok()
        .flatten()
        .map(|at| format!("{} ago", ago_at(now, at)));
    detail
}

/// The run's next action, in the fleet's words: the library's sentence,
/// and for PAUSE who pulled it, why, and the key or command that lifts it.
fn run_next(snap: &RunSnapshot) -> Option<String> {
    match (snap.state.next_action(), &snap.paused) {
        (NextAction::Nothing, _) => None,
        (NextAction::Unpause { then, .. }, Some(p)) => Some(match *then {
            NextAction::Nothing => pause_next(p),
            then => format!("{}; then {}", pause_next(p), then.sentence()),
        }),
        (next, _) => Some(next.sentence()),
    }
}

/// Who pulled a PAUSE, why, and the key or command that lifts it.
fn pause_next(p: &PauseInfo) -> String {
    let who = p.by.as_deref().unwrap_or("someone (not recorded)");
    let why = p.reason.as_deref().unwrap_or("no reason given");
    let command = p.unpause_command();
    if p.global {
        format!(
            "the global brake holds it (pulled by {who}: {why}): `{command}` lifts it for every workspace"
        )
    } else {
        format!("paused by {who}: {why}; p, then y, lifts it (`{command}`)")
    }
}

/// For the fullest live session (not handed over since it started, or
/// worked on since) at or past `[capacity] warn_at`: hand over now, with its draft (the one the
/// capacity hook saved, else the command that writes one) and the command
/// that hands it over.
fn hand_over_now(ws: &Workspace, live: &[sessions::SessionView]) -> Option<String> {
    let warn = warn_at(ws);
    let low = live
        .iter()
        .filter(|s| s.context_percent.is_some_and(|p| p >= warn))
        .max_by_key(|s| s.context_percent)?;
    let percent = low.context_percent.unwrap_or(warn);
    let agent = &low.agent;
    Some(match &low.draft {
        Some(path) => {
            let path = path.strip_prefix(&ws.root).unwrap_or(path).display();
            format!(
                "hand over now ({agent} at {percent}%): {agent} completes the draft {path} and runs `agent-handover run --note-file {path}` (t jumps to its pane, c writes to it)"
            )
        }
        None => format!(
            "hand over now ({agent} at {percent}%): `agent-handover draft --agent {agent} -o handoff.md` writes a draft; {agent} completes it and runs `agent-handover run --note-file handoff.md` (t jumps to its pane, c writes to it)"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_handover::domain::inbox::NewMessage;
    use agent_handover::engine::pause;
    use agent_handover::read::StateKind;

    #[test]
    fn a_fleet_row_reads_the_state_first_then_the_mail_for_the_human() {
        let dir = tempfile::tempdir().unwrap();
        let gone = row(&dir.path().join("gone"), true);
        assert_eq!((gone.health, gone.details), (Health::Missing, true));

        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(dir.path().join("home")),
            ..Default::default()
        })
        .unwrap();
        let fresh = row(dir.path(), false);
        assert_eq!(
            (fresh.health, fresh.details),
            (Health::Run(StateKind::None), false)
        );
        pause::pause(&ws, false, Some("lunch")).unwrap();
        for to in [HUMAN, HUMAN, "claude"] {
            let message = NewMessage {
                from: "codex".into(),
                to: to.into(),
                subject: None,
                body: "look".into(),
                reply_to: None,
                allow_secret: false,
                allow_empty: false,
            };
            Inbox::new(&ws).send(&message).unwrap();
        }
        let row = row(dir.path(), true);
        assert_eq!(row.health, Health::Run(StateKind::Paused));
        assert!(row.paused() && row.details && row.activity.is_some());
        assert_eq!((row.for_human, row.unread), (2, 1));
    }

    /// Issue 44, item 3: the detail pane has a next action for mail, for
    /// PAUSE (who, why, the key) and for a missing workspace.
    #[test]
    fn the_detail_gives_a_next_action_beyond_the_handover_states() {
        let dir = tempfile::tempdir().unwrap();
        let now = chrono::Utc::now();
        let gone = detail(&dir.path().join("gone"), now);
        assert!(
            gone.next
                .as_deref()
                .is_some_and(|n| n.contains("workspaces forget --missing")),
            "{gone:?}"
        );
        let ws = Workspace::resolve(WorkspaceOptions {
            cwd: Some(dir.path().into()),
            home: Some(dir.path().join("home")),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(detail(dir.path(), now).next, None, "nothing to do");
        pause::pause(&ws, false, Some("reviewing the billing rewrite")).unwrap();
        let next = detail(dir.path(), now).next.unwrap();
        assert!(
            next.starts_with("paused by ")
                && next.ends_with(": reviewing the billing rewrite; p, then y, lifts it (`agent-handover unpause`)"),
            "{next}"
        );
        let message = NewMessage {
            from: "codex".into(),
            to: HUMAN.into(),
            subject: Some("Which currency wins?".into()),
            body: "On a split invoice.".into(),
            reply_to: None,
            allow_secret: false,
            allow_empty: false,
        };
        Inbox::new(&ws).send(&message).unwrap();
        let next = detail(dir.path(), now).next.unwrap();
        assert!(
            next.starts_with("enter opens your queue to answer: from codex")
                && next.ends_with("Which currency wins?"),
            "mail comes before a PAUSE that holds nothing: {next}"
        );
    }
}
