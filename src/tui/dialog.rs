//! The dialog contract: a dialog is one module in `dialogs/`, a type that
//! owns its state, answers keys ([`Dialog::key`]: what the dashboard does
//! next, a [`Next`]) and says what it shows ([`Dialog::view`]: title, body,
//! choices, scroll), as a tab does for its panel. The app opens one at a
//! time; the view draws any of them the same way.

use std::any::Any;

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};

use super::keys::KeyMap;
use super::model::{Action, Draft, Shared};
use super::tab::Reply;

/// What a dialog reads of the dashboard.
#[derive(Debug, Clone, Copy)]
pub struct Env<'a> {
    /// The data every tab reads (the run, the theme, the screen size).
    pub shared: &'a Shared,
    /// The key map (the help lists it).
    pub keys: &'a KeyMap,
    /// The session's messages, oldest first (time, text, is an error).
    pub log: &'a [(DateTime<Utc>, String, bool)],
    /// The action in progress, if any.
    pub busy: Option<&'a str>,
}

/// What a key in a dialog asks the dashboard to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Stay open.
    Stay,
    /// Close.
    Close,
    /// Close and carry out the action.
    Act(Action),
    /// Close and do what a tab would (compose a reply).
    Reply(Reply),
    /// Stay open; the selected tab's list is filtered by the text.
    Filter(String),
    /// Close; the selected tab's filter is cleared.
    ClearFilter,
    /// Close and send the message (kept until the engine has it).
    Send(Box<Draft>),
    /// Close; the message is kept, not sent, to reopen.
    KeepUnsent(Box<Draft>),
    /// Stay open and say this (an error).
    Say(String),
}

/// Where a dialog's body is scrolled to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scroll {
    /// The first row.
    Top,
    /// This row (never past the last page).
    At(usize),
    /// The end, where the typing is.
    End,
}

/// What a dialog shows.
#[derive(Debug)]
pub struct View<'a> {
    /// Its title, on the frame.
    pub title: String,
    /// Its body.
    pub lines: Vec<Line<'a>>,
    /// Its last row: what Enter and Esc do, drawn whatever the body's length.
    pub choices: Option<Line<'a>>,
    /// Where the body is scrolled to.
    pub scroll: Scroll,
}

/// A dialog over the dashboard.
pub trait Dialog: std::fmt::Debug + Any {
    /// A key while it is open.
    fn key(&mut self, key: &KeyEvent, env: &Env<'_>) -> Next;

    /// What it shows in its box, `width` columns of screen wide (`None`: no
    /// box, see [`Dialog::prompt`]).
    fn view<'a>(&'a self, env: &Env<'a>, width: u16) -> Option<View<'a>>;

    /// A prompt typed in the footer instead of a box (the `/` filter).
    fn prompt(&self) -> Option<&str> {
        None
    }

    /// Pasted text (a bracketed paste) while it is open: what to do, or
    /// `None` when it has no text field (the paste is then ignored, never
    /// read as keys).
    fn paste(&mut self, _text: &str) -> Option<Next> {
        None
    }
}

#[cfg(test)]
impl dyn Dialog {
    /// The dialog as a `T`, if it is one (tests look inside).
    pub fn downcast<T: Dialog>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
}

/// The inner width of a dialog on a screen `columns` wide.
pub fn inner_width(columns: u16) -> usize {
    usize::from(columns.saturating_sub(4).min(84)).saturating_sub(2)
}

/// Where a scrolling key moves a body of `rows` rows scrolled to `scroll`,
/// on a screen `screen_rows` high (`None`: not a scrolling key).
pub fn scrolled(scroll: usize, rows: usize, key: &KeyEvent, screen_rows: u16) -> Option<usize> {
    let page = usize::from(screen_rows.saturating_sub(4)).max(1);
    let last = rows.saturating_sub(page);
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('j') | KeyCode::Down => (scroll + 1).min(last),
        KeyCode::Char('k') | KeyCode::Up => scroll.saturating_sub(1),
        KeyCode::Char('d') if ctrl => (scroll + page).min(last),
        KeyCode::PageDown => (scroll + page).min(last),
        KeyCode::Char('u') if ctrl => scroll.saturating_sub(page),
        KeyCode::PageUp => scroll.saturating_sub(page),
        KeyCode::Char('g') | KeyCode::Home => 0,
        KeyCode::Char('G') | KeyCode::End => last,
        _ => return None,
    })
}

/// A key in a scrolling dialog over a body of `rows` rows: a scrolling key
/// moves `scroll` and the dialog stays; another key closes it when
/// `closes` says so, else is ignored.
pub fn scroll_or_close(
    scroll: &mut usize,
    rows: usize,
    key: &KeyEvent,
    screen_rows: u16,
    closes: impl Fn(&KeyEvent) -> bool,
) -> Next {
    match scrolled(*scroll, rows, key, screen_rows) {
        Some(to) => {
            *scroll = to;
            Next::Stay
        }
        None if closes(key) => Next::Close,
        None => Next::Stay,
    }
}

/// Most bytes a one-line field holds.
const MAX_TYPED: usize = 200;

/// Pasted `pasted` appended to a one-line field: line breaks and other
/// control characters become spaces, and the field keeps at most 200 bytes.
pub fn pasted(text: &mut String, pasted: &str) {
    for c in pasted.chars().map(|c| if c.is_control() { ' ' } else { c }) {
        if text.len() + c.len_utf8() > MAX_TYPED {
            break;
        }
        text.push(c);
    }
}

/// A line being typed into `text` (at most 200 bytes): whether `key` changed it.
pub fn typed(text: &mut String, key: &KeyEvent) -> bool {
    match key.code {
        KeyCode::Char(c) if !c.is_control() && text.len() < MAX_TYPED => {
            text.push(c);
            true
        }
        KeyCode::Backspace => {
            text.pop();
            true
        }
        _ => false,
    }
}

/// A dialog's last line: Enter `confirm`s, Esc `cancel`s.
pub fn choices(shared: &Shared, confirm: &str, cancel: &str) -> Line<'static> {
    keyed_choices(shared, " Enter ", confirm, " Esc ", cancel)
}

/// The choices of a destructive dialog: only `y` does it, and Enter is the
/// safe way out (a pasted line break never confirms).
pub fn destructive_choices(shared: &Shared, confirm: &str, cancel: &str) -> Line<'static> {
    keyed_choices(shared, " y ", confirm, " Enter/Esc ", cancel)
}

fn keyed_choices(
    shared: &Shared,
    yes: &str,
    confirm: &str,
    no: &str,
    cancel: &str,
) -> Line<'static> {
    let t = &shared.theme;
    Line::from(vec![
        Span::styled(yes.to_string(), t.button),
        Span::raw(format!(" {confirm}   ")),
        Span::styled(no.to_string(), t.button),
        Span::raw(format!(" {cancel}")),
    ])
}
