//! A reason typed for an action (optional). Abandoning the handover: the
//! reason, then Enter asks once more and only `y` abandons (a pasted line
//! break never does). Pausing: `p` pauses at once; the reason is asked
//! after, and Enter records it.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::{Line, Span};

use crate::tui::dialog::{
    Dialog, Env, Next, Scroll, View, choices, destructive_choices, pasted, typed,
};
use crate::tui::model::{Action, Shared};

/// What the reason is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Abandon the handover (its record and files are kept).
    Abandon,
    /// Say why automation was just paused.
    Paused,
}

/// A reason being typed for `purpose`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// What it is for.
    pub purpose: Purpose,
    /// Typed so far.
    pub reason: String,
    /// Abandon: the reason is done, and `y` is awaited.
    pub confirming: bool,
}

impl Reason {
    /// Ask for a reason for `purpose`.
    pub fn new(purpose: Purpose) -> Self {
        Reason {
            purpose,
            reason: String::new(),
            confirming: false,
        }
    }

    fn typed_reason(&self) -> Option<String> {
        Some(self.reason.trim().to_string()).filter(|r| !r.is_empty())
    }
}

impl Dialog for Reason {
    fn key(&mut self, key: &KeyEvent, _env: &Env<'_>) -> Next {
        if self.confirming {
            return match key.code {
                KeyCode::Char('y') => Next::Act(Action::Abandon(self.typed_reason())),
                _ => Next::Close,
            };
        }
        match key.code {
            KeyCode::Enter => match self.purpose {
                Purpose::Abandon => {
                    self.confirming = true;
                    Next::Stay
                }
                Purpose::Paused => match self.typed_reason() {
                    Some(reason) => Next::Act(Action::Pause(Some(reason))),
                    None => Next::Close,
                },
            },
            KeyCode::Esc => Next::Close,
            _ => {
                typed(&mut self.reason, key);
                Next::Stay
            }
        }
    }

    fn paste(&mut self, text: &str) -> Option<Next> {
        if self.confirming {
            return None;
        }
        pasted(&mut self.reason, text);
        Some(Next::Stay)
    }

    fn view<'a>(&'a self, env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        let shared = env.shared;
        let (title, intro, choice) = match self.purpose {
            Purpose::Abandon => {
                let run = shared
                    .snapshot()
                    .and_then(|s| s.run_id.clone())
                    .unwrap_or_default();
                let intro =
                    format!("Abandon run {run}? Its record and every file it wrote are kept.");
                let choice = if self.confirming {
                    destructive_choices(shared, "abandon it", "keep it")
                } else {
                    choices(shared, "next", "keep it")
                };
                (" Abandon the handover? ", intro, choice)
            }
            Purpose::Paused => (
                " Paused ",
                "All automation is paused; handovers stay resumable. Why? (optional)".to_string(),
                choices(shared, "save the reason", "no reason"),
            ),
        };
        let mut lines = prompt(shared, intro, &self.reason);
        if self.confirming {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                "Press y to abandon it; any other key keeps it.",
                shared.theme.warn,
            ));
        }
        Some(View {
            title: title.into(),
            lines,
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
