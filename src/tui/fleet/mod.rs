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
use agent_handover::engine::pause::PauseInfo;
use agent_handover::read::StateKind;
use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

use super::model::Action;
use super::tab::ListFilter;
use super::theme::Theme;
use super::widgets::ago_at;

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
    /// Whether the next action is a human's decision (retry or abandon a
    /// step that may have taken effect, repair a file, upgrade).
    pub needs_decision: bool,
    /// The PAUSE file that holds it, if one is present (the project's
    /// first, then the global brake).
    pub pause: Option<PauseInfo>,
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

/// The reason the fleet writes into the PAUSE files it pulls (`p`, `P`):
/// the file itself records that the supervisor's fleet set it, so
/// unpause-all lifts those alone, whenever the fleet was started.
pub const FLEET_PAUSE: &str = "paused from the fleet view";

impl Row {
    /// Whether a PAUSE holds it.
    pub fn paused(&self) -> bool {
        self.pause.is_some()
    }

    /// Whether the fleet itself paused it (its own PAUSE file, with the
    /// fleet's reason): nothing to alert or to count as needing you.
    pub fn paused_by_fleet(&self) -> bool {
        self.pause
            .as_ref()
            .is_some_and(|p| !p.global && p.reason.as_deref() == Some(FLEET_PAUSE))
    }

    /// Whether only the global brake holds it.
    pub fn held_by_global(&self) -> bool {
        self.pause.as_ref().is_some_and(|p| p.global)
    }

    /// Whether it counts in NEED YOU: its health needs a human, unless all
    /// it needs is the lifting of a PAUSE the fleet pulled or of the global
    /// brake (which the header shows once); or its agent's context runs low.
    pub fn needs_you(&self) -> bool {
        let held = self.paused_by_fleet() || self.held_by_global();
        let stopped = matches!(
            self.run,
            StateKind::Interrupted | StateKind::Failed | StateKind::Unreadable
        ) || self.needs_decision;
        (self.health.needs_human() && (stopped || !held)) || self.context_low
    }

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
            needs_decision: false,
            pause: None,
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
    /// Whether that score rests on few signals (shown as `64?`).
    pub low_confidence: bool,
    /// The previous handoff's usefulness, as the newest handover judged it.
    pub outcome: Option<Usefulness>,
}

/// What the detail pane says of the selected row (read for it alone, by
/// [`load::detail`]); every field in the library's words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Detail {
    /// The workspace it describes.
    pub path: PathBuf,
    /// The run's state in a sentence.
    pub state: String,
    /// The one thing to do about it, when something is to be done.
    pub next: Option<String>,
    /// The step in progress or the one that stopped it, with its error.
    pub step: Option<String>,
    /// The last lines that step printed.
    pub output: Vec<String>,
    /// The next step its current state names.
    pub next_step: Option<String>,
    /// The repository's other workstreams (the memory on its ref), each
    /// `branch: next step`, newest first.
    pub workstreams: Vec<String>,
    /// The newest unread message for the human.
    pub for_human: Option<String>,
    /// PAUSE: its reason and who paused.
    pub pause: Option<String>,
    /// Its score and the finding that costs most.
    pub score: Option<String>,
    /// How useful the handoff before it turned out, and the verdict of the
    /// session that used it.
    pub outcome: Option<String>,
    /// Superseded text, with the command that shows it.
    pub drift: Vec<String>,
    /// Each live agent session: its context, compactions, handover.
    pub sessions: Vec<String>,
    /// How long ago the last handover completed.
    pub last_handover: Option<String>,
}

/// How the rows are ordered (`s` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// What needs a human first ([`urgency`]).
    #[default]
    Urgency,
    /// By name.
    Name,
    /// Most recently active first.
    Seen,
    /// Lowest score first.
    Score,
    /// Fullest context first.
    Context,
}

impl Sort {
    /// The next order.
    pub fn next(self) -> Sort {
        match self {
            Sort::Urgency => Sort::Name,
            Sort::Name => Sort::Seen,
            Sort::Seen => Sort::Score,
            Sort::Score => Sort::Context,
            Sort::Context => Sort::Urgency,
        }
    }

    /// Its name in the header.
    pub fn word(self) -> &'static str {
        match self {
            Sort::Urgency => "urgency",
            Sort::Name => "name",
            Sort::Seen => "last seen",
            Sort::Score => "score",
            Sort::Context => "context",
        }
    }
}

/// How urgently a row wants a human, most urgent 0: a decision (a step
/// that may have taken effect, a failed step, a file that cannot be read),
/// an interrupted handover, mail for the human, a context running low,
/// PAUSE, a queue, a handover running, idle, missing.
pub fn urgency(row: &Row) -> u8 {
    match row.health {
        _ if row.needs_decision => 0,
        Health::Unreadable | Health::Run(StateKind::Failed | StateKind::Unreadable) => 0,
        _ if row.run == StateKind::Interrupted => 1,
        _ if row.for_human > 0 => 2,
        _ if row.context_low => 3,
        Health::Run(StateKind::Paused) => 4,
        Health::Run(StateKind::Queued) => 5,
        Health::Run(StateKind::Running) => 6,
        Health::Missing => 8,
        _ => 7,
    }
}

/// An action on a row that waits for `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    /// The rows it acts on.
    pub rows: Vec<usize>,
    /// What it does to each.
    pub action: Action,
    /// The question, naming what is lost or repeated.
    pub question: String,
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
    if let Some(p) = &new.pause
        && !old.paused()
        && !p.global
        && !new.paused_by_fleet()
    {
        say(
            "paused",
            format!("paused by someone else: {}", said_pause(p)),
        );
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

/// A PAUSE's reason and who pulled it, in a few words.
pub fn said_pause(p: &PauseInfo) -> String {
    let reason = p.reason.as_deref().unwrap_or("no reason given");
    match &p.by {
        Some(by) => format!("{reason} ({by})"),
        None => reason.to_string(),
    }
}

/// What a second passing changes: whether the screen shows something else
/// now (a "seen" time moved on, a message expired), and the rows to read
/// again (those whose handover runs).
#[derive(Debug, PartialEq, Eq)]
pub struct Tick {
    /// Draw again: something shown depends on the time and changed.
    pub redraw: bool,
    /// Rows to read again.
    pub reread: Vec<FleetEffect>,
}

/// How long ago a row was last active, as its "seen" column says it:
/// "<1m" under a minute, so that a fleet left alone draws again once a
/// minute at most, not every second ("12s", "13s", ...).
pub fn seen(now: DateTime<Utc>, at: DateTime<Utc>) -> String {
    if now - at < chrono::Duration::minutes(1) {
        "<1m".into()
    } else {
        ago_at(now, at)
    }
}

/// What the fleet's loop is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetEffect {
    /// Read one row again.
    Reload(usize),
    /// Read every row again.
    ReloadAll,
    /// Open the single-workspace view of a row, where it matters.
    Open(usize, Focus),
    /// Carry out an action on a row's workspace (as the CLI would).
    Act(usize, Action),
    /// Jump to the tmux pane of a row's agent.
    JumpToPane(usize),
    /// Ring, retitle and notify.
    Alert(Alert),
    /// Leave.
    Quit,
}

/// Where a drilled-in workspace opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// Its first tab.
    Overview,
    /// The human's queue (it has unread mail).
    HumanQueue,
    /// A new message to its agent.
    WriteToAgent,
}

/// Whether `r` resumes this row: its handover stopped with steps left (or a
/// step failed) and no PAUSE holds it.
pub fn resumable(row: &Row) -> bool {
    matches!(row.run, StateKind::Interrupted | StateKind::Failed)
        && !row.paused()
        && !row.needs_decision
}

/// The PAUSE the fleet pulls on a row: its own reason, so it is known as
/// the fleet's.
fn pause_here() -> Action {
    Action::Pause(Some(FLEET_PAUSE.into()))
}

/// Whether `a` can abandon this row's handover: one is in progress.
pub fn abandonable(row: &Row) -> bool {
    matches!(
        row.run,
        StateKind::Interrupted | StateKind::Failed | StateKind::Queued
    )
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
    /// How far it is scrolled.
    pub help_scroll: usize,
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
    /// How the rows are ordered.
    pub sort: Sort,
    /// The action waiting for `y`.
    pub confirm: Option<Confirm>,
    /// What the detail pane shows (of the selected row, once read).
    pub detail: Option<Detail>,
    /// Set when the selected row changed or was read again: the loop reads
    /// its detail.
    pub detail_stale: bool,
    /// Whether the user chose a row (moved, clicked): until then the
    /// selection follows the most urgent row as the rows are read.
    pub chosen: bool,
    /// The global brake, when it is pulled (`~/.agent_handover/PAUSE`,
    /// looked at four times a second): it holds every row.
    pub global: Option<PauseInfo>,
}

/// The fleet's keys: (keys, footer label, help). The footer, the help and
/// [`Fleet::on_key`] read this one table.
pub const KEYS: &[(&str, &str, &str)] = &[
    (
        "enter",
        "",
        "open the workspace: your queue when it has mail for you (esc or q come back here)",
    ),
    (
        "p",
        "",
        "pause the selected workspace at once; on a paused one, unpause (asks for y)",
    ),
    (
        "P",
        "",
        "pause every workspace listed; when all are paused, unpause those the fleet paused (asks for y; names the others' pauses it leaves)",
    ),
    (
        "r",
        "",
        "resume its interrupted handover (done steps are not redone)",
    ),
    (
        "a",
        "",
        "abandon its handover (asks for y; its record and files are kept)",
    ),
    ("c", "", "write a message to its agent"),
    (
        "s",
        "sort",
        "sort by urgency, name, last seen, score, context",
    ),
    ("t", "pane", "jump to the agent's tmux pane"),
    ("j/k", "", "move (the arrows, g/G, pageup/pagedown too)"),
    (
        "/",
        "",
        "filter the workspaces: rows holding every word typed (Enter keeps it, Esc clears it)",
    ),
    ("ctrl-r", "", "read every workspace again now"),
    ("?", "help", "this help: keys, columns and states"),
    ("q", "quit", "quit"),
];

/// What each column means, for the help.
pub const COLUMNS: &[(&str, &str)] = &[
    (
        "state",
        "the last handover: running, interrupted, failed, queued, paused, completed, abandoned, never (none ran), missing (directory gone)",
    ),
    ("you", "unread messages for you (the human's queue)"),
    ("mail", "unread messages between agents"),
    (
        "seen",
        "time since any of its handover files changed (<1m: within the minute)",
    ),
    (
        "score",
        "the current state's quality score, 0-100 (`lint` explains it)",
    ),
    (
        "context",
        "the fullest live agent session's context: red at [capacity] warn_at with no handover since",
    ),
    ("agent", "the agent whose session started last"),
    (
        "outcome",
        "how useful the previous handoff proved, 0-100; ✓ its next step was acted on, ✗ not",
    ),
    (
        "drift",
        "a merge superseded text of the current state or identity",
    ),
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
            help_scroll: 0,
            toast: None,
            quit: false,
            quiet: None,
            filter: ListFilter::default(),
            typing: false,
            sort: Sort::default(),
            confirm: None,
            detail: None,
            detail_stale: true,
            chosen: false,
            global: None,
        }
    }

    /// List `dirs` now (the registry changed): rows and scores already read
    /// are kept for the directories still listed, the selection stays on
    /// its workspace when it is still there.
    pub fn set_dirs(&mut self, dirs: Vec<PathBuf>) {
        let selected = self.rows.get(self.cursor).map(|r| r.path.clone());
        let mut rows = Vec::with_capacity(dirs.len());
        let mut scores = Vec::with_capacity(dirs.len());
        for dir in dirs {
            match self.rows.iter().position(|r| r.path == dir) {
                Some(at) => {
                    rows.push(self.rows[at].clone());
                    scores.push(self.scores[at].clone());
                }
                None => {
                    rows.push(Row::loading(dir));
                    scores.push(None);
                }
            }
        }
        self.rows = rows;
        self.scores = scores;
        self.quiet = None;
        self.cursor = selected
            .and_then(|p| self.rows.iter().position(|r| r.path == p))
            .unwrap_or(0);
        self.offset = 0;
        let position = self.position();
        self.select(position);
        self.detail_stale = true;
    }

    /// The rows listed (indexes into `rows`): those the filter keeps, in
    /// the chosen order (ties by name).
    pub fn shown(&self) -> Vec<usize> {
        let mut shown: Vec<usize> = (0..self.rows.len())
            .filter(|&i| {
                let r = &self.rows[i];
                self.filter.keeps(&format!(
                    "{} {} {}",
                    r.name,
                    r.health.word(),
                    r.path.display()
                ))
            })
            .collect();
        let score = |i: usize| {
            self.scores
                .get(i)
                .and_then(|s| s.as_ref()?.score)
                .map_or(u16::MAX, u16::from)
        };
        shown.sort_by(|&a, &b| {
            let (ra, rb) = (&self.rows[a], &self.rows[b]);
            let first = match self.sort {
                Sort::Urgency => urgency(ra).cmp(&urgency(rb)),
                Sort::Name => std::cmp::Ordering::Equal,
                Sort::Seen => rb.activity.cmp(&ra.activity),
                Sort::Score => score(a).cmp(&score(b)),
                Sort::Context => rb.context.cmp(&ra.context),
            };
            first.then_with(|| ra.name.cmp(&rb.name)).then(a.cmp(&b))
        });
        shown
    }

    /// The selected row, when the list shows it.
    pub fn selected(&self) -> Option<&Row> {
        self.shown()
            .contains(&self.cursor)
            .then(|| self.rows.get(self.cursor))
            .flatten()
    }

    /// The keys that act on the selected row now: (key, footer label),
    /// only those that would do something.
    pub fn row_keys(&self) -> Vec<(&'static str, &'static str)> {
        let Some(row) = self.selected() else {
            return Vec::new();
        };
        let mut keys = Vec::new();
        if row.health != Health::Missing {
            keys.push((
                "enter",
                if row.for_human > 0 {
                    "your mail"
                } else {
                    "open"
                },
            ));
        }
        if matches!(row.health, Health::Run(_)) {
            keys.push(("p", if row.paused() { "unpause" } else { "pause" }));
        }
        if resumable(row) {
            keys.push(("r", "resume"));
        }
        if abandonable(row) {
            keys.push(("a", "abandon"));
        }
        if matches!(row.health, Health::Run(_)) {
            keys.push(("c", "write"));
        }
        keys
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
        if i == self.cursor {
            self.detail_stale = true;
        }
        let found = if self.quiet == Some(i) {
            self.quiet = None;
            Vec::new()
        } else {
            alerts(i, old, &row)
        };
        *old = row;
        if !self.chosen {
            self.select_top();
        }
        found.into_iter().map(FleetEffect::Alert).collect()
    }

    /// The clock: relative times tick, old status messages clear, and every
    /// row whose handover runs is read again (a killed owner changes no file).
    pub fn clock(&mut self, now: DateTime<Utc>) -> Tick {
        let seen = |fleet: &Fleet| -> Vec<String> {
            fleet
                .rows
                .iter()
                .filter_map(|r| r.activity.map(|at| seen(fleet.now, at)))
                .collect()
        };
        let before = seen(self);
        self.now = now;
        let expired = self
            .toast
            .as_ref()
            .is_some_and(|(_, _, at)| now - *at >= super::app::TOAST_FOR);
        if expired {
            self.toast = None;
        }
        let reread: Vec<FleetEffect> = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.health == Health::Run(StateKind::Running))
            .map(|(i, _)| FleetEffect::Reload(i))
            .collect();
        Tick {
            redraw: expired || before != seen(self),
            reread,
        }
    }

    /// Select the first row listed (the most urgent, sorted by urgency).
    pub fn select_top(&mut self) {
        self.offset = 0;
        self.select(0);
    }

    /// How many rows the list shows at once.
    pub fn page(&self) -> usize {
        view::list_height(self.size, self.shown().len()).max(1)
    }

    /// Select the row at `position` in the list shown (kept on the list).
    fn select(&mut self, position: usize) {
        let shown = self.shown();
        let at = position.min(shown.len().saturating_sub(1));
        let cursor = shown.get(at).copied().unwrap_or(0);
        if cursor != self.cursor {
            self.cursor = cursor;
            self.detail_stale = true;
        }
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
        let before = self.cursor;
        let effects = self.key(key);
        self.chosen |= self.cursor != before;
        effects
    }

    fn key(&mut self, key: KeyEvent) -> Vec<FleetEffect> {
        if self.help {
            // j/k (and the arrows, pages) scroll a help taller than the
            // screen; any other key closes it.
            let max = view::help_scroll_max(self);
            match key.code {
                KeyCode::Char('j') | KeyCode::Down => {
                    self.help_scroll = (self.help_scroll + 1).min(max)
                }
                KeyCode::Char('k') | KeyCode::Up => {
                    self.help_scroll = self.help_scroll.saturating_sub(1)
                }
                KeyCode::PageDown => self.help_scroll = (self.help_scroll + self.page()).min(max),
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(self.page()),
                _ => {
                    self.help = false;
                    self.help_scroll = 0;
                }
            }
            return Vec::new();
        }
        if let Some(confirm) = self.confirm.take() {
            // Only `y` acts: Enter, Esc and every other key cancel.
            if key.code == KeyCode::Char('y') && key.modifiers.is_empty() {
                return confirm
                    .rows
                    .into_iter()
                    .map(|i| FleetEffect::Act(i, confirm.action.clone()))
                    .collect();
            }
            self.say("cancelled: nothing was changed", false);
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
            KeyCode::Char('q' | 'Q') => self.quit = true,
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
            KeyCode::Char('s') => {
                // The selected row stays selected in the new order.
                self.chosen = true;
                self.sort = self.sort.next();
                self.offset = 0;
                let keep = self.cursor;
                let position = self.shown().iter().position(|&i| i == keep).unwrap_or(0);
                self.select(position);
                let text = format!("sorted by {}", self.sort.word());
                self.say(text, false);
            }
            KeyCode::Char('P') => return self.pause_all(),
            _ if no_rows => {}
            KeyCode::Char('t') => {
                return vec![FleetEffect::JumpToPane(self.cursor)];
            }
            KeyCode::Char(c @ ('p' | 'r' | 'a' | 'c')) => return self.on_row_key(c),
            KeyCode::Enter => match self.rows.get(self.cursor) {
                Some(row) if row.health == Health::Missing => {
                    let text = format!("{} is missing", row.path.display());
                    self.say(text, true);
                }
                Some(row) => {
                    let focus = if row.for_human > 0 {
                        Focus::HumanQueue
                    } else {
                        Focus::Overview
                    };
                    return vec![FleetEffect::Open(self.cursor, focus)];
                }
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

    /// `p`, `r`, `a` or `c` on the selected row: what it does there now,
    /// or why it does nothing.
    fn on_row_key(&mut self, key: char) -> Vec<FleetEffect> {
        let i = self.cursor;
        let Some(row) = self.selected().cloned() else {
            return Vec::new();
        };
        let not_here = |what: &str| format!("{}: {what} ({})", row.name, row.health.word());
        if key == 'p'
            && let Some(p) = row.pause.as_ref().filter(|p| p.global)
        {
            let text = format!(
                "{}: held by the global brake ({}): `{}` lifts it for every workspace",
                row.name,
                said_pause(p),
                p.unpause_command()
            );
            self.say(text, true);
            return Vec::new();
        }
        match key {
            _ if !matches!(row.health, Health::Run(_)) => {
                let text = not_here("nothing to act on");
                self.say(text, true);
            }
            'p' if row.paused() => {
                self.confirm = Some(Confirm {
                    rows: vec![i],
                    action: Action::Unpause,
                    question: format!(
                        "Unpause {}? Its agent's handovers run again. y unpauses; any other key cancels.",
                        row.name
                    ),
                });
            }
            'p' => return vec![FleetEffect::Act(i, pause_here())],
            'r' if resumable(&row) => return vec![FleetEffect::Act(i, Action::Resume)],
            'r' if row.needs_decision => {
                let text = format!(
                    "{}: a step may have taken effect: decide first (enter opens it to retry or abandon)",
                    row.name
                );
                self.say(text, true);
            }
            'r' => {
                let text = not_here("nothing to resume");
                self.say(text, false);
            }
            'a' if abandonable(&row) => {
                self.confirm = Some(Confirm {
                    rows: vec![i],
                    action: Action::Abandon(Some("abandoned from the fleet view".into())),
                    question: format!(
                        "Abandon {}'s {} handover? Its steps left are not run; its record and files are kept. y abandons; any other key cancels.",
                        row.name,
                        row.run.word()
                    ),
                });
            }
            'a' => {
                let text = not_here("nothing to abandon");
                self.say(text, false);
            }
            _ => return vec![FleetEffect::Open(i, Focus::WriteToAgent)],
        }
        Vec::new()
    }

    /// `P`: pause every listed workspace that runs, in one key; when all
    /// are paused already, ask to unpause those the fleet paused, naming
    /// the pauses it leaves (someone else's, the global brake).
    fn pause_all(&mut self) -> Vec<FleetEffect> {
        let live: Vec<usize> = self
            .shown()
            .into_iter()
            .filter(|&i| matches!(self.rows[i].health, Health::Run(_)))
            .collect();
        let running: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&i| !self.rows[i].paused())
            .collect();
        if !running.is_empty() {
            return running
                .into_iter()
                .map(|i| FleetEffect::Act(i, pause_here()))
                .collect();
        }
        if live.is_empty() {
            self.say("no workspace to pause", false);
            return Vec::new();
        }
        let (ours, others): (Vec<usize>, Vec<usize>) = live
            .into_iter()
            .partition(|&i| self.rows[i].paused_by_fleet());
        let left = others
            .iter()
            .filter_map(|&i| {
                let row = &self.rows[i];
                let p = row.pause.as_ref()?;
                let whose = if p.global { "the global brake: " } else { "" };
                Some(format!("{}: {whose}{}", row.name, said_pause(p)))
            })
            .collect::<Vec<_>>()
            .join("; ");
        if ours.is_empty() {
            let text = format!(
                "no pause here is the fleet's; left as they are: {left} (p on a row lifts its own)"
            );
            self.say(text, false);
            return Vec::new();
        }
        let kept = if left.is_empty() {
            String::new()
        } else {
            format!(" Left paused, not the fleet's: {left}.")
        };
        self.confirm = Some(Confirm {
            question: format!(
                "Unpause the {} the fleet paused? Their agents' handovers run again.{kept} y unpauses; any other key cancels.",
                match ours.len() {
                    1 => "1 workspace".to_string(),
                    n => format!("{n} workspaces"),
                }
            ),
            rows: ours,
            action: Action::Unpause,
        });
        Vec::new()
    }

    /// A mouse event: a click selects (a click on the selected row opens
    /// it), the wheel moves.
    pub fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<FleetEffect> {
        let before = self.cursor;
        let effects = self.mouse(mouse);
        self.chosen |= self.cursor != before;
        effects
    }

    fn mouse(&mut self, mouse: MouseEvent) -> Vec<FleetEffect> {
        match mouse.kind {
            MouseEventKind::ScrollDown => self.select(self.position() + 3),
            MouseEventKind::ScrollUp => self.select(self.position().saturating_sub(3)),
            MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
                if let Some(at) = view::row_at(self, mouse.row) {
                    let row = self.shown()[at];
                    if row == self.cursor {
                        return vec![FleetEffect::Open(row, Focus::Overview)];
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
