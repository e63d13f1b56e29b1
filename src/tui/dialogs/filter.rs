//! `/`: the selected tab's list filtered as typed, in the footer; Enter
//! keeps it, Esc clears it.

use crossterm::event::{KeyCode, KeyEvent};

use crate::tui::dialog::{Dialog, Env, Next, View, pasted, typed};

/// The filter being typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Typed so far.
    pub text: String,
}

impl Dialog for Filter {
    fn key(&mut self, key: &KeyEvent, _env: &Env<'_>) -> Next {
        match key.code {
            KeyCode::Enter => Next::Close,
            KeyCode::Esc => Next::ClearFilter,
            _ if typed(&mut self.text, key) => Next::Filter(self.text.clone()),
            _ => Next::Stay,
        }
    }

    fn view<'a>(&'a self, _env: &Env<'a>, _width: u16) -> Option<View<'a>> {
        None
    }

    fn prompt(&self) -> Option<&str> {
        Some(&self.text)
    }

    fn paste(&mut self, text: &str) -> Option<Next> {
        pasted(&mut self.text, text);
        Some(Next::Filter(self.text.clone()))
    }
}
