//! The metrics panel: the numbers every handover measured (`[[metric]]` in
//! handover.toml) over the sessions. One row per number: its latest value,
//! the change since the session before, its range and a sparkline (oldest
//! left); the selected one in detail below: a chart over the sessions, its
//! last values, and the probes that failed lately.
//!
//! Nobody knows whether up is good (tests passed) or bad (lint errors), so
//! changes get the accent, never good/bad colours.

use agent_handover::read::metrics::{SessionMetrics, difference, format_change, format_value, metric_names};
use chrono::{DateTime, FixedOffset};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Wrap};

use crate::tui::command::TabId;
use crate::tui::model::Shared;
use crate::tui::tab::{Cursor, ListFilter, Tab};
use crate::tui::widgets::{ago, fit, loading, panel};

/// The metrics tab's id.
pub const ID: TabId = TabId::new("Metrics");

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

/// The metrics panel's state: the selected number.
#[derive(Debug, Default)]
pub struct MetricsTab {
    /// The selected metric, an index into [`MetricsTab::names`].
    metric: Cursor,
    /// Metrics listed: those whose name holds the words typed.
    filter: ListFilter,
}

impl MetricsTab {
    /// The names of the metrics listed, as [`metric_names`] orders them.
    fn names(&self, sessions: &[SessionMetrics]) -> Vec<String> {
        metric_names(sessions)
            .into_iter()
            .filter(|name| self.filter.keeps(name))
            .collect()
    }
}

impl Tab for MetricsTab {
    fn id(&self) -> TabId {
        ID
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.metric
    }

    fn filter_mut(&mut self) -> Option<&mut ListFilter> {
        Some(&mut self.filter)
    }

    fn rows(&self, shared: &Shared) -> usize {
        self.names(sessions(shared)).len()
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self);
    }
}

/// The sessions with measured numbers, oldest first, if loaded.
fn sessions(shared: &Shared) -> &[SessionMetrics] {
    match &shared.full.metrics {
        Some(Ok(s)) => s,
        _ => &[],
    }
}

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
fn change_span(shared: &Shared, change: Option<f64>, width: usize) -> Span<'static> {
    let text = change.map(format_change).unwrap_or_default();
    let style = match change {
        Some(c) if c != 0.0 => shared.theme.accent,
        _ => shared.theme.muted,
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

/// Draw the metrics panel into `area`, metric `cursor` selected.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, tab: &MetricsTab) {
    let cursor = tab.metric.row();
    let sessions = match &shared.full.metrics {
        None => return loading(frame, area, shared, "Metrics"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), shared.theme.error))
                .wrap(Wrap { trim: false })
                .block(panel(" Metrics ", shared));
            return frame.render_widget(p, area);
        }
        Some(Ok(sessions)) => sessions,
    };
    let block = panel(
        format!(" Metrics · {}{} ", count(sessions), tab.filter.title()),
        shared,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let series: Vec<Series> = tab
        .names(sessions)
        .into_iter()
        .map(|name| Series::of(name, sessions))
        .collect();
    if series.is_empty() && !metric_names(sessions).is_empty() {
        let text = "No metric matches the filter (/ then Esc clears it).";
        return frame.render_widget(Paragraph::new(Line::styled(text, shared.theme.muted)), inner);
    }
    if series.is_empty() {
        let p = Paragraph::new(empty(shared, sessions, inner.width)).wrap(Wrap { trim: false });
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
    table(frame, table_area, shared, &series, cursor);
    if let Some(selected) = series.get(cursor).filter(|_| detail_rows > 0) {
        detail(frame, detail_area, shared, sessions, selected);
    }
}

/// No numbers: how to get some (and why there are none when probes ran).
fn empty(shared: &Shared, sessions: &[SessionMetrics], width: u16) -> Vec<Line<'static>> {
    let t = &shared.theme;
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
        lines.extend(failures(shared, sessions, usize::from(width)));
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
fn table(frame: &mut Frame<'_>, area: Rect, shared: &Shared, series: &[Series], cursor: usize) {
    let t = &shared.theme;
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
    let first = cursor.saturating_sub(rows.saturating_sub(1));
    for (i, s) in series.iter().enumerate().skip(first).take(rows) {
        let latest = s.values.last().copied().flatten();
        let mut spans = vec![
            Span::raw(format!(" {:<name_w$}", fit(&s.name, name_w))),
            Span::raw(format!(" {:>9}", latest.map_or("–".into(), format_value))),
            Span::raw(" "),
            change_span(shared, s.change(), 8),
            Span::styled(
                range_cell(ranges.get(i).map_or("", String::as_str)),
                t.muted,
            ),
            Span::raw("  "),
            Span::raw(sparkline(&s.values, spark_w)),
        ];
        if i == cursor {
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
    shared: &Shared,
    sessions: &[SessionMetrics],
    series: &Series,
) {
    let t = &shared.theme;
    let title = format!(" {} over {} ", series.name, count(sessions));
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(t.muted)
        .title(Line::styled(title, t.accent));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let failed = failures(shared, sessions, usize::from(inner.width));
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
    chart(frame, chart_area, shared, sessions, series);
    recent(frame, list_area, shared, sessions, series, with_ids);
    frame.render_widget(Paragraph::new(failed), failed_area);
}

/// The values over the sessions (evenly spaced), dates on the x axis.
fn chart(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    sessions: &[SessionMetrics],
    series: &Series,
) {
    let t = &shared.theme;
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
    shared: &Shared,
    sessions: &[SessionMetrics],
    series: &Series,
    with_ids: bool,
) {
    let t = &shared.theme;
    let rows = usize::from(area.height).saturating_sub(1);
    let mut lines = vec![Line::styled("last sessions", t.muted)];
    for (i, session) in sessions.iter().enumerate().rev().take(rows) {
        let when = started(session).map_or_else(String::new, |d| ago(shared, d.to_utc()));
        let id = if with_ids {
            format!("{} ", session.run_id)
        } else {
            String::new()
        };
        let value = series.values[i].map_or("–".into(), format_value);
        lines.push(Line::from(vec![
            Span::styled(format!("{when:>4} {id}"), t.muted),
            Span::raw(format!("{value:>9} ")),
            change_span(shared, series.change_at(i), 8),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The newest sessions' failed probes, newest first: name, exit code, when,
/// and the first line of the error, cut to `width`.
fn failures(shared: &Shared, sessions: &[SessionMetrics], width: usize) -> Vec<Line<'static>> {
    let t = &shared.theme;
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
            let when = started(session).map_or_else(String::new, |d| ago(shared, d.to_utc()));
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
    use crossterm::event::KeyCode;

    use super::*;
    use crate::tui::app::App;
    use crate::tui::fixtures::{self, code, draw, key};
    use crate::tui::model::{Event, FullData};
    use crate::tui::tabs::run;

    #[test]
    fn any_history_draws_at_any_size() {
        let all = fixtures::sessions();
        let many: Vec<SessionMetrics> = (0..200).map(|i| all[i % all.len()].clone()).collect();
        for sessions in [&all[..1], &all[..2], &many[..]] {
            for size in [(40, 12), (60, 20), (100, 30), (160, 48)] {
                let mut app = fixtures::loaded(size);
                app.selected = ID;
                app.shared.full.metrics = Some(Ok(sessions.to_vec()));
                app.update(key('G'));
                assert_eq!(fixtures::tab::<MetricsTab>(&app).metric.row(), 3);
                let screen = draw(&app);
                assert!(screen.contains("passed"), "{size:?}\n{screen}");
            }
        }
    }

    /// `/` keeps the metrics whose name holds the words typed; the detail
    /// follows the selected one of those.
    #[test]
    fn slash_filters_the_metrics() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        app.update(fixtures::key('/'));
        for c in "cover".chars() {
            app.update(fixtures::key(c));
        }
        app.update(fixtures::code(crossterm::event::KeyCode::Enter));
        let screen = fixtures::draw(&app);
        assert!(screen.contains("/cover"), "{screen}");
        assert!(screen.contains("coverage") && !screen.contains("passed "), "{screen}");
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

    #[test]
    fn metrics_tab_by_number_and_its_selection_moves_and_clamps() {
        let mut app = fixtures::loaded((60, 20));
        app.update(key('6'));
        assert_eq!(app.selected, ID);
        assert_eq!(
            metric_names(sessions(&app.shared)),
            ["passed", "failed", "coverage", "warnings"]
        );
        let cursor = |app: &App| fixtures::tab::<MetricsTab>(app).metric.row();
        let run_cursor = *app.tabs.get_mut(run::ID).cursor_mut();
        app.update(code(KeyCode::Down));
        app.update(key('j'));
        assert_eq!(cursor(&app), 2);
        app.update(key('G'));
        assert_eq!(cursor(&app), 3, "stops at the last metric");
        app.update(code(KeyCode::Down));
        assert_eq!(cursor(&app), 3);
        app.update(key('k'));
        assert_eq!(cursor(&app), 2);
        assert_eq!(
            *app.tabs.get_mut(run::ID).cursor_mut(),
            run_cursor,
            "other tabs' cursors stay"
        );
        // Fewer metrics after a reload: the selection stays in range.
        let mut full = fixtures::full_data();
        full.metrics = Some(Ok(Vec::new()));
        app.update(Event::FullLoaded(Box::new(full)));
        assert_eq!(cursor(&app), 0);
        assert!(app.update(code(KeyCode::Down)).is_empty());
        assert_eq!(cursor(&app), 0);
    }

    #[test]
    fn metrics_empty_unmatched_and_unreadable() {
        for size in [(60, 20), (160, 48)] {
            let mut app = fixtures::loaded(size);
            app.selected = ID;
            app.update(Event::FullLoaded(Box::new(FullData {
                metrics: Some(Ok(Vec::new())),
                ..fixtures::full_data()
            })));
            insta::assert_snapshot!(format!("metrics_empty_{}x{}", size.0, size.1), draw(&app));
        }
        let mut app = fixtures::loaded((60, 20));
        app.selected = ID;
        let mut sessions = fixtures::sessions();
        for s in &mut sessions {
            s.sample.values.clear();
        }
        app.shared.full.metrics = Some(Ok(sessions));
        let screen = draw(&app);
        assert!(
            screen.contains("8 sessions ran their [[metric]] commands")
                && screen.contains("✗ clippy exit 101"),
            "{screen}"
        );
        app.shared.full.metrics = Some(Err(
            ".agent-handover/runs/20261121-093000-11b0.json is unreadable".into(),
        ));
        let screen = draw(&app);
        assert!(screen.contains("unreadable"), "{screen}");
    }
}
