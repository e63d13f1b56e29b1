//! Rendering: a pure function of the state. Each tab draws its own panel
//! ([`super::tabs`]); this draws the frame around them (header, tab bar,
//! footer, dialogs) and puts each tab in its place.

use agent_handover::read::NextAction;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::app::{App, Modal, dialog_inner_width};
use super::keys::help_rows;
use super::layout::{Areas, tab_label};
use super::model::{Action, Draft, DraftField, WatchMode};
use super::widgets::{fit, panel};

/// Draw the whole dashboard.
pub fn render(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let areas = Areas::compute(
        (area.width, area.height),
        &app.tabs,
        app.selected,
        &app.shared,
    );
    header(frame, areas.header, app);
    tab_bar(frame, &areas, app);
    if let Some((rect, tab)) = areas.sidebar {
        app.tabs.get(tab).render(frame, rect, &app.shared, false);
    }
    app.tabs
        .get(app.selected)
        .render(frame, areas.body, &app.shared, true);
    match &app.modal {
        // The filter is typed in the footer, over the list it narrows.
        Some(Modal::Filter { text }) => filter_prompt(frame, areas.footer, app, text),
        Some(modal) => {
            footer(frame, areas.footer, app);
            dialog(frame, area, app, modal);
        }
        None => footer(frame, areas.footer, app),
    }
}

/// The `/` filter being typed, in the footer.
fn filter_prompt(frame: &mut Frame<'_>, area: Rect, app: &App, text: &str) {
    let t = &app.shared.theme;
    let line = Line::from(vec![
        Span::styled(format!(" /{text}"), t.accent),
        Span::styled("▏", t.accent),
        Span::styled("  Enter keep · Esc clear", t.muted),
    ]);
    frame.render_widget(Paragraph::new(line), area);
}

fn header(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let t = &app.shared.theme;
    let mut badges: Vec<Span<'_>> = Vec::new();
    if let Some(snap) = app.shared.snapshot() {
        if let Some(p) = &snap.paused {
            let reason = p
                .reason
                .as_ref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            badges.push(Span::styled(format!(" PAUSED{reason} "), t.paused));
        }
        match snap.state.next_action().unpaused() {
            NextAction::Decide { step } => {
                badges.push(Span::styled(
                    format!(" RESUME NEEDED: decide {step} "),
                    t.alert,
                ));
            }
            NextAction::Upgrade { step } => badges.push(Span::styled(
                format!(" RESUME NEEDED: {step} needs a newer version "),
                t.alert,
            )),
            NextAction::Run { .. } | NextAction::RunWithNote { .. } if !snap.pending.is_empty() => {
                badges.push(Span::styled(
                    format!(" RESUME NEEDED: {} pending ", snap.pending.len()),
                    t.alert,
                ))
            }
            _ => {}
        }
        if !snap.queued.is_empty() {
            badges.push(Span::styled(
                format!(" QUEUED: {} waiting ", snap.queued.len()),
                t.alert,
            ));
        }
        if let Some(holder) = &snap.lock_holder {
            let pid = holder.split(" on ").next().unwrap_or(holder);
            badges.push(Span::styled(format!(" running ({pid}) "), t.warn));
        }
    } else if let Some(Err(_)) = &app.shared.run {
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
    for (i, (rect, tab)) in areas.tabs.iter().enumerate() {
        let style = if *tab == app.selected {
            app.shared.theme.selected.patch(app.shared.theme.accent)
        } else {
            app.shared.theme.muted
        };
        frame.render_widget(
            Paragraph::new(Span::styled(
                tab_label(i, *tab, areas.short_tabs && *tab != app.selected),
                style,
            )),
            *rect,
        );
    }
}

fn footer(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let t = &app.shared.theme;
    let status = match (&app.busy, &app.toast) {
        (Some(busy), _) => Some((format!("{busy}…"), t.warn)),
        (None, Some((text, true))) => {
            Some((text.lines().next().unwrap_or("").to_string(), t.error))
        }
        (None, Some((text, false))) => Some((text.lines().next().unwrap_or("").to_string(), t.ok)),
        (None, None) => None,
    };
    let width = usize::from(area.width);
    let hint_width = |key: &str, label: &str| key.chars().count() + label.len() + 3;
    // Help and quit are always there; the status line gets what is left
    // of the first half; the other keys fill the rest.
    let essentials = app.keys.essentials();
    let essential_width: usize = essentials.iter().map(|(k, l)| hint_width(k, l)).sum();
    let status_width = status.as_ref().map_or(0, |(text, _)| {
        (text.chars().count() + 1)
            .min(width / 2)
            .min(width.saturating_sub(essential_width))
    });
    let room = width.saturating_sub(status_width + essential_width);
    let hint = |spans: &mut Vec<Span<'static>>, key: &str, label: &str| {
        spans.push(Span::styled(format!(" {key}"), t.accent));
        spans.push(Span::styled(format!(" {label} "), t.muted));
    };
    let mut spans = Vec::new();
    let mut used = 0;
    let paused = app.shared.snapshot().is_some_and(|s| s.paused.is_some());
    for (key, label) in app.keys.footer(app.selected) {
        if essentials.iter().any(|(k, l)| *k == key && *l == label) {
            continue;
        }
        // One wording with the button: the pause key unpauses while paused.
        let label = if paused && label == "pause" {
            "unpause"
        } else {
            label
        };
        let w = hint_width(&key, label);
        if used + w > room {
            break;
        }
        hint(&mut spans, &key, label);
        used += w;
    }
    for (key, label) in &essentials {
        hint(&mut spans, key, label);
    }
    used += essential_width;
    if let Some((text, style)) = status {
        let text = fit(&text, status_width.saturating_sub(1));
        let pad = width.saturating_sub(used + text.chars().count());
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(text, style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// A dialog body asking for an optional reason (its Enter/Esc line is [`choices`]).
fn reason_prompt(app: &App, intro: String, reason: &str) -> Vec<Line<'static>> {
    let t = &app.shared.theme;
    vec![
        Line::raw(intro),
        Line::raw(""),
        Line::from(vec![
            Span::raw("Reason (optional): "),
            Span::styled(format!("{reason}_"), t.accent),
        ]),
    ]
}

/// A dialog's last line: Enter `confirm`s, Esc `cancel`s. Drawn on the
/// dialog's last row whatever the body's length, so it is never cut.
fn choices(app: &App, confirm: &str, cancel: &str) -> Line<'static> {
    let t = &app.shared.theme;
    Line::from(vec![
        Span::styled(" Enter ", t.button),
        Span::raw(format!(" {confirm}   ")),
        Span::styled(" Esc ", t.button),
        Span::raw(format!(" {cancel}")),
    ])
}

/// The fields of a message being written, the one typed into marked and
/// ending in a cursor.
fn compose_body(app: &App, draft: &Draft) -> Vec<Line<'static>> {
    let t = &app.shared.theme;
    let mut lines = Vec::new();
    if let Some(answers) = &draft.reply_to {
        lines.push(Line::styled(format!("answers: {answers}"), t.muted));
    }
    for field in DraftField::ALL {
        let active = field == draft.field;
        let (mark, label_style) = if active {
            ("▸", t.accent)
        } else {
            (" ", t.muted)
        };
        let text = match field {
            DraftField::To => &draft.to,
            DraftField::From => &draft.from,
            DraftField::Subject => &draft.subject,
            DraftField::Body => &draft.body,
        };
        let label = Span::styled(format!("{mark}{:<8} ", field.label()), label_style);
        let cursor = || Span::styled("▏", t.accent);
        if field == DraftField::Body {
            lines.push(Line::from(label));
            let mut body: Vec<Line<'static>> = text
                .split('\n')
                .map(|l| Line::raw(format!("  {l}")))
                .collect();
            if active && let Some(last) = body.last_mut() {
                last.push_span(cursor());
            }
            lines.extend(body);
        } else {
            let mut spans = vec![label, Span::raw(text.clone())];
            if active {
                spans.push(cursor());
            }
            lines.push(Line::from(spans));
        }
    }
    lines
}

/// What retrying `name` may repeat: the step, how a crash is settled, when
/// its last attempt started, and what that attempt left (error, output).
fn retry_body(app: &App, name: &str) -> Vec<Line<'static>> {
    let t = &app.shared.theme;
    let shared = &app.shared;
    let Some(step) = shared
        .snapshot()
        .and_then(|s| s.steps.iter().find(|s| s.name == name))
    else {
        return vec![Line::raw(format!("Run step {name} again."))];
    };
    let kind = step.kind.clone().unwrap_or_else(|| "0.5.x step".into());
    let mut lines = vec![Line::styled(
        format!(
            "{name} ({kind}) is not idempotent: running it again may repeat what its last attempt already did."
        ),
        t.warn,
    )];
    let when = step
        .started_at
        .map(|at| format!(", started {} ago", super::widgets::ago(shared, at)))
        .unwrap_or_default();
    lines.push(Line::raw(format!(
        "Attempt {}: {}{when}.",
        step.attempts,
        step.state.as_str()
    )));
    lines.push(Line::raw(
        "Check its effects first (files, commits, messages it may have sent).",
    ));
    let root = format!("{}/", shared.workspace.display());
    let left = [
        step.last_error.as_ref().map(|e| ("error", e)),
        step.output.as_ref().map(|o| ("output", o)),
    ];
    let mut any = false;
    for (label, text) in left.into_iter().flatten() {
        any = true;
        lines.push(Line::raw(""));
        lines.push(Line::styled(format!("Its last {label}:"), t.accent));
        for l in text.replace(&root, "").lines().take(8) {
            lines.push(Line::styled(format!("  {l}"), t.muted));
        }
    }
    if !any {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Its last attempt recorded no output (it was stopped before finishing).",
            t.muted,
        ));
    }
    lines
}

fn dialog(frame: &mut Frame<'_>, area: Rect, app: &App, modal: &Modal) {
    let t = &app.shared.theme;
    let (title, lines, actions): (String, Vec<Line<'_>>, Option<Line<'_>>) = match modal {
        Modal::Filter { .. } => return,
        Modal::Help { .. } => {
            let lines = help_rows(&app.keys, dialog_inner_width(area.width))
                .into_iter()
                .map(|(keys, text)| {
                    Line::from(vec![
                        Span::styled(format!("{keys:16}  "), t.accent),
                        Span::raw(text),
                    ])
                })
                .collect();
            (
                " Keys — j/k g/G scroll · other keys close ".into(),
                lines,
                None,
            )
        }
        Modal::Reader { message, .. } => {
            let rows =
                crate::tui::tabs::inbox::reader_rows(message, dialog_inner_width(area.width));
            let header = rows.iter().position(String::is_empty).unwrap_or(0);
            let lines = rows
                .into_iter()
                .enumerate()
                .map(|(i, row)| {
                    if i < header {
                        Line::styled(row, t.muted)
                    } else {
                        Line::raw(row)
                    }
                })
                .collect();
            (
                format!(
                    " {} — j/k scroll · r reply · Esc closes ",
                    fit(&message.summary.subject, 40)
                ),
                lines,
                None,
            )
        }
        Modal::Log { .. } => {
            let lines: Vec<Line<'_>> = if app.log.is_empty() {
                vec![Line::styled("No messages yet.", t.muted)]
            } else {
                app.log
                    .iter()
                    .map(|(at, text, error)| {
                        let style = if *error { t.error } else { Style::new() };
                        Line::from(vec![
                            Span::styled(format!("{} ", at.format("%H:%M:%S")), t.muted),
                            Span::styled(text.clone(), style),
                        ])
                    })
                    .collect()
            };
            (
                format!(" Messages ({}) — j/k scroll · Esc closes ", app.log.len()),
                lines,
                None,
            )
        }
        Modal::ConfirmAbandon { reason } => {
            let run = app
                .shared
                .snapshot()
                .and_then(|s| s.run_id.clone())
                .unwrap_or_default();
            let intro = format!("Abandon run {run}? Its record and every file it wrote are kept.");
            (
                " Abandon the handover? ".into(),
                reason_prompt(app, intro, reason),
                Some(choices(app, "abandon", "keep it")),
            )
        }
        Modal::Compose(draft) => (
            if draft.reply_to.is_some() {
                " Reply ".into()
            } else {
                " New message ".into()
            },
            compose_body(app, draft),
            Some(Line::from(vec![
                Span::styled(" ctrl-s ", t.button),
                Span::raw(" send   "),
                Span::styled(" Tab ", t.button),
                Span::raw(" next field   "),
                Span::styled(" Esc ", t.button),
                Span::raw(" close (kept)"),
            ])),
        ),
        Modal::PauseReason { reason } => {
            let intro = "Nothing runs until you unpause; handovers stay resumable.".to_string();
            (
                " Pause all automation ".into(),
                reason_prompt(app, intro, reason),
                Some(choices(app, "pause", "cancel")),
            )
        }
        Modal::Confirm(action) => match action {
            Action::Retry(step) => (
                format!(" Retry {step}? "),
                retry_body(app, step),
                Some(choices(app, "retry it", "cancel")),
            ),
            Action::Unpause => {
                let pause = app.shared.snapshot().and_then(|s| s.paused.as_ref());
                let mut lines = vec![Line::raw(
                    "Automation runs again: handovers may start, resume and publish.",
                )];
                if let Some(p) = pause {
                    let root = format!("{}/", app.shared.workspace.display());
                    let file = p.file.display().to_string().replace(&root, "");
                    lines.push(Line::raw(format!(
                        "Paused by {file}{}",
                        p.reason
                            .as_ref()
                            .map(|r| format!(": {r}"))
                            .unwrap_or_default()
                    )));
                }
                (
                    " Unpause? ".to_string(),
                    lines,
                    Some(choices(app, "unpause", "keep paused")),
                )
            }
            other => (
                format!(" {}? ", other.label()),
                Vec::new(),
                Some(choices(app, "go on", "cancel")),
            ),
        },
    };
    // The body, a blank line, then the choices on the last row.
    let extra = if actions.is_some() { 2 } else { 0 };
    let width = area.width.saturating_sub(4).min(84);
    let inner_width = usize::from(width.saturating_sub(2)).max(1);
    let body_rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(inner_width).max(1))
        .sum();
    let height = (body_rows as u16 + extra + 2).min(area.height.saturating_sub(2));
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
    let block = panel(title, &app.shared).border_style(Style::new());
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let body = Rect {
        height: inner.height.saturating_sub(extra),
        ..inner
    };
    // Scrollable dialogs: never past the last page.
    let scroll = match modal {
        Modal::Help { scroll } | Modal::Log { scroll } | Modal::Reader { scroll, .. } => {
            (*scroll).min(body_rows.saturating_sub(usize::from(body.height)))
        }
        // The end of a long body, where the typing is.
        Modal::Compose(_) => body_rows.saturating_sub(usize::from(body.height)),
        _ => 0,
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll as u16, 0)),
        body,
    );
    if let Some(actions) = actions {
        let last = Rect {
            y: inner.y + inner.height.saturating_sub(1),
            height: inner.height.min(1),
            ..inner
        };
        frame.render_widget(Paragraph::new(actions), last);
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::app::Modal;
    use crate::tui::fixtures::{self, draw};
    use crate::tui::layout::is_wide;
    use crate::tui::model::Event;
    use crate::tui::tabs::{run, state};

    const SIZES: [(u16, u16); 3] = [(60, 20), (100, 30), (160, 48)];

    /// Every tab at every size.
    #[test]
    fn snapshots_of_every_view() {
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            for tab in app.tab_bar() {
                app.selected = tab;
                let screen = draw(&app);
                // The run panel is on every screen: its own tab when narrow,
                // the sidebar when wide (but beside the State tab's diff).
                let run_shown = tab == run::ID || (is_wide(size) && tab != state::ID);
                assert_eq!(screen.contains("Run · "), run_shown, "{tab:?} at {size:?}");
                insta::assert_snapshot!(
                    format!("{}_{}x{}", tab.title().to_lowercase(), size.0, size.1),
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
    fn a_handover_queued_behind_a_completed_one_asks_for_resume() {
        let mut app = fixtures::loaded((100, 30));
        let mut snap = fixtures::completed_run();
        snap.queued = vec![agent_handover::engine::queue::QueuedView {
            run_id: "20261121-120100-77aa".into(),
            queued_at: fixtures::now(),
            steps: vec!["session_note".into()],
            note: Some("written while paused".into()),
            inputs: ".agent-handover/runs/20261121-120100-77aa.inputs.json".into(),
        }];
        app.update(Event::RunLoaded(Box::new(Ok(snap.restated()))));
        let screen = draw(&app);
        assert!(screen.contains("QUEUED: 1 waiting"), "{screen}");
        assert!(!screen.contains("RESUME NEEDED"), "{screen}");
        assert!(fixtures::advises_resume(&app), "`r` resumes the queue");
    }

    /// Issue 14, build 6: at 40×12 the essentials stay visible on every
    /// tab: the handover's state, its pending steps and PAUSE.
    #[test]
    fn a_40_by_12_pane_keeps_the_essentials() {
        let mut app = fixtures::loaded((40, 12));
        for tab in app.tab_bar() {
            app.selected = tab;
            let screen = draw(&app);
            let bar = screen.lines().nth(1).unwrap();
            assert!(bar.contains(&format!(" {}", tab.title())), "{bar}");
            assert!(
                bar.trim_end().ends_with(" 6") || bar.contains(" 6 Metrics"),
                "every tab is on the bar: {bar}"
            );
            assert!(screen.contains("RESUME NEEDED: 2 pending"), "{screen}");
            if tab == run::ID {
                assert!(
                    screen.contains("publish") && screen.contains("tests"),
                    "{screen}"
                );
            }
            insta::assert_snapshot!(format!("{}_40x12", tab.title().to_lowercase()), screen);
        }
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
            fixtures::interrupted_run(),
        )))));
        assert!(draw(&app).lines().next().unwrap().contains("PAUSED"));
    }

    #[test]
    fn snapshot_dialogs() {
        let mut app = fixtures::loaded((100, 30));
        app.modal = Some(Modal::ConfirmAbandon {
            reason: "superseded".into(),
        });
        insta::assert_snapshot!("confirm_abandon_100x30", draw(&app));
        app.modal = Some(Modal::Help { scroll: 0 });
        insta::assert_snapshot!("help_100x30", draw(&app));
        let mut app = fixtures::loaded((60, 20));
        app.modal = Some(Modal::PauseReason {
            reason: String::new(),
        });
        insta::assert_snapshot!("pause_reason_60x20", draw(&app));
    }

    /// The help scrolled to its end, the message log, and a status message
    /// beside a footer that keeps `?` and `q`, at every size.
    #[test]
    fn snapshot_help_end_log_and_footer() {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            app.update(Event::Key(KeyEvent::new(
                KeyCode::Char('?'),
                KeyModifiers::NONE,
            )));
            app.update(Event::Key(KeyEvent::new(
                KeyCode::Char('G'),
                KeyModifiers::NONE,
            )));
            let screen = draw(&app);
            assert!(screen.contains("q ctrl-c"), "{screen}");
            insta::assert_snapshot!(format!("help_end_{}x{}", size.0, size.1), screen);
            app.modal = None;
            app.say("select a failed or interrupted step to retry", false);
            app.say(
                "abandoned 20261121-115700-4f2a; its record and files are kept",
                false,
            );
            let screen = draw(&app);
            let footer = screen.lines().last().unwrap();
            assert!(
                footer.contains("? help") && footer.contains("q quit"),
                "{footer}"
            );
            insta::assert_snapshot!(format!("footer_message_{}x{}", size.0, size.1), screen);
            app.update(Event::Key(KeyEvent::new(
                KeyCode::Char('L'),
                KeyModifiers::NONE,
            )));
            let screen = draw(&app);
            assert!(screen.contains("Messages (2)"), "{screen}");
            insta::assert_snapshot!(format!("log_{}x{}", size.0, size.1), screen);
        }
    }

    /// Unpausing asks first and says whose brake it releases.
    #[test]
    fn snapshot_confirm_unpause() {
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
                fixtures::interrupted_run(),
            )))));
            app.modal = Some(Modal::Confirm(crate::tui::model::Action::Unpause));
            let screen = draw(&app);
            assert!(
                screen.contains("Unpause?") && screen.contains("Enter"),
                "{screen}"
            );
            insta::assert_snapshot!(format!("confirm_unpause_{}x{}", size.0, size.1), screen);
        }
    }

    /// The inbox reader: the whole message with its id and header, at
    /// every size.
    #[test]
    fn snapshot_inbox_reader() {
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            let summary = match &app.shared.full.inbox {
                Some(Ok(inbox)) => inbox.messages[0].clone(),
                _ => panic!("no inbox in the fixture"),
            };
            let body: String = (1..=40)
                .map(|i| format!("line {i} of the report\n"))
                .collect();
            app.modal = Some(Modal::Reader {
                message: Box::new(agent_handover::domain::inbox::Message {
                    summary,
                    body,
                    reply_to: Some("20261121T110000.000000000Z-codex-1a2b3c4d".into()),
                }),
                scroll: 0,
            });
            let screen = draw(&app);
            assert!(
                screen.contains("id:") && screen.contains("line 1 of"),
                "{screen}"
            );
            insta::assert_snapshot!(format!("inbox_reader_{}x{}", size.0, size.1), screen);
        }
    }

    /// Retrying a step that is not idempotent asks first, says what it may
    /// repeat and shows what its last attempt left; the Enter/Esc line stays
    /// on screen at every size.
    #[test]
    fn snapshot_confirm_retry() {
        for size in SIZES {
            let mut app = fixtures::loaded(size);
            let mut snap = fixtures::interrupted_run();
            snap.steps[2].after_crash = Some(agent_handover::AfterCrash::AskHuman);
            snap.steps[2].needs_human = true;
            snap.steps[2].idempotent = Some(false);
            snap.steps[2].output = Some("copied 3 of 7 files\nsent mail to ops".into());
            app.update(Event::RunLoaded(Box::new(Ok(snap.restated()))));
            app.selected = run::ID;
            app.modal = Some(Modal::Confirm(crate::tui::model::Action::Retry(
                "tests".into(),
            )));
            let screen = draw(&app);
            assert!(
                screen.contains("Retry tests?")
                    && screen.contains("Enter")
                    && screen.contains("Esc"),
                "{screen}"
            );
            insta::assert_snapshot!(format!("confirm_retry_{}x{}", size.0, size.1), screen);
        }
    }
}
