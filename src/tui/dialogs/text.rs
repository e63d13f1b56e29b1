//! A text read whole: a run from the Timeline (Enter), a finding from the
//! Quality view (Enter). Wrapped to the dialog's width, nothing cut;
//! j/k and pages scroll, Esc or q closes.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, inner_width, scroll_or_close};
use crate::tui::widgets::wrap;

/// A titled text, scrolled down `scroll` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    /// What it is.
    pub title: String,
    /// Its lines, as written (wrapped when drawn).
    pub lines: Vec<String>,
    /// First row shown.
    pub scroll: usize,
}

impl Text {
    /// `lines` under `title`, from the top.
    pub fn new(title: impl Into<String>, lines: Vec<String>) -> Self {
        Text {
            title: title.into(),
            lines,
            scroll: 0,
        }
    }

    /// The rows on a screen `columns` wide: each line wrapped at words.
    fn rows(&self, columns: u16) -> Vec<String> {
        let width = inner_width(columns).max(10);
        self.lines.iter().flat_map(|l| wrap(l, width)).collect()
    }
}

impl Dialog for Text {
    fn key(&mut self, key: &KeyEvent, env: &Env<'_>) -> Next {
        let rows = self.rows(env.shared.size.0).len();
        scroll_or_close(&mut self.scroll, rows, key, env.shared.size.1, |k| {
            matches!(k.code, KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter)
        })
    }

    fn view<'a>(&'a self, env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        let lines = self
            .rows(env.shared.size.0)
            .into_iter()
            .map(Line::raw)
            .collect();
        Some(View {
            title: format!(" {} — j/k scroll · Esc closes ", self.title),
            lines,
            choices: None,
            scroll: Scroll::At(self.scroll),
        })
    }
}
