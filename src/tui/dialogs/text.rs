//! A text read whole: a run from the Timeline (Enter), a finding from the
//! Quality view (Enter). Wrapped to the dialog's width, nothing cut;
//! j/k and pages scroll, Esc or q closes.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;

use crate::tui::dialog::{Dialog, Env, Next, Scroll, View, inner_width, scrolled};

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
        match scrolled(self.scroll, rows, key, env.shared.size.1) {
            Some(scroll) => {
                self.scroll = scroll;
                Next::Stay
            }
            None if matches!(key.code, KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter) => {
                Next::Close
            }
            None => Next::Stay,
        }
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

/// `text` cut at words into rows of at most `width` characters (a word
/// longer than a row is cut where the row ends); indentation is kept on
/// the first row.
fn wrap(text: &str, width: usize) -> Vec<String> {
    if text.is_empty() {
        return vec![String::new()];
    }
    let mut rows = Vec::new();
    let mut row = String::new();
    for word in text.split(' ') {
        let fits =
            row.chars().count() + usize::from(!row.is_empty()) + word.chars().count() <= width;
        if !row.is_empty() && !fits {
            rows.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push(' ');
        }
        row.push_str(word);
        while row.chars().count() > width {
            let cut: String = row.chars().take(width).collect();
            row = row.chars().skip(width).collect();
            rows.push(cut);
        }
    }
    rows.push(row);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_and_nothing_is_cut() {
        let rows = wrap(
            "step tests was interrupted while running and is idempotent",
            20,
        );
        assert!(rows.iter().all(|r| r.chars().count() <= 20), "{rows:?}");
        assert_eq!(
            rows.join(" "),
            "step tests was interrupted while running and is idempotent"
        );
        let long = "x".repeat(45);
        assert_eq!(wrap(&long, 20).concat(), long);
    }
}
