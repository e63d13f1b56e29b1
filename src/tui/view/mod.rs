//! Rendering: a pure function of the state. Each tab draws its own panel
//! ([`super::tabs`]); this draws the frame around them (header, tab bar,
//! footer, dialogs) and puts each tab in its place.

use agent_handover::read::NextAction;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::app::App;
use super::dialog::{Dialog, Env, Scroll, View};
use super::layout::{Areas, tab_label};
use super::model::WatchMode;
use super::widgets::{fit, fits_on_a_row, message_above, panel};

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
    match app.modal.as_deref() {
        // A prompt (the filter) is typed in the footer, over the list it narrows.
        Some(dialog) => match dialog.prompt() {
            Some(text) => filter_prompt(frame, areas.footer, app, text),
            None => {
                footer(frame, areas.footer, app);
                draw_dialog(frame, area, app, dialog);
            }
        },
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
            let word = if p.global { "GLOBAL PAUSE" } else { "PAUSED" };
            badges.push(Span::styled(format!(" {word}{reason} "), t.paused));
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
            NextAction::Resume | NextAction::Run { .. } | NextAction::RunWithNote { .. }
                if !snap.pending.is_empty() =>
            {
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
    // The live agent sessions' context: red from `[capacity] warn_at`.
    for c in &app.shared.full.context {
        let (text, style) = if c.low {
            (
                format!(" {} {}% full: hand over ", c.agent, c.percent),
                t.alert,
            )
        } else {
            (format!(" {} {}% ", c.agent, c.percent), t.muted)
        };
        badges.push(Span::styled(text, style));
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
    let mut status = match (&app.busy, &app.toast) {
        (Some(busy), _) => Some((format!("{busy}…"), t.warn)),
        (None, Some((text, true))) => Some((text.clone(), t.error)),
        (None, Some((text, false))) => Some((text.clone(), t.ok)),
        (None, None) => None,
    };
    let width = usize::from(area.width);
    let hint_width = |key: &str, label: &str| key.chars().count() + label.len() + 3;
    // Help and quit are always there; the status line gets what is left
    // of the first half; the other keys fill the rest.
    let essentials = app.keys.essentials(app.in_fleet);
    let essential_width: usize = essentials.iter().map(|(k, l)| hint_width(k, l)).sum();
    let mut status_width = status.as_ref().map_or(0, |(text, _)| {
        (text.chars().count() + 1)
            .min(width / 2)
            .min(width.saturating_sub(essential_width))
    });
    // A message that does not fit beside the keys is shown whole above them.
    if let Some((text, style)) =
        status.take_if(|(text, _)| !fits_on_a_row(text, status_width.saturating_sub(1)))
    {
        message_above(frame, area, &text, style);
        status_width = 0;
    }
    let room = width.saturating_sub(status_width + essential_width);
    let hint = |spans: &mut Vec<Span<'static>>, key: &str, label: &str| {
        spans.push(Span::styled(format!(" {key}"), t.accent));
        spans.push(Span::styled(format!(" {label} "), t.muted));
    };
    let mut spans = Vec::new();
    let mut used = 0;
    let paused = app.shared.snapshot().is_some_and(|s| s.paused.is_some());
    // Keys that would do nothing now are not offered: resume and abandon
    // need a handover in progress, retry a step that stopped it.
    let in_progress = app.shared.snapshot().is_some_and(|s| s.state.in_progress());
    let resumes = app
        .shared
        .snapshot()
        .is_some_and(|s| in_progress || s.state.next_action().unpaused().is_resume());
    // The keys that settle what the run waits for come first, so a
    // narrow footer keeps them: retry and abandon for a decision, resume
    // for an interrupted run.
    let next = app
        .shared
        .snapshot()
        .map(|s| s.state.next_action().unpaused().clone());
    let settles = |label: &str| match &next {
        Some(NextAction::Decide { .. }) => matches!(label, "retry" | "abandon"),
        Some(next) => next.is_resume() && label == "resume",
        None => false,
    };
    let mut hints = app.keys.footer(app.selected);
    hints.sort_by_key(|(_, label)| !settles(label));
    for (key, label) in hints {
        if essentials.iter().any(|(k, _)| *k == key) {
            continue;
        }
        let live = match label {
            "resume" => resumes,
            "abandon" | "retry" => in_progress,
            _ => true,
        };
        if !live {
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

/// The open dialog, in a box in the middle of `area`: its body, scrolled,
/// and its choices on the last row.
fn draw_dialog(frame: &mut Frame<'_>, area: Rect, app: &App, dialog: &dyn Dialog) {
    let env = Env {
        shared: &app.shared,
        keys: &app.keys,
        log: &app.log,
        busy: app.busy.as_deref(),
    };
    let Some(View {
        title,
        lines,
        choices: actions,
        scroll,
    }) = dialog.view(&env, area.width)
    else {
        return;
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
    // Never past the last page.
    let last_page = body_rows.saturating_sub(usize::from(body.height));
    let scroll = match scroll {
        Scroll::Top => 0,
        Scroll::At(row) => row.min(last_page),
        Scroll::End => last_page,
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
    use crate::tui::dialogs::confirm::Confirm;
    use crate::tui::dialogs::help::Help;
    use crate::tui::dialogs::reader::Reader;
    use crate::tui::dialogs::reason::{Purpose, Reason};
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

    /// Issue 28, item 6: text on a coloured background (the score bar's
    /// label, badges, buttons, changed words) is drawn in a colour of ours
    /// that reads on it at WCAG AA, never in the terminal's own text colour.
    #[test]
    fn every_letter_on_a_coloured_cell_reads_at_wcag_aa() {
        use crate::tui::theme::{contrast, rgb};
        use ratatui::style::{Color, Modifier};
        let mut app = fixtures::loaded((100, 30));
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::paused(
            fixtures::interrupted_run(),
        )))));
        app.shared.theme = crate::tui::theme::Theme::new(false, &Default::default()).0;
        // A yellow score bar with its label over the fill.
        if let Some(Ok(Some(q))) = &mut app.shared.full.quality {
            q.docs[0].report.score = 73;
        }
        for tab in app.tab_bar() {
            app.selected = tab;
            let buffer = fixtures::render_buffer((100, 30), |f| super::render(f, &app));
            for cell in buffer.content() {
                let reversed = cell.modifier.contains(Modifier::REVERSED);
                if cell.bg == Color::Reset || reversed || cell.symbol().trim().is_empty() {
                    continue;
                }
                let (Some(fg), Some(bg)) = (rgb(cell.fg), rgb(cell.bg)) else {
                    panic!(
                        "{tab:?}: {:?} in the terminal's colour on {:?}",
                        cell.symbol(),
                        cell.bg
                    );
                };
                let ratio = contrast(fg, bg);
                assert!(
                    ratio >= 4.5,
                    "{tab:?}: {:?} {fg:?} on {bg:?} is {ratio:.2}:1",
                    cell.symbol()
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

    /// Issue 28, item 7: on a workspace where no handover is in progress
    /// (none ever ran, or the last completed), no resume, abandon or retry
    /// is offered, as a button or in the footer; the empty workspace
    /// teaches the install and draft flow.
    #[test]
    fn only_live_buttons_and_keys_are_offered() {
        let mut app = fixtures::loaded((100, 30));
        let screen = draw(&app);
        assert!(
            screen.contains("r Resume") && screen.contains(" a abandon"),
            "{screen}"
        );
        app.update(Event::RunLoaded(Box::new(Ok(fixtures::completed_run()))));
        let screen = draw(&app);
        for gone in [
            "r Resume",
            "a Abandon",
            " r resume",
            " a abandon",
            " R retry",
        ] {
            assert!(
                !screen.contains(gone),
                "{gone:?} on a completed run:\n{screen}"
            );
        }
        assert!(screen.contains("p Pause"), "{screen}");
        let mut never = fixtures::completed_run();
        never.status = agent_handover::engine::checkpoint::RunStatus::None;
        never.steps.clear();
        never.run_id = None;
        app.update(Event::RunLoaded(Box::new(Ok(never.restated()))));
        let screen = draw(&app);
        assert!(screen.contains("No handover yet"), "{screen}");
        assert!(
            screen.contains("install claude") && screen.contains("--note-file"),
            "{screen}"
        );
        assert!(
            !screen.contains("r Resume") && !screen.contains("0.5.x"),
            "{screen}"
        );
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
        assert!(
            screen.contains("r Resume") && !screen.contains("a Abandon"),
            "{screen}"
        );
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
        // Issue 44, item 2: the global brake says it is the global one.
        let mut snap = fixtures::paused(fixtures::interrupted_run());
        if let Some(p) = &mut snap.paused {
            p.global = true;
        }
        app.update(Event::RunLoaded(Box::new(Ok(snap.restated()))));
        let top = draw(&app).lines().next().unwrap().to_string();
        assert!(top.contains("GLOBAL PAUSE: reviewing"), "{top}");
    }

    /// Issue 44, item 4: a step that may have taken effect waits for a
    /// human's decision; at 60×20 the footer keeps `R retry` (and `a
    /// abandon`), the keys that settle it, in every tab.
    #[test]
    fn the_footer_keeps_the_keys_that_settle_a_decision_at_sixty_by_twenty() {
        let mut snap = fixtures::interrupted_run();
        for step in &mut snap.steps {
            if step.name == "tests" {
                step.idempotent = Some(false);
                step.after_crash = Some(agent_handover::base::outcome::AfterCrash::AskHuman);
                step.needs_human = true;
            }
        }
        let snap = snap.restated();
        assert!(matches!(
            snap.state.next_action(),
            agent_handover::read::NextAction::Decide { .. }
        ));
        let mut app = fixtures::loaded((60, 20));
        app.update(Event::RunLoaded(Box::new(Ok(snap))));
        for tab in app.tab_bar() {
            app.selected = tab;
            let screen = draw(&app);
            let footer = screen.lines().last().unwrap().to_string();
            assert!(
                footer.contains("R retry") && footer.contains("a abandon"),
                "{}: {footer}",
                tab.title()
            );
        }
    }

    /// Issue 44, item 3: the header shows each live agent session's
    /// context, red with the advice from `[capacity] warn_at`.
    #[test]
    fn the_header_shows_the_live_sessions_context() {
        use crate::tui::model::LiveContext;
        let mut app = fixtures::loaded((100, 30));
        app.shared.full.context = vec![
            LiveContext {
                agent: "claude".into(),
                percent: 85,
                low: true,
            },
            LiveContext {
                agent: "codex".into(),
                percent: 12,
                low: false,
            },
        ];
        let top = draw(&app).lines().next().unwrap().to_string();
        assert!(
            top.contains("claude 85% full: hand over") && top.contains("codex 12%"),
            "{top}"
        );
    }

    #[test]
    fn snapshot_dialogs() {
        let mut app = fixtures::loaded((100, 30));
        app.modal = Some(Box::new(Reason {
            purpose: Purpose::Abandon,
            reason: "superseded".into(),
            confirming: true,
        }));
        insta::assert_snapshot!("confirm_abandon_100x30", draw(&app));
        app.modal = Some(Box::new(Help::default()));
        insta::assert_snapshot!("help_100x30", draw(&app));
        let mut app = fixtures::loaded((60, 20));
        app.modal = Some(Box::new(Reason::new(Purpose::Paused)));
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
            assert!(screen.contains("Q ctrl-c"), "{screen}");
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
            app.modal = Some(Box::new(Confirm::new(crate::tui::model::Action::Unpause)));
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
            app.modal = Some(Box::new(Reader::new(
                agent_handover::domain::inbox::Message {
                    summary,
                    body,
                    reply_to: Some("20261121T110000.000000000Z-codex-1a2b3c4d".into()),
                },
            )));
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
            app.modal = Some(Box::new(Confirm::new(crate::tui::model::Action::Retry(
                "tests".into(),
            ))));
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
