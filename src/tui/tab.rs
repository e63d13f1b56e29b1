//! What a tab is: the [`Tab`] trait every module of `tabs/` implements, the
//! [`Reply`] it gives the dashboard, the [`Cursor`] of its list, and
//! [`Tabs`], the registry's tabs in tab-bar order.
//!
//! A tab owns its state (its cursor and whatever else it remembers), its
//! own keys, its update and its drawing. Everything it reads but does not
//! own comes in as [`Shared`]. Update and drawing stay apart: `update`,
//! `move_cursor`, `clamp`, `reloaded` and `receive` change the tab's state
//! and return what the dashboard should do; `render` only reads.

use std::any::Any;
use std::fmt::Debug;

use agent_handover::read::RunSnapshot;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::command::{Binding, Command, TabId};
use super::model::{Action, Draft, Effect, Event, FullData, LoadRequest, Shared};

/// What a tab asks of the dashboard after a command or an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Not for this tab: the dashboard offers it to the next one.
    Unhandled,
    /// Handled; nothing more to do.
    Handled,
    /// Handled; work for the event loop.
    Effects(Vec<Effect>),
    /// Ask the engine (refused while another action runs).
    Act(Action),
    /// Ask the engine after the user confirms (a dialog says what it may
    /// repeat or lose).
    Confirm(Action),
    /// Open a message to write (a new one, or a reply).
    Compose(Box<Draft>),
    /// Show a text whole, in a scrolling dialog: its title and lines.
    Show(String, Vec<String>),
    /// Tell the user something (in the status line).
    Note(String),
    /// Tell the user something went wrong (in the status line).
    Error(String),
}

/// The selected row of a list: moved by keys and the mouse wheel, and kept
/// on the list when it shrinks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor(usize);

impl Cursor {
    /// The selected row.
    pub fn row(self) -> usize {
        self.0
    }

    /// Move by `delta` rows, staying on a list of `rows`.
    pub fn move_by(&mut self, delta: isize, rows: usize) {
        self.0 = shifted(self.0, delta, rows);
    }

    /// Select row `row`.
    pub fn set(&mut self, row: usize) {
        self.0 = row;
    }

    /// Stay on a list of `rows` (after a reload).
    pub fn clamp(&mut self, rows: usize) {
        self.move_by(0, rows);
    }
}

/// A `/` filter over a list: the rows whose text holds every word typed,
/// in any case. Empty, it keeps every row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter(String);

impl ListFilter {
    /// What was typed.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// Filter by `text` from now on (empty: no filter).
    pub fn set(&mut self, text: &str) {
        self.0 = text.to_string();
    }

    /// Whether `row` (a row's searchable text) is kept.
    pub fn keeps(&self, row: &str) -> bool {
        let row = row.to_lowercase();
        self.0
            .split_whitespace()
            .all(|word| row.contains(&word.to_lowercase()))
    }

    /// `" filter: …"` for a list's title, or nothing without a filter.
    pub fn title(&self) -> String {
        if self.0.trim().is_empty() {
            String::new()
        } else {
            format!(" /{}", self.0.trim())
        }
    }
}

/// Row `at` moved by `delta`, kept within `0..rows` (0 when there are none).
pub fn shifted(at: usize, delta: isize, rows: usize) -> usize {
    at.saturating_add_signed(delta).min(rows.saturating_sub(1))
}

/// One tab of the dashboard. Register it in `tabs/mod.rs`; its number key,
/// its tab-bar entry and its rows in the help and footer follow from there.
pub trait Tab: Any + Debug {
    /// Its id, which is its title.
    fn id(&self) -> TabId;

    /// The keys that apply only while it is selected, in help order (their
    /// `[dashboard.keys]` names must be unique across the table).
    fn bindings(&self) -> &'static [Binding] {
        &[]
    }

    /// Whether the wide layout shows it as the sidebar, beside every other
    /// tab, instead of on the tab bar.
    fn is_sidebar_when_wide(&self) -> bool {
        false
    }

    /// Whether the wide layout leaves out the sidebar while it is selected
    /// (a tab that needs the whole width, like a diff).
    fn hides_sidebar(&self) -> bool {
        false
    }

    /// Carry out `command`: its own bindings' commands while `selected`, and
    /// any global command the dashboard leaves to the tabs (the selected tab
    /// is asked first).
    fn update(&mut self, _command: Command, _shared: &Shared, _selected: bool) -> Reply {
        Reply::Unhandled
    }

    /// Take a background result meant for a tab (such as a computed diff).
    fn receive(&mut self, _event: &Event) -> Reply {
        Reply::Unhandled
    }

    /// What to read for what it shows now and has not asked for yet (the
    /// inbox: the selected message whole, for its preview); asked after
    /// every event, each thing once.
    fn wants(&mut self, _shared: &Shared) -> Vec<Effect> {
        Vec::new()
    }

    /// The selected item's text, for `y` to copy.
    fn copy_text(&self, _shared: &Shared) -> Option<String> {
        None
    }

    /// The `/` filter of its list, if it has one to filter.
    fn filter_mut(&mut self) -> Option<&mut ListFilter> {
        None
    }

    /// The cursor of its list.
    fn cursor_mut(&mut self) -> &mut Cursor;

    /// How many rows its list has.
    fn rows(&self, shared: &Shared) -> usize;

    /// Move its selection by `delta` rows (keys, mouse wheel).
    fn move_cursor(&mut self, delta: isize, shared: &Shared) {
        let rows = self.rows(shared);
        self.cursor_mut().move_by(delta, rows);
    }

    /// The mouse wheel turned by `delta` rows at `at` (column, row) over its
    /// `area`: by default its selection moves.
    fn wheel(&mut self, delta: isize, _at: (u16, u16), _area: Rect, shared: &Shared) {
        self.move_cursor(delta, shared);
    }

    /// Keep its selection on its list after a reload.
    fn clamp(&mut self, shared: &Shared) {
        let rows = self.rows(shared);
        self.cursor_mut().clamp(rows);
    }

    /// React to new background data (`previous` is what it replaced).
    fn reloaded(&mut self, _previous: &FullData, _shared: &Shared) -> Vec<Effect> {
        Vec::new()
    }

    /// React to a new run snapshot (`previous` is what it replaced): keep
    /// the selection on the same item.
    fn run_reloaded(&mut self, _previous: Option<&RunSnapshot>, _shared: &Shared) {}

    /// Add what it needs to the next background load.
    fn add_to_load(&self, _request: &mut LoadRequest) {}

    /// Its clickable buttons, in order: (command, label).
    fn buttons(&self, _shared: &Shared) -> Vec<(Command, &'static str)> {
        Vec::new()
    }

    /// Draw it into `area`; `selected` is false when it is drawn as the
    /// sidebar while another tab is selected.
    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, selected: bool);
}

/// The registry's tabs, in tab-bar order.
#[derive(Debug)]
pub struct Tabs(Vec<Box<dyn Tab>>);

impl Tabs {
    /// `tabs`, in tab-bar order.
    pub fn new(tabs: Vec<Box<dyn Tab>>) -> Self {
        Tabs(tabs)
    }

    /// Every tab, in order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Tab> {
        self.0.iter().map(|t| t.as_ref())
    }

    /// Every tab, in order, to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut dyn Tab> {
        self.0.iter_mut().map(|t| t.as_mut())
    }

    /// The tab `id`. Panics when none has it: ids come from the registry.
    pub fn get(&self, id: TabId) -> &dyn Tab {
        self.iter()
            .find(|t| t.id() == id)
            .unwrap_or_else(|| panic!("no tab {id:?} is registered"))
    }

    /// The tab `id`, to change. Panics when none has it.
    pub fn get_mut(&mut self, id: TabId) -> &mut dyn Tab {
        self.iter_mut()
            .find(|t| t.id() == id)
            .unwrap_or_else(|| panic!("no tab {id:?} is registered"))
    }

    /// The tabs on the tab bar: all of them at every width, so a number key
    /// always means the same tab (the sidebar's tab, selected, takes the
    /// whole width).
    pub fn on_bar(&self) -> Vec<TabId> {
        self.iter().map(|t| t.id()).collect()
    }

    /// The tab to start on: the first one not already on screen as the sidebar.
    pub fn first(&self, wide: bool) -> TabId {
        self.iter()
            .find(|t| !(wide && t.is_sidebar_when_wide()))
            .map_or_else(|| self.on_bar()[0], |t| t.id())
    }

    /// The tab drawn as the sidebar, if `wide` and the `selected` one is
    /// another that leaves room for it.
    pub fn sidebar(&self, wide: bool, selected: TabId) -> Option<&dyn Tab> {
        if self.get(selected).hides_sidebar() {
            return None;
        }
        self.iter()
            .find(|t| wide && t.is_sidebar_when_wide() && t.id() != selected)
    }
}
