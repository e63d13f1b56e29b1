//! The timeline: past runs, newest first.

use agent_handover::RunStatus;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::command::TabId;
use crate::tui::model::Shared;
use crate::tui::tab::{Cursor, Tab};
use crate::tui::widgets::{ago, fit, loading, panel, status_name};

/// The timeline tab's id.
pub const ID: TabId = TabId::new("Timeline");

/// The timeline's state: the selected run.
#[derive(Debug, Default)]
pub struct TimelineTab {
    /// The selected run.
    run: Cursor,
}

impl Tab for TimelineTab {
    fn id(&self) -> TabId {
        ID
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.run
    }

    fn rows(&self, shared: &Shared) -> usize {
        match &shared.full.runs {
            Some(Ok(r)) => r.len(),
            _ => 0,
        }
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self.run.row());
    }
}

/// Draw the timeline into `area`, run `selected` highlighted.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, selected: usize) {
    let runs = match &shared.full.runs {
        None => return loading(frame, area, shared, "Timeline"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), shared.theme.error))
                .block(panel(" Timeline ", shared));
            return frame.render_widget(p, area);
        }
        Some(Ok(runs)) => runs,
    };
    let t = &shared.theme;
    let block = panel(format!(" Timeline · {} runs ", runs.len()), shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if runs.is_empty() {
        return frame.render_widget(
            Paragraph::new(Line::styled("No handovers yet.", t.muted)),
            inner,
        );
    }
    let height = usize::from(inner.height);
    let first = selected.saturating_sub(height.saturating_sub(1));
    let width = usize::from(inner.width);
    let lines: Vec<Line<'_>> = runs
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, r)| {
            let (mark, style) = match r.status {
                RunStatus::Completed => ("✓", t.ok),
                RunStatus::InProgress => ("!", t.error),
                RunStatus::Abandoned => ("✗", t.warn),
                RunStatus::None => ("·", t.muted),
            };
            let when = r
                .started_at
                .as_deref()
                .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
                .map(|d| ago(shared, d.to_utc()))
                .unwrap_or_default();
            let mut text = format!(
                " {:>4}  {}  {:<11} {}/{}",
                when,
                r.run_id,
                // The current run in the snapshot's words (running or
                // interrupted), like the run panel and the header.
                match shared.snapshot() {
                    Some(s) if s.run_id.as_deref() == Some(r.run_id.as_str()) => s.state_word(),
                    _ => status_name(r.status),
                },
                r.steps_done,
                r.steps_total
            );
            if !r.problem_steps.is_empty() {
                text += &format!("  {}", r.problem_steps.join(", "));
            }
            if let Some(a) = &r.abandoned {
                text += &format!("  {a}");
            }
            let row = if i == selected {
                t.selected
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(mark, style),
                Span::styled(fit(&text, width.saturating_sub(1)), row),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
