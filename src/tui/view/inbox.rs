//! The inbox: queues per agent with unread counts, the selected agent's
//! messages (its queue and `shared`), and a preview of the selected one.

use agent_handover::inbox::MessageSummary;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{ago, fit, loading, panel};
use crate::tui::app::App;
use crate::tui::layout::is_wide;
use crate::tui::model::InboxData;

/// Width of the queue list (wide layout).
const QUEUES_WIDTH: u16 = 24;

/// Draw the inbox into `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let data = match &app.full.inbox {
        None => return loading(frame, area, app, "Inbox"),
        Some(Err(e)) => {
            let p =
                Paragraph::new(Line::styled(e.clone(), app.theme.error)).wrap(Wrap { trim: false });
            return frame.render_widget(p.block(panel(" Inbox ", app)), area);
        }
        Some(Ok(data)) => data,
    };
    let main = if is_wide(app.size) && area.width >= QUEUES_WIDTH + 40 {
        let [queues, main] =
            Layout::horizontal([Constraint::Length(QUEUES_WIDTH), Constraint::Fill(1)]).areas(area);
        queue_list(frame, queues, app, data);
        main
    } else {
        area
    };
    let preview_height = (main.height / 3).clamp(5, 12);
    let [list, preview] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(preview_height)]).areas(main);
    message_list(frame, list, app, data);
    message_preview(frame, preview, app, data.messages.get(app.message_cursor));
}

fn queue_list(frame: &mut Frame<'_>, area: Rect, app: &App, data: &InboxData) {
    let t = &app.theme;
    let block = panel(" Queues ", app);
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

fn message_list(frame: &mut Frame<'_>, area: Rect, app: &App, data: &InboxData) {
    let t = &app.theme;
    let unread = data.messages.iter().filter(|m| !m.read).count();
    let title = match &data.agent {
        Some(agent) => format!(" {agent}: {unread} unread of {} ", data.total),
        None => format!(" {} messages ", data.total),
    };
    let block = panel(title, app);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if data.messages.is_empty() {
        let text = if data.queues.is_empty() {
            "No messages yet (messages/for_<agent>/, messages/shared/)."
        } else {
            "No messages."
        };
        return frame.render_widget(Paragraph::new(Line::styled(text, t.muted)), inner);
    }
    let height = usize::from(inner.height);
    let first = app.message_cursor.saturating_sub(height.saturating_sub(1));
    let width = usize::from(inner.width);
    let lines: Vec<Line<'_>> = data
        .messages
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, m)| {
            let mark = if m.read {
                Span::raw(" ")
            } else {
                Span::styled("*", t.accent)
            };
            let shared = if m.queue == "shared" { " [shared]" } else { "" };
            let text = format!(
                "{:>4} {:<12} {}{shared}",
                ago(app, m.created),
                fit(&m.from, 12),
                m.subject
            );
            let style = match (i == app.message_cursor, m.read) {
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
    frame.render_widget(Paragraph::new(lines), inner);
}

fn message_preview(frame: &mut Frame<'_>, area: Rect, app: &App, message: Option<&MessageSummary>) {
    let t = &app.theme;
    let Some(m) = message else {
        return frame.render_widget(panel(" Preview ", app), area);
    };
    let title = format!(
        " from {} to {} · {} ago ",
        m.from,
        m.to,
        ago(app, m.created)
    );
    let mut lines = vec![Line::styled(m.subject.clone(), t.accent)];
    lines.extend(m.preview.lines().map(|l| Line::raw(l.to_string())));
    for flag in &m.flags {
        lines.push(Line::styled(format!("({})", flag.describe()), t.warn));
    }
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(panel(title, app));
    frame.render_widget(p, area);
}
