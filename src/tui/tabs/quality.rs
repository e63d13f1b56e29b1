//! The quality panel: the score of the current handoff (what the next
//! session will read) and its findings by severity, rule and line.

use agent_handover::handoff::{LintReport, Severity};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};

use crate::tui::command::TabId;
use crate::tui::model::Shared;
use crate::tui::tab::{Cursor, Tab};
use crate::tui::widgets::{fit, loading, panel};

/// The quality tab's id.
pub const ID: TabId = TabId::new("Quality");

/// The quality panel's state: the selected finding.
#[derive(Debug, Default)]
pub struct QualityTab {
    /// The selected finding (the list scrolls to keep it shown).
    finding: Cursor,
}

impl Tab for QualityTab {
    fn id(&self) -> TabId {
        ID
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.finding
    }

    fn rows(&self, shared: &Shared) -> usize {
        report(shared).map_or(0, |q| q.findings.len())
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self.finding.row());
    }
}

/// The quality report, if loaded and there is a current state.
fn report(shared: &Shared) -> Option<&LintReport> {
    shared
        .full
        .quality
        .as_ref()
        .and_then(|r| r.as_ref().ok())
        .and_then(Option::as_ref)
}

/// Draw the quality panel into `area`, finding `selected` highlighted.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, selected: usize) {
    let t = &shared.theme;
    let report = match &shared.full.quality {
        None => return loading(frame, area, shared, "Quality"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), t.error)).wrap(Wrap { trim: false });
            return frame.render_widget(p.block(panel(" Quality ", shared)), area);
        }
        Some(Ok(None)) => {
            let p = Paragraph::new(Line::styled("No current-state.md to score yet.", t.muted));
            return frame.render_widget(p.block(panel(" Quality ", shared)), area);
        }
        Some(Ok(Some(report))) => report,
    };
    let block = panel(
        format!(
            " Quality of the current handoff · {} tokens ",
            report.tokens
        ),
        shared,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [gauge, sections, findings, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(2),
        Constraint::Fill(1),
        Constraint::Length(if inner.height >= 14 { 4 } else { 0 }),
    ])
    .areas(inner);
    let score_style = match report.score {
        80.. => t.ok,
        50..80 => t.warn,
        _ => t.error,
    };
    let g = Gauge::default()
        .gauge_style(score_style)
        .ratio(f64::from(report.score) / 100.0)
        .label(format!("{}/100", report.score));
    frame.render_widget(g, gauge);
    let present: Vec<&str> = report
        .sections
        .iter()
        .filter(|s| s.kind.is_some())
        .map(|s| s.heading.as_str())
        .collect();
    let p = Paragraph::new(Line::styled(
        format!("sections: {}", present.join(" · ")),
        t.muted,
    ))
    .wrap(Wrap { trim: true });
    frame.render_widget(p, sections);
    if report.findings.is_empty() {
        return frame.render_widget(
            Paragraph::new(Line::styled(
                "No findings: ready for the next session.",
                t.ok,
            )),
            findings,
        );
    }
    let height = usize::from(findings.height);
    let first = selected.saturating_sub(height.saturating_sub(1));
    let width = usize::from(findings.width);
    let lines: Vec<Line<'_>> = report
        .findings
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, f)| {
            let sev = match f.severity {
                Severity::Error => t.error,
                Severity::Warning => t.warn,
                Severity::Info => t.muted,
            };
            let line = f.line.map_or("    ".to_string(), |l| format!("L{l:<3}"));
            let row = if i == selected {
                t.selected
            } else {
                Style::new()
            };
            let text = format!(" {line} {}: {}", f.rule, f.message);
            Line::from(vec![
                Span::styled(format!("{:<7}", f.severity.to_string()), sev),
                Span::styled(fit(&text, width.saturating_sub(7)), row),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), findings);
    if let Some(f) = report.findings.get(selected) {
        let p = Paragraph::new(vec![
            Line::styled(format!("{} ({})", f.rule, f.severity), t.accent),
            Line::raw(f.message.clone()),
        ])
        .wrap(Wrap { trim: false });
        frame.render_widget(p, detail);
    }
}
