//! The dashboard's actions, carried out by the engine library exactly as the
//! CLI does them (same lock, same PAUSE rules). Runs off the UI thread.

use agent_handover::engine::pause;
use agent_handover::inbox::{Inbox, NewMessage};
use agent_handover::{Engine, Workspace};

use super::model::Action;

/// Carry out `action`; the text says what happened (or what went wrong).
pub fn perform(ws: &Workspace, action: Action) -> Result<String, String> {
    let err = |e: agent_handover::Error| e.to_string();
    match action {
        Action::Resume => {
            let report = Engine::new(ws.clone()).resume().map_err(err)?;
            Ok(format!("resumed: {}", executed(&report.executed)))
        }
        Action::Retry(step) => {
            let report = Engine::new(ws.clone()).retry(&step).map_err(err)?;
            Ok(format!("retried {step}: {}", executed(&report.executed)))
        }
        Action::Abandon(reason) => {
            let cp = Engine::new(ws.clone())
                .abandon(reason.as_deref())
                .map_err(err)?;
            Ok(format!(
                "abandoned {}; its record and files are kept",
                cp.run_id.unwrap_or_default()
            ))
        }
        Action::Pause(reason) => {
            let file = pause::pause(ws, false, reason.as_deref()).map_err(err)?;
            Ok(format!("paused: {}", file.display()))
        }
        Action::Send(draft) => {
            let sent = Inbox::new(ws)
                .send(&NewMessage {
                    from: draft.from.trim().to_string(),
                    to: draft.to.trim().to_string(),
                    subject: Some(draft.subject.trim().to_string()).filter(|s| !s.is_empty()),
                    body: draft.body,
                    reply_to: draft.reply_to,
                    allow_secret: false,
                    allow_empty: false,
                })
                .map_err(err)?;
            Ok(format!("sent {}/{} to {}", sent.queue, sent.id, sent.to))
        }
        Action::MarkRead { agent, id } => {
            Inbox::new(ws)
                .mark_read(&agent, std::slice::from_ref(&id))
                .map_err(err)?;
            Ok(format!("marked read for {agent}"))
        }
        Action::Unpause => {
            pause::unpause(ws, false).map_err(err)?;
            match pause::active_pause(&ws.pause_files()) {
                Some(still) => Err(format!(
                    "still paused by {} (agent-handover unpause --global)",
                    still.file.display()
                )),
                None => Ok("unpaused".into()),
            }
        }
    }
}

fn executed(steps: &[String]) -> String {
    if steps.is_empty() {
        "nothing left to do".into()
    } else {
        format!("ran {}", steps.join(", "))
    }
}
