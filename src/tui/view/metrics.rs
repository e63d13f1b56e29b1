//! The metrics panel: the numbers every handover measured (`[[metric]]` in
//! handover.toml) over the sessions. One row per number: its latest value,
//! the change since the session before, its range and a sparkline (oldest
//! left); the selected one in detail below: a chart over the sessions, its
//! last values, and the probes that failed lately.
//!
//! Nobody knows whether up is good (tests passed) or bad (lint errors), so
//! changes get the accent, never good/bad colours.

use agent_handover::engine::metrics::{SessionMetrics, difference, format_change, format_value};
use chrono::{DateTime, FixedOffset};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Wrap};

use super::{ago, fit, loading, panel};
use crate::tui::app::App;

/// Rows the detail needs (its title, a chart with its axis, a failed probe).
const DETAIL_MIN_ROWS: u16 = 8;
/// Table rows (header included) kept before the detail gets any.
const TABLE_MIN_ROWS: u16 = 4;
/// Table width from which each number's range is shown.
const RANGE_MIN_WIDTH: u16 = 70;
/// Detail width from which the list of last sessions names their runs.
const RUN_IDS_MIN_WIDTH: u16 = 90;
/// Chart width from which the dates on its axis show the time too.
const WIDE_CHART_MIN_WIDTH: u16 = 50;
/// How many of the newest sessions' failed probes the detail lists.
const FAILURE_SESSIONS: usize = 3;
/// At most this many failed probes are listed.
const FAILURES_SHOWN: u16 = 3;
/// Sparkline levels, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One number over the sessions.
struct Series {
    /// Its name.
    name: String,
    /// Its value in each session (oldest first); `None` where it was not found.
    values: Vec<Option<f64>>,
}

impl Series {
    fn of(name: String, sessions: &[SessionMetrics]) -> Self {
        let values = sessions
            .iter()
            .map(|s| s.sample.values.get(&name).copied())
            .collect();
        Series { name, values }
    }

    /// The change from session `i - 1` to session `i`, when both have it,
    /// rounded to a millionth (`0.3 - 0.1` is `0.2`, not `0.19999999999999998`).
    fn change_at(&self, i: usize) -> Option<f64> {
        let before = self.values.get(i.checked_sub(1)?).copied().flatten()?;
        Some(difference(before, self.values.get(i).copied().flatten()?))
    }

    /// The change in the newest session.
    fn change(&self) -> Option<f64> {
        self.change_at(self.values.len().checked_sub(1)?)
    }
}

/// The smallest and largest of the present `values`.
fn range(values: &[Option<f64>]) -> Option<(f64, f64)> {
    values.iter().flatten().fold(None, |acc, &v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((v.min(lo), v.max(hi))),
    })
}

/// A change, right-aligned in `width`: the accent when something moved.
fn change_span(app: &App, change: Option<f64>, width: usize) -> Span<'static> {
    let text = change.map(format_change).unwrap_or_default();
    let style = match change {
        Some(c) if c != 0.0 => app.theme.accent,
        _ => app.theme.muted,
    };
    Span::styled(format!("{:>width$}", fit(&text, width)), style)
}

/// The newest `width` values as bars scaled to their own range; `·` where a
/// session has no value.
fn sparkline(values: &[Option<f64>], width: usize) -> String {
    let shown = &values[values.len().saturating_sub(width)..];
    let bounds = range(shown);
    shown
        .iter()
        .map(|v| match (v, bounds) {
            (Some(v), Some((lo, hi))) if hi > lo => {
                BARS[((v - lo) / (hi - lo) * 7.0).round() as usize]
            }
            (Some(_), _) => BARS[3],
            (None, _) => '·',
        })
        .collect()
}

/// `1 session`, `8 sessions`.
fn count(sessions: &[SessionMetrics]) -> String {
    match sessions.len() {
        1 => "1 session".into(),
        n => format!("{n} sessions"),
    }
}

/// When `session` started, if known.
fn started(session: &SessionMetrics) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(session.started_at.as_deref()?).ok()
}

/// Draw the metrics panel into `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let sessions = match &app.full.metrics {
        None => return loading(frame, area, app, "Metrics"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), app.theme.error))
                .wrap(Wrap { trim: false })
                .block(panel(" Metrics ", app));
            return frame.render_widget(p, area);
        }
        Some(Ok(sessions)) => sessions,
    };
    let block = panel(format!(" Metrics · {} ", count(sessions)), app);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let series: Vec<Series> = app
        .metric_names()
        .into_iter()
        .map(|name| Series::of(name, sessions))
        .collect();
    if series.is_empty() {
        let p = Paragraph::new(empty(app, sessions, inner.width)).wrap(Wrap { trim: false });
        return frame.render_widget(p, inner);
    }
    let detail_rows = if inner.height >= TABLE_MIN_ROWS + DETAIL_MIN_ROWS {
        let wanted = series.len() as u16 + 1;
        inner.height.saturating_sub(wanted).max(DETAIL_MIN_ROWS)
    } else {
        0
    };
    let [table_area, detail_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(detail_rows)]).areas(inner);
    table(frame, table_area, app, &series);
    if let Some(selected) = series.get(app.metric_cursor).filter(|_| detail_rows > 0) {
        detail(frame, detail_area, app, sessions, selected);
    }
}

/// No numbers: how to get some (and why there are none when probes ran).
fn empty(app: &App, sessions: &[SessionMetrics], width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = if sessions.is_empty() {
        vec![Line::styled("No numbers recorded yet.", t.accent)]
    } else {
        let mut lines = vec![Line::styled(
            format!(
                "{} ran their [[metric]] commands, but no pattern matched.",
                count(sessions)
            ),
            t.accent,
        )];
        lines.extend(failures(app, sessions, usize::from(width)));
        lines
    };
    lines.push(Line::raw(
        "Each handover runs the [[metric]] commands of handover.toml and records the numbers their output shows, e.g.:",
    ));
    lines.push(Line::raw(""));
    let example = [
        "[[metric]]",
        "name = \"tests\"",
        "argv = [\"cargo\", \"test\"]",
        "[[metric.value]]",
        "name = \"passed\"",
        "pattern = '(\\d+) passed'",
        "combine = \"sum\"",
    ];
    lines.extend(example.map(|l| Line::styled(format!("  {l}"), t.muted)));
    lines
}

/// One row per number: name, latest, change, range (when wide), sparkline.
fn table(frame: &mut Frame<'_>, area: Rect, app: &App, series: &[Series]) {
    let t = &app.theme;
    let name_w = series
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(6, 20);
    let ranges: Vec<String> = if area.width >= RANGE_MIN_WIDTH {
        let text = |s: &Series| {
            range(&s.values).map_or_else(String::new, |(lo, hi)| {
                format!("{}..{}", format_value(lo), format_value(hi))
            })
        };
        series.iter().map(text).collect()
    } else {
        Vec::new()
    };
    let range_w = ranges
        .iter()
        .map(|r| r.chars().count())
        .max()
        .map_or(0, |w| w.max(5) + 2);
    let spark_w = usize::from(area.width).saturating_sub(1 + name_w + 10 + 9 + range_w + 2);
    let range_cell = |text: &str| {
        if range_w == 0 {
            String::new()
        } else {
            format!("  {:<w$}", fit(text, range_w - 2), w = range_w - 2)
        }
    };
    let mut lines = vec![Line::styled(
        format!(
            " {:<name_w$} {:>9} {:>8}{}  trend",
            "metric",
            "latest",
            "change",
            range_cell("range")
        ),
        t.muted,
    )];
    let rows = usize::from(area.height).saturating_sub(1);
    let first = app.metric_cursor.saturating_sub(rows.saturating_sub(1));
    for (i, s) in series.iter().enumerate().skip(first).take(rows) {
        let latest = s.values.last().copied().flatten();
        let mut spans = vec![
            Span::raw(format!(" {:<name_w$}", fit(&s.name, name_w))),
            Span::raw(format!(" {:>9}", latest.map_or("–".into(), format_value))),
            Span::raw(" "),
            change_span(app, s.change(), 8),
            Span::styled(
                range_cell(ranges.get(i).map_or("", String::as_str)),
                t.muted,
            ),
            Span::raw("  "),
            Span::raw(sparkline(&s.values, spark_w)),
        ];
        if i == app.metric_cursor {
            for span in &mut spans {
                span.style = span.style.patch(t.selected);
            }
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The selected number: a chart, its last values, and failed probes.
fn detail(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    sessions: &[SessionMetrics],
    series: &Series,
) {
    let t = &app.theme;
    let title = format!(" {} over {} ", series.name, count(sessions));
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(t.muted)
        .title(Line::styled(title, t.accent));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let failed = failures(app, sessions, usize::from(inner.width));
    let failed_rows = (failed.len() as u16)
        .min(FAILURES_SHOWN)
        .min(inner.height.saturating_sub(DETAIL_MIN_ROWS - 2));
    let [graphs, failed_area] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(failed_rows)]).areas(inner);
    let with_ids = inner.width >= RUN_IDS_MIN_WIDTH;
    let list_w = if with_ids { 44 } else { 23 };
    let [chart_area, list_area] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(list_w)])
            .spacing(1)
            .areas(graphs);
    chart(frame, chart_area, app, sessions, series);
    recent(frame, list_area, app, sessions, series, with_ids);
    frame.render_widget(Paragraph::new(failed), failed_area);
}

/// The values over the sessions (evenly spaced), dates on the x axis.
fn chart(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    sessions: &[SessionMetrics],
    series: &Series,
) {
    let t = &app.theme;
    let Some((lo, hi)) = range(&series.values) else {
        let p = Paragraph::new(Line::styled("never found", t.muted));
        return frame.render_widget(p, area);
    };
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, hi + 1.0)
    };
    let points: Vec<(f64, f64)> = (series.values.iter().enumerate())
        .filter_map(|(i, v)| v.map(|v| (i as f64, v)))
        .collect();
    // The first date's width is taken from the plot: short when narrow.
    let format = if area.width >= WIDE_CHART_MIN_WIDTH {
        "%b %d %H:%M"
    } else {
        "%b %d"
    };
    let date = |s: Option<&SessionMetrics>| {
        s.and_then(started)
            .map_or_else(String::new, |d| d.format(format).to_string())
    };
    let graph_type = if points.len() > 1 {
        GraphType::Line
    } else {
        GraphType::Scatter
    };
    let dataset = Dataset::default()
        .marker(Marker::Braille)
        .graph_type(graph_type)
        .style(t.accent)
        .data(&points);
    let x_axis = Axis::default()
        .bounds([0.0, sessions.len().saturating_sub(1).max(1) as f64])
        .labels([date(sessions.first()), date(sessions.last())])
        .style(t.muted);
    let y_axis = Axis::default()
        .bounds([lo, hi])
        .labels([format_value(lo), format_value(hi)])
        .style(t.muted);
    frame.render_widget(
        Chart::new(vec![dataset]).x_axis(x_axis).y_axis(y_axis),
        area,
    );
}

/// The newest sessions' values and changes, newest first.
fn recent(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    sessions: &[SessionMetrics],
    series: &Series,
    with_ids: bool,
) {
    let t = &app.theme;
    let rows = usize::from(area.height).saturating_sub(1);
    let mut lines = vec![Line::styled("last sessions", t.muted)];
    for (i, session) in sessions.iter().enumerate().rev().take(rows) {
        let when = started(session).map_or_else(String::new, |d| ago(app, d.to_utc()));
        let id = if with_ids {
            format!("{} ", session.run_id)
        } else {
            String::new()
        };
        let value = series.values[i].map_or("–".into(), format_value);
        lines.push(Line::from(vec![
            Span::styled(format!("{when:>4} {id}"), t.muted),
            Span::raw(format!("{value:>9} ")),
            change_span(app, series.change_at(i), 8),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The newest sessions' failed probes, newest first: name, exit code, when,
/// and the first line of the error, cut to `width`.
fn failures(app: &App, sessions: &[SessionMetrics], width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let recent = sessions.iter().rev().take(FAILURE_SESSIONS);
    let failed = recent.flat_map(|s| {
        s.sample
            .probes
            .iter()
            .filter(|p| !p.ok)
            .map(move |p| (s, p))
    });
    failed
        .map(|(session, probe)| {
            let exit = probe
                .exit_code
                .map(|c| format!(" exit {c}"))
                .unwrap_or_default();
            let when = started(session).map_or_else(String::new, |d| ago(app, d.to_utc()));
            let head = format!("✗ {}{exit} · {when} ago", probe.name);
            let first = probe
                .error
                .as_deref()
                .and_then(|e| e.lines().next())
                .unwrap_or("");
            // The error starts with the exit status, already shown.
            let first = probe
                .exit_code
                .and_then(|c| first.strip_prefix(&format!("exit status {c}")))
                .map_or(first, |rest| rest.trim_start_matches(':').trim_start());
            let rest = width.saturating_sub(head.chars().count() + 2);
            Line::from(vec![
                Span::styled(head, t.error),
                Span::raw(if first.is_empty() { "" } else { ": " }),
                Span::raw(fit(first, rest)),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::command::View;
    use crate::tui::fixtures;
    use crate::tui::view::tests::draw;

    #[test]
    fn any_history_draws_at_any_size() {
        let all = fixtures::sessions();
        let many: Vec<SessionMetrics> = (0..200).map(|i| all[i % all.len()].clone()).collect();
        for sessions in [&all[..1], &all[..2], &many[..]] {
            for size in [(40, 12), (60, 20), (100, 30), (160, 48)] {
                let mut app = fixtures::loaded(size);
                app.view = View::Metrics;
                app.metric_cursor = 3;
                app.full.metrics = Some(Ok(sessions.to_vec()));
                let screen = draw(&app);
                assert!(screen.contains("passed"), "{size:?}\n{screen}");
            }
        }
    }

    #[test]
    fn sparklines_scale_to_their_window_and_mark_gaps() {
        let values = [Some(0.0), Some(5.0), None, Some(10.0), Some(10.0)];
        assert_eq!(sparkline(&values, 10), "▁▅·██");
        assert_eq!(sparkline(&values, 2), "▄▄", "a flat window sits mid-height");
        assert_eq!(sparkline(&[], 5), "");
    }

    #[test]
    fn changes_are_signed_without_float_noise() {
        let s = Series {
            name: "x".into(),
            values: vec![Some(1.0), None, Some(4.0), Some(6.5), Some(6.6), Some(6.9)],
        };
        assert_eq!(
            (s.change_at(1), s.change_at(2), s.change_at(3)),
            (None, None, Some(2.5))
        );
        assert_eq!(
            s.change_at(5).map(format_change).as_deref(),
            Some("+0.3"),
            "not 0.3000000000000007"
        );
        assert_eq!(range(&s.values), Some((1.0, 6.9)));
    }
}
