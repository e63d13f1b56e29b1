//! The state view: versions of current-state.md and the diff of a pair,
//! unified or side by side, with changed words highlighted. Only the rows
//! on screen are built, so a 10,000-line file scrolls as fast as a short one.
//! Its keys diff the selected version and switch the diff's layout.

use std::sync::Arc;

use agent_handover::memory::diff::{DiffRow, RowKind, StateDiff};
use agent_handover::memory::versions::Version;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::command::{Binding, Command, TabId};
use crate::tui::layout::is_wide;
use crate::tui::model::{Effect, Event, FullData, Shared};
use crate::tui::tab::{Cursor, Reply, Tab, shifted};
use crate::tui::widgets::{ago, fit, loading, panel};

/// The state tab's id.
pub const ID: TabId = TabId::new("State");

/// Diff the selected version with the one before it.
const DIFF: Command = Command::Local("diff");
/// Unified or side by side.
const SIDE_BY_SIDE: Command = Command::Local("side-by-side");

/// The state view's own keys.
#[rustfmt::skip]
const BINDINGS: &[Binding] = &[
    Binding::new("diff", DIFF, &["enter"], "diff", "diff the selected version with the one before"),
    Binding::new("side-by-side", SIDE_BY_SIDE, &["s"], "split", "unified / side-by-side diff"),
];

/// Width of the version list beside the diff (wide layout).
const LIST_WIDTH: u16 = 34;

/// The diff being shown.
#[derive(Debug, Clone)]
struct DiffView {
    /// Older version index.
    from: usize,
    /// Newer version index.
    to: usize,
    /// The diff.
    diff: Arc<StateDiff>,
    /// First visible row.
    scroll: usize,
}

/// The state view's state: the selected version and the diff shown.
#[derive(Debug, Default)]
pub struct StateTab {
    /// The selected version.
    version: Cursor,
    /// The diff shown, once computed.
    diff: Option<DiffView>,
    /// Side-by-side diff instead of unified.
    side_by_side: bool,
    /// The user chose the pair shown (`enter`): it is kept across reloads;
    /// otherwise the newest change is shown.
    chosen: bool,
}

impl Tab for StateTab {
    fn id(&self) -> TabId {
        ID
    }

    fn bindings(&self) -> &'static [Binding] {
        BINDINGS
    }

    fn update(&mut self, command: Command, shared: &Shared, _selected: bool) -> Reply {
        match command {
            DIFF => {
                let from = self.version.row() + 1;
                if from < shared.full.versions().len() {
                    self.chosen = true;
                    Reply::Effects(vec![Effect::ComputeDiff {
                        from,
                        to: self.version.row(),
                    }])
                } else {
                    Reply::Note("the oldest version has nothing before it".into())
                }
            }
            SIDE_BY_SIDE => {
                self.side_by_side = !self.side_by_side;
                if let Some(d) = &mut self.diff {
                    d.scroll = 0;
                }
                Reply::Handled
            }
            _ => Reply::Unhandled,
        }
    }

    /// A computed diff replaces the one shown (keeping its scroll when it is
    /// the same pair again).
    fn receive(&mut self, event: &Event) -> Reply {
        let Event::DiffReady { from, to, diff } = event else {
            return Reply::Unhandled;
        };
        match diff {
            Ok(diff) => {
                let scroll = self
                    .diff
                    .as_ref()
                    .filter(|d| d.from == *from && d.to == *to)
                    .map_or(0, |d| d.scroll);
                self.diff = Some(DiffView {
                    from: *from,
                    to: *to,
                    diff: Arc::clone(diff),
                    scroll,
                });
                Reply::Handled
            }
            Err(e) => Reply::Error(format!("diff: {e}")),
        }
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.version
    }

    fn rows(&self, shared: &Shared) -> usize {
        shared.full.versions().len()
    }

    /// Arrows scroll the diff when it is alone on screen; pages always do.
    /// Otherwise the version selection moves.
    fn move_cursor(&mut self, delta: isize, shared: &Shared) {
        let side_by_side = self.side_by_side;
        match &mut self.diff {
            Some(d) if !is_wide(shared.size) || delta.abs() > 1 => {
                let rows = if side_by_side {
                    d.diff.side_by_side_len()
                } else {
                    d.diff.len()
                };
                d.scroll = shifted(d.scroll, delta, rows);
            }
            _ => self.version.move_by(delta, shared.full.versions().len()),
        }
    }

    /// Keep showing the pair the user chose (by version id), else the
    /// newest change; recompute it when the versions moved.
    fn reloaded(&mut self, previous: &FullData, shared: &Shared) -> Vec<Effect> {
        let ids = |full: &FullData| -> Vec<String> {
            full.versions().iter().map(|v| v.id.clone()).collect()
        };
        let (old_versions, new_versions) = (ids(previous), ids(&shared.full));
        // The selected version and the pair shown follow their versions
        // (by id), not their rows, when new versions arrive.
        let now_at = |row: usize| {
            let id = old_versions.get(row)?;
            new_versions.iter().position(|v| v == id)
        };
        if let Some(at) = now_at(self.version.row()) {
            self.version.set(at);
        }
        if new_versions.len() >= 2 && (self.diff.is_none() || old_versions != new_versions) {
            let (from, to) = match &self.diff {
                Some(d) if old_versions == new_versions => (d.from, d.to),
                Some(_) if !self.chosen => (1, 0),
                Some(d) => match (now_at(d.from), now_at(d.to)) {
                    (Some(from), Some(to)) => {
                        // Same pair, new rows: keep it (and its scroll).
                        self.diff = Some(DiffView {
                            from,
                            to,
                            ..d.clone()
                        });
                        return vec![Effect::ComputeDiff { from, to }];
                    }
                    _ => (1, 0),
                },
                None => (1, 0),
            };
            return vec![Effect::ComputeDiff { from, to }];
        }
        if new_versions.len() < 2 {
            self.diff = None;
        }
        Vec::new()
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self);
    }
}

/// Draw the state view of `tab` into `area`.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, tab: &StateTab) {
    let versions = match &shared.full.versions {
        None => return loading(frame, area, shared, "State"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), shared.theme.error))
                .block(panel(" State ", shared));
            return frame.render_widget(p, area);
        }
        Some(Ok(v)) => v,
    };
    if is_wide(shared.size) && area.width >= LIST_WIDTH + 40 {
        let [list, diff] =
            Layout::horizontal([Constraint::Length(LIST_WIDTH), Constraint::Fill(1)]).areas(area);
        version_list(frame, list, shared, tab, versions);
        diff_panel(frame, diff, shared, tab, versions);
    } else {
        diff_panel(frame, area, shared, tab, versions);
    }
}

/// How the version list names `v`.
fn label(v: &Version) -> String {
    if let Some(d) = &v.drift {
        // Superseded by a merge of two machines: the sections it lost.
        let lost: Vec<&str> = d
            .sections
            .iter()
            .map(|h| h.trim_start_matches('#').trim())
            .collect();
        return format!("DRIFT {}", lost.join(", "));
    }
    if v.merge {
        return "merged (2 machines)".into();
    }
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

/// The versions, newest first: the diffed pair marked, the selected one highlighted.
fn version_list(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    tab: &StateTab,
    versions: &[Version],
) {
    let t = &shared.theme;
    let block = panel(format!(" {} versions ", versions.len()), shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let first = tab.version.row().saturating_sub(height.saturating_sub(1));
    let (from, to) = tab
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
            let text = format!("{i:>3} {:>4} {}", ago(shared, v.at), label(v));
            let row = if i == tab.version.row() {
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

/// The diff shown, or why there is none.
fn diff_panel(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    tab: &StateTab,
    versions: &[Version],
) {
    let t = &shared.theme;
    let Some(d) = &tab.diff else {
        let text = match versions.len() {
            0 => "No current-state.md yet.",
            1 => "Only one version of current-state.md so far.",
            _ => "computing the diff…",
        };
        let p = Paragraph::new(Line::styled(text, t.muted)).block(panel(" Diff ", shared));
        return frame.render_widget(p, area);
    };
    let name = |i: usize| {
        versions.get(i).map_or("?".to_string(), |v| {
            format!("#{i} {}", &v.id[..v.id.len().min(8)])
        })
    };
    let stats = d.diff.stats();
    let mode = if tab.side_by_side {
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
    let block = panel(title, shared);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if stats.added + stats.removed == 0 {
        return frame.render_widget(
            Paragraph::new(Line::styled("The two versions are identical.", t.muted)),
            inner,
        );
    }
    let height = usize::from(inner.height);
    if tab.side_by_side {
        side_by_side(frame, inner, shared, d, height);
    } else {
        let rows = d.diff.rows(d.scroll..(d.scroll + height).min(d.diff.len()));
        let lines: Vec<Line<'_>> = rows.iter().map(|r| unified_line(r, shared)).collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

/// One row of the unified diff.
fn unified_line(row: &DiffRow, shared: &Shared) -> Line<'static> {
    let t = &shared.theme;
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

/// The visible `height` rows of the diff, old left and new right.
fn side_by_side(frame: &mut Frame<'_>, area: Rect, shared: &Shared, d: &DiffView, height: usize) {
    let t = &shared.theme;
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

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::tui::fixtures::{self, code, draw, key};

    /// Issue 14, seen 3: a new version does not reset the chosen pair nor
    /// move the selection to another version.
    #[test]
    fn the_chosen_pair_and_the_selection_follow_their_versions() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        app.update(key('j'));
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::ComputeDiff { from: 2, to: 1 }]
        );
        app.update(Event::DiffReady {
            from: 2,
            to: 1,
            diff: Ok(fixtures::diff()),
        });
        // A new version arrives on top.
        let mut data = fixtures::full_data();
        if let Some(Ok(versions)) = &mut data.versions {
            let mut newest = versions[0].clone();
            newest.id = "0000000000000001".into();
            versions.insert(0, newest);
        }
        let effects = app.update(Event::FullLoaded(Box::new(data)));
        assert_eq!(effects, vec![Effect::ComputeDiff { from: 3, to: 2 }]);
        let tab: &StateTab = fixtures::tab(&app);
        assert_eq!(tab.version.row(), 2, "still on the same version");
    }

    #[test]
    fn a_version_a_merge_superseded_is_flagged_as_drift_in_the_list() {
        let mut app = fixtures::app((160, 48));
        let mut data = fixtures::full_data();
        if let Some(Ok(versions)) = &mut data.versions {
            versions[2].drift = Some(agent_handover::memory::history::Drift {
                at: fixtures::now(),
                superseded: versions[2].id.clone(),
                merged: versions[1].id.clone(),
                sections: vec!["## Status".into()],
                from: "origin/main".into(),
            });
            versions[1].merge = true;
        }
        app.update(Event::FullLoaded(Box::new(data)));
        app.selected = ID;
        let screen = draw(&app);
        assert!(screen.contains("DRIFT Status "), "{screen}");
        assert!(screen.contains("merged (2 machines)"), "{screen}");
    }

    #[test]
    fn new_versions_request_the_latest_diff() {
        let mut app = fixtures::app((60, 20));
        let effects = app.update(Event::FullLoaded(Box::new(fixtures::full_data())));
        assert_eq!(effects, vec![Effect::ComputeDiff { from: 1, to: 0 }]);
        app.update(key('3'));
        app.update(code(KeyCode::Down));
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::ComputeDiff { from: 2, to: 1 }]
        );
    }

    #[test]
    fn side_by_side_and_scrolling_build_only_visible_rows() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        fixtures::tab_mut::<StateTab>(&mut app).side_by_side = true;
        insta::assert_snapshot!("state_side_by_side_160x48", draw(&app));
        // A 10,000-line diff draws as fast as a short one: only the window is built.
        let old: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 5000\n", "line 5000 changed\n");
        let diff = Arc::new(StateDiff::new(old, new));
        let state: &mut StateTab = fixtures::tab_mut(&mut app);
        state.side_by_side = false;
        state.diff = Some(DiffView {
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
}
