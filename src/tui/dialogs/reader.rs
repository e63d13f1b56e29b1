//! One message read whole: j/k scroll, `r` answers it, Esc/q/Enter close it.

use agent_handover::domain::inbox::Message;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, inner_width, scroll_or_close};
use crate::tui::tab::Reply;
use crate::tui::tabs::inbox::{answer, reader_rows};
use crate::tui::widgets::fit;

/// One message whole, scrolled down `scroll` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reader {
    /// The message.
    pub message: Box<Message>,
    /// First row shown.
    pub scroll: usize,
}

impl Reader {
    /// `message`, from its top.
    pub fn new(message: Message) -> Self {
        Reader {
            message: Box::new(message),
            scroll: 0,
        }
    }
}

impl Dialog for Reader {
    fn key(&mut self, key: &KeyEvent, env: &Env<'_>) -> Next {
        if key.code == KeyCode::Char('r') {
            return Next::Reply(Reply::Compose(Box::new(answer(&self.message.summary))));
        }
        let rows = reader_rows(&self.message, inner_width(env.shared.size.0)).len();
        scroll_or_close(&mut self.scroll, rows, key, env.shared.size.1, |k| {
            matches!(k.code, KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter)
        })
    }

    fn view<'a>(&'a self, env: &Env<'a>, width: u16) -> Option<View<'a>> {
        let t = &env.shared.theme;
        let rows = reader_rows(&self.message, inner_width(width));
        let header = rows.iter().position(String::is_empty).unwrap_or(0);
        let lines = rows
            .into_iter()
            .enumerate()
            .map(|(i, row)| {
                if i < header {
                    Line::styled(row, t.muted)
                } else {
                    Line::raw(row)
                }
            })
            .collect();
        Some(View {
            title: format!(
                " {} — j/k scroll · r reply · Esc closes ",
                fit(&self.message.summary.subject, 40)
            ),
            lines,
            choices: None,
            scroll: Scroll::At(self.scroll),
        })
    }
}
