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

use super::{Fleet, Health, KEYS, Row, Score};
use crate::tui::widgets::{ago_at, fit};

/// Rows above the list (header, column titles) and below it (footer).
const ABOVE: u16 = 2;
const BELOW: u16 = 1;

/// How many workspaces fit on a screen of `size`.
pub fn list_height(size: (u16, u16)) -> usize {
    usize::from(size.1.saturating_sub(ABOVE + BELOW))
}

/// The position in the list shown of the row at screen row `y`, if any.
pub fn row_at(fleet: &Fleet, y: u16) -> Option<usize> {
    let at = usize::from(y.checked_sub(ABOVE)?) + fleet.offset;
    (y < fleet.size.1.saturating_sub(BELOW) && at < fleet.shown().len()).then_some(at)
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
                let h = f.rows[i].health;
                (h.word().into(), health_style(f, h))
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
                Some(at) => (ago_at(f.now, at), f.theme.muted),
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
            width: 8,
            cell: |f, i| match f.scores[i].as_ref().and_then(|s| s.outcome.as_ref()) {
                None => ("—".into(), f.theme.muted),
                Some(u) => {
                    let mark = match u.next_step_acted_on {
                        Some(true) => " ✓",
                        Some(false) => " ✗",
                        None => "",
                    };
                    (format!("{}{mark}", u.score), score_style(f, u.score))
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
    let attention = fleet.rows.iter().filter(|r| r.health.needs_human()).count();
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
        format!(" fleet · {count}{}", fleet.filter.title()),
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
    let height =
        list_height(fleet.size).min(usize::from(area.height.saturating_sub(ABOVE + BELOW)));
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
        let mut spans = vec![Span::styled(if selected { "▸ " } else { "  " }, t.accent)];
        for c in &shown {
            let (text, style) = (c.cell)(fleet, i);
            spans.push(Span::styled(
                format!("{:<w$} ", fit(&text, c.width), w = c.width),
                style,
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
            spans.push(Span::styled(fit(&text, path_width), style));
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

    footer(frame, line(area, area.height.saturating_sub(1)), fleet);
    if fleet.help {
        help(frame, area, fleet);
    }
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
    let keys: Vec<(&str, &str)> = KEYS
        .iter()
        .filter(|(_, label, _)| !label.is_empty())
        .map(|(k, l, _)| (*k, *l))
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
        let room = (width / 2).min(width.saturating_sub(essentials));
        let text = fit(text.lines().next().unwrap_or(""), room.saturating_sub(1));
        used += text.chars().count() + 1;
        spans.push(Span::styled(
            format!("{text} "),
            if *error { t.error } else { t.ok },
        ));
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

/// The help dialog: the keys, and what rings.
fn help(frame: &mut Frame<'_>, area: Rect, fleet: &Fleet) {
    let t = &fleet.theme;
    let inner = usize::from(area.width.saturating_sub(6)).min(80);
    let mut lines: Vec<Line<'_>> = KEYS
        .iter()
        .map(|(k, _, text)| {
            Line::from(vec![
                Span::styled(format!("{k:>8}  "), t.accent),
                Span::raw(fit(text, inner.saturating_sub(10))),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    let about = "The bell rings, and the window title says why, when a workspace becomes interrupted, failed or paused, or mail arrives for `human`; [dashboard] notify runs too.";
    for chunk in wrap(about, inner) {
        lines.push(Line::styled(chunk, t.muted));
    }
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
                .title(Span::styled(" Fleet keys — any key closes ", t.accent)),
        ),
        rect,
    );
}

/// `text` cut at words into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("one line at least");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}
