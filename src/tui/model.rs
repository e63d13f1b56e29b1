//! What the dashboard knows and how it changes: the data every tab reads
//! ([`Shared`]), what the loaders bring back, and the events, effects and
//! engine actions of the update loop. Below the tabs and the state, so both
//! can use it without importing each other.

use std::path::PathBuf;
use std::sync::Arc;

use agent_handover::domain::inbox::{Message, MessageSummary, QueueSummary};
use agent_handover::domain::memory::diff::StateDiff;
use agent_handover::domain::memory::versions::Version;
use agent_handover::domain::task::Task;
pub use agent_handover::ops::review::{QualityData, Reviewed};
use agent_handover::read::history::RunSummary;
use agent_handover::read::metrics::SessionMetrics;
use agent_handover::read::{RunSnapshot, StateKind};
use chrono::{DateTime, Utc};
use crossterm::event::{KeyEvent, MouseEvent};

use super::theme::Theme;

/// How file changes reach the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchMode {
    /// notify events (debounced).
    Events,
    /// Watching failed; polling instead.
    Polling,
}

/// What the engine is asked to do (off the UI thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Resume the interrupted run.
    Resume,
    /// Abandon it, with a reason.
    Abandon(Option<String>),
    /// Retry one step.
    Retry(String),
    /// Create the PAUSE file.
    Pause(Option<String>),
    /// Remove it.
    Unpause,
    /// Send a message written in the dashboard (the same call as `inbox send`).
    Send(Box<Draft>),
    /// Make the tmux pane of the agent working here the current one.
    JumpToPane,
    /// Mark one message read for an agent.
    MarkRead {
        /// Whose read marks.
        agent: String,
        /// `<queue>/<id>`.
        id: String,
    },
}

impl Action {
    /// What the status line says while it runs.
    pub fn label(&self) -> String {
        match self {
            Action::Resume => "resuming the handover".into(),
            Action::Abandon(_) => "abandoning the handover".into(),
            Action::Retry(step) => format!("retrying {step}"),
            Action::Pause(_) => "pausing".into(),
            Action::Unpause => "unpausing".into(),
            Action::Send(draft) => format!("sending the message to {}", draft.to),
            Action::MarkRead { .. } => "marking read".into(),
            Action::JumpToPane => "jumping to the agent's pane".into(),
        }
    }
}

/// A field of a message being written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DraftField {
    /// The recipient.
    #[default]
    To,
    /// The sender.
    From,
    /// The subject line.
    Subject,
    /// The body.
    Body,
}

impl DraftField {
    /// The fields, in the order Tab visits them.
    pub const ALL: [DraftField; 4] = [
        DraftField::To,
        DraftField::From,
        DraftField::Subject,
        DraftField::Body,
    ];

    /// Its label in the dialog.
    pub fn label(self) -> &'static str {
        match self {
            DraftField::To => "to",
            DraftField::From => "from",
            DraftField::Subject => "subject",
            DraftField::Body => "body",
        }
    }
}

/// A message being written in the dashboard (`c` new, `R` reply).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Draft {
    /// The receiving agent, or `shared`.
    pub to: String,
    /// The sender.
    pub from: String,
    /// One line.
    pub subject: String,
    /// The body (Markdown; Enter adds a line).
    pub body: String,
    /// `<queue>/<id>` of the message it answers.
    pub reply_to: Option<String>,
    /// The field being typed into.
    pub field: DraftField,
}

impl Draft {
    /// The text of the field being typed into.
    pub fn field_mut(&mut self) -> &mut String {
        match self.field {
            DraftField::To => &mut self.to,
            DraftField::From => &mut self.from,
            DraftField::Subject => &mut self.subject,
            DraftField::Body => &mut self.body,
        }
    }

    /// Move to the next (or previous) field.
    pub fn next_field(&mut self, forward: bool) {
        let at = DraftField::ALL
            .iter()
            .position(|f| *f == self.field)
            .unwrap_or(0);
        let n = DraftField::ALL.len();
        self.field = DraftField::ALL[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }

    /// Whether nothing was typed that would be lost by closing it (a
    /// reply's subject is filled in for the user, so only its body counts).
    pub fn is_blank(&self) -> bool {
        self.body.trim().is_empty() && (self.reply_to.is_some() || self.subject.trim().is_empty())
    }
}

/// Work for the event loop.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Reload the run snapshot (cheap).
    LoadRun,
    /// Reload everything else (in the background), as the tabs ask
    /// ([`LoadRequest`]).
    LoadFull,
    /// Diff two versions (indexes into the version list).
    ComputeDiff {
        /// Older version.
        from: usize,
        /// Newer version.
        to: usize,
    },
    /// Ask the engine.
    Act(Action),
    /// Read one message whole (by id), for the reader.
    ReadMessage(String),
    /// Read one message whole (by id), for the inbox's preview.
    PreviewMessage(String),
    /// Read one past run whole (by id): its steps, errors, note and score.
    ReadRun(String),
    /// Open `path` in `$EDITOR` at `line`, then reload (the terminal is
    /// handed to the editor meanwhile).
    Edit {
        /// The file.
        path: std::path::PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// Put text on the terminal's clipboard (OSC 52).
    Copy(String),
    /// Leave.
    Quit,
    /// Back to the fleet view.
    Back,
}

/// What the next background load reads beyond the defaults; each tab adds
/// what it needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadRequest {
    /// Whose messages the inbox lists (default: the first agent).
    pub inbox_agent: Option<String>,
}

/// The inbox as the dashboard shows it: every queue, and one agent's view.
#[derive(Debug, Clone, Default)]
pub struct InboxData {
    /// Every queue with its counts (agents by name, then `shared`).
    pub queues: Vec<QueueSummary>,
    /// The agent whose messages are listed (its queue and `shared`).
    pub agent: Option<String>,
    /// Its newest messages, newest first.
    pub messages: Vec<MessageSummary>,
    /// How many it has in all.
    pub total: usize,
}

/// The slower data, loaded in the background.
#[derive(Debug, Clone, Default)]
pub struct FullData {
    /// Past runs, newest first.
    pub runs: Option<Result<Vec<RunSummary>, String>>,
    /// Versions of current-state.md, newest first.
    pub versions: Option<Result<Vec<Version>, String>>,
    /// Message queues.
    pub inbox: Option<Result<InboxData, String>>,
    /// The quality of the current handoff (`None` inside: no current state yet).
    pub quality: Option<Result<Option<QualityData>, String>>,
    /// Sessions with measured numbers, oldest first.
    pub metrics: Option<Result<Vec<SessionMetrics>, String>>,
    /// Multi-step tasks, most recently updated first.
    pub tasks: Option<Result<Vec<Task>, String>>,
    /// How full each live agent session's context is (those whose agent
    /// records it), most recent session first.
    pub context: Vec<LiveContext>,
}

/// How full one live agent session's context is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveContext {
    /// The agent.
    pub agent: String,
    /// Its context used, in %.
    pub percent: u8,
    /// Whether that is at or past `[capacity] warn_at`: hand over now.
    pub low: bool,
}

impl FullData {
    /// The versions list, if loaded (else empty).
    pub fn versions(&self) -> &[Version] {
        match &self.versions {
            Some(Ok(v)) => v,
            _ => &[],
        }
    }
}

/// Something that happened.
#[derive(Debug)]
pub enum Event {
    /// A key press.
    Key(KeyEvent),
    /// Text pasted at once (a bracketed paste): never keys.
    Paste(String),
    /// SIGTERM, SIGHUP or SIGINT: quit now, whatever is open.
    Terminate,
    /// A mouse event.
    Mouse(MouseEvent),
    /// The terminal was resized.
    Resize(u16, u16),
    /// The run snapshot was (re)loaded.
    RunLoaded(Box<Result<RunSnapshot, String>>),
    /// The background data was (re)loaded.
    FullLoaded(Box<FullData>),
    /// A diff is ready.
    DiffReady {
        /// Older version index.
        from: usize,
        /// Newer version index.
        to: usize,
        /// The diff, or why it could not be made.
        diff: Result<Arc<StateDiff>, String>,
    },
    /// An action finished.
    ActionDone(Result<String, String>),
    /// A message was read whole (for the reader).
    MessageRead(Box<Result<Message, String>>),
    /// A message was read whole for the preview.
    PreviewRead(Box<Result<Message, String>>),
    /// A text to read whole arrived (a past run): its title and lines.
    TextReady(String, Vec<String>),
    /// Files changed (debounced).
    FilesChanged,
    /// How files are watched.
    Watching(WatchMode),
    /// Time passed (relative times are redrawn).
    Tick(DateTime<Utc>),
    /// The once-a-second clock: relative times are redrawn, and while a
    /// handover runs its owner's liveness is checked again (the run
    /// snapshot is reloaded: a killed owner changes no file).
    Clock(DateTime<Utc>),
}

/// What every tab reads and none owns: the workspace, the clock, the screen
/// size, the styles and the loaded data.
#[derive(Debug, Clone)]
pub struct Shared {
    /// The project root (paths under it are shown relative).
    pub workspace: PathBuf,
    /// The styles.
    pub theme: Theme,
    /// Terminal size.
    pub size: (u16, u16),
    /// When the data was last loaded (for "3m ago").
    pub now: DateTime<Utc>,
    /// The run, or why it could not be read.
    pub run: Option<Result<RunSnapshot, String>>,
    /// The background data.
    pub full: FullData,
}

impl Shared {
    /// The run snapshot, if loaded and readable.
    pub fn snapshot(&self) -> Option<&RunSnapshot> {
        self.run.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// Whether a handover runs right now, as far as the last snapshot knows
    /// (its lock is held or a step is marked running).
    pub fn running(&self) -> bool {
        self.snapshot()
            .is_some_and(|s| s.state.kind() == StateKind::Running)
    }
}
