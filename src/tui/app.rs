//! The dashboard's state and its update function: `(state, event) -> effects`.
//! Pure: no I/O happens here; effects are carried out by the event loop
//! ([`super::runtime`]) and their results come back as events. Each tab
//! keeps its own state ([`super::tabs`]); this holds what surrounds them:
//! the data they share, the selected tab, the dialog, the action in
//! progress and its outcome.

use std::path::PathBuf;

use agent_handover::read::NextAction;
use chrono::{DateTime, Utc};
use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};

use super::command::{Command, TabId};
use super::dialog::{Dialog, Env, Next};
use super::dialogs::compose::Compose;
use super::dialogs::confirm::Confirm;
use super::dialogs::filter::Filter;
use super::dialogs::help::Help;
use super::dialogs::log::Log;
use super::dialogs::reader::Reader;
use super::dialogs::reason::{Purpose, Reason};
use super::dialogs::text::Text;
use super::keys::KeyMap;
use super::layout::{Areas, is_wide};
use super::model::{
    Action, Draft, DraftField, Effect, Event, FullData, LoadRequest, Shared, WatchMode,
};
use super::tab::{Reply, Tab, Tabs};
use super::tabs::{self, inbox};
use super::theme::Theme;
use agent_handover::domain::inbox::HUMAN;

/// How long a status message stays in the footer (it stays in the log, `L`).
pub const TOAST_FOR: chrono::TimeDelta = chrono::TimeDelta::seconds(4);
/// How many messages the log keeps.
pub const LOG_LIMIT: usize = 500;
/// Messages written but not sent that the dashboard keeps to reopen.
const UNSENT_KEPT: usize = 20;

/// The whole state of the dashboard.
#[derive(Debug)]
pub struct App {
    /// What every tab reads: the workspace, the clock, the size, the styles
    /// and the loaded data.
    pub shared: Shared,
    /// What the header calls the workspace.
    pub label: String,
    /// The key map.
    pub keys: KeyMap,
    /// The tabs, each with its own state.
    pub tabs: Tabs,
    /// The selected tab.
    pub selected: TabId,
    /// The action in progress, if any.
    pub busy: Option<String>,
    /// The status line: the last message (text, is_error), cleared
    /// [`TOAST_FOR`] after it was said (it stays in the log).
    pub toast: Option<(String, bool)>,
    /// When the status line was said.
    pub toast_at: Option<DateTime<Utc>>,
    /// Every message of this session, oldest first (at most [`LOG_LIMIT`]).
    pub log: Vec<(DateTime<Utc>, String, bool)>,
    /// The open dialog.
    pub modal: Option<Box<dyn Dialog>>,
    /// Messages written but not sent (closed, or refused by the engine),
    /// oldest first: `c` in the inbox reopens the newest new message, `C`
    /// the reply to the same message, so no typed text is lost.
    pub unsent: Vec<Draft>,
    /// The message being sent, kept until the engine says it is on disk.
    pub sending: Option<Box<Draft>>,
    /// How files are watched.
    pub watch: WatchMode,
    /// Set when the loop should exit.
    pub quit: bool,
    /// Opened from the fleet view: `esc` goes back to it.
    pub in_fleet: bool,
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
        let tabs = tabs::all();
        let selected = tabs.first(is_wide(size));
        App {
            shared: Shared {
                workspace,
                theme,
                size,
                now,
                run: None,
                full: FullData::default(),
            },
            label,
            keys,
            tabs,
            selected,
            busy: None,
            toast: None,
            toast_at: None,
            log: Vec::new(),
            modal: None,
            unsent: Vec::new(),
            sending: None,
            watch: WatchMode::Events,
            quit: false,
            in_fleet: false,
        }
    }

    /// Say something in the status line (and the log).
    pub fn say(&mut self, text: impl Into<String>, error: bool) {
        let text = text.into();
        self.log.push((self.shared.now, text.clone(), error));
        if self.log.len() > LOG_LIMIT {
            self.log.remove(0);
        }
        self.toast = Some((text, error));
        self.toast_at = Some(self.shared.now);
    }

    /// Open on the human's queue (the fleet's drill-in when it has mail
    /// for the human).
    pub fn show_human_queue(&mut self) {
        self.selected = inbox::ID;
        let reply = self
            .tabs
            .get_mut(inbox::ID)
            .update(inbox::SHOW_HUMAN, &self.shared, true);
        self.apply(reply);
    }

    /// Open a new message to `agent` (the fleet's `c`), in the inbox.
    pub fn write_to(&mut self, agent: Option<String>) {
        self.selected = inbox::ID;
        let draft = Draft {
            field: if agent.is_some() {
                DraftField::Subject
            } else {
                DraftField::To
            },
            to: agent.unwrap_or_default(),
            from: HUMAN.into(),
            ..Draft::default()
        };
        self.apply(Reply::Compose(Box::new(draft)));
    }

    /// The tabs on the tab bar of the current layout.
    pub fn tab_bar(&self) -> Vec<TabId> {
        self.tabs.on_bar()
    }

    /// Where everything is on the current screen.
    pub fn areas(&self) -> Areas {
        Areas::compute(self.shared.size, &self.tabs, self.selected, &self.shared)
    }

    /// What the next background load reads, as the tabs ask.
    pub fn load_request(&self) -> LoadRequest {
        let mut request = LoadRequest::default();
        for tab in self.tabs.iter() {
            tab.add_to_load(&mut request);
        }
        request
    }

    /// Apply one event; returns the work it asks for.
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        let mut effects = self.on_event(event);
        let shared = &self.shared;
        for tab in self.tabs.iter_mut() {
            effects.extend(tab.wants(shared));
        }
        effects
    }

    fn on_event(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Key(key) => self.on_key(key),
            Event::Paste(text) => self.on_paste(&text),
            Event::Terminate => {
                self.quit = true;
                vec![Effect::Quit]
            }
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Resize(w, h) => {
                self.shared.size = (w, h);
                let bar = self.tab_bar();
                if !bar.contains(&self.selected) {
                    self.selected = bar[0];
                }
                Vec::new()
            }
            Event::RunLoaded(run) => {
                let previous = self.shared.run.replace(*run);
                let previous = previous.as_ref().and_then(|r| r.as_ref().ok());
                for tab in self.tabs.iter_mut() {
                    tab.run_reloaded(previous, &self.shared);
                }
                self.clamp_cursors();
                Vec::new()
            }
            Event::Tick(now) => {
                self.shared.now = now;
                Vec::new()
            }
            Event::Clock(now) => {
                self.shared.now = now;
                if self.toast_at.is_some_and(|at| now - at >= TOAST_FOR) {
                    self.toast = None;
                    self.toast_at = None;
                }
                if self.shared.running() {
                    vec![Effect::LoadRun]
                } else {
                    Vec::new()
                }
            }
            Event::FullLoaded(full) => self.on_full(*full),
            result @ (Event::DiffReady { .. } | Event::PreviewRead(_)) => {
                self.ask_tabs(|tab, _, _| tab.receive(&result))
            }
            Event::ActionDone(result) => {
                self.busy = None;
                let unsent = self.sending.take();
                match result {
                    Ok(text) => self.say(text, false),
                    Err(text) => {
                        let reopen = match unsent {
                            Some(draft) => {
                                self.keep_unsent(*draft);
                                " (the message is kept: c, or C on the message it answers, reopens it)"
                            }
                            None => "",
                        };
                        self.say(format!("{text}{reopen}"), true)
                    }
                }
                vec![Effect::LoadRun, Effect::LoadFull]
            }
            Event::TextReady(title, lines) => {
                self.modal = Some(Box::new(Text::new(title, lines)));
                Vec::new()
            }
            Event::MessageRead(result) => {
                match *result {
                    Ok(message) => self.modal = Some(Box::new(Reader::new(message))),
                    Err(e) => self.say(format!("inbox: {e}"), true),
                }
                Vec::new()
            }
            Event::FilesChanged => vec![Effect::LoadRun, Effect::LoadFull],
            Event::Watching(mode) => {
                self.watch = mode;
                Vec::new()
            }
        }
    }

    /// Take new background data; each tab keeps its selection in range and
    /// reacts to what changed.
    fn on_full(&mut self, full: FullData) -> Vec<Effect> {
        let previous = std::mem::replace(&mut self.shared.full, full);
        // The tabs find their selected item again first (by id, not row),
        // then every selection is kept on its list.
        let shared = &self.shared;
        let effects = self
            .tabs
            .iter_mut()
            .flat_map(|tab| tab.reloaded(&previous, shared))
            .collect();
        self.clamp_cursors();
        effects
    }

    /// Keep every tab's selection on its list after a reload.
    fn clamp_cursors(&mut self) {
        for tab in self.tabs.iter_mut() {
            tab.clamp(&self.shared);
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(mut dialog) = self.modal.take() {
            let env = Env {
                shared: &self.shared,
                keys: &self.keys,
                log: &self.log,
                busy: self.busy.as_deref(),
            };
            let next = dialog.key(&key, &env);
            return self.after_dialog(dialog, next);
        }
        match self.keys.command_for(&key, self.selected) {
            Some(command) => self.on_command(command),
            None => Vec::new(),
        }
    }

    /// Pasted text goes to the open dialog's text field, and is otherwise
    /// ignored: never read as keys (a pasted "abandon⏎" must not abandon).
    fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if let Some(mut dialog) = self.modal.take() {
            match dialog.paste(text) {
                Some(next) => return self.after_dialog(dialog, next),
                None => self.modal = Some(dialog),
            }
        }
        self.say("pasted text ignored: no text field is open", false);
        Vec::new()
    }

    /// Do what the open dialog asked after a key.
    fn after_dialog(&mut self, dialog: Box<dyn Dialog>, next: Next) -> Vec<Effect> {
        match next {
            Next::Stay => {
                self.modal = Some(dialog);
                Vec::new()
            }
            Next::Close => Vec::new(),
            Next::Act(action) => self.act(action),
            Next::Reply(reply) => self.apply(reply),
            Next::Filter(text) => {
                self.set_filter(&text);
                self.modal = Some(dialog);
                Vec::new()
            }
            Next::ClearFilter => {
                self.set_filter("");
                Vec::new()
            }
            Next::Send(draft) => {
                self.sending = Some(draft.clone());
                self.act(Action::Send(draft))
            }
            Next::KeepUnsent(draft) => {
                self.keep_unsent(*draft);
                self.say("not sent; c (or C for a reply) reopens the message", false);
                Vec::new()
            }
            Next::Say(text) => {
                self.say(text, true);
                self.modal = Some(dialog);
                Vec::new()
            }
        }
    }

    /// Filter the selected tab's list by `text`, its selection kept on the list.
    fn set_filter(&mut self, text: &str) {
        let tab = self.tabs.get_mut(self.selected);
        if let Some(filter) = tab.filter_mut() {
            filter.set(text);
            tab.clamp(&self.shared);
        }
    }

    /// Keep `draft` to reopen it later (at most [`UNSENT_KEPT`]; the oldest
    /// goes first, and it was said when it was closed).
    fn keep_unsent(&mut self, draft: Draft) {
        if self.unsent.len() == UNSENT_KEPT {
            self.unsent.remove(0);
        }
        self.unsent.push(draft);
    }

    fn act(&mut self, action: Action) -> Vec<Effect> {
        if let Some(busy) = self.busy.clone() {
            self.say(format!("busy: {busy}"), true);
            return Vec::new();
        }
        self.busy = Some(action.label());
        self.toast = None;
        vec![Effect::Act(action)]
    }

    /// Carry out a command (from a key or a click).
    fn on_command(&mut self, command: Command) -> Vec<Effect> {
        let page = usize::from(self.shared.size.1.saturating_sub(8)).max(1);
        match command {
            Command::Quit if self.in_fleet => vec![Effect::Back],
            Command::Quit | Command::QuitAll => {
                self.quit = true;
                vec![Effect::Quit]
            }
            Command::Help => {
                self.modal = Some(Box::new(Help::default()));
                Vec::new()
            }
            Command::Copy => match self.tabs.get(self.selected).copy_text(&self.shared) {
                Some(text) => {
                    let first = text.lines().next().unwrap_or_default();
                    self.say(format!("copied: {}", super::widgets::fit(first, 60)), false);
                    vec![Effect::Copy(text)]
                }
                None => {
                    self.say("nothing selected to copy here", false);
                    Vec::new()
                }
            },
            Command::Filter => {
                let tab = self.tabs.get_mut(self.selected);
                match tab.filter_mut() {
                    Some(filter) => {
                        self.modal = Some(Box::new(Filter {
                            text: filter.text().to_string(),
                        }));
                    }
                    None => self.say("this tab has no list to filter", false),
                }
                Vec::new()
            }
            Command::Log => {
                let page = usize::from(self.shared.size.1.saturating_sub(4)).max(1);
                self.modal = Some(Box::new(Log {
                    scroll: self.log.len().saturating_sub(page),
                }));
                Vec::new()
            }
            Command::NextTab | Command::PrevTab => {
                let tabs = self.tab_bar();
                let at = tabs.iter().position(|t| *t == self.selected).unwrap_or(0);
                let n = tabs.len();
                let next = if command == Command::NextTab {
                    (at + 1) % n
                } else {
                    (at + n - 1) % n
                };
                self.selected = tabs[next];
                Vec::new()
            }
            Command::Tab(i) => {
                if let Some(t) = self.tab_bar().get(usize::from(i).saturating_sub(1)) {
                    self.selected = *t;
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
                if self.shared.snapshot().is_some_and(|s| s.paused.is_some()) {
                    // Releasing the brake lets every agent's automation run
                    // again (maybe a brake someone else pulled): ask first.
                    self.modal = Some(Box::new(Confirm::new(Action::Unpause)));
                    Vec::new()
                } else {
                    // One key pulls the brake; why can be said after (once
                    // it is really being pulled: not while busy).
                    let effects = self.act(Action::Pause(None));
                    if !effects.is_empty() {
                        self.modal = Some(Box::new(Reason::new(Purpose::Paused)));
                    }
                    effects
                }
            }
            Command::Resume => {
                let next = self.shared.snapshot().map(|s| s.state.next_action());
                match next.as_ref().map(NextAction::unpaused) {
                    Some(action) if action.is_resume() => {
                        if matches!(next, Some(NextAction::Unpause { .. })) {
                            self.say("paused: unpause first (p)", true);
                            Vec::new()
                        } else {
                            self.act(Action::Resume)
                        }
                    }
                    None | Some(NextAction::Nothing) => {
                        self.say("nothing to resume", false);
                        Vec::new()
                    }
                    // Running, needing a decision, 0.5.x, ...: what to do instead.
                    Some(other) => {
                        let text = other.sentence();
                        self.say(&text, true);
                        Vec::new()
                    }
                }
            }
            Command::Abandon => {
                if self
                    .shared
                    .snapshot()
                    .is_some_and(|s| s.state.in_progress())
                {
                    self.modal = Some(Box::new(Reason::new(Purpose::Abandon)));
                } else {
                    self.say("nothing to abandon", false);
                }
                Vec::new()
            }
            Command::Refresh => vec![Effect::LoadRun, Effect::LoadFull],
            Command::Back if self.in_fleet => vec![Effect::Back],
            Command::Back => Vec::new(),
            Command::Pane => self.act(Action::JumpToPane),
            Command::Retry | Command::Local(_) => {
                self.ask_tabs(|tab, shared, selected| tab.update(command, shared, selected))
            }
        }
    }

    /// Move the selected tab's selection by `delta` rows.
    fn move_cursor(&mut self, delta: isize) -> Vec<Effect> {
        self.tabs
            .get_mut(self.selected)
            .move_cursor(delta, &self.shared);
        Vec::new()
    }

    /// Offer something to the tabs, the selected one first, until one
    /// handles it; then do what it asks.
    fn ask_tabs(
        &mut self,
        mut ask: impl FnMut(&mut dyn Tab, &Shared, bool) -> Reply,
    ) -> Vec<Effect> {
        let selected = self.selected;
        let shared = &self.shared;
        let mut tabs: Vec<&mut dyn Tab> = self.tabs.iter_mut().collect();
        // A stable sort: the selected tab, then the others in registry order.
        tabs.sort_by_key(|tab| tab.id() != selected);
        let reply = tabs
            .into_iter()
            .map(|tab| {
                let is_selected = tab.id() == selected;
                ask(tab, shared, is_selected)
            })
            .find(|reply| *reply != Reply::Unhandled);
        match reply {
            Some(reply) => self.apply(reply),
            None => Vec::new(),
        }
    }

    /// Do what a tab asked.
    fn apply(&mut self, reply: Reply) -> Vec<Effect> {
        match reply {
            Reply::Unhandled | Reply::Handled => Vec::new(),
            Reply::Effects(effects) => effects,
            Reply::Act(action) => self.act(action),
            Reply::Confirm(action) => {
                self.modal = Some(Box::new(Confirm::new(action)));
                Vec::new()
            }
            Reply::Compose(draft) => {
                // The same message not sent earlier (a new one, or the reply
                // to the same message) is reopened instead of a blank one.
                let draft = match self
                    .unsent
                    .iter()
                    .rposition(|u| u.reply_to == draft.reply_to)
                {
                    Some(at) => Box::new(self.unsent.remove(at)),
                    None => draft,
                };
                self.modal = Some(Box::new(Compose::new(draft)));
                Vec::new()
            }
            Reply::Show(title, lines) => {
                self.modal = Some(Box::new(Text::new(title, lines)));
                Vec::new()
            }
            Reply::Note(text) => {
                self.say(text, false);
                Vec::new()
            }
            Reply::Error(text) => {
                self.say(text, true);
                Vec::new()
            }
        }
    }

    /// The wheel scrolls the selected tab, which knows what lies under the pointer.
    fn wheel(&mut self, delta: isize, mouse: MouseEvent) -> Vec<Effect> {
        let body = self.areas().body;
        self.tabs.get_mut(self.selected).wheel(
            delta,
            (mouse.column, mouse.row),
            body,
            &self.shared,
        );
        Vec::new()
    }

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Effect> {
        match mouse.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                if let Some(command) = self.areas().hit(mouse.column, mouse.row) {
                    return self.on_command(command);
                }
                Vec::new()
            }
            MouseEventKind::ScrollDown => self.wheel(3, mouse),
            MouseEventKind::ScrollUp => self.wheel(-3, mouse),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::{self, code, key, open};
    use crate::tui::tabs::{inbox, metrics, run, timeline};
    use crossterm::event::KeyCode;

    #[test]
    fn resume_only_when_interrupted_and_only_once() {
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        assert!(fixtures::advises_resume(&app));
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
    fn the_clock_rechecks_a_running_handover_every_tick_and_nothing_else() {
        let mut app = fixtures::app((100, 30));
        let now = chrono::Utc::now();
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        assert!(app.update(Event::Clock(now)).is_empty(), "idle: no reload");
        assert_eq!(app.shared.now, now, "relative times tick");
        let mut running = fixtures::interrupted_run();
        running.steps[2].state = agent_handover::engine::StepState::Running;
        app.update(Event::RunLoaded(Box::new(Ok(running.restated()))));
        assert_eq!(app.update(Event::Clock(now)), vec![Effect::LoadRun]);
        let mut held = fixtures::interrupted_run();
        held.lock_holder = Some("pid 7 on vm since 2026-11-21T11:57:00Z".into());
        app.update(Event::RunLoaded(Box::new(Ok(held.restated()))));
        assert_eq!(app.update(Event::Clock(now)), vec![Effect::LoadRun]);
    }

    #[test]
    fn status_messages_clear_after_a_few_seconds_and_stay_in_the_log() {
        let mut app = fixtures::app((60, 20));
        let t0 = app.shared.now;
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        app.update(key('r'));
        assert_eq!(app.toast, Some(("nothing to resume".into(), false)));
        app.update(Event::Clock(t0 + chrono::TimeDelta::seconds(2)));
        assert!(app.toast.is_some(), "still shown after 2 s");
        app.update(Event::Clock(t0 + TOAST_FOR));
        assert_eq!(app.toast, None);
        assert_eq!(app.log.len(), 1);
        assert_eq!(app.log[0].1, "nothing to resume");
        app.update(key('L'));
        assert!(open::<Log>(&app).is_some());
        app.update(code(KeyCode::Esc));
        assert!(app.modal.is_none());
    }

    #[test]
    fn the_help_scrolls_to_its_last_row_and_any_other_key_closes_it() {
        let mut app = fixtures::app((60, 20));
        app.update(key('?'));
        app.update(key('G'));
        let scroll = open::<Help>(&app).expect("help closed by G").scroll;
        assert!(scroll > 0);
        let rows = crate::tui::keys::help_rows(
            &app.keys,
            crate::tui::dialog::inner_width(app.shared.size.0),
        )
        .len();
        assert_eq!(scroll, rows - 16, "the last page of 16 rows");
        app.update(key('k'));
        assert_eq!(open::<Help>(&app), Some(&Help { scroll: scroll - 1 }));
        app.update(key('x'));
        assert!(app.modal.is_none());
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
        assert_eq!(open::<Reason>(&app), Some(&Reason::new(Purpose::Abandon)));
        for c in "stale".chars() {
            app.update(key(c));
        }
        // Enter asks once more; only `y` abandons.
        assert!(app.update(code(KeyCode::Enter)).is_empty());
        assert_eq!(
            app.update(key('y')),
            vec![Effect::Act(Action::Abandon(Some("stale".into())))]
        );
        // Esc cancels; so does any key but `y` once asked (a second Enter too).
        app.busy = None;
        app.update(key('a'));
        assert!(app.update(code(KeyCode::Esc)).is_empty());
        assert!(app.modal.is_none());
        app.update(key('a'));
        app.update(code(KeyCode::Enter));
        assert!(app.update(code(KeyCode::Enter)).is_empty());
        assert!(app.modal.is_none(), "kept");
    }

    /// Issue 28, item 2: pasted text ran as keys (`t` jumped panes, `/`
    /// filtered, `a` opened the abandon dialog, the rest became its reason
    /// and a line break would have abandoned). A paste goes to an open text
    /// field whole, line breaks as spaces; with none open it is ignored.
    #[test]
    fn pasted_text_is_never_read_as_keys() {
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::interrupted_run()))));
        let pasted = || Event::Paste("see tests/api.rs and abandon\nthe old approach\n".into());
        assert!(app.update(pasted()).is_empty(), "nothing acts");
        assert!(app.modal.is_none(), "no dialog opened");
        assert!(
            app.toast
                .as_ref()
                .is_some_and(|(t, _)| t.contains("ignored"))
        );
        app.update(key('a'));
        assert!(app.update(pasted()).is_empty(), "a paste never confirms");
        let reason = open::<Reason>(&app).expect("still asking");
        assert_eq!(
            reason.reason,
            "see tests/api.rs and abandon the old approach "
        );
        assert!(!reason.confirming);
    }

    #[test]
    fn pause_toggles_with_optional_reason() {
        let mut app = fixtures::app((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        // One key pauses; the reason is asked after, and Enter records it.
        assert_eq!(app.update(key('p')), vec![Effect::Act(Action::Pause(None))]);
        assert_eq!(
            open::<Reason>(&app).map(|r| r.purpose),
            Some(Purpose::Paused)
        );
        app.busy = None;
        for c in "review".chars() {
            app.update(key(c));
        }
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::Act(Action::Pause(Some("review".into())))]
        );
        app.busy = None;
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
            fixtures::completed_run(),
        )))));
        assert!(app.update(key('p')).is_empty(), "unpausing asks first");
        assert_eq!(open::<Confirm>(&app), Some(&Confirm::new(Action::Unpause)));
        assert!(
            app.update(code(KeyCode::Enter)).is_empty(),
            "Enter keeps it paused"
        );
        app.update(key('p'));
        assert_eq!(app.update(key('y')), vec![Effect::Act(Action::Unpause)]);
    }

    #[test]
    fn tabs_follow_the_layout_and_wrap() {
        let mut app = fixtures::app((60, 20));
        assert_eq!(app.tab_bar().len(), 6);
        app.update(key('5'));
        assert_eq!(app.selected, timeline::ID);
        app.update(code(KeyCode::Tab));
        assert_eq!(app.selected, metrics::ID);
        app.update(code(KeyCode::Tab));
        assert_eq!(app.selected, run::ID);
        // Wide: the run panel is the sidebar, and still tab 1 (the whole
        // width when selected): a number key means one tab at every width.
        app.update(Event::Resize(160, 48));
        assert_eq!(app.selected, run::ID);
        assert!(app.areas().sidebar.is_none(), "no sidebar beside itself");
        app.update(key('5'));
        assert_eq!(app.selected, timeline::ID);
        assert_eq!(app.areas().sidebar.map(|(_, t)| t), Some(run::ID));
        assert_eq!(
            fixtures::app((160, 48)).selected,
            inbox::ID,
            "starts beside the sidebar"
        );
    }

    #[test]
    fn a_click_on_a_tab_switches_to_it() {
        let mut app = fixtures::app((60, 20));
        let (rect, tab) = app.areas().tabs[3];
        app.update(Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: rect.x + 1,
            row: rect.y,
            modifiers: crossterm::event::KeyModifiers::NONE,
        }));
        assert_eq!(app.selected, tab);
    }

    #[test]
    fn metrics_tab_is_sixth_at_every_width() {
        for size in [(60, 20), (160, 48)] {
            let mut app = fixtures::app(size);
            app.update(key('6'));
            assert_eq!(app.selected, metrics::ID, "at {size:?}");
            app.update(code(KeyCode::Tab));
            assert_eq!(app.selected, run::ID, "wraps to Run at {size:?}");
        }
    }

    #[test]
    fn esc_goes_back_only_when_opened_from_the_fleet_and_t_asks_for_the_pane() {
        let mut app = fixtures::app((100, 30));
        assert!(app.update(code(KeyCode::Esc)).is_empty(), "alone: nothing");
        app.in_fleet = true;
        assert_eq!(app.update(code(KeyCode::Esc)), vec![Effect::Back]);
        assert_eq!(app.update(key('t')), vec![Effect::Act(Action::JumpToPane)]);
    }

    /// Drilled in from the fleet: `q` goes back like esc, `Q` and ctrl-c
    /// quit everything, and the footer says so.
    #[test]
    fn in_a_workspace_opened_from_the_fleet_q_goes_back_and_capital_q_quits() {
        let mut app = fixtures::loaded((100, 30));
        app.in_fleet = true;
        assert_eq!(app.update(key('q')), vec![Effect::Back]);
        assert!(!app.quit);
        let screen = fixtures::render_text((100, 30), |f| crate::tui::view::render(f, &app));
        let footer = screen.lines().last().unwrap_or("");
        assert!(
            footer.contains("q back") && footer.contains("Q quit"),
            "{footer}"
        );
        assert_eq!(app.update(key('Q')), vec![Effect::Quit]);
        let mut alone = fixtures::app((100, 30));
        assert_eq!(alone.update(key('q')), vec![Effect::Quit]);
    }

    /// The fleet's drill-in: the human's queue when it has mail, and `c`
    /// opens a message to the workspace's agent.
    #[test]
    fn the_fleet_opens_the_humans_queue_or_a_message_to_the_agent() {
        let mut app = fixtures::loaded((100, 30));
        app.show_human_queue();
        assert_eq!(app.selected, inbox::ID);
        assert_eq!(app.load_request().inbox_agent.as_deref(), Some(HUMAN));
        let mut app = fixtures::loaded((100, 30));
        app.write_to(Some("codex".into()));
        assert_eq!(app.selected, inbox::ID);
        let compose = app.modal.as_ref().and_then(|m| m.downcast::<Compose>());
        assert!(compose.is_some(), "{:?}", app.modal);
        let screen = fixtures::render_text((100, 30), |f| crate::tui::view::render(f, &app));
        assert!(screen.contains("codex"), "{screen}");
    }
}
