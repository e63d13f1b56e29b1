//! `L`: the session's status messages, scrolled; Esc, q or L closes it.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, scroll_or_close};

/// The message log, scrolled down `scroll` rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Log {
    /// First row shown.
    pub scroll: usize,
}

impl Dialog for Log {
    fn key(&mut self, key: &KeyEvent, env: &Env<'_>) -> Next {
        let (rows, height) = (env.log.len(), env.shared.size.1);
        scroll_or_close(&mut self.scroll, rows, key, height, |k| {
            matches!(k.code, KeyCode::Esc | KeyCode::Char('q' | 'L'))
        })
    }

    fn view<'a>(&'a self, env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        let t = &env.shared.theme;
        let lines: Vec<Line<'_>> = if env.log.is_empty() {
            vec![Line::styled("No messages yet.", t.muted)]
        } else {
            env.log
                .iter()
                .map(|(at, text, error)| {
                    let style = if *error { t.error } else { Style::new() };
                    Line::from(vec![
                        Span::styled(format!("{} ", at.format("%H:%M:%S")), t.muted),
                        Span::styled(text.clone(), style),
                    ])
                })
                .collect()
        };
        Some(View {
            title: format!(" Messages ({}) — j/k scroll · Esc closes ", env.log.len()),
            lines,
            choices: None,
            scroll: Scroll::At(self.scroll),
        })
    }
}
