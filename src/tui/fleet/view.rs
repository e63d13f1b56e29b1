//! Drawing the fleet: a header, one row per workspace (columns dropped
//! from the right as the terminal narrows; name, state and mail stay), a
//! footer with the keys, and the help over it. Pure: a frame from a
//! [`Fleet`].

use agent_handover::read::StateKind;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{COLUMNS, Fleet, Health, KEYS, Row, Score, Sort};
use crate::tui::widgets::{fit, fits_on_a_row, message_above, wrap};

/// Rows above the list (header, column titles) and below it (footer).
const ABOVE: u16 = 2;
const BELOW: u16 = 1;

/// The narrowest and lowest screen with a detail pane under the list.
const DETAIL_FROM: (u16, u16) = (100, 24);

/// Whether a screen of `size` shows the detail pane.
pub fn shows_detail(size: (u16, u16)) -> bool {
    size.0 >= DETAIL_FROM.0 && size.1 >= DETAIL_FROM.1
}

/// How many of `rows` workspaces the list shows at once on a screen of
/// `size`: all it can, or with the detail pane, at most half the screen.
pub fn list_height(size: (u16, u16), rows: usize) -> usize {
    let room = usize::from(size.1.saturating_sub(ABOVE + BELOW));
    if shows_detail(size) {
        rows.max(1).min(room / 2)
    } else {
        room
    }
}

/// The position in the list shown of the row at screen row `y`, if any.
pub fn row_at(fleet: &Fleet, y: u16) -> Option<usize> {
    let at = usize::from(y.checked_sub(ABOVE)?) + fleet.offset;
    let height = list_height(fleet.size, fleet.shown().len());
    (usize::from(y - ABOVE) < height && at < fleet.shown().len()).then_some(at)
}

/// A column: its title, width, and its cell for a row.
struct Column {
    title: &'static str,
    width: usize,
    cell: fn(&Fleet, usize) -> (String, Style),
}

/// The columns, in the order they are dropped last to first when the
/// screen is narrow (the path takes what is left, if anything).
fn columns() -> Vec<Column> {
    vec![
        Column {
            title: "workspace",
            width: 18,
            cell: |f, i| (f.rows[i].name.clone(), Style::default()),
        },
        Column {
            title: "state",
            width: 11,
            cell: |f, i| {
                let row = &f.rows[i];
                let h = shown_health(f, row);
                // Held by the brake (also before its row is read again).
                let held = f.global.is_some()
                    && matches!(h, Health::Run(_))
                    && (!row.paused() || row.held_by_global());
                if held {
                    (HELD.into(), f.theme.paused)
                } else {
                    (h.word().into(), health_style(f, h))
                }
            },
        },
        Column {
            title: "you",
            width: 4,
            cell: |f, i| match f.rows[i].for_human {
                _ if !f.rows[i].details => ("…".into(), f.theme.muted),
                0 => ("·".into(), f.theme.muted),
                n => (n.to_string(), f.theme.alert),
            },
        },
        Column {
            title: "mail",
            width: 5,
            cell: |f, i| match f.rows[i].unread {
                _ if !f.rows[i].details => ("…".into(), f.theme.muted),
                0 => ("·".into(), f.theme.muted),
                n => (n.to_string(), f.theme.warn),
            },
        },
        Column {
            title: "seen",
            width: 5,
            cell: |f, i| match f.rows[i].activity {
                Some(at) => (super::seen(f.now, at), f.theme.muted),
                None if !f.rows[i].details => ("…".into(), f.theme.muted),
                None => ("—".into(), f.theme.muted),
            },
        },
        Column {
            title: "score",
            width: 5,
            cell: |f, i| match &f.scores[i] {
                None => ("…".into(), f.theme.muted),
                Some(Score { score: None, .. }) => ("—".into(), f.theme.muted),
                Some(Score {
                    score: Some(s),
                    low_confidence: true,
                    ..
                }) => (format!("{s}?"), f.theme.muted),
                Some(Score { score: Some(s), .. }) => (s.to_string(), score_style(f, *s)),
            },
        },
        Column {
            title: "context",
            width: 8,
            cell: |f, i| {
                let row = &f.rows[i];
                match row.context {
                    _ if !row.details => ("…".into(), f.theme.muted),
                    None => ("—".into(), f.theme.muted),
                    Some(p) => {
                        let style = if row.context_low {
                            f.theme.alert
                        } else if p >= 50 {
                            f.theme.warn
                        } else {
                            f.theme.ok
                        };
                        (format!("{} {p:>2}%", bar(p)), style)
                    }
                }
            },
        },
        Column {
            title: "agent",
            width: 8,
            cell: |f, i| match &f.rows[i].agent {
                Some(a) => (a.clone(), Style::default()),
                None if !f.rows[i].details => ("…".into(), f.theme.muted),
                None => ("—".into(), f.theme.muted),
            },
        },
        Column {
            title: "outcome",
            width: 9,
            cell: |f, i| match f.scores[i].as_ref().and_then(|s| s.outcome.as_ref()) {
                None => ("—".into(), f.theme.muted),
                Some(u) => {
                    let mark = match u.next_step_acted_on {
                        Some(true) => " ✓",
                        Some(false) => " ✗",
                        None => "",
                    };
                    // The next session's own verdict beside it (of 10).
                    let verdict = u
                        .verdict
                        .as_ref()
                        .map(|v| format!(" {}/10", v.score))
                        .unwrap_or_default();
                    (
                        format!("{}{mark}{verdict}", u.score),
                        score_style(f, u.score),
                    )
                }
            },
        },
        Column {
            title: "drift",
            width: 5,
            cell: |f, i| match f.rows[i].drift {
                true => ("drift".into(), f.theme.warn),
                false => ("·".into(), f.theme.muted),
            },
        },
    ]
}

/// A context share as a three-cell bar: each cell a third, in eighths.
fn bar(percent: u8) -> String {
    const LEVELS: [char; 9] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'];
    let eighths = (usize::from(percent.min(100)) * 24).div_ceil(100);
    (0..3)
        .map(|cell| LEVELS[eighths.saturating_sub(cell * 8).min(8)])
        .collect()
}

/// What a row held by the global brake says in its state column.
const HELD: &str = "held·global";

/// A row's health as shown: a row read while the global brake held it,
/// the brake lifted since, shows its run's own state until it is read
/// again.
fn shown_health(f: &Fleet, row: &Row) -> Health {
    match row.health {
        Health::Run(StateKind::Paused) if row.held_by_global() && f.global.is_none() => {
            Health::Run(row.run)
        }
        h => h,
    }
}

fn health_style(f: &Fleet, h: Health) -> Style {
    let t = &f.theme;
    match h {
        Health::Run(StateKind::Running | StateKind::Queued) => t.warn,
        Health::Run(StateKind::Paused) => t.paused,
        Health::Run(StateKind::Interrupted | StateKind::Failed | StateKind::Unreadable)
        | Health::Unreadable => t.alert,
        Health::Run(StateKind::Completed) => t.ok,
        Health::Loading | Health::Missing | Health::Run(StateKind::Abandoned | StateKind::None) => {
            t.muted
        }
    }
}

fn score_style(f: &Fleet, score: u8) -> Style {
    match score {
        80.. => f.theme.ok,
        50..80 => f.theme.warn,
        _ => f.theme.error,
    }
}

/// The workspace's path, `~` for the home directory.
fn shown_path(row: &Row, home: &str) -> String {
    let path = row.path.display().to_string();
    match path.strip_prefix(home) {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => path,
    }
}

/// Draw the fleet.
pub fn render(frame: &mut Frame<'_>, fleet: &Fleet) {
    let area = frame.area();
    let t = &fleet.theme;
    let home = &fleet.home;
    let width = usize::from(area.width);

    // Header: what the fleet is and how many need a human.
    let attention = fleet.rows.iter().filter(|r| r.needs_you()).count();
    let mail: usize = fleet.rows.iter().map(|r| r.for_human).sum();
    let mut header = Vec::new();
    if width >= 80 {
        header.push(Span::styled(" agent-handover ", t.accent));
    }
    let listed = fleet.shown();
    let count = if listed.len() == fleet.rows.len() {
        format!("{} workspaces", fleet.rows.len())
    } else {
        format!("{} of {} workspaces", listed.len(), fleet.rows.len())
    };
    header.push(Span::styled(
        format!(
            " fleet · {count}{}{}",
            fleet.filter.title(),
            match fleet.sort {
                Sort::Urgency if width < 80 => String::new(),
                sort => format!(" · by {}", sort.word()),
            }
        ),
        t.accent,
    ));
    if attention > 0 {
        header.push(Span::raw(" · "));
        header.push(Span::styled(format!(" {attention} NEED YOU "), t.alert));
    }
    if mail > 0 {
        header.push(Span::raw(" · "));
        header.push(Span::styled(format!("{mail} for you"), t.warn));
    }
    if let Some(brake) = &fleet.global {
        // Who pulled it is in the detail pane and in `p`'s answer.
        let reason = brake.reason.as_deref().unwrap_or("no reason given");
        header.push(Span::raw(" · "));
        header.push(Span::styled(format!(" GLOBAL PAUSE: {reason} "), t.paused));
    }
    frame.render_widget(Paragraph::new(Line::from(header)), line(area, 0));

    // Column titles: as many columns as fit, the path in what is left.
    let all = columns();
    let mut shown = Vec::new();
    let mut used = 2;
    for c in &all {
        if used + c.width + 1 > width {
            break;
        }
        used += c.width + 1;
        shown.push(c);
    }
    let path_width = width.saturating_sub(used);
    let mut titles = vec![Span::raw("  ")];
    for c in &shown {
        titles.push(Span::styled(
            format!("{:<w$} ", c.title, w = c.width),
            t.muted,
        ));
    }
    if path_width >= 8 {
        titles.push(Span::styled("path", t.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(titles)), line(area, 1));

    // The rows.
    let height = list_height(fleet.size, listed.len())
        .min(usize::from(area.height.saturating_sub(ABOVE + BELOW)));
    if fleet.rows.is_empty() {
        let text = "no workspaces yet: `install` or a handover registers one (agent-handover workspaces lists them)";
        frame.render_widget(
            Paragraph::new(Line::styled(fit(text, width), t.muted)),
            line(area, ABOVE),
        );
    }
    for (n, &i) in listed.iter().skip(fleet.offset).take(height).enumerate() {
        let row = &fleet.rows[i];
        let selected = i == fleet.cursor;
        // The selected row is one even bar: its cells' colours, reversed
        // under the bar's, would make a patchwork of backgrounds (the
        // detail pane, where there is room for it, shows them in colour).
        let cell_style = |style: Style| {
            if selected {
                Style {
                    fg: None,
                    bg: None,
                    ..style
                }
            } else {
                style
            }
        };
        let mut spans = vec![Span::styled(
            if selected { "▸ " } else { "  " },
            cell_style(t.accent),
        )];
        for c in &shown {
            let (text, style) = (c.cell)(fleet, i);
            spans.push(Span::styled(
                format!("{:<w$} ", fit(&text, c.width), w = c.width),
                cell_style(style),
            ));
        }
        if path_width >= 8 {
            let text = match &row.error {
                Some(e) => e.lines().next().unwrap_or("").to_string(),
                None => shown_path(row, home),
            };
            let style = if row.error.is_some() {
                t.error
            } else {
                t.muted
            };
            spans.push(Span::styled(fit(&text, path_width), cell_style(style)));
        }
        let mut l = Line::from(spans);
        if selected {
            l = l.style(t.selected);
        }
        let y = ABOVE + n as u16;
        frame.render_widget(Paragraph::new(l), line(area, y));
    }
    let below = listed.len().saturating_sub(fleet.offset + height);
    if below > 0 && height > 0 {
        let text = format!("↓ {below} more");
        let x = area.width.saturating_sub(text.chars().count() as u16 + 1);
        let y = ABOVE + height as u16 - 1;
        frame.render_widget(
            Paragraph::new(Span::styled(text.clone(), t.muted)),
            Rect::new(x, y, text.chars().count() as u16, 1).intersection(area),
        );
    }

    if shows_detail(fleet.size) {
        let top = ABOVE + height as u16;
        let rest = Rect::new(
            area.x,
            area.y + top,
            area.width,
            area.height.saturating_sub(top + BELOW),
        );
        detail(frame, rest, fleet);
    }
    footer(frame, line(area, area.height.saturating_sub(1)), fleet);
    if fleet.help {
        help(frame, area, fleet);
    }
    if let Some(confirm) = &fleet.confirm {
        let inner = usize::from(area.width.saturating_sub(6)).min(70);
        let mut lines: Vec<Line<'_>> = wrap(&confirm.question, inner)
            .into_iter()
            .map(Line::raw)
            .collect();
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled(" y ", t.alert),
            Span::styled(" yes   ", t.muted),
            Span::styled(" any other key ", t.accent),
            Span::styled(" cancel", t.muted),
        ]));
        boxed(frame, area, fleet, " Confirm ", lines, inner);
    }
}

/// The detail pane: everything the library says of the selected row, each
/// line labelled and wrapped (nothing cut), in `area` under the list.
fn detail(frame: &mut Frame<'_>, area: Rect, fleet: &Fleet) {
    let t = &fleet.theme;
    let Some(row) = fleet.selected() else {
        return;
    };
    let width = usize::from(area.width.saturating_sub(2));
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut say = |label: &str, text: &str, style: Style| {
        let label_width = 12;
        for (n, chunk) in wrap(text, width.saturating_sub(label_width + 1))
            .into_iter()
            .enumerate()
        {
            let head = if n == 0 { label } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("{head:>w$} ", w = label_width), t.muted),
                Span::styled(chunk, style),
            ]));
        }
    };
    match fleet.detail.as_ref().filter(|d| d.path == row.path) {
        None => say("", "reading…", t.muted),
        Some(d) => {
            say("state", &d.state, health_style(fleet, row.health));
            if let Some(next) = &d.next {
                say("next action", next, t.accent);
            }
            if let Some(step) = &d.step {
                say("step", step, Style::default());
            }
            for out in &d.output {
                say("", out, t.muted);
            }
            if let Some(pause) = &d.pause {
                say("paused", pause, t.paused);
            }
            if let Some(m) = &d.for_human {
                say("for you", m, t.warn);
            }
            if let Some(step) = &d.next_step {
                say("next step", step, Style::default());
            }
            for (n, stream) in d.workstreams.iter().enumerate() {
                say(if n == 0 { "workstreams" } else { "" }, stream, t.muted);
            }
            if let Some(score) = &d.score {
                say("score", score, Style::default());
            }
            if let Some(outcome) = &d.outcome {
                say("outcome", outcome, Style::default());
            }
            for drift in &d.drift {
                say("drift", drift, t.warn);
            }
            for (n, session) in d.sessions.iter().enumerate() {
                say(
                    if n == 0 { "sessions" } else { "" },
                    session,
                    Style::default(),
                );
            }
            if let Some(at) = &d.last_handover {
                say("handed over", at, t.muted);
            }
        }
    }
    let title = format!(" {} · {} ", row.name, shown_path(row, &fleet.home));
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::TOP)
                .border_style(t.muted)
                .title(Span::styled(fit(&title, width), t.accent)),
        ),
        area,
    );
}

/// Row `y` of `area`.
fn line(area: Rect, y: u16) -> Rect {
    Rect::new(
        area.x,
        area.y + y.min(area.height.saturating_sub(1)),
        area.width,
        1,
    )
}

/// The status message, then the keys (help and quit always).
fn footer(frame: &mut Frame<'_>, area: Rect, fleet: &Fleet) {
    let t = &fleet.theme;
    if fleet.typing {
        let prompt = Line::from(vec![
            Span::styled(format!(" /{}", fleet.filter.text()), t.accent),
            Span::styled("▏", t.accent),
            Span::styled("  Enter keep · Esc clear", t.muted),
        ]);
        return frame.render_widget(Paragraph::new(prompt), area);
    }
    let width = usize::from(area.width);
    let keys: Vec<(&str, &str)> = fleet
        .row_keys()
        .into_iter()
        .chain(
            KEYS.iter()
                .filter(|(_, label, _)| !label.is_empty())
                .map(|(k, l, _)| (*k, *l)),
        )
        .collect();
    let key_width = |(k, l): &(&str, &str)| k.chars().count() + l.len() + 3;
    let essentials: usize = keys
        .iter()
        .filter(|(_, l)| matches!(*l, "help" | "quit"))
        .map(key_width)
        .sum();
    let mut spans = Vec::new();
    let mut used = 0;
    if let Some((text, error, _)) = &fleet.toast {
        let style = if *error { t.error } else { t.ok };
        let room = (width / 2).min(width.saturating_sub(essentials));
        // A message that does not fit beside the keys is shown whole above them.
        if fits_on_a_row(text, room.saturating_sub(1)) {
            used += text.chars().count() + 1;
            spans.push(Span::styled(format!("{text} "), style));
        } else {
            message_above(frame, area, text, style);
        }
    }
    let optional: usize = keys
        .iter()
        .filter(|(_, l)| !matches!(*l, "help" | "quit"))
        .map(key_width)
        .sum();
    let room_for_all = used + optional + essentials <= width;
    for key in &keys {
        let essential = matches!(key.1, "help" | "quit");
        if !essential && (!room_for_all && used + key_width(key) + essentials > width) {
            continue;
        }
        used += key_width(key);
        spans.push(Span::styled(format!(" {}", key.0), t.accent));
        spans.push(Span::styled(format!(" {} ", key.1), t.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The inner width of the help on a screen `columns` wide.
fn help_width(columns: u16) -> usize {
    usize::from(columns.saturating_sub(6)).min(80)
}

/// The help's rows on a screen `size`: the keys, the columns, what rings.
fn help_lines(fleet: &Fleet) -> Vec<Line<'static>> {
    let t = &fleet.theme;
    let inner = help_width(fleet.size.0);
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut row = |key: &str, text: &str| {
        for (n, chunk) in wrap(text, inner.saturating_sub(10)).into_iter().enumerate() {
            let key = if n == 0 { key } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("{key:>8}  "), t.accent),
                Span::raw(chunk),
            ]));
        }
    };
    for (k, _, text) in KEYS {
        row(k, text);
    }
    row("", "");
    for (column, text) in COLUMNS {
        row(column, text);
    }
    lines.push(Line::raw(""));
    let about = "Rows needing you come first: a decision, an interrupted handover, mail for you, a context running low, PAUSE, a queue, a handover running, idle. The bell rings, and the window title says why, when a workspace becomes interrupted, failed or paused, an agent's context runs low, or mail arrives for `human`; [dashboard] notify runs too.";
    for chunk in wrap(about, inner) {
        lines.push(Line::styled(chunk, t.muted));
    }
    lines
}

/// How far the help scrolls on the fleet's screen (its rows beyond the box).
pub fn help_scroll_max(fleet: &Fleet) -> usize {
    let rows = usize::from(fleet.size.1.saturating_sub(2));
    help_lines(fleet).len().saturating_sub(rows)
}

/// The help dialog, scrolled to `fleet.help_scroll`.
fn help(frame: &mut Frame<'_>, area: Rect, fleet: &Fleet) {
    let lines: Vec<Line<'_>> = help_lines(fleet)
        .into_iter()
        .skip(fleet.help_scroll.min(help_scroll_max(fleet)))
        .collect();
    let title = if help_scroll_max(fleet) > 0 {
        " Fleet keys and columns — j/k scroll, any other key closes "
    } else {
        " Fleet keys and columns — any key closes "
    };
    boxed(frame, area, fleet, title, lines, help_width(area.width));
}

/// `lines` in a box `inner` columns wide, centred on `area` (cut at its
/// height).
fn boxed(
    frame: &mut Frame<'_>,
    area: Rect,
    fleet: &Fleet,
    title: &str,
    lines: Vec<Line<'_>>,
    inner: usize,
) {
    let t = &fleet.theme;
    let h = (lines.len() as u16 + 2).min(area.height);
    let w = (inner as u16 + 2).min(area.width);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(t.accent)
                .title(Span::styled(title.to_string(), t.accent)),
        ),
        rect,
    );
}
