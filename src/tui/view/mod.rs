//! Rendering: a pure function of the state. Each panel has its own file;
//! this one draws the frame around them (header, tabs, footer, dialogs).

mod inbox;
mod metrics;
mod quality;
mod run;
mod state;
mod timeline;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::app::{App, Modal};
use super::command::View;
use super::layout::{Areas, tab_label};
use super::model::WatchMode;

/// Draw the whole dashboard.
pub fn render(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let areas = Areas::compute((area.width, area.height), app);
    header(frame, areas.header, app);
    tab_bar(frame, &areas, app);
    if let Some(sidebar) = areas.sidebar {
        run::render(frame, sidebar, app, &areas);
    }
    match app.view {
        View::Run => run::render(frame, areas.body, app, &areas),
        View::State => state::render(frame, areas.body, app),
        View::Timeline => timeline::render(frame, areas.body, app),
        View::Inbox => inbox::render(frame, areas.body, app),
        View::Quality => quality::render(frame, areas.body, app),
        View::Metrics => metrics::render(frame, areas.body, app),
    }
    footer(frame, areas.footer, app);
    if let Some(modal) = &app.modal {
        dialog(frame, area, app, modal);
    }
}

/// A bordered panel with a title.
pub(crate) fn panel<'a>(title: impl Into<Line<'a>>, app: &App) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(app.theme.muted)
        .title(title.into().style(app.theme.accent))
}

/// A panel that has nothing to show yet.
pub(crate) fn loading(frame: &mut Frame<'_>, area: Rect, app: &App, title: &str) {
    let p = Paragraph::new(Line::styled("loading…", app.theme.muted))
        .block(panel(format!(" {title} "), app));
    frame.render_widget(p, area);
}

/// "12s", "3m", "5h", "2d" since `at`.
pub(crate) fn ago(app: &App, at: chrono::DateTime<chrono::Utc>) -> String {
    let secs = (app.now - at).num_seconds().max(0);
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m", secs / 60),
        3600..86400 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86400),
    }
}

/// Cut `text` to `width` characters, with `…` when cut.
pub(crate) fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else if width == 0 {
        String::new()
    } else {
        text.chars().take(width - 1).chain(['…']).collect()
    }
}

fn header(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let t = &app.theme;
    let mut badges: Vec<Span<'_>> = Vec::new();
    if let Some(snap) = app.snapshot() {
        if let Some(p) = &snap.paused {
            let reason = p
                .reason
                .as_ref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            badges.push(Span::styled(format!(" PAUSED{reason} "), t.paused));
        }
        if app.resume_needed() {
            badges.push(Span::styled(
                format!(" RESUME NEEDED: {} pending ", snap.pending.len()),
                t.alert,
            ));
        }
        if let Some(holder) = &snap.lock_holder {
            let pid = holder.split(" on ").next().unwrap_or(holder);
            badges.push(Span::styled(format!(" running ({pid}) "), t.warn));
        }
    } else if let Some(Err(_)) = &app.run {
        badges.push(Span::styled(" CHECKPOINT UNREADABLE ", t.alert));
    }
    if app.watch == WatchMode::Polling {
        badges.push(Span::styled(" polling ", t.muted));
    }
    let used: usize = badges.iter().map(|b| b.content.chars().count() + 1).sum();
    let room = usize::from(area.width).saturating_sub(used + 1);
    let title = fit(&format!(" agent-handover · {}", app.label), room);
    let mut spans = vec![Span::styled(title, t.accent)];
    let pad = usize::from(area.width).saturating_sub(used + spans[0].content.chars().count());
    spans.push(Span::raw(" ".repeat(pad)));
    for b in badges {
        spans.push(Span::raw(" "));
        spans.push(b);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn tab_bar(frame: &mut Frame<'_>, areas: &Areas, app: &App) {
    for (i, (rect, view)) in areas.tabs.iter().enumerate() {
        let style = if *view == app.view {
            app.theme.selected.patch(app.theme.accent)
        } else {
            app.theme.muted
        };
        frame.render_widget(
            Paragraph::new(Span::styled(tab_label(i, *view), style)),
            *rect,
        );
    }
}

fn footer(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let t = &app.theme;
    let status = match (&app.busy, &app.toast) {
        (Some(busy), _) => Some(Span::styled(format!("{busy}…"), t.warn)),
        (None, Some((text, true))) => Some(Span::styled(
            text.lines().next().unwrap_or("").to_string(),
            t.error,
        )),
        (None, Some((text, false))) => Some(Span::styled(
            text.lines().next().unwrap_or("").to_string(),
            t.ok,
        )),
        (None, None) => None,
    };
    let status_width = status.as_ref().map_or(0, |s| {
        s.content.chars().count().min(usize::from(area.width) / 2) + 1
    });
    let room = usize::from(area.width).saturating_sub(status_width);
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, label) in app.keys.footer(app.view) {
        let width = key.chars().count() + label.len() + 3;
        if used + width > room {
            break;
        }
        spans.push(Span::styled(format!(" {key}"), t.accent));
        spans.push(Span::styled(format!(" {label} "), t.muted));
        used += width;
    }
    if let Some(status) = status {
        let status = Span::styled(
            fit(&status.content, usize::from(area.width) / 2),
            status.style,
        );
        spans.push(Span::raw(" ".repeat(room.saturating_sub(used))));
        spans.push(status);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// A dialog body asking for an optional reason: Enter `confirm`s, Esc `cancel`s.
fn reason_prompt(
    app: &App,
    intro: String,
    reason: &str,
    confirm: &str,
    cancel: &str,
) -> Vec<Line<'static>> {
    let t = &app.theme;
    vec![
        Line::raw(intro),
        Line::raw(""),
        Line::from(vec![
            Span::raw("Reason (optional): "),
            Span::styled(format!("{reason}_"), t.accent),
        ]),
        Line::raw(""),
        Line::from(vec![
            Span::styled(" Enter ", t.button),
            Span::raw(format!(" {confirm}   ")),
            Span::styled(" Esc ", t.button),
            Span::raw(format!(" {cancel}")),
        ]),
    ]
}

fn dialog(frame: &mut Frame<'_>, area: Rect, app: &App, modal: &Modal) {
    let t = &app.theme;
    let (title, lines): (&str, Vec<Line<'_>>) = match modal {
        Modal::Help => {
            let lines = app
                .keys
                .help()
                .into_iter()
                .map(|(keys, help, scope)| {
                    let scope = if scope.is_empty() {
                        String::new()
                    } else {
                        format!(" ({scope})")
                    };
                    Line::from(vec![
                        Span::styled(format!("{keys:>16}  "), t.accent),
                        Span::raw(format!("{help}{scope}")),
                    ])
                })
                .collect();
            (" Keys — any key closes ", lines)
        }
        Modal::ConfirmAbandon { reason } => {
            let run = app
                .snapshot()
                .and_then(|s| s.run_id.clone())
                .unwrap_or_default();
            let intro = format!("Abandon run {run}? Its record and every file it wrote are kept.");
            (
                " Abandon the handover? ",
                reason_prompt(app, intro, reason, "abandon", "keep it"),
            )
        }
        Modal::PauseReason { reason } => {
            let intro = "Nothing runs until you unpause; handovers stay resumable.".to_string();
            (
                " Pause all automation ",
                reason_prompt(app, intro, reason, "pause", "cancel"),
            )
        }
    };
    let width = area.width.saturating_sub(4).min(84);
    let height = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let [_, middle, _] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(height),
        Constraint::Fill(1),
    ])
    .areas(area);
    let [_, rect, _] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(width),
        Constraint::Fill(1),
    ])
    .areas(middle);
    frame.render_widget(Clear, rect);
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(panel(title, app).border_style(Style::new()));
    frame.render_widget(p, rect);
}

#[cfg(test)]
pub(crate) mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;

    /// Render `app` at its size into plain text (one line per row).
    pub(crate) fn draw(app: &App) -> String {
        let mut terminal = Terminal::new(TestBackend::new(app.size.0, app.size.1)).unwrap();
        terminal.draw(|f| render(f, app)).unwrap();
        let buffer = terminal.backend().buffer();
        (0..buffer.area.height)
            .map(|y| {
                let line: String = (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol().to_string())
                    .collect();
                line.trim_end().to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    use crate::tui::app::Modal;
    use crate::tui::fixtures;
    use crate::tui::model::Event;

    const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 48)];

    /// Every view at every size.
    #[test]
    fn snapshots_of_every_view() {
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            for view in app.tabs() {
                app.view = view;
                let screen = draw(&app);
                // The run panel is on every screen: its own tab when narrow, the sidebar when wide.
                let run_shown = view == View::Run || crate::tui::layout::is_wide(size);
                assert_eq!(
                    screen.contains("Run 20261121-115700-4f2a"),
                    run_shown,
                    "{view:?} at {size:?}"
                );
                insta::assert_snapshot!(
                    format!("{}_{}x{}", view.title().to_lowercase(), size.0, size.1),
                    screen
                );
            }
        }
    }

    #[test]
    fn snapshot_paused_and_completed() {
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
                fixtures::completed_run(),
            )))));
            insta::assert_snapshot!(format!("paused_{}x{}", size.0, size.1), draw(&app));
        }
    }

    #[test]
    fn snapshot_dialogs() {
        let mut app = fixtures::loaded((100, 30));
        app.modal = Some(Modal::ConfirmAbandon {
            reason: "superseded".into(),
        });
        insta::assert_snapshot!("confirm_abandon_100x30", draw(&app));
        app.modal = Some(Modal::Help);
        insta::assert_snapshot!("help_100x30", draw(&app));
        let mut app = fixtures::loaded((60, 20));
        app.modal = Some(Modal::PauseReason {
            reason: String::new(),
        });
        insta::assert_snapshot!("pause_reason_60x20", draw(&app));
    }

    #[test]
    fn side_by_side_and_scrolling_build_only_visible_rows() {
        let mut app = fixtures::loaded((160, 48));
        app.view = View::State;
        app.side_by_side = true;
        insta::assert_snapshot!("state_side_by_side_160x48", draw(&app));
        // A 10,000-line diff draws as fast as a short one: only the window is built.
        let old: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 5000\n", "line 5000 changed\n");
        let diff = std::sync::Arc::new(agent_handover::memory::diff::StateDiff::new(old, new));
        app.side_by_side = false;
        app.diff = Some(crate::tui::app::DiffView {
            from: 1,
            to: 0,
            diff,
            scroll: 4995,
        });
        let screen = draw(&app);
        assert!(screen.contains("line 5000 changed"), "{screen}");
        assert!(
            screen.contains("4996") && !screen.contains(" 4994 "),
            "{screen}"
        );
    }

    #[test]
    fn metrics_empty_unmatched_and_unreadable() {
        for size in [(60, 20), (160, 48)] {
            let mut app = fixtures::loaded(size);
            app.view = View::Metrics;
            app.update(Event::FullLoaded(Box::new(crate::tui::model::FullData {
                metrics: Some(Ok(Vec::new())),
                ..fixtures::full_data()
            })));
            insta::assert_snapshot!(format!("metrics_empty_{}x{}", size.0, size.1), draw(&app));
        }
        let mut app = fixtures::loaded((60, 20));
        app.view = View::Metrics;
        let mut sessions = fixtures::sessions();
        for s in &mut sessions {
            s.sample.values.clear();
        }
        app.full.metrics = Some(Ok(sessions));
        let screen = draw(&app);
        assert!(
            screen.contains("8 sessions ran their [[metric]] commands")
                && screen.contains("✗ clippy exit 101"),
            "{screen}"
        );
        app.full.metrics = Some(Err(
            ".agent-handover/runs/20261121-093000-11b0.json is unreadable".into(),
        ));
        let screen = draw(&app);
        assert!(screen.contains("unreadable"), "{screen}");
    }

    #[test]
    fn unreadable_checkpoint_is_shown_not_crashed_on() {
        let mut app = fixtures::loaded((60, 20));
        app.view = View::Run;
        app.update(Event::RunLoaded(Box::new(Err(
            ".agent-handover/checkpoint.json is unreadable: invalid JSON\n  fix: move it aside"
                .into(),
        ))));
        let screen = draw(&app);
        assert!(
            screen.contains("CHECKPOINT UNREADABLE") && screen.contains("fix: move it aside"),
            "{screen}"
        );
    }

    #[test]
    fn ago_and_fit() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
        assert_eq!(fit("abc", 0), "");
    }
}
