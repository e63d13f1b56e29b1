//! The state view: versions of current-state.md and the diff of a pair,
//! unified or side by side, with changed words highlighted. Only the rows
//! on screen are built, so a 10,000-line file scrolls as fast as a short one.

use agent_handover::memory::diff::{DiffRow, RowKind};
use agent_handover::memory::versions::Version;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{ago, fit, loading, panel};
use crate::tui::app::{App, DiffView};
use crate::tui::layout::is_wide;

/// Width of the version list beside the diff (wide layout).
const LIST_WIDTH: u16 = 34;

/// Draw the state view into `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let versions = match &app.full.versions {
        None => return loading(frame, area, app, "State"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), app.theme.error))
                .block(panel(" State ", app));
            return frame.render_widget(p, area);
        }
        Some(Ok(v)) => v,
    };
    if is_wide(app.size) && area.width >= LIST_WIDTH + 40 {
        let [list, diff] =
            Layout::horizontal([Constraint::Length(LIST_WIDTH), Constraint::Fill(1)]).areas(area);
        version_list(frame, list, app, versions);
        diff_panel(frame, diff, app, versions);
    } else {
        diff_panel(frame, area, app, versions);
    }
}

fn label(v: &Version) -> String {
    match (&v.run, &v.summary) {
        // The date is in "ago"; the rest of the id tells runs apart.
        (Some(run), _) => format!(
            "run {}",
            run.split_once('-').map_or(run.as_str(), |(_, rest)| rest)
        ),
        (None, Some(summary)) => summary.clone(),
        (None, None) => "edited by hand".into(),
    }
}

fn version_list(frame: &mut Frame<'_>, area: Rect, app: &App, versions: &[Version]) {
    let t = &app.theme;
    let block = panel(format!(" {} versions ", versions.len()), app);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let first = app.version_cursor.saturating_sub(height.saturating_sub(1));
    let (from, to) = app
        .diff
        .as_ref()
        .map_or((usize::MAX, usize::MAX), |d| (d.from, d.to));
    let lines: Vec<Line<'_>> = versions
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, v)| {
            let (mark, style) = match i {
                _ if i == to => ("+", t.added),
                _ if i == from => ("-", t.removed),
                _ => (" ", Style::new()),
            };
            let text = format!("{i:>3} {:>4} {}", ago(app, v.at), label(v));
            let row = if i == app.version_cursor {
                t.selected
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(mark, style),
                Span::styled(fit(&text, usize::from(inner.width) - 1), row),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn diff_panel(frame: &mut Frame<'_>, area: Rect, app: &App, versions: &[Version]) {
    let t = &app.theme;
    let Some(d) = &app.diff else {
        let text = match versions.len() {
            0 => "No current-state.md yet.",
            1 => "Only one version of current-state.md so far.",
            _ => "computing the diff…",
        };
        let p = Paragraph::new(Line::styled(text, t.muted)).block(panel(" Diff ", app));
        return frame.render_widget(p, area);
    };
    let name = |i: usize| {
        versions.get(i).map_or("?".to_string(), |v| {
            format!("#{i} {}", &v.id[..v.id.len().min(8)])
        })
    };
    let stats = d.diff.stats();
    let mode = if app.side_by_side {
        "side by side"
    } else {
        "unified"
    };
    let title = Line::from(vec![
        Span::styled(format!(" {} → {} ", name(d.from), name(d.to)), t.accent),
        Span::styled(format!("+{}", stats.added), t.added),
        Span::raw(" "),
        Span::styled(format!("-{}", stats.removed), t.removed),
        Span::styled(format!(" {mode} "), t.muted),
    ]);
    let block = panel(title, app);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if stats.added + stats.removed == 0 {
        return frame.render_widget(
            Paragraph::new(Line::styled("The two versions are identical.", t.muted)),
            inner,
        );
    }
    let height = usize::from(inner.height);
    if app.side_by_side {
        side_by_side(frame, inner, app, d, height);
    } else {
        let rows = d.diff.rows(d.scroll..(d.scroll + height).min(d.diff.len()));
        let lines: Vec<Line<'_>> = rows.iter().map(|r| unified_line(r, app)).collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

fn unified_line(row: &DiffRow, app: &App) -> Line<'static> {
    let t = &app.theme;
    let num = |n: Option<usize>| n.map_or("    ".to_string(), |n| format!("{n:>4}"));
    let (style, word) = match row.kind {
        RowKind::Equal => (Style::new(), Style::new()),
        RowKind::Delete => (t.removed, t.removed_word),
        RowKind::Insert => (t.added, t.added_word),
    };
    let mut spans = vec![
        Span::styled(
            format!("{} {} ", num(row.old_line), num(row.new_line)),
            t.muted,
        ),
        Span::styled(format!("{} ", row.kind.prefix()), style),
    ];
    spans.extend(
        row.segments
            .iter()
            .map(|s| Span::styled(s.text.clone(), if s.emphasized { word } else { style })),
    );
    Line::from(spans)
}

fn side_by_side(frame: &mut Frame<'_>, area: Rect, app: &App, d: &DiffView, height: usize) {
    let t = &app.theme;
    let [left, right] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
        .spacing(1)
        .areas(area);
    let rows = d
        .diff
        .side_by_side_rows(d.scroll..(d.scroll + height).min(d.diff.side_by_side_len()));
    let half = |row: Option<&DiffRow>, old_side: bool| -> Line<'static> {
        let Some(row) = row else { return Line::raw("") };
        let number = if old_side { row.old_line } else { row.new_line };
        let line_no = number.map_or("     ".into(), |n| format!("{n:>4} "));
        let (style, word) = match row.kind {
            RowKind::Equal => (Style::new(), Style::new()),
            RowKind::Delete => (t.removed, t.removed_word),
            RowKind::Insert => (t.added, t.added_word),
        };
        let mut spans = vec![Span::styled(line_no, t.muted)];
        spans.extend(
            row.segments
                .iter()
                .map(|s| Span::styled(s.text.clone(), if s.emphasized { word } else { style })),
        );
        Line::from(spans)
    };
    let old: Vec<Line<'_>> = rows.iter().map(|r| half(r.old.as_ref(), true)).collect();
    let new: Vec<Line<'_>> = rows.iter().map(|r| half(r.new.as_ref(), false)).collect();
    frame.render_widget(Paragraph::new(old), left);
    frame.render_widget(Paragraph::new(new), right);
}
