//! The inbox: queues per agent with unread counts, the selected agent's
//! messages (its queue and `shared`), and a preview of the selected one.
//! Its keys mark a message read and switch between the agents' queues.

use agent_handover::domain::inbox::{HUMAN, Message, MessageSummary, QueueSummary};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::command::{Binding, Command, TabId};
use crate::tui::layout::is_wide;
use crate::tui::model::{
    Action, Draft, DraftField, Effect, Event, FullData, InboxData, LoadRequest, Shared,
};
use crate::tui::tab::{Cursor, ListFilter, Reply, Tab};
use crate::tui::widgets::{ago, fit, list_window, loading, more_below, panel, wrap};

/// The inbox tab's id.
pub const ID: TabId = TabId::new("Inbox");

/// Mark the selected message read.
const MARK_READ: Command = Command::Local("mark-read");
/// The previous agent's queue.
const PREV_QUEUE: Command = Command::Local("prev-queue");
/// The next agent's queue.
const NEXT_QUEUE: Command = Command::Local("next-queue");
/// Read the selected message whole.
const OPEN: Command = Command::Local("open-message");
/// Write a new message.
const COMPOSE: Command = Command::Local("compose");
/// Answer the selected message.
const REPLY: Command = Command::Local("reply");
/// Only the unread messages, or all.
const UNREAD_ONLY: Command = Command::Local("unread-only");
/// Show the human's queue (the fleet view opens a workspace there when it
/// has mail for the human); no key.
pub const SHOW_HUMAN: Command = Command::Local("show-human-queue");

/// The inbox's own keys.
#[rustfmt::skip]
const BINDINGS: &[Binding] = &[
    Binding::new("open-message", OPEN, &["enter"], "open", "read the selected message whole (scrolls; Esc closes)"),
    Binding::new("compose", COMPOSE, &["c"], "write", "write a message (to this inbox's agent; Tab fields, ctrl-s sends)"),
    Binding::new("reply", REPLY, &["C"], "reply", "answer the selected message (r in the reader; R stays retry)"),
    Binding::new("mark-read", MARK_READ, &["m"], "read", "mark the selected message read"),
    Binding::new("unread-only", UNREAD_ONLY, &["u"], "", "show only unread messages, or all"),
    Binding::new("prev-queue", PREV_QUEUE, &["["], "", "previous agent's inbox"),
    Binding::new("next-queue", NEXT_QUEUE, &["]"], "agent", "next agent's inbox"),
];

/// Width of the queue list (wide layout).
const QUEUES_WIDTH: u16 = 24;

/// The inbox's state: whose queue is shown and which message is selected.
#[derive(Debug, Default)]
pub struct InboxTab {
    /// The agent whose messages are listed, by name (`None` until the first
    /// load names one).
    agent: Option<String>,
    /// The selected message (a row of [`InboxTab::visible`]).
    message: Cursor,
    /// Only unread messages are listed.
    unread_only: bool,
    /// Messages listed: those whose sender, queue, subject or preview hold the words typed.
    filter: ListFilter,
    /// The message whose whole body the preview was asked to show (its id).
    asked: Option<String>,
    /// That message, once read: the preview shows its body, not the
    /// summary's first 200 characters.
    previewed: Option<Box<Message>>,
}

/// The inbox, if loaded.
fn inbox(full: &FullData) -> Option<&InboxData> {
    full.inbox.as_ref().and_then(|r| r.as_ref().ok())
}

/// The agents with their own queue (not `shared`).
fn agents(full: &FullData) -> Vec<&QueueSummary> {
    inbox(full).map_or_else(Vec::new, |i| {
        i.queues.iter().filter(|q| q.agent != "shared").collect()
    })
}

impl InboxTab {
    /// The messages listed: all of the queue's, or its unread ones.
    fn visible<'a>(&self, full: &'a FullData) -> Vec<&'a MessageSummary> {
        inbox(full).map_or_else(Vec::new, |i| {
            i.messages
                .iter()
                .filter(|m| !(self.unread_only && m.read))
                .filter(|m| {
                    self.filter
                        .keeps(&format!("{} {} {} {}", m.from, m.queue, m.subject, m.preview))
                })
                .collect()
        })
    }

    /// The selected message.
    fn selected<'a>(&self, full: &'a FullData) -> Option<&'a MessageSummary> {
        self.visible(full).get(self.message.row()).copied()
    }

    /// A new message to the agent whose inbox is shown, or an answer to the
    /// selected one.
    fn compose(&self, full: &FullData, reply: bool) -> Reply {
        let draft = if reply {
            let Some(m) = self.selected(full) else {
                return Reply::Note("select a message to answer".into());
            };
            answer(m)
        } else {
            Draft {
                to: self.agent.clone().unwrap_or_default(),
                from: HUMAN.into(),
                field: if self.agent.is_some() {
                    DraftField::Subject
                } else {
                    DraftField::To
                },
                ..Draft::default()
            }
        };
        Reply::Compose(Box::new(draft))
    }

    /// Mark the selected message read, unless it is already.
    fn mark_read(&self, full: &FullData) -> Reply {
        let target = inbox(full).and_then(|i| {
            let m = self.selected(full)?;
            Some((i.agent.clone()?, format!("{}/{}", m.queue, m.id), m.read))
        });
        match target {
            Some((_, _, true)) => Reply::Note("already read".into()),
            Some((agent, id, false)) => Reply::Act(Action::MarkRead { agent, id }),
            None => Reply::Handled,
        }
    }

    /// Show the next (or previous) agent's queue, from its first message.
    fn switch_queue(&mut self, full: &FullData, next: bool) -> Reply {
        let agents: Vec<String> = agents(full).iter().map(|q| q.agent.clone()).collect();
        if agents.is_empty() {
            return Reply::Handled;
        }
        let at = self
            .agent
            .as_ref()
            .and_then(|a| agents.iter().position(|x| x == a))
            .unwrap_or(0);
        let n = agents.len();
        let to = if next { (at + 1) % n } else { (at + n - 1) % n };
        self.agent = Some(agents[to].clone());
        self.message = Cursor::default();
        Reply::Effects(vec![Effect::LoadFull])
    }
}

impl Tab for InboxTab {
    fn id(&self) -> TabId {
        ID
    }

    fn bindings(&self) -> &'static [Binding] {
        BINDINGS
    }

    fn update(&mut self, command: Command, shared: &Shared, _selected: bool) -> Reply {
        match command {
            SHOW_HUMAN => {
                self.agent = Some(HUMAN.into());
                self.message = Cursor::default();
                self.unread_only = false;
                Reply::Effects(vec![Effect::LoadFull])
            }
            MARK_READ => self.mark_read(&shared.full),
            PREV_QUEUE => self.switch_queue(&shared.full, false),
            NEXT_QUEUE => self.switch_queue(&shared.full, true),
            OPEN => match self.selected(&shared.full) {
                Some(m) => Reply::Effects(vec![Effect::ReadMessage(m.id.clone())]),
                None => Reply::Handled,
            },
            COMPOSE => self.compose(&shared.full, false),
            REPLY => self.compose(&shared.full, true),
            UNREAD_ONLY => {
                let selected = self.selected(&shared.full).map(|m| (m.queue.clone(), m.id.clone()));
                self.unread_only = !self.unread_only;
                let at = selected.and_then(|(queue, id)| {
                    self.visible(&shared.full)
                        .iter()
                        .position(|m| m.queue == queue && m.id == id)
                });
                self.message.set(at.unwrap_or(0));
                Reply::Note(if self.unread_only {
                    "unread messages only (u shows all)".into()
                } else {
                    "all messages".into()
                })
            }
            _ => Reply::Unhandled,
        }
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.message
    }

    fn filter_mut(&mut self) -> Option<&mut ListFilter> {
        Some(&mut self.filter)
    }

    /// The selected message: its id (for `inbox read`), subject and text.
    fn copy_text(&self, shared: &Shared) -> Option<String> {
        let m = self.selected(&shared.full)?;
        Some(format!("{}/{}\n{}\n\n{}", m.queue, m.id, m.subject, m.preview))
    }

    fn rows(&self, shared: &Shared) -> usize {
        self.visible(&shared.full).len()
    }

    /// The first load picks the agent; it stays until switched. The
    /// selected message stays selected (by queue and id) when others arrive
    /// or go.
    fn reloaded(&mut self, previous: &FullData, shared: &Shared) -> Vec<Effect> {
        if self.agent.is_none() {
            self.agent = inbox(&shared.full).and_then(|i| i.agent.clone());
        }
        let key = |m: &MessageSummary| (m.queue.clone(), m.id.clone());
        let selected = inbox(previous)
            .filter(|p| p.agent == self.agent)
            .and_then(|_| self.selected(previous))
            .map(key);
        if let Some(selected) = selected
            && let Some(at) = self
                .visible(&shared.full)
                .iter()
                .position(|m| key(m) == selected)
        {
            self.message.set(at);
        }
        Vec::new()
    }

    fn wants(&mut self, shared: &Shared) -> Vec<Effect> {
        let id = self.selected(&shared.full).map(|m| m.id.clone());
        if id.is_none() || id == self.asked {
            return Vec::new();
        }
        self.asked = id.clone();
        id.map(Effect::PreviewMessage).into_iter().collect()
    }

    fn receive(&mut self, event: &Event) -> Reply {
        match event {
            Event::PreviewRead(read) => {
                if let Ok(message) = read.as_ref()
                    && Some(&message.summary.id) == self.asked.as_ref()
                {
                    self.previewed = Some(Box::new(message.clone()));
                }
                Reply::Handled
            }
            _ => Reply::Unhandled,
        }
    }

    fn add_to_load(&self, request: &mut LoadRequest) {
        request.inbox_agent = self.agent.clone();
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self);
    }
}

/// An answer to `m`: to its sender, "Re:" its subject, typed from the body.
pub fn answer(m: &MessageSummary) -> Draft {
    let subject = if m.subject.starts_with("Re: ") {
        m.subject.clone()
    } else {
        format!("Re: {}", m.subject)
    };
    Draft {
        to: m.from.clone(),
        from: HUMAN.into(),
        subject,
        body: String::new(),
        reply_to: Some(format!("{}/{}", m.queue, m.id)),
        field: DraftField::Body,
    }
}

/// A whole message as the reader shows it, cut into rows of at most
/// `width` characters (so the rows to scroll are exact): its header (id,
/// from, to, date, subject, what it answers, the command that shows it),
/// a blank row, then the body (secrets redacted by the library).
pub fn reader_rows(message: &Message, width: usize) -> Vec<String> {
    let m = &message.summary;
    let mut lines = vec![
        format!("id:      {}", m.id),
        format!("from:    {}", m.from),
        format!("to:      {}{}", m.to, if m.queue == "shared" { " (shared)" } else { "" }),
        format!("date:    {}", m.created.format("%Y-%m-%d %H:%M:%S UTC")),
        format!("subject: {}", m.subject),
    ];
    if let Some(to) = &message.reply_to {
        lines.push(format!("answers: {to}"));
    }
    lines.push(format!("status:  {}", if m.read { "read" } else { "unread" }));
    lines.push(String::new());
    lines.extend(message.body.lines().map(str::to_string));
    // Wrapped at words; a word longer than the row is cut.
    let width = width.max(1);
    lines.iter().flat_map(|line| wrap(line, width)).collect()
}

/// Draw the inbox of `tab` into `area`.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, tab: &InboxTab) {
    let data = match &shared.full.inbox {
        None => return loading(frame, area, shared, "Inbox"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), shared.theme.error))
                .wrap(Wrap { trim: false });
            return frame.render_widget(p.block(panel(" Inbox ", shared)), area);
        }
        Some(Ok(data)) => data,
    };
    let main = if is_wide(shared.size) && area.width >= QUEUES_WIDTH + 40 {
        let [queues, main] =
            Layout::horizontal([Constraint::Length(QUEUES_WIDTH), Constraint::Fill(1)]).areas(area);
        queue_list(frame, queues, shared, data);
        main
    } else {
        area
    };
    let messages = tab.visible(&shared.full);
    let selected = tab.message.row();
    let preview = message_preview(shared, messages.get(selected).copied(), tab.previewed.as_deref());
    // As tall as the message (its panel's borders counted), from a third of the
    // panel up to half of it: no blank rows under a short one, a long one
    // shown as far as it fits (enter reads it whole).
    let wanted = u16::try_from(preview.line_count(main.width)).unwrap_or(u16::MAX);
    let preview_height = wanted.clamp((main.height / 3).clamp(5, 12), (main.height / 2).max(5));
    let [list, preview_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(preview_height)]).areas(main);
    message_list(frame, list, shared, data, &messages, selected, tab);
    frame.render_widget(preview, preview_area);
}

fn queue_list(frame: &mut Frame<'_>, area: Rect, shared: &Shared, data: &InboxData) {
    let t = &shared.theme;
    let block = panel(" Queues ", shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines: Vec<Line<'_>> = data
        .queues
        .iter()
        .map(|q| {
            let selected = data.agent.as_deref() == Some(q.agent.as_str());
            let counts = format!("{}/{}", q.unread, q.total);
            let width = usize::from(inner.width).saturating_sub(counts.len() + 2);
            let text = format!(" {:w$} {counts}", fit(&q.agent, width), w = width);
            let style = match (selected, q.unread > 0) {
                (true, _) => t.selected,
                (false, true) => t.accent,
                (false, false) => Style::new(),
            };
            Line::styled(text, style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The `messages` listed, `selected` highlighted, with a "more" line when
/// some lie below the window.
fn message_list(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    data: &InboxData,
    messages: &[&MessageSummary],
    selected: usize,
    tab: &InboxTab,
) {
    let t = &shared.theme;
    let unread_only = tab.unread_only;
    let unread = data.messages.iter().filter(|m| !m.read).count();
    let only = if unread_only { ", unread shown" } else { "" };
    let filter = tab.filter.title();
    let title = match &data.agent {
        Some(agent) => format!(" {agent}: {unread} unread of {}{only}{filter} ", data.total),
        None => format!(
            " {} message{}{only}{filter} ",
            data.total,
            if data.total == 1 { "" } else { "s" }
        ),
    };
    let block = panel(title, shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if messages.is_empty() {
        let text = if data.queues.is_empty() {
            "No messages yet (messages/for_<agent>/, messages/shared/). c writes one."
        } else if !tab.filter.text().trim().is_empty() {
            "No message matches the filter (/ then Esc clears it)."
        } else if unread_only && !data.messages.is_empty() {
            "No unread messages (u shows all)."
        } else {
            "No messages. c writes one."
        };
        return frame.render_widget(Paragraph::new(Line::styled(text, t.muted)), inner);
    }
    let (first, count, below) = list_window(selected, messages.len(), usize::from(inner.height));
    let width = usize::from(inner.width);
    let mut lines: Vec<Line<'_>> = messages
        .iter()
        .enumerate()
        .skip(first)
        .take(count)
        .map(|(i, m)| {
            let mark = if m.read {
                Span::raw(" ")
            } else {
                Span::styled("*", t.accent)
            };
            let shared_tag = if m.queue == "shared" { " [shared]" } else { "" };
            let text = format!(
                "{:>4} {:<12} {}{shared_tag}",
                ago(shared, m.created),
                fit(&m.from, 12),
                m.subject
            );
            let style = match (i == selected, m.read) {
                (true, _) => t.selected,
                (false, false) => Style::new().patch(t.accent),
                (false, true) => Style::new(),
            };
            Line::from(vec![
                mark,
                Span::styled(fit(&text, width.saturating_sub(1)), style),
            ])
        })
        .collect();
    if below > 0 {
        lines.push(more_below(shared, below));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The preview of `message` (its whole body once read, else the
/// summary's first 200 characters), wrapped at words, in its panel.
fn message_preview<'a>(
    shared: &'a Shared,
    message: Option<&'a MessageSummary>,
    whole: Option<&'a Message>,
) -> Paragraph<'a> {
    let t = &shared.theme;
    let Some(m) = message else {
        return Paragraph::new("").block(panel(" Preview ", shared));
    };
    let title = format!(
        " from {} to {} · {} ago ",
        m.from,
        m.to,
        ago(shared, m.created)
    );
    let mut lines = vec![Line::styled(m.subject.clone(), t.accent)];
    let body = whole
        .filter(|w| w.summary.id == m.id && w.summary.queue == m.queue)
        .map_or(m.preview.as_str(), |w| w.body.as_str());
    lines.extend(body.lines().map(|l| Line::raw(l.to_string())));
    for flag in &m.flags {
        lines.push(Line::styled(format!("({})", flag.describe()), t.warn));
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(panel(title, shared))
}

#[cfg(test)]
mod reader_tests {
    use crate::tui::dialogs::compose::Compose;
    use crate::tui::dialogs::reader::Reader;
    use crate::tui::fixtures::open;
    use crate::tui::fixtures::{self, code};
    use crate::tui::model::{Effect, Event};
    use crossterm::event::KeyCode;

    /// Issue 44, item 4: the preview shows the selected message's whole
    /// body (read once, when it is selected), not the summary's first 200
    /// characters cut at three lines with the rest of the panel blank.
    #[test]
    fn the_preview_shows_the_selected_messages_whole_body() {
        let mut app = fixtures::app((100, 30));
        let effects = app.update(Event::FullLoaded(Box::new(fixtures::full_data())));
        let summary = match &app.shared.full.inbox {
            Some(Ok(inbox)) => inbox.messages[0].clone(),
            _ => panic!("no inbox"),
        };
        assert!(effects.contains(&Effect::PreviewMessage(summary.id.clone())), "{effects:?}");
        assert!(
            !app.update(crate::tui::fixtures::key('?')).contains(&Effect::PreviewMessage(summary.id.clone())),
            "asked once"
        );
        app.update(code(KeyCode::Esc));
        let body = (1..=8).map(|n| format!("point {n} of the review")).collect::<Vec<_>>().join("\n");
        app.update(Event::PreviewRead(Box::new(Ok(agent_handover::domain::inbox::Message {
            summary,
            body,
            reply_to: None,
        }))));
        let screen = fixtures::draw(&app);
        assert!(screen.contains("point 8 of the review"), "{screen}");
    }

    /// Issue 44, item 4: the reader wraps a long line at words, never
    /// mid-word, and keeps every word.
    #[test]
    fn the_reader_wraps_at_words() {
        let app = fixtures::loaded((60, 20));
        let summary = match &app.shared.full.inbox {
            Some(Ok(inbox)) => inbox.messages[0].clone(),
            _ => panic!("no inbox"),
        };
        let body = "please review the billing rewrite before the release freeze tomorrow morning";
        let message = agent_handover::domain::inbox::Message {
            summary,
            body: body.into(),
            reply_to: None,
        };
        let rows = super::reader_rows(&message, 30);
        let at = rows.iter().position(String::is_empty).unwrap() + 1;
        let body_rows = &rows[at..];
        assert!(body_rows.len() > 1, "{rows:?}");
        for row in body_rows {
            assert!(row.chars().count() <= 30, "{row:?}");
            for word in row.split(' ') {
                assert!(body.split(' ').any(|w| w == word), "cut mid-word: {row:?}");
            }
        }
        assert_eq!(body_rows.join(" "), body);
    }

    #[test]
    fn enter_reads_the_selected_message_whole_and_esc_closes_it() {
        let mut app = fixtures::loaded((160, 48));
        let (id, summary) = match &app.shared.full.inbox {
            Some(Ok(inbox)) => (inbox.messages[0].id.clone(), inbox.messages[0].clone()),
            _ => panic!("no inbox"),
        };
        assert_eq!(app.update(code(KeyCode::Enter)), vec![Effect::ReadMessage(id)]);
        let message = agent_handover::domain::inbox::Message {
            summary,
            body: "x\n".repeat(100),
            reply_to: None,
        };
        app.update(Event::MessageRead(Box::new(Ok(message))));
        assert_eq!(open::<Reader>(&app).map(|r| r.scroll), Some(0));
        app.update(crate::tui::fixtures::key('G'));
        assert!(open::<Reader>(&app).is_some_and(|r| r.scroll > 50));
        app.update(code(KeyCode::Esc));
        assert!(app.modal.is_none());
        // `r` in the reader answers the message read.
        app.update(code(KeyCode::Enter));
        app.update(Event::MessageRead(Box::new(Ok(agent_handover::domain::inbox::Message {
            summary: match &app.shared.full.inbox {
                Some(Ok(inbox)) => inbox.messages[0].clone(),
                _ => unreachable!(),
            },
            body: "x\n".into(),
            reply_to: None,
        }))));
        app.update(crate::tui::fixtures::key('r'));
        assert!(
            open::<Compose>(&app).is_some_and(|c| c.draft.to == "reviewer" && c.draft.reply_to.is_some()),
            "{:?}",
            app.modal
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::{self, key};

    #[test]
    fn inbox_queues_switch_and_mark_read_targets_the_selected_message() {
        let mut app = fixtures::loaded((60, 20));
        app.update(key('2'));
        let inbox: &InboxTab = fixtures::tab(&app);
        assert_eq!(inbox.agent.as_deref(), Some("codex"));
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
        let mut effects = app.update(key(']'));
        effects.retain(|e| !matches!(e, Effect::PreviewMessage(_)));
        assert_eq!(effects, vec![Effect::LoadFull]);
        let inbox: &InboxTab = fixtures::tab(&app);
        assert_eq!(inbox.agent.as_deref(), Some("claude"));
        assert_eq!(inbox.message.row(), 0);
        assert_eq!(
            app.load_request().inbox_agent.as_deref(),
            Some("claude"),
            "the reload lists the new agent's messages"
        );
    }

    fn typed(app: &mut crate::tui::app::App, text: &str) {
        for c in text.chars() {
            let event = match c {
                '\n' => fixtures::code(crossterm::event::KeyCode::Enter),
                '\t' => fixtures::code(crossterm::event::KeyCode::Tab),
                c => key(c),
            };
            app.update(event);
        }
    }

    fn ctrl_s() -> crate::tui::model::Event {
        crate::tui::model::Event::Key(crossterm::event::KeyEvent::new(
            crossterm::event::KeyCode::Char('s'),
            crossterm::event::KeyModifiers::CONTROL,
        ))
    }

    /// Issue 14, build 4: `c` writes to the agent whose inbox is shown,
    /// ctrl-s sends through the engine (the same call as `inbox send`).
    #[test]
    fn c_writes_a_message_and_ctrl_s_sends_it() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        app.update(key('c'));
        typed(&mut app, "Stop the deploy\tline one\nline two");
        let screen = fixtures::draw(&app);
        assert!(screen.contains("New message"), "{screen}");
        assert!(screen.contains("to       codex"), "{screen}");
        assert!(screen.contains("line two▏"), "{screen}");
        let effects = app.update(ctrl_s());
        assert_eq!(
            effects,
            vec![Effect::Act(Action::Send(Box::new(Draft {
                to: "codex".into(),
                from: HUMAN.into(),
                subject: "Stop the deploy".into(),
                body: "line one\nline two".into(),
                reply_to: None,
                field: DraftField::Body,
            })))]
        );
        assert!(app.modal.is_none());
        // Refused by the engine (say, a secret in it): kept, and c reopens it.
        assert!(app.busy.is_some(), "sending");
        app.update(crate::tui::model::Event::ActionDone(Err(
            "the message body holds a secret".into(),
        )));
        assert!(app.toast.as_ref().is_some_and(|(t, _)| t.contains("c, or C on the message it answers, reopens it")));
        app.update(key('c'));
        let screen = fixtures::draw(&app);
        assert!(screen.contains("line two"), "the text typed is back: {screen}");
        // While another action runs, ctrl-s keeps the message open.
        app.busy = Some("resuming the handover".into());
        assert!(app.update(ctrl_s()).is_empty());
        assert!(fixtures::open::<crate::tui::dialogs::compose::Compose>(&app).is_some());
    }

    /// Esc keeps what was typed; a reply (`C`) answers the selected message.
    #[test]
    fn esc_keeps_the_text_and_r_answers_the_selected_message() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        app.update(key('c'));
        typed(&mut app, "half a thought");
        app.update(fixtures::code(crossterm::event::KeyCode::Esc));
        assert!(app.modal.is_none());
        assert_eq!(app.unsent.len(), 1, "kept");
        app.update(key('C'));
        let Some(reply) = fixtures::open::<crate::tui::dialogs::compose::Compose>(&app)
            .map(|c| c.draft.clone())
        else {
            panic!("C opens a reply");
        };
        assert_eq!(reply.to, "reviewer");
        assert_eq!(reply.subject, "Re: CI red on main");
        assert_eq!(
            reply.reply_to.as_deref(),
            Some("codex/20261121T115000.000000000Z-reviewer-0a1b2c3d")
        );
        assert_eq!(app.unsent.len(), 1, "a reply leaves the unsent message alone");
        insta::assert_snapshot!("inbox_reply_100x30", fixtures::draw(&app));
        // A reply closed untouched keeps nothing and loses nothing.
        app.update(fixtures::code(crossterm::event::KeyCode::Esc));
        assert_eq!(app.unsent.len(), 1);
        // A reply typed into and closed is kept beside the new message.
        app.update(key('C'));
        typed(&mut app, "on it");
        app.update(fixtures::code(crossterm::event::KeyCode::Esc));
        assert_eq!(app.unsent.len(), 2);
        app.update(key('c'));
        assert!(
            fixtures::open::<crate::tui::dialogs::compose::Compose>(&app).is_some_and(|c| c.draft.body == "half a thought" || c.draft.subject == "half a thought"),
            "{:?}",
            app.modal
        );
        app.update(fixtures::code(crossterm::event::KeyCode::Esc));
        app.update(key('C'));
        assert!(
            fixtures::open::<crate::tui::dialogs::compose::Compose>(&app).is_some_and(|c| c.draft.body == "on it"),
            "{:?}",
            app.modal
        );
    }

    /// The message being written, at every size: the fields, the cursor,
    /// and the keys that send or close it stay on screen.
    #[test]
    fn the_new_message_dialog_fits_every_size() {
        for size in [(60, 20), (100, 30), (160, 48)] {
            let mut app = fixtures::loaded(size);
            app.selected = ID;
            app.update(key('c'));
            typed(&mut app, "Stop the deploy\tline one\nline two");
            let screen = fixtures::draw(&app);
            assert!(screen.contains("ctrl-s") && screen.contains("Esc"), "{screen}");
            assert!(screen.contains("line two▏"), "{screen}");
            insta::assert_snapshot!(format!("inbox_compose_{}x{}", size.0, size.1), screen);
        }
    }

    /// `y` copies the selected message: id, subject, text.
    #[test]
    fn y_copies_the_selected_message() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        let effects = app.update(key('y'));
        let [Effect::Copy(text)] = &effects[..] else {
            panic!("{effects:?}");
        };
        assert!(
            text.starts_with("codex/20261121T115000.000000000Z-reviewer-0a1b2c3d\nCI red on main\n\nCI red on main."),
            "{text}"
        );
    }

    /// `/` keeps the messages whose sender, subject or text hold the words.
    #[test]
    fn slash_filters_the_messages() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        app.update(key('/'));
        for c in "lead freeze".chars() {
            app.update(key(c));
        }
        app.update(fixtures::code(crossterm::event::KeyCode::Enter));
        let screen = fixtures::draw(&app);
        assert!(screen.contains("Release freeze"), "{screen}");
        assert!(!screen.contains("CI red on main"), "{screen}");
        assert!(screen.contains("/lead freeze"), "{screen}");
    }

    /// Issue 14, build 4: `u` lists only unread messages, the selection
    /// staying on its message.
    #[test]
    fn u_lists_only_unread_messages() {
        for size in [(60, 20), (100, 30), (160, 48)] {
            let mut app = fixtures::loaded(size);
            app.selected = ID;
            app.update(key('j'));
            app.update(key('j')); // "Release freeze", unread
            app.update(key('u'));
            let screen = fixtures::draw(&app);
            assert!(!screen.contains("AST v3 merged"), "{screen}");
            assert!(screen.contains("unread shown"), "{screen}");
            let inbox: &InboxTab = fixtures::tab(&app);
            assert_eq!(inbox.message.row(), 1, "still on Release freeze");
            insta::assert_snapshot!(format!("inbox_unread_{}x{}", size.0, size.1), screen);
            app.update(key('u'));
            assert!(fixtures::draw(&app).contains("AST v3 merged"));
        }
    }
}
