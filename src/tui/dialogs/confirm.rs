//! Confirm an action that may repeat or lose work (retrying a step that is
//! not idempotent, unpausing): only `y` does it; Enter, Esc and `n` cancel,
//! so a stray (or pasted) line break never confirms.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, destructive_choices};
use crate::tui::model::{Action, Shared};

/// The action waiting for `y`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// What `y` does.
    pub action: Action,
}

impl Confirm {
    /// Ask before `action`.
    pub fn new(action: Action) -> Self {
        Confirm { action }
    }
}

impl Dialog for Confirm {
    fn key(&mut self, key: &KeyEvent, _env: &Env<'_>) -> Next {
        match key.code {
            KeyCode::Char('y') => Next::Act(self.action.clone()),
            KeyCode::Enter | KeyCode::Esc | KeyCode::Char('n') => Next::Close,
            _ => Next::Stay,
        }
    }

    fn view<'a>(&'a self, env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        let shared = env.shared;
        let (title, lines, choice) = match &self.action {
            Action::Retry(step) => (
                format!(" Retry {step}? "),
                retry_body(shared, step),
                destructive_choices(shared, "retry it", "cancel"),
            ),
            Action::Unpause => {
                let pause = shared.snapshot().and_then(|s| s.paused.as_ref());
                let mut lines = vec![Line::raw(
                    "Automation runs again: handovers may start, resume and publish.",
                )];
                if let Some(p) = pause {
                    let root = format!("{}/", shared.workspace.display());
                    let file = p.file.display().to_string().replace(&root, "");
                    lines.push(Line::raw(format!(
                        "Paused by {file}{}",
                        p.reason
                            .as_ref()
                            .map(|r| format!(": {r}"))
                            .unwrap_or_default()
                    )));
                }
                (
                    " Unpause? ".to_string(),
                    lines,
                    destructive_choices(shared, "unpause", "keep paused"),
                )
            }
            other => (
                format!(" {}? ", other.label()),
                Vec::new(),
                destructive_choices(shared, "go on", "cancel"),
            ),
        };
        Some(View {
            title,
            lines,
            choices: Some(choice),
            scroll: Scroll::Top,
        })
    }
}

/// What retrying `name` may repeat: the step, how a crash is settled, when
/// its last attempt started, and what that attempt left (error, output).
fn retry_body(shared: &Shared, name: &str) -> Vec<Line<'static>> {
    let t = &shared.theme;
    let Some(step) = shared
        .snapshot()
        .and_then(|s| s.steps.iter().find(|s| s.name == name))
    else {
        return vec![Line::raw(format!("Run step {name} again."))];
    };
    let kind = step.kind.clone().unwrap_or_else(|| "0.5.x step".into());
    let mut lines = vec![Line::styled(
        format!(
            "{name} ({kind}) is not idempotent: running it again may repeat what its last attempt already did."
        ),
        t.warn,
    )];
    let when = step
        .started_at
        .map(|at| format!(", started {} ago", crate::tui::widgets::ago(shared, at)))
        .unwrap_or_default();
    lines.push(Line::raw(format!(
        "Attempt {}: {}{when}.",
        step.attempts,
        step.state.as_str()
    )));
    lines.push(Line::raw(
        "Check its effects first (files, commits, messages it may have sent).",
    ));
    let root = format!("{}/", shared.workspace.display());
    let left = [
        step.last_error.as_ref().map(|e| ("error", e)),
        step.output.as_ref().map(|o| ("output", o)),
    ];
    let mut any = false;
    for (label, text) in left.into_iter().flatten() {
        any = true;
        lines.push(Line::raw(""));
        lines.push(Line::styled(format!("Its last {label}:"), t.accent));
        for l in text.replace(&root, "").lines().take(8) {
            lines.push(Line::styled(format!("  {l}"), t.muted));
        }
    }
    if !any {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Its last attempt recorded no output (it was stopped before finishing).",
            t.muted,
        ));
    }
    lines
}
