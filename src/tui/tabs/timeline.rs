//! The timeline: past runs, newest first.

use agent_handover::RunStatus;
use agent_handover::read::history::RunSummary;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::command::{Binding, Command, TabId};
use crate::tui::model::{Effect, Shared};
use crate::tui::tab::{Cursor, ListFilter, Reply, Tab};
use crate::tui::widgets::{ago, fit, loading, panel};

/// The timeline tab's id.
pub const ID: TabId = TabId::new("Timeline");

/// Open the selected run.
const OPEN: Command = Command::Local("open-run");

/// The timeline's own keys.
#[rustfmt::skip]
const BINDINGS: &[Binding] = &[
    Binding::new("open-run", OPEN, &["enter"], "open", "open the selected run: its steps, errors, note and score (Esc closes)"),
];

/// The timeline's state: the selected run and the `/` filter.
#[derive(Debug, Default)]
pub struct TimelineTab {
    /// The selected run (a row of [`TimelineTab::shown`]).
    run: Cursor,
    /// Runs shown: those whose id, status or problem steps hold the words typed.
    filter: ListFilter,
}

impl TimelineTab {
    /// The runs listed, newest first.
    fn shown<'a>(&self, shared: &'a Shared) -> Vec<&'a RunSummary> {
        match &shared.full.runs {
            Some(Ok(runs)) => runs
                .iter()
                .filter(|r| {
                    self.filter.keeps(&format!(
                        "{} {} {}",
                        r.run_id,
                        r.status.past_word(),
                        r.problem_steps.join(" ")
                    ))
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Tab for TimelineTab {
    fn id(&self) -> TabId {
        ID
    }

    fn bindings(&self) -> &'static [Binding] {
        BINDINGS
    }

    fn update(&mut self, command: Command, shared: &Shared, selected: bool) -> Reply {
        match command {
            OPEN if selected => match self.shown(shared).get(self.run.row()) {
                Some(run) => Reply::Effects(vec![Effect::ReadRun(run.run_id.clone())]),
                None => Reply::Note("no run to open".into()),
            },
            _ => Reply::Unhandled,
        }
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.run
    }

    fn filter_mut(&mut self) -> Option<&mut ListFilter> {
        Some(&mut self.filter)
    }

    /// The selected run's id.
    fn copy_text(&self, shared: &Shared) -> Option<String> {
        Some(self.shown(shared).get(self.run.row())?.run_id.clone())
    }

    fn rows(&self, shared: &Shared) -> usize {
        self.shown(shared).len()
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self);
    }
}

/// Draw the timeline of `tab` into `area`.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, tab: &TimelineTab) {
    let selected = tab.run.row();
    let all = match &shared.full.runs {
        None => return loading(frame, area, shared, "Timeline"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), shared.theme.error))
                .block(panel(" Timeline ", shared));
            return frame.render_widget(p, area);
        }
        Some(Ok(runs)) => runs,
    };
    let runs = tab.shown(shared);
    let t = &shared.theme;
    let count = if runs.len() == all.len() {
        format!("{} runs", all.len())
    } else {
        format!("{} of {} runs", runs.len(), all.len())
    };
    let block = panel(format!(" Timeline · {count}{} ", tab.filter.title()), shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if runs.is_empty() {
        let text = if all.is_empty() {
            "No handovers yet."
        } else {
            "No run matches the filter (/ then Esc clears it)."
        };
        return frame.render_widget(Paragraph::new(Line::styled(text, t.muted)), inner);
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
                    _ => r.status.past_word(),
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

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::tui::fixtures::{self, code, draw, key, tab};

    /// Issue 28, item 7: Enter on a run opens it (steps, errors, note,
    /// score) in a dialog that scrolls and wraps; Esc closes it.
    #[test]
    fn enter_opens_the_selected_run() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        app.update(key('j'));
        let id = tab::<TimelineTab>(&app).shown(&app.shared)[1].run_id.clone();
        assert_eq!(app.update(code(KeyCode::Enter)), vec![Effect::ReadRun(id.clone())]);
        let long = "tests — interrupted (2 attempts): error: exit status 1: 2 tests failed: parser::nested, parser::unicode, and the rest of a long line that must wrap, not be cut".to_string();
        app.update(crate::tui::model::Event::TextReady(format!("Run {id}"), vec![long]));
        let screen = draw(&app);
        assert!(screen.contains(&format!("Run {id}")), "{screen}");
        assert!(screen.contains("must wrap, not be cut") || screen.contains("must wrap,"), "{screen}");
        app.update(code(KeyCode::Esc));
        assert!(app.modal.is_none());
    }

    /// Issue 14, build 6: `/` filters the list as it is typed; Enter keeps
    /// the filter, `/` then Esc clears it.
    #[test]
    fn slash_filters_the_runs_as_typed() {
        for size in [(60, 20), (100, 30), (160, 48)] {
            let mut app = fixtures::loaded(size);
            app.selected = ID;
            app.update(key('j'));
            app.update(key('/'));
            for c in "COMPLETED 093".chars() {
                app.update(key(c));
            }
            let typing = draw(&app);
            assert!(typing.contains("/COMPLETED 093▏"), "{typing}");
            app.update(code(KeyCode::Enter));
            let screen = draw(&app);
            assert!(screen.contains("1 of 3 runs /COMPLETED 093"), "{screen}");
            assert!(screen.contains("20261121-093000-11b0"), "{screen}");
            assert!(!screen.contains("20261120-181500"), "{screen}");
            let tab: &TimelineTab = fixtures::tab(&app);
            assert_eq!(tab.run.row(), 0, "the selection stays on the list");
            insta::assert_snapshot!(format!("timeline_filtered_{}x{}", size.0, size.1), screen);
            app.update(key('/'));
            app.update(code(KeyCode::Esc));
            assert!(draw(&app).contains("3 runs"));
        }
    }
}
