//! The run panel: status, each step (state, attempts, duration), the selected
//! step's error and output, and the resume / abandon / pause buttons.

use agent_handover::RunStatus;
use agent_handover::engine::{RunSnapshot, StepState};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{ago, fit, panel};
use crate::tui::app::App;
use crate::tui::command::{Command, View};
use crate::tui::layout::{Areas, run_buttons};

/// Draw the run panel into `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, areas: &Areas) {
    let title = match app.snapshot() {
        Some(s) => format!(
            " Run {} · {} ",
            s.run_id.as_deref().unwrap_or("(0.5.x)"),
            status_name(s.status)
        ),
        None => " Run ".to_string(),
    };
    let block = panel(title, app);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = match &app.run {
        None => vec![Line::styled("loading…", app.theme.muted)],
        Some(Err(e)) => e
            .lines()
            .map(|l| Line::styled(l.to_string(), app.theme.error))
            .collect(),
        Some(Ok(snap)) => body(snap, app, inner.width),
    };
    let text_area = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text_area);
    let enabled = |c: Command| match c {
        Command::Resume => {
            app.resume_needed() && app.snapshot().is_some_and(|s| s.paused.is_none())
        }
        Command::Abandon => app
            .snapshot()
            .is_some_and(|s| s.status == RunStatus::InProgress),
        _ => true,
    };
    let labels = run_buttons(app);
    for (rect, command) in &areas.buttons {
        let on_this_panel = rect.y >= area.y
            && rect.y < area.y + area.height
            && rect.x >= area.x
            && rect.x < area.x + area.width;
        if !on_this_panel {
            continue;
        }
        let label = labels
            .iter()
            .find(|(c, _)| c == command)
            .map_or("", |(_, l)| *l);
        let style = if enabled(*command) {
            app.theme.button
        } else {
            app.theme.muted
        };
        frame.render_widget(Paragraph::new(Span::styled(label, style)), *rect);
    }
}

fn body(snap: &RunSnapshot, app: &App, width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    if snap.status == RunStatus::None {
        lines.push(Line::raw("No handover yet."));
        lines.push(Line::styled(
            "Agents run: agent-handover run --config handover.toml --note \"...\"",
            t.muted,
        ));
        return lines;
    }
    let done = snap
        .steps
        .iter()
        .filter(|s| s.state == StepState::Done)
        .count();
    let started = snap
        .started_at
        .as_deref()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|d| format!("started {} ago", ago(app, d.to_utc())))
        .unwrap_or_default();
    lines.push(Line::from(vec![
        Span::raw(format!("{done}/{} steps done", snap.steps.len())),
        Span::styled(format!("  {started}"), t.muted),
    ]));
    if let Some(a) = &snap.abandoned {
        let reason = a
            .reason
            .as_ref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        lines.push(Line::styled(
            format!("abandoned by {}{reason}", a.by),
            t.warn,
        ));
    }
    lines.push(Line::raw(""));
    let name_width = snap
        .steps
        .iter()
        .map(|s| s.name.len())
        .max()
        .unwrap_or(4)
        .min(usize::from(width) / 2);
    let focused = app.view == View::Run;
    for (i, step) in snap.steps.iter().enumerate() {
        let (mark, style) = marker(step.state, app);
        let mut text = format!(
            " {:w$}  {:<11}",
            fit(&step.name, name_width),
            step.state.as_str(),
            w = name_width
        );
        if step.attempts > 1 {
            text += &format!(" {}×", step.attempts);
        }
        if let Some(ms) = step.duration_ms {
            text += &format!(" {ms}ms");
        }
        let row_style = if focused && i == app.step_cursor {
            t.selected
        } else {
            Style::new()
        };
        lines.push(Line::from(vec![
            Span::styled(mark, style),
            Span::styled(text, row_style),
        ]));
    }
    if let Some(step) = app.focused_step().and_then(|i| snap.steps.get(i)) {
        lines.push(Line::raw(""));
        let mut about = vec![step.name.clone()];
        match step.kind {
            Some(kind) if kind != step.name => about.push(kind.to_string()),
            None => about.push("0.5.x step".into()),
            _ => {}
        }
        if step.idempotent == Some(false) {
            about.push("not idempotent".into());
        }
        lines.push(Line::styled(about.join(" · "), t.accent));
        if let Some(owner) = step
            .owner
            .as_ref()
            .filter(|_| step.state == StepState::Running)
        {
            lines.push(Line::raw(format!(
                "running as pid {} on {}",
                owner.pid, owner.host
            )));
        }
        if step.state == StepState::Interrupted {
            let what = if step.idempotent == Some(false) {
                "its process died mid-step and it is not idempotent: check its effects, then R retries it"
            } else {
                "its process died mid-step: r resumes and runs it again"
            };
            lines.push(Line::styled(what, t.warn));
        }
        if let Some(e) = &step.last_error {
            lines.push(Line::styled(format!("error: {e}"), t.error));
        }
        if let Some(o) = &step.output {
            let root = format!("{}/", app.workspace.display());
            lines.push(Line::styled(o.replace(&root, ""), t.muted));
        }
    }
    lines
}

fn marker(state: StepState, app: &App) -> (&'static str, Style) {
    let t = &app.theme;
    match state {
        StepState::Done => ("✓", t.ok),
        StepState::Failed => ("✗", t.error),
        StepState::Interrupted => ("!", t.error),
        StepState::Running => ("▶", t.warn),
        StepState::Pending => ("·", t.muted),
    }
}

/// The lowercase status name.
pub fn status_name(status: RunStatus) -> &'static str {
    match status {
        RunStatus::None => "none",
        RunStatus::InProgress => "in progress",
        RunStatus::Completed => "completed",
        RunStatus::Abandoned => "abandoned",
    }
}
