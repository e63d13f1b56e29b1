//! The timeline: past runs, newest first.

use agent_handover::RunStatus;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::run::status_name;
use super::{ago, fit, loading, panel};
use crate::tui::app::App;

/// Draw the timeline into `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let runs = match &app.full.runs {
        None => return loading(frame, area, app, "Timeline"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), app.theme.error))
                .block(panel(" Timeline ", app));
            return frame.render_widget(p, area);
        }
        Some(Ok(runs)) => runs,
    };
    let t = &app.theme;
    let block = panel(format!(" Timeline · {} runs ", runs.len()), app);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if runs.is_empty() {
        return frame.render_widget(
            Paragraph::new(Line::styled("No handovers yet.", t.muted)),
            inner,
        );
    }
    let height = usize::from(inner.height);
    let first = app.timeline_cursor.saturating_sub(height.saturating_sub(1));
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
                .map(|d| ago(app, d.to_utc()))
                .unwrap_or_default();
            let mut text = format!(
                " {:>4}  {}  {:<11} {}/{}",
                when,
                r.run_id,
                status_name(r.status),
                r.steps_done,
                r.steps_total
            );
            if !r.problem_steps.is_empty() {
                text += &format!("  {}", r.problem_steps.join(", "));
            }
            if let Some(a) = &r.abandoned {
                text += &format!("  {a}");
            }
            let row = if i == app.timeline_cursor {
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
