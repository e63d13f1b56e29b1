//! `sessions`: the agent sessions of this workspace, the most recently
//! active first, each with its context use as the agent recorded it.

use agent_handover::Result;
use agent_handover::agent::sessions::{self, SessionView};
use chrono::Utc;
use serde_json::json;

use super::Target;
use super::exit;
use super::output::Output;

/// `sessions [--json]`.
pub fn sessions(target: &Target, out: Output) -> Result<u8> {
    let ws = target.workspace()?;
    let views = sessions::sessions(&ws)?;
    out.emit(&json!({ "sessions": views }), || {
        if views.is_empty() {
            println!(
                "No agent sessions recorded here yet (the session-start hook records them: `agent-handover install AGENT`)."
            );
        }
        for v in &views {
            println!("{}", line(v));
        }
    });
    Ok(exit::OK)
}

/// One session in a line: agent, id, age, context, and what happened.
fn line(v: &SessionView) -> String {
    let id = v.session_id.as_deref().unwrap_or("-");
    let id: String = id.chars().take(12).collect();
    let context = match &v.context {
        Some(c) => c.describe(),
        None => "context unknown".into(),
    };
    let mut notes = Vec::new();
    if v.compactions > 0 {
        notes.push(format!("compacted {}x", v.compactions));
    }
    if v.work_since_handover {
        notes.push("handed over, work since".into());
    } else if v.handed_over {
        notes.push("handed over".into());
    } else if v.asked_at.is_some() {
        notes.push("asked to hand over".into());
    }
    if let Some(draft) = &v.draft {
        notes.push(format!("draft {}", draft.display()));
    }
    format!(
        "{:<9} {:<12} active {} ago  {}{}",
        v.agent,
        id,
        ago(v.last_activity),
        context,
        if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join(", "))
        }
    )
}

/// "4m", "2h", "3d".
fn ago(t: chrono::DateTime<Utc>) -> String {
    let secs = (Utc::now() - t).num_seconds().max(0);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}
