//! A message being written: Tab moves between fields, ctrl-s sends (through
//! the engine's `inbox send`), Esc closes it, kept to reopen.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View};
use crate::tui::model::{Draft, DraftField, Shared};

/// Longest field of a message written in the dashboard, in bytes (a body
/// longer than this belongs in a file: `inbox send --body-file`).
const MAX_DRAFT: usize = 64 * 1024;

/// The message being written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compose {
    /// Its fields, and the one being typed into.
    pub draft: Box<Draft>,
}

impl Compose {
    /// Write `draft`.
    pub fn new(draft: Box<Draft>) -> Self {
        Compose { draft }
    }
}

impl Dialog for Compose {
    fn key(&mut self, key: &KeyEvent, env: &Env<'_>) -> Next {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let draft = &mut self.draft;
        match key.code {
            // Another action runs: the message stays open, nothing is lost.
            KeyCode::Char('s') if ctrl && env.busy.is_some() => {
                let busy = env.busy.unwrap_or_default();
                return Next::Say(format!("busy: {busy}; ctrl-s again when it is done"));
            }
            KeyCode::Char('s') if ctrl => return Next::Send(draft.clone()),
            KeyCode::Esc if draft.is_blank() => return Next::Close,
            KeyCode::Esc => return Next::KeepUnsent(draft.clone()),
            KeyCode::Tab => draft.next_field(true),
            KeyCode::BackTab => draft.next_field(false),
            KeyCode::Enter if draft.field == DraftField::Body => draft.body.push('\n'),
            KeyCode::Enter => draft.next_field(true),
            KeyCode::Backspace => {
                draft.field_mut().pop();
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() && draft.field_mut().len() < MAX_DRAFT => {
                draft.field_mut().push(c);
            }
            _ => {}
        }
        Next::Stay
    }

    fn paste(&mut self, text: &str) -> Option<Next> {
        // The body keeps the pasted lines; a one-line field gets one line,
        // each line break a space. A terminal may send a line break as CR
        // (tmux pastes so) or CR LF: one line break each.
        let body = self.draft.field == DraftField::Body;
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let field = self.draft.field_mut();
        for c in text.chars() {
            let c = match c {
                '\n' if body => '\n',
                c if c.is_control() => ' ',
                c => c,
            };
            if field.len() + c.len_utf8() > MAX_DRAFT {
                break;
            }
            field.push(c);
        }
        Some(Next::Stay)
    }

    fn view<'a>(&'a self, env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        let t = &env.shared.theme;
        Some(View {
            title: if self.draft.reply_to.is_some() {
                " Reply ".into()
            } else {
                " New message ".into()
            },
            lines: body(env.shared, &self.draft),
            choices: Some(Line::from(vec![
                Span::styled(" ctrl-s ", t.button),
                Span::raw(" send   "),
                Span::styled(" Tab ", t.button),
                Span::raw(" next field   "),
                Span::styled(" Esc ", t.button),
                Span::raw(" close (kept)"),
            ])),
            // The end of a long body, where the typing is.
            scroll: Scroll::End,
        })
    }
}

/// The fields of a message being written, the one typed into marked and
/// ending in a cursor.
fn body(shared: &Shared, draft: &Draft) -> Vec<Line<'static>> {
    let t = &shared.theme;
    let mut lines = Vec::new();
    if let Some(answers) = &draft.reply_to {
        lines.push(Line::styled(format!("answers: {answers}"), t.muted));
    }
    for field in DraftField::ALL {
        let active = field == draft.field;
        let (mark, label_style) = if active {
            ("▸", t.accent)
        } else {
            (" ", t.muted)
        };
        let text = match field {
            DraftField::To => &draft.to,
            DraftField::From => &draft.from,
            DraftField::Subject => &draft.subject,
            DraftField::Body => &draft.body,
        };
        let label = Span::styled(format!("{mark}{:<8} ", field.label()), label_style);
        let cursor = || Span::styled("▏", t.accent);
        if field == DraftField::Body {
            lines.push(Line::from(label));
            let mut body: Vec<Line<'static>> = text
                .split('\n')
                .map(|l| Line::raw(format!("  {l}")))
                .collect();
            if active && let Some(last) = body.last_mut() {
                last.push_span(cursor());
            }
            lines.extend(body);
        } else {
            let mut spans = vec![label, Span::raw(text.clone())];
            if active {
                spans.push(cursor());
            }
            lines.push(Line::from(spans));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 44, item 4: a line break pasted as CR (as tmux pastes) or CR
    /// LF is a space in a one-line field and a line break in the body.
    #[test]
    fn a_pasted_cr_is_a_space_on_one_line_and_a_line_break_in_the_body() {
        let mut compose = Compose::new(Box::new(Draft {
            field: DraftField::Subject,
            ..Draft::default()
        }));
        compose.paste("please abandon\rthen y");
        assert_eq!(compose.draft.subject, "please abandon then y");
        compose.draft.field = DraftField::Body;
        compose.paste("line one\rline two\r\nline three\n");
        assert_eq!(compose.draft.body, "line one\nline two\nline three\n");
    }
}
