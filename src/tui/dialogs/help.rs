//! `?`: every key, scrolled with j/k g/G; any other key closes it.

use ratatui::text::{Line, Span};

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, inner_width, scroll_or_close};
use crate::tui::keys::help_rows;

/// The key help, scrolled down `scroll` rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Help {
    /// First row shown.
    pub scroll: usize,
}

impl Dialog for Help {
    fn key(&mut self, key: &crossterm::event::KeyEvent, env: &Env<'_>) -> Next {
        let rows = help_rows(env.keys, inner_width(env.shared.size.0)).len();
        // Any other key closes it.
        scroll_or_close(&mut self.scroll, rows, key, env.shared.size.1, |_| true)
    }

    fn view<'a>(&'a self, env: &Env<'a>, width: u16) -> Option<View<'a>> {
        let t = &env.shared.theme;
        let lines = help_rows(env.keys, inner_width(width))
            .into_iter()
            .map(|(keys, text)| {
                Line::from(vec![
                    Span::styled(format!("{keys:16}  "), t.accent),
                    Span::raw(text),
                ])
            })
            .collect();
        Some(View {
            title: " Keys — j/k g/G scroll · other keys close ".into(),
            lines,
            choices: None,
            scroll: Scroll::At(self.scroll),
        })
    }
}
