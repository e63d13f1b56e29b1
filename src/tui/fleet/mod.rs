//! The fleet view: several workspaces in one list (`dashboard DIR…`,
//! `dashboard --all`), one row each, with what a supervisor looks at first:
//! the agent, the handover's state, unread mail, the handoff's score and
//! how the previous one served, state drift and the last activity.
//!
//! This module is the pure part: the rows, the selection, the update
//! function and the attention rule ([`alerts`]); [`view`] draws it;
//! [`load`] reads a row, [`runtime`] is its event loop.

pub mod load;
pub mod runtime;
pub mod view;

use std::path::PathBuf;
use std::time::SystemTime;

use agent_handover::domain::handoff::usefulness::Usefulness;
use agent_handover::read::StateKind;
use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

use super::tab::ListFilter;
use super::theme::Theme;

/// A workspace's health, as its row shows it: its run state (the
/// library's [`StateKind`], PAUSE included), or why there is none to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    /// Not read yet.
    Loading,
    /// Its directory is gone.
    Missing,
    /// Its config cannot be read (see the row's error).
    Unreadable,
    /// Its run state.
    Run(StateKind),
}

impl Health {
    /// Its word (a workspace where no handover ever ran: "never").
    pub fn word(self) -> &'static str {
        match self {
            Health::Loading => "…",
            Health::Missing => "missing",
            Health::Unreadable => "unreadable",
            Health::Run(StateKind::None) => "never",
            Health::Run(kind) => kind.word(),
        }
    }

    /// Whether a human should look (drawn as an alert, counted in NEED YOU):
    /// the run state's [`StateKind::needs_attention`], or a broken config.
    pub fn needs_human(self) -> bool {
        match self {
            Health::Run(kind) => kind.needs_attention(),
            Health::Unreadable => true,
            Health::Loading | Health::Missing => false,
        }
    }
}

/// The cheap part of a row: read every second a handover runs, and on
/// every change of the workspace's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The workspace's root.
    pub path: PathBuf,
    /// Its directory name.
    pub name: String,
    /// Its state (the run's word, PAUSE, the queue).
    pub health: Health,
    /// Its run's kind, PAUSE aside (`RunState::own_kind`; `None` when unread).
    pub run: StateKind,
    /// Whether a PAUSE file is present.
    pub paused: bool,
    /// The newest agent its hooks saw start a session.
    pub agent: Option<String>,
    /// Unread messages in the agents' queues and `shared`.
    pub unread: usize,
    /// Unread messages for the supervising human
    /// ([`agent_handover::domain::inbox::HUMAN`]).
    pub for_human: usize,
    /// Whether a merge superseded text of the current state (drift).
    pub drift: bool,
    /// How full the fullest live agent session's context is, in %, when
    /// its agent records it.
    pub context: Option<u8>,
    /// Whether that is at or past `[capacity] warn_at` with no handover
    /// since the session started.
    pub context_low: bool,
    /// The newest change among its state files.
    pub activity: Option<DateTime<Utc>>,
    /// Why it could not be read.
    pub error: Option<String>,
    /// Whether the mail, activity and agent were read (the first frame
    /// shows the states alone).
    pub details: bool,
    /// Its `[dashboard].notify` command.
    pub notify: Option<String>,
    /// The stamps of what its score depends on (the current state, the run
    /// records): the score is read again only when they change.
    pub score_stamp: Vec<Option<(SystemTime, u64)>>,
}

impl Row {
    /// A row not read yet.
    pub fn loading(path: PathBuf) -> Row {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Row {
            path,
            name,
            health: Health::Loading,
            run: StateKind::None,
            paused: false,
            agent: None,
            unread: 0,
            for_human: 0,
            drift: false,
            context: None,
            context_low: false,
            activity: None,
            error: None,
            details: false,
            notify: None,
            score_stamp: Vec::new(),
        }
    }
}

/// The slower part of a row: the handoff's score and how the previous
/// handoff served the session after it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Score {
    /// The current state's lint score (`None`: no current state yet).
    pub score: Option<u8>,
    /// The previous handoff's usefulness, as the newest handover judged it.
    pub outcome: Option<Usefulness>,
}

/// Something a supervisor should know at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    /// Which row.
    pub row: usize,
    /// `interrupted`, `failed`, `paused` or `mail`.
    pub event: &'static str,
    /// One line for the title and the status line.
    pub detail: String,
}

/// What changed between two readings of a row that needs a human:
/// the handover became interrupted or failed, a PAUSE appeared, or mail
/// arrived for the human. Nothing on the first reading (nor for mail on
/// the first reading of the mail).
pub fn alerts(row: usize, old: &Row, new: &Row) -> Vec<Alert> {
    if old.health == Health::Loading {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut say = |event: &'static str, what: String| {
        out.push(Alert {
            row,
            event,
            detail: format!("{}: {what}", new.name),
        });
    };
    if matches!(new.run, StateKind::Interrupted | StateKind::Failed) && new.run != old.run {
        say(new.run.word(), format!("handover {}", new.run.word()));
    }
    if new.paused && !old.paused {
        say("paused", "paused by someone else".into());
    }
    if old.details && new.context_low && !old.context_low {
        say(
            "context",
            format!(
                "an agent's context is {}% full, no handover yet",
                new.context.unwrap_or(0)
            ),
        );
    }
    if old.details && new.for_human > old.for_human {
        let n = new.for_human;
        say(
            "mail",
            format!(
                "{n} unread message{} for you",
                if n == 1 { "" } else { "s" }
            ),
        );
    }
    out
}

/// What the fleet's loop is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetEffect {
    /// Read one row again.
    Reload(usize),
    /// Read every row again.
    ReloadAll,
    /// Open the single-workspace view of a row.
    Open(usize),
    /// Jump to the tmux pane of a row's agent.
    JumpToPane(usize),
    /// Ring, retitle and notify.
    Alert(Alert),
    /// Leave.
    Quit,
}

/// The fleet view's state.
#[derive(Debug)]
pub struct Fleet {
    /// One row per workspace, in the order given.
    pub rows: Vec<Row>,
    /// Scores, per row (`None`: not read yet).
    pub scores: Vec<Option<Score>>,
    /// The selected row.
    pub cursor: usize,
    /// The first row shown.
    pub offset: usize,
    /// Styles.
    pub theme: Theme,
    /// The home directory, shown as `~` in paths.
    pub home: String,
    /// Terminal size.
    pub size: (u16, u16),
    /// Now, for "3m ago".
    pub now: DateTime<Utc>,
    /// Whether the key help is open.
    pub help: bool,
    /// The last status message and when it was said (cleared after
    /// [`super::app::TOAST_FOR`]).
    pub toast: Option<(String, bool, DateTime<Utc>)>,
    /// Set when the loop should exit.
    pub quit: bool,
    /// The row the user just came back from: its next reading raises no
    /// alert (what changed there, such as a PAUSE pulled from its view,
    /// was seen).
    pub quiet: Option<usize>,
    /// Rows shown: those whose name, state or path hold the words typed.
    pub filter: ListFilter,
    /// The `/` filter being typed (it applies as it is typed).
    pub typing: bool,
}

/// The fleet's keys: (keys, footer label, help). The footer, the help and
/// [`Fleet::on_key`] read this one table.
pub const KEYS: &[(&str, &str, &str)] = &[
    ("enter", "open", "open the workspace (esc comes back here)"),
    ("t", "pane", "jump to the agent's tmux pane"),
    ("j/k", "", "move (the arrows, g/G, pageup/pagedown too)"),
    (
        "/",
        "",
        "filter the workspaces: rows holding every word typed (Enter keeps it, Esc clears it)",
    ),
    ("ctrl-r", "", "read every workspace again now"),
    ("?", "help", "this help"),
    ("q", "quit", "quit"),
];

impl Fleet {
    /// A fleet of `dirs`, not read yet.
    pub fn new(dirs: Vec<PathBuf>, theme: Theme, size: (u16, u16), now: DateTime<Utc>) -> Fleet {
        let scores = vec![None; dirs.len()];
        Fleet {
            rows: dirs.into_iter().map(Row::loading).collect(),
            scores,
            cursor: 0,
            offset: 0,
            theme,
            home: std::env::var("HOME").unwrap_or_default(),
            size,
            now,
            help: false,
            toast: None,
            quit: false,
            quiet: None,
            filter: ListFilter::default(),
            typing: false,
        }
    }

    /// The rows listed (indexes into `rows`): those the filter keeps.
    pub fn shown(&self) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|&i| {
                let r = &self.rows[i];
                self.filter.keeps(&format!(
                    "{} {} {}",
                    r.name,
                    r.health.word(),
                    r.path.display()
                ))
            })
            .collect()
    }

    /// Where the selected row is in the list shown.
    fn position(&self) -> usize {
        self.shown()
            .iter()
            .position(|&i| i == self.cursor)
            .unwrap_or(0)
    }

    /// Say something in the status line.
    pub fn say(&mut self, text: impl Into<String>, error: bool) {
        self.toast = Some((text.into(), error, self.now));
    }

    /// Take a new reading of row `i`; returns the alerts it raises.
    pub fn row_loaded(&mut self, i: usize, row: Row) -> Vec<FleetEffect> {
        let Some(old) = self.rows.get_mut(i) else {
            return Vec::new();
        };
        let found = if self.quiet == Some(i) {
            self.quiet = None;
            Vec::new()
        } else {
            alerts(i, old, &row)
        };
        *old = row;
        found.into_iter().map(FleetEffect::Alert).collect()
    }

    /// The clock: relative times tick, old status messages clear, and every
    /// row whose handover runs is read again (a killed owner changes no file).
    pub fn clock(&mut self, now: DateTime<Utc>) -> Vec<FleetEffect> {
        self.now = now;
        if self
            .toast
            .as_ref()
            .is_some_and(|(_, _, at)| now - *at >= super::app::TOAST_FOR)
        {
            self.toast = None;
        }
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.health == Health::Run(StateKind::Running))
            .map(|(i, _)| FleetEffect::Reload(i))
            .collect()
    }

    /// How many rows the list shows at once.
    pub fn page(&self) -> usize {
        view::list_height(self.size).max(1)
    }

    /// Select the row at `position` in the list shown (kept on the list).
    fn select(&mut self, position: usize) {
        let shown = self.shown();
        let at = position.min(shown.len().saturating_sub(1));
        self.cursor = shown.get(at).copied().unwrap_or(0);
        let page = self.page();
        if at < self.offset {
            self.offset = at;
        } else if at >= self.offset + page {
            self.offset = at + 1 - page;
        }
    }

    /// A key while the filter is typed: it applies at once.
    fn on_filter_key(&mut self, key: KeyEvent) {
        let mut text = self.filter.text().to_string();
        match key.code {
            KeyCode::Enter => self.typing = false,
            KeyCode::Esc => {
                self.typing = false;
                text.clear();
            }
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) if !c.is_control() && text.len() < 200 => text.push(c),
            _ => {}
        }
        // The selected workspace stays selected while it is shown.
        self.filter.set(&text);
        self.offset = 0;
        let position = self.position();
        self.select(position);
    }

    /// A key press.
    pub fn on_key(&mut self, key: KeyEvent) -> Vec<FleetEffect> {
        if self.help {
            self.help = false;
            return Vec::new();
        }
        if self.typing {
            self.on_filter_key(key);
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let last = self.shown().len().saturating_sub(1);
        let at = self.position();
        let no_rows = self.shown().is_empty();
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('c') if ctrl => self.quit = true,
            KeyCode::Char('r') if ctrl => return vec![FleetEffect::ReloadAll],
            KeyCode::Char('j') | KeyCode::Down => self.select(at + 1),
            KeyCode::Char('k') | KeyCode::Up => self.select(at.saturating_sub(1)),
            KeyCode::Char('d') if ctrl => self.select(at + self.page()),
            KeyCode::PageDown => self.select(at + self.page()),
            KeyCode::Char('u') if ctrl => self.select(at.saturating_sub(self.page())),
            KeyCode::PageUp => self.select(at.saturating_sub(self.page())),
            KeyCode::Char('g') | KeyCode::Home => self.select(0),
            KeyCode::Char('G') | KeyCode::End => self.select(last),
            KeyCode::Char('?') => self.help = true,
            KeyCode::Char('/') => self.typing = true,
            _ if no_rows => {}
            KeyCode::Char('t') => {
                return vec![FleetEffect::JumpToPane(self.cursor)];
            }
            KeyCode::Enter => match self.rows.get(self.cursor) {
                Some(row) if row.health == Health::Missing => {
                    let text = format!("{} is missing", row.path.display());
                    self.say(text, true);
                }
                Some(_) => return vec![FleetEffect::Open(self.cursor)],
                None => {}
            },
            _ => {}
        }
        if self.quit {
            vec![FleetEffect::Quit]
        } else {
            Vec::new()
        }
    }

    /// A mouse event: a click selects (a click on the selected row opens
    /// it), the wheel moves.
    pub fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<FleetEffect> {
        match mouse.kind {
            MouseEventKind::ScrollDown => self.select(self.position() + 3),
            MouseEventKind::ScrollUp => self.select(self.position().saturating_sub(3)),
            MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
                if let Some(at) = view::row_at(self, mouse.row) {
                    let row = self.shown()[at];
                    if row == self.cursor {
                        return vec![FleetEffect::Open(row)];
                    }
                    self.select(at);
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// The terminal was resized.
    pub fn resize(&mut self, size: (u16, u16)) {
        self.size = size;
        self.select(self.position());
    }
}

#[cfg(test)]
mod tests;
