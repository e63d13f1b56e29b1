//! Reading a fleet row: the workspace at a directory, cheaply (its run
//! state, PAUSE, drift; with details, the mail, the newest session and the
//! last activity), and its score, read apart because linting takes longer.

use std::path::Path;

use agent_handover::agent::hooks::session;
use agent_handover::agent::sessions;
use agent_handover::domain::capacity::warn_at;
use agent_handover::domain::handoff::{LintContext, lint};
use agent_handover::domain::inbox::{HUMAN, Inbox};
use agent_handover::read::RunSnapshot;
use agent_handover::read::history::latest_previous_handoff;
use agent_handover::{MemoryStore, Workspace, WorkspaceOptions};

use super::{Health, Row, Score};
use crate::tui::watch;

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
            row.paused = snap.paused.is_some();
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
    let score = store
        .read_current_state()
        .ok()
        .flatten()
        .map(|text| lint(&text, &LintContext::for_workspace(&ws)).score);
    Score {
        score,
        outcome: latest_previous_handoff(&ws),
    }
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
        assert!(row.paused && row.details && row.activity.is_some());
        assert_eq!((row.for_human, row.unread), (2, 1));
    }
}
