//! A reason typed before an action (optional): abandoning the handover,
//! pausing all automation. Enter does it, Esc cancels.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, choices, typed};
use crate::tui::model::{Action, Shared};

/// What the reason is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Abandon the handover (its record and files are kept).
    Abandon,
    /// Pause all automation.
    Pause,
}

/// A reason being typed for `purpose`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// What Enter does.
    pub purpose: Purpose,
    /// Typed so far.
    pub reason: String,
}

impl Reason {
    /// Ask for a reason before `purpose`.
    pub fn new(purpose: Purpose) -> Self {
        Reason {
            purpose,
            reason: String::new(),
        }
    }
}

impl Dialog for Reason {
    fn key(&mut self, key: &KeyEvent, _env: &Env<'_>) -> Next {
        match key.code {
            KeyCode::Enter => {
                let reason = Some(self.reason.trim().to_string()).filter(|r| !r.is_empty());
                Next::Act(match self.purpose {
                    Purpose::Abandon => Action::Abandon(reason),
                    Purpose::Pause => Action::Pause(reason),
                })
            }
            KeyCode::Esc => Next::Close,
            _ => {
                typed(&mut self.reason, key);
                Next::Stay
            }
        }
    }

    fn view<'a>(&'a self, env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        let shared = env.shared;
        let (title, intro, choice) = match self.purpose {
            Purpose::Abandon => {
                let run = shared
                    .snapshot()
                    .and_then(|s| s.run_id.clone())
                    .unwrap_or_default();
                (
                    " Abandon the handover? ",
                    format!("Abandon run {run}? Its record and every file it wrote are kept."),
                    choices(shared, "abandon", "keep it"),
                )
            }
            Purpose::Pause => (
                " Pause all automation ",
                "Nothing runs until you unpause; handovers stay resumable.".to_string(),
                choices(shared, "pause", "cancel"),
            ),
        };
        Some(View {
            title: title.into(),
            lines: prompt(shared, intro, &self.reason),
            choices: Some(choice),
            scroll: Scroll::Top,
        })
    }
}

/// The body: what it does, then the reason as typed, with a cursor.
fn prompt(shared: &Shared, intro: String, reason: &str) -> Vec<Line<'static>> {
    vec![
        Line::raw(intro),
        Line::raw(""),
        Line::from(vec![
            Span::raw("Reason (optional): "),
            Span::styled(format!("{reason}_"), shared.theme.accent),
        ]),
    ]
}
