//! The dashboard's actions, carried out by the engine library exactly as the
//! CLI does them (same lock, same PAUSE rules). Runs off the UI thread.

use agent_handover::Workspace;
use agent_handover::agent::hooks::session;
use agent_handover::domain::inbox::{Inbox, NewMessage};
use agent_handover::engine::pause;
use agent_handover::ops::handover;

use super::model::Action;

/// Carry out `action`; the text says what happened (or what went wrong).
pub fn perform(ws: &Workspace, action: Action) -> Result<String, String> {
    let err = |e: agent_handover::Error| e.to_string();
    match action {
        Action::Resume => {
            let report = handover::resume(ws).map_err(err)?;
            Ok(format!("resumed: {}", executed(&report.executed)))
        }
        Action::Retry(step) => {
            let report = handover::retry(ws, &step).map_err(err)?;
            Ok(format!("retried {step}: {}", executed(&report.executed)))
        }
        Action::Abandon(reason) => {
            let cp = handover::abandon(ws, reason.as_deref()).map_err(err)?;
            Ok(format!(
                "abandoned {}; its record and files are kept",
                cp.run_id.unwrap_or_default()
            ))
        }
        Action::Pause(reason) => {
            let file = pause::pause(ws, false, reason.as_deref()).map_err(err)?;
            // Named as the workspace sees it: `.agent-handover/PAUSE`.
            let shown = file.strip_prefix(&ws.root).unwrap_or(&file);
            Ok(format!("paused: {}", shown.display()))
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
        Action::JumpToPane => jump_to_pane(ws),
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

/// Make the tmux pane of the agent working in `ws` the current one: the
/// pane of the newest session whose start hook recorded `$TMUX_PANE`
/// (`tmux switch-client` when inside tmux, then `select-window` and
/// `select-pane`).
pub fn jump_to_pane(ws: &Workspace) -> Result<String, String> {
    let Some(record) = session::newest(ws, |r| r.tmux_pane.is_some()) else {
        return Err(format!(
            "no tmux pane known for {}: an agent's session-start hook records $TMUX_PANE when it runs in tmux",
            ws.root.display()
        ));
    };
    let pane = record.tmux_pane.unwrap_or_default();
    let tmux = |verb: &str| {
        std::process::Command::new("tmux")
            .args([verb, "-t", &pane])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("tmux: {e}"))
    };
    if std::env::var_os("TMUX").is_some() {
        // Another session's pane: move this client there first (best effort).
        let _ = tmux("switch-client");
    }
    for verb in ["select-window", "select-pane"] {
        let out = tmux(verb)?;
        if !out.status.success() {
            return Err(format!(
                "tmux {verb} -t {pane}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    Ok(format!("{}'s pane {pane} selected", record.agent))
}

fn executed(steps: &[String]) -> String {
    if steps.is_empty() {
        "nothing left to do".into()
    } else {
        format!("ran {}", steps.join(", "))
    }
}
