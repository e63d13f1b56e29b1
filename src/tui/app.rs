//! The dashboard's state and its update function: `(state, event) -> effects`.
//! Pure: no I/O happens here; effects are carried out by the event loop
//! ([`super::runtime`]) and their results come back as events.

use std::path::PathBuf;
use std::sync::Arc;

use agent_handover::engine::metrics::{self, SessionMetrics};
use agent_handover::engine::{RunSnapshot, RunStatus, StepState};
use agent_handover::handoff::LintReport;
use agent_handover::inbox::QueueSummary;
use agent_handover::memory::diff::StateDiff;
use agent_handover::memory::versions::Version;
use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind};

use super::command::{Command, View};
use super::keys::KeyMap;
use super::layout::{self, Areas};
use super::model::{Action, Effect, Event, FullData, InboxData, WatchMode};
use super::theme::Theme;

/// A dialog over the view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Modal {
    /// The key help.
    Help,
    /// Confirm abandoning, with an optional reason being typed.
    ConfirmAbandon {
        /// Reason typed so far.
        reason: String,
    },
    /// Pausing: an optional reason being typed.
    PauseReason {
        /// Reason typed so far.
        reason: String,
    },
}

/// The diff being shown.
#[derive(Debug, Clone)]
pub struct DiffView {
    /// Older version index.
    pub from: usize,
    /// Newer version index.
    pub to: usize,
    /// The diff.
    pub diff: Arc<StateDiff>,
    /// First visible row.
    pub scroll: usize,
}

/// The whole state of the dashboard.
#[derive(Debug, Clone)]
pub struct App {
    /// The project root (paths under it are shown relative).
    pub workspace: PathBuf,
    /// What the header calls the workspace.
    pub label: String,
    /// The key map.
    pub keys: KeyMap,
    /// The styles.
    pub theme: Theme,
    /// Terminal size.
    pub size: (u16, u16),
    /// Selected tab.
    pub view: View,
    /// When the data was last loaded (for "3m ago").
    pub now: DateTime<Utc>,
    /// The run, or why it could not be read.
    pub run: Option<Result<RunSnapshot, String>>,
    /// The background data.
    pub full: FullData,
    /// Selected step (Run view).
    pub step_cursor: usize,
    /// Selected version (State view).
    pub version_cursor: usize,
    /// Selected run (Timeline view).
    pub timeline_cursor: usize,
    /// Selected agent queue (Inbox view), by name.
    pub inbox_agent: Option<String>,
    /// Selected message (Inbox view).
    pub message_cursor: usize,
    /// First finding shown (Quality view).
    pub quality_scroll: usize,
    /// Selected metric (Metrics view), an index into [`App::metric_names`].
    pub metric_cursor: usize,
    /// The diff shown in the State view.
    pub diff: Option<DiffView>,
    /// Side-by-side diff instead of unified.
    pub side_by_side: bool,
    /// The action in progress, if any.
    pub busy: Option<String>,
    /// The last action's outcome: (text, is_error).
    pub toast: Option<(String, bool)>,
    /// The open dialog.
    pub modal: Option<Modal>,
    /// How files are watched.
    pub watch: WatchMode,
    /// Set when the loop should exit.
    pub quit: bool,
}

impl App {
    /// A fresh dashboard for `workspace` (shown as `label`), `size` columns × rows.
    pub fn new(
        workspace: PathBuf,
        label: String,
        keys: KeyMap,
        theme: Theme,
        size: (u16, u16),
        now: DateTime<Utc>,
    ) -> Self {
        App {
            workspace,
            label,
            keys,
            theme,
            size,
            view: layout::tabs(size)[0],
            now,
            run: None,
            full: FullData::default(),
            step_cursor: 0,
            version_cursor: 0,
            timeline_cursor: 0,
            inbox_agent: None,
            message_cursor: 0,
            quality_scroll: 0,
            metric_cursor: 0,
            diff: None,
            side_by_side: false,
            busy: None,
            toast: None,
            modal: None,
            watch: WatchMode::Events,
            quit: false,
        }
    }

    /// The run snapshot, if loaded and readable.
    pub fn snapshot(&self) -> Option<&RunSnapshot> {
        self.run.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// Whether an interrupted handover waits to be resumed.
    pub fn resume_needed(&self) -> bool {
        self.snapshot().is_some_and(|s| {
            s.status == RunStatus::InProgress && !s.pending.is_empty() && s.lock_holder.is_none()
        })
    }

    /// The step the run panel details: the selected one in the Run view,
    /// else the first failed, interrupted or running one.
    pub fn focused_step(&self) -> Option<usize> {
        let snap = self.snapshot()?;
        if self.view == View::Run {
            return (self.step_cursor < snap.steps.len()).then_some(self.step_cursor);
        }
        snap.steps.iter().position(|s| {
            matches!(
                s.state,
                StepState::Failed | StepState::Interrupted | StepState::Running
            )
        })
    }

    /// The tabs of the current layout.
    pub fn tabs(&self) -> Vec<View> {
        layout::tabs(self.size)
    }

    /// The inbox, if loaded.
    pub fn inbox(&self) -> Option<&InboxData> {
        self.full.inbox.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// The agents with their own queue (not `shared`).
    pub fn agents(&self) -> Vec<&QueueSummary> {
        self.inbox().map_or_else(Vec::new, |i| {
            i.queues.iter().filter(|q| q.agent != "shared").collect()
        })
    }

    /// The quality report, if loaded and there is a current state.
    pub fn quality(&self) -> Option<&LintReport> {
        self.full
            .quality
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .and_then(Option::as_ref)
    }

    /// The versions list, if loaded.
    pub fn versions(&self) -> &[Version] {
        match &self.full.versions {
            Some(Ok(v)) => v,
            _ => &[],
        }
    }

    /// The sessions with measured numbers, oldest first, if loaded.
    pub fn sessions(&self) -> &[SessionMetrics] {
        match &self.full.metrics {
            Some(Ok(s)) => s,
            _ => &[],
        }
    }

    /// Every metric name recorded: the newest session's in its order, then
    /// those only older sessions have.
    pub fn metric_names(&self) -> Vec<String> {
        metrics::metric_names(self.sessions())
    }

    /// Apply one event; returns the work it asks for.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Resize(w, h) => {
                self.size = (w, h);
                if !self.tabs().contains(&self.view) {
                    self.view = self.tabs()[0];
                }
                Vec::new()
            }
            Event::RunLoaded(run) => {
                self.run = Some(*run);
                self.clamp_cursors();
                Vec::new()
            }
            Event::Tick(now) => {
                self.now = now;
                Vec::new()
            }
            Event::FullLoaded(full) => self.on_full(*full),
            Event::DiffReady { from, to, diff } => {
                match diff {
                    Ok(diff) => {
                        let scroll = self
                            .diff
                            .as_ref()
                            .filter(|d| d.from == from && d.to == to)
                            .map_or(0, |d| d.scroll);
                        self.diff = Some(DiffView {
                            from,
                            to,
                            diff,
                            scroll,
                        });
                    }
                    Err(e) => self.toast = Some((format!("diff: {e}"), true)),
                }
                Vec::new()
            }
            Event::ActionDone(result) => {
                self.busy = None;
                self.toast = Some(match result {
                    Ok(text) => (text, false),
                    Err(text) => (text, true),
                });
                vec![Effect::LoadRun, Effect::LoadFull]
            }
            Event::FilesChanged => vec![Effect::LoadRun, Effect::LoadFull],
            Event::Watching(mode) => {
                self.watch = mode;
                Vec::new()
            }
        }
    }

    fn on_full(&mut self, full: FullData) -> Vec<Effect> {
        let old_versions: Vec<String> = self.versions().iter().map(|v| v.id.clone()).collect();
        self.full = full;
        if self.inbox_agent.is_none() {
            self.inbox_agent = self.inbox().and_then(|i| i.agent.clone());
        }
        self.clamp_cursors();
        let new_versions: Vec<String> = self.versions().iter().map(|v| v.id.clone()).collect();
        // Keep showing the last change; recompute when the versions moved.
        if new_versions.len() >= 2 && (self.diff.is_none() || old_versions != new_versions) {
            let (from, to) = match &self.diff {
                Some(d) if old_versions == new_versions => (d.from, d.to),
                _ => (1, 0),
            };
            return vec![Effect::ComputeDiff { from, to }];
        }
        if new_versions.len() < 2 {
            self.diff = None;
        }
        Vec::new()
    }

    fn clamp_cursors(&mut self) {
        let steps = self.snapshot().map_or(0, |s| s.steps.len());
        self.step_cursor = self.step_cursor.min(steps.saturating_sub(1));
        self.version_cursor = self
            .version_cursor
            .min(self.versions().len().saturating_sub(1));
        let runs = match &self.full.runs {
            Some(Ok(r)) => r.len(),
            _ => 0,
        };
        self.timeline_cursor = self.timeline_cursor.min(runs.saturating_sub(1));
        let messages = self.inbox().map_or(0, |i| i.messages.len());
        self.message_cursor = self.message_cursor.min(messages.saturating_sub(1));
        let findings = self.quality().map_or(0, |q| q.findings.len());
        self.quality_scroll = self.quality_scroll.min(findings.saturating_sub(1));
        let metrics = self.metric_names().len();
        self.metric_cursor = self.metric_cursor.min(metrics.saturating_sub(1));
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(modal) = self.modal.take() {
            return self.on_modal_key(modal, key);
        }
        match self.keys.command_for(&key, self.view) {
            Some(command) => self.on_command(command),
            None => Vec::new(),
        }
    }

    fn on_modal_key(&mut self, modal: Modal, key: KeyEvent) -> Vec<Effect> {
        let typed = |reason: &mut String| match key.code {
            KeyCode::Char(c) if !c.is_control() && reason.len() < 200 => {
                reason.push(c);
                true
            }
            KeyCode::Backspace => {
                reason.pop();
                true
            }
            _ => false,
        };
        let reason_of = |r: String| Some(r.trim().to_string()).filter(|r| !r.is_empty());
        match modal {
            Modal::Help => Vec::new(), // any key closes it
            Modal::ConfirmAbandon { mut reason } => match key.code {
                KeyCode::Enter => self.act(Action::Abandon(reason_of(reason))),
                KeyCode::Esc => Vec::new(),
                _ => {
                    typed(&mut reason);
                    self.modal = Some(Modal::ConfirmAbandon { reason });
                    Vec::new()
                }
            },
            Modal::PauseReason { mut reason } => match key.code {
                KeyCode::Enter => self.act(Action::Pause(reason_of(reason))),
                KeyCode::Esc => Vec::new(),
                _ => {
                    typed(&mut reason);
                    self.modal = Some(Modal::PauseReason { reason });
                    Vec::new()
                }
            },
        }
    }

    fn act(&mut self, action: Action) -> Vec<Effect> {
        if let Some(busy) = &self.busy {
            self.toast = Some((format!("busy: {busy}"), true));
            return Vec::new();
        }
        self.busy = Some(action.label());
        self.toast = None;
        vec![Effect::Act(action)]
    }

    /// Carry out a command (from a key or a click).
    pub fn on_command(&mut self, command: Command) -> Vec<Effect> {
        let page = usize::from(self.size.1.saturating_sub(8)).max(1);
        match command {
            Command::Quit => {
                self.quit = true;
                vec![Effect::Quit]
            }
            Command::Help => {
                self.modal = Some(Modal::Help);
                Vec::new()
            }
            Command::NextTab | Command::PrevTab => {
                let tabs = self.tabs();
                let at = tabs.iter().position(|v| *v == self.view).unwrap_or(0);
                let n = tabs.len();
                let next = if command == Command::NextTab {
                    (at + 1) % n
                } else {
                    (at + n - 1) % n
                };
                self.view = tabs[next];
                Vec::new()
            }
            Command::Tab(i) => {
                if let Some(v) = self.tabs().get(usize::from(i).saturating_sub(1)) {
                    self.view = *v;
                }
                Vec::new()
            }
            Command::Up => self.move_cursor(-1),
            Command::Down => self.move_cursor(1),
            Command::PageUp => self.move_cursor(-(page as isize)),
            Command::PageDown => self.move_cursor(page as isize),
            Command::Top => self.move_cursor(isize::MIN / 2),
            Command::Bottom => self.move_cursor(isize::MAX / 2),
            Command::TogglePause => {
                if self.snapshot().is_some_and(|s| s.paused.is_some()) {
                    self.act(Action::Unpause)
                } else {
                    self.modal = Some(Modal::PauseReason {
                        reason: String::new(),
                    });
                    Vec::new()
                }
            }
            Command::Resume => {
                if self.snapshot().is_some_and(|s| s.paused.is_some()) {
                    self.toast = Some(("paused: unpause first (p)".into(), true));
                    Vec::new()
                } else if self.resume_needed() {
                    self.act(Action::Resume)
                } else {
                    self.toast = Some(("nothing to resume".into(), false));
                    Vec::new()
                }
            }
            Command::Abandon => {
                if self
                    .snapshot()
                    .is_some_and(|s| s.status == RunStatus::InProgress)
                {
                    self.modal = Some(Modal::ConfirmAbandon {
                        reason: String::new(),
                    });
                } else {
                    self.toast = Some(("nothing to abandon".into(), false));
                }
                Vec::new()
            }
            Command::Retry => {
                let step = self
                    .focused_step()
                    .and_then(|i| self.snapshot().and_then(|s| s.steps.get(i)))
                    .filter(|s| matches!(s.state, StepState::Failed | StepState::Interrupted));
                match step.map(|s| s.name.clone()) {
                    Some(name) => self.act(Action::Retry(name)),
                    None => {
                        self.toast =
                            Some(("select a failed or interrupted step to retry".into(), false));
                        Vec::new()
                    }
                }
            }
            Command::MarkRead => {
                let target = self.inbox().and_then(|i| {
                    let m = i.messages.get(self.message_cursor)?;
                    Some((i.agent.clone()?, format!("{}/{}", m.queue, m.id), m.read))
                });
                match target {
                    Some((_, _, true)) => {
                        self.toast = Some(("already read".into(), false));
                        Vec::new()
                    }
                    Some((agent, id, false)) => self.act(Action::MarkRead { agent, id }),
                    None => Vec::new(),
                }
            }
            Command::PrevQueue | Command::NextQueue => {
                let agents: Vec<String> = self.agents().iter().map(|q| q.agent.clone()).collect();
                if agents.is_empty() {
                    return Vec::new();
                }
                let at = self
                    .inbox_agent
                    .as_ref()
                    .and_then(|a| agents.iter().position(|x| x == a))
                    .unwrap_or(0);
                let n = agents.len();
                let next = if command == Command::NextQueue {
                    (at + 1) % n
                } else {
                    (at + n - 1) % n
                };
                self.inbox_agent = Some(agents[next].clone());
                self.message_cursor = 0;
                vec![Effect::LoadFull]
            }
            Command::DiffSelected => {
                let from = self.version_cursor + 1;
                if from < self.versions().len() {
                    vec![Effect::ComputeDiff {
                        from,
                        to: self.version_cursor,
                    }]
                } else {
                    self.toast = Some(("the oldest version has nothing before it".into(), false));
                    Vec::new()
                }
            }
            Command::ToggleSideBySide => {
                self.side_by_side = !self.side_by_side;
                if let Some(d) = &mut self.diff {
                    d.scroll = 0;
                }
                Vec::new()
            }
            Command::Refresh => vec![Effect::LoadRun, Effect::LoadFull],
        }
    }

    fn move_cursor(&mut self, delta: isize) -> Vec<Effect> {
        let shift = |cursor: &mut usize, len: usize| {
            *cursor = cursor
                .saturating_add_signed(delta)
                .min(len.saturating_sub(1));
        };
        match self.view {
            View::Run => {
                let n = self.snapshot().map_or(0, |s| s.steps.len());
                shift(&mut self.step_cursor, n);
            }
            View::State => {
                let diff_rows = self.diff.as_ref().map(|d| {
                    if self.side_by_side {
                        d.diff.side_by_side_len()
                    } else {
                        d.diff.len()
                    }
                });
                match (&mut self.diff, diff_rows) {
                    (Some(d), Some(rows)) if !layout::is_wide(self.size) || delta.abs() > 1 => {
                        shift(&mut d.scroll, rows)
                    }
                    _ => {
                        let n = self.versions().len();
                        shift(&mut self.version_cursor, n);
                    }
                }
            }
            View::Timeline => {
                let n = match &self.full.runs {
                    Some(Ok(r)) => r.len(),
                    _ => 0,
                };
                shift(&mut self.timeline_cursor, n);
            }
            View::Inbox => {
                let n = self.inbox().map_or(0, |i| i.messages.len());
                shift(&mut self.message_cursor, n);
            }
            View::Quality => {
                let n = self.quality().map_or(0, |q| q.findings.len());
                shift(&mut self.quality_scroll, n);
            }
            View::Metrics => {
                let n = self.metric_names().len();
                shift(&mut self.metric_cursor, n);
            }
        }
        Vec::new()
    }

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Effect> {
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                let areas = Areas::compute(self.size, self);
                if let Some(command) = areas.hit(mouse.column, mouse.row) {
                    return self.on_command(command);
                }
                Vec::new()
            }
            MouseEventKind::ScrollDown => self.move_cursor(3),
            MouseEventKind::ScrollUp => self.move_cursor(-3),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures;

    fn key(c: char) -> Event {
        Event::Key(KeyEvent::new(
            KeyCode::Char(c),
            crossterm::event::KeyModifiers::NONE,
        ))
    }

    fn code(c: KeyCode) -> Event {
        Event::Key(KeyEvent::new(c, crossterm::event::KeyModifiers::NONE))
    }

    #[test]
    fn resume_only_when_interrupted_and_only_once() {
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert!(app.resume_needed());
        assert_eq!(app.update(key('r')), vec![Effect::Act(Action::Resume)]);
        assert_eq!(app.busy.as_deref(), Some("resuming the handover"));
        assert_eq!(
            app.update(key('r')),
            vec![],
            "no second action while one runs"
        );
        let effects = app.update(Event::ActionDone(Ok("resumed: publish".into())));
        assert_eq!(effects, vec![Effect::LoadRun, Effect::LoadFull]);
        assert_eq!(app.busy, None);
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        assert!(app.update(key('r')).is_empty());
        assert_eq!(app.toast, Some(("nothing to resume".into(), false)));
    }

    #[test]
    fn resume_while_paused_explains_instead_of_failing() {
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
            fixtures::interrupted_run(),
        )))));
        assert!(app.update(key('r')).is_empty());
        assert_eq!(app.toast, Some(("paused: unpause first (p)".into(), true)));
    }

    #[test]
    fn abandon_asks_to_confirm_and_takes_a_reason() {
        let mut app = fixtures::app((60, 20));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert!(app.update(key('a')).is_empty());
        assert_eq!(
            app.modal,
            Some(Modal::ConfirmAbandon {
                reason: String::new()
            })
        );
        for c in "stale".chars() {
            app.update(key(c));
        }
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::Act(Action::Abandon(Some("stale".into())))]
        );
        // Esc cancels.
        app.busy = None;
        app.update(key('a'));
        assert!(app.update(code(KeyCode::Esc)).is_empty());
        assert_eq!(app.modal, None);
    }

    #[test]
    fn pause_toggles_with_optional_reason() {
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        app.update(key('p'));
        assert!(matches!(app.modal, Some(Modal::PauseReason { .. })));
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::Act(Action::Pause(None))]
        );
        app.busy = None;
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
            fixtures::completed_run(),
        )))));
        assert_eq!(app.update(key('p')), vec![Effect::Act(Action::Unpause)]);
    }

    #[test]
    fn retry_needs_a_failed_step_selected() {
        let mut app = fixtures::app((60, 20));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert!(app.update(key('R')).is_empty(), "step 0 is done");
        app.update(key('j'));
        app.update(key('j'));
        assert_eq!(
            app.update(key('R')),
            vec![Effect::Act(Action::Retry("tests".into()))]
        );
    }

    #[test]
    fn in_the_wide_layout_retry_takes_the_first_problem_step() {
        let mut app = fixtures::app((160, 48));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert_eq!(app.view, View::Inbox);
        assert_eq!(app.focused_step(), Some(2));
        assert_eq!(
            app.update(key('R')),
            vec![Effect::Act(Action::Retry("tests".into()))]
        );
    }

    #[test]
    fn tabs_follow_the_layout_and_wrap() {
        let mut app = fixtures::app((60, 20));
        assert_eq!(app.tabs().len(), 6);
        app.update(key('5'));
        assert_eq!(app.view, View::Timeline);
        app.update(code(KeyCode::Tab));
        assert_eq!(app.view, View::Metrics);
        app.update(code(KeyCode::Tab));
        assert_eq!(app.view, View::Run);
        // Wide: the run panel is a sidebar, not a tab.
        app.update(Event::Resize(160, 48));
        assert_eq!(app.view, View::Inbox);
        assert!(!app.tabs().contains(&View::Run));
    }

    #[test]
    fn new_versions_request_the_latest_diff() {
        let mut app = fixtures::app((60, 20));
        let effects = app.update(Event::FullLoaded(Box::new(fixtures::full_data())));
        assert_eq!(effects, vec![Effect::ComputeDiff { from: 1, to: 0 }]);
        app.update(key('3'));
        app.update(code(KeyCode::Down));
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::ComputeDiff { from: 2, to: 1 }]
        );
    }

    #[test]
    fn inbox_queues_switch_and_mark_read_targets_the_selected_message() {
        let mut app = fixtures::loaded((60, 20));
        app.update(key('2'));
        assert_eq!(app.inbox_agent.as_deref(), Some("codex"));
        assert_eq!(
            app.update(key('m')),
            vec![Effect::Act(Action::MarkRead {
                agent: "codex".into(),
                id: "codex/20261121T115000.000000000Z-reviewer-0a1b2c3d".into()
            })]
        );
        app.busy = None;
        app.update(key('j'));
        assert!(
            app.update(key('m')).is_empty(),
            "the second message is read already"
        );
        assert_eq!(app.update(key(']')), vec![Effect::LoadFull]);
        assert_eq!(app.inbox_agent.as_deref(), Some("claude"));
        assert_eq!(app.message_cursor, 0);
    }

    #[test]
    fn a_click_on_a_tab_switches_to_it() {
        let mut app = fixtures::app((60, 20));
        let areas = Areas::compute(app.size, &app);
        let (rect, view) = areas.tabs[3];
        app.update(Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: rect.x + 1,
            row: rect.y,
            modifiers: crossterm::event::KeyModifiers::NONE,
        }));
        assert_eq!(app.view, view);
    }

    #[test]
    fn metrics_tab_by_number_and_its_selection_moves_and_clamps() {
        let mut app = fixtures::loaded((60, 20));
        app.update(key('6'));
        assert_eq!(app.view, View::Metrics);
        assert_eq!(
            app.metric_names(),
            ["passed", "failed", "coverage", "warnings"]
        );
        app.update(code(KeyCode::Down));
        app.update(key('j'));
        assert_eq!(app.metric_cursor, 2);
        app.update(key('G'));
        assert_eq!(app.metric_cursor, 3, "stops at the last metric");
        app.update(code(KeyCode::Down));
        assert_eq!(app.metric_cursor, 3);
        app.update(key('k'));
        assert_eq!(app.metric_cursor, 2);
        assert_eq!(app.step_cursor, 0, "other views' cursors stay");
        // Fewer metrics after a reload: the selection stays in range.
        let mut full = fixtures::full_data();
        full.metrics = Some(Ok(Vec::new()));
        app.update(Event::FullLoaded(Box::new(full)));
        assert_eq!(app.metric_cursor, 0);
        assert!(app.update(code(KeyCode::Down)).is_empty());
        assert_eq!(app.metric_cursor, 0);
    }

    #[test]
    fn metrics_tab_is_last_in_the_wide_layout_too() {
        let mut app = fixtures::app((160, 48));
        app.update(code(KeyCode::BackTab));
        assert_eq!(app.view, View::Metrics);
        app.update(key('5'));
        assert_eq!(app.view, View::Metrics, "no Run tab: Metrics is the fifth");
    }
}
