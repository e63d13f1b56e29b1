//! The quality panel: the score of the current handoff (what the next
//! session will read) and its findings by severity, rule and line.

use agent_handover::handoff::Severity;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph, Wrap};

use super::{fit, loading, panel};
use crate::tui::app::App;

/// Draw the quality panel into `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let t = &app.theme;
    let report = match &app.full.quality {
        None => return loading(frame, area, app, "Quality"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), t.error)).wrap(Wrap { trim: false });
            return frame.render_widget(p.block(panel(" Quality ", app)), area);
        }
        Some(Ok(None)) => {
            let p = Paragraph::new(Line::styled("No current-state.md to score yet.", t.muted));
            return frame.render_widget(p.block(panel(" Quality ", app)), area);
        }
        Some(Ok(Some(report))) => report,
    };
    let block = panel(
        format!(
            " Quality of the current handoff · {} tokens ",
            report.tokens
        ),
        app,
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
    let first = app.quality_scroll.saturating_sub(height.saturating_sub(1));
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
            let row = if i == app.quality_scroll {
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
    if let Some(f) = report.findings.get(app.quality_scroll) {
        let p = Paragraph::new(vec![
            Line::styled(format!("{} ({})", f.rule, f.severity), t.accent),
            Line::raw(f.message.clone()),
        ])
        .wrap(Wrap { trim: false });
        frame.render_widget(p, detail);
    }
}
