//! The state view: versions of current-state.md and the diff of any two,
//! unified or side by side, with changed words highlighted. Two panes, the
//! version list and the diff, each focusable (`v`): the focused one takes
//! the movement keys and the wheel, and a narrow screen shows only it.
//! `space` marks a version and `enter` compares it with the selected one;
//! `]`/`[` jump between changes, `<`/`>` scroll sideways, `w` wraps. Only
//! the rows on screen are built, so a 10,000-line file scrolls as fast as a
//! short one.

use std::cell::Cell;
use std::sync::Arc;

use agent_handover::domain::memory::diff::{DiffRow, Eol, RowKind, StateDiff};
use agent_handover::domain::memory::versions::Version;
use chrono::{DateTime, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Wrap};

use crate::tui::command::{Binding, Command, TabId};
use crate::tui::layout::is_wide;
use crate::tui::model::{Effect, Event, FullData, Shared};
use crate::tui::tab::{Cursor, ListFilter, Reply, Tab, shifted};
use crate::tui::widgets::{ago, fit, list_window, loading, more_below, panel};

/// The state tab's id.
pub const ID: TabId = TabId::new("State");

/// Diff the marked version (or the one before) with the selected one.
const DIFF: Command = Command::Local("diff");
/// Mark the selected version for a comparison.
const MARK: Command = Command::Local("mark");
/// Focus the other pane.
const FOCUS: Command = Command::Local("focus");
/// Jump to the next change of the diff.
const NEXT_CHANGE: Command = Command::Local("next-change");
/// Jump to the previous change.
const PREV_CHANGE: Command = Command::Local("prev-change");
/// Scroll the diff right.
const RIGHT: Command = Command::Local("scroll-right");
/// Scroll the diff left.
const LEFT: Command = Command::Local("scroll-left");
/// Wrap long lines.
const WRAP: Command = Command::Local("wrap");
/// Unified or side by side.
const SIDE_BY_SIDE: Command = Command::Local("side-by-side");

/// The state view's own keys.
#[rustfmt::skip]
const BINDINGS: &[Binding] = &[
    Binding::new("diff", DIFF, &["enter"], "diff", "diff the marked version (else the one before) with the selected one"),
    Binding::new("mark", MARK, &["space"], "mark", "mark the selected version, to compare it with another (enter)"),
    Binding::new("focus", FOCUS, &["v"], "versions", "focus the version list or the diff (narrow: show it)"),
    Binding::new("next-change", NEXT_CHANGE, &["]"], "", "jump to the next change in the diff"),
    Binding::new("prev-change", PREV_CHANGE, &["["], "", "jump to the previous change"),
    Binding::new("scroll-right", RIGHT, &[">"], "", "scroll the diff right"),
    Binding::new("scroll-left", LEFT, &["<"], "", "scroll the diff left"),
    Binding::new("wrap", WRAP, &["w"], "", "wrap long lines (else scroll sideways)"),
    Binding::new("side-by-side", SIDE_BY_SIDE, &["s"], "split", "unified / side-by-side diff"),
];

/// Width of the version list beside the diff (wide layout).
const LIST_WIDTH: u16 = 34;
/// Columns one `<`/`>` scrolls.
const SIDE_STEP: usize = 8;

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

/// The two panes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Pane {
    /// The version list.
    #[default]
    List,
    /// The diff.
    Diff,
}

/// A version as the tab remembers it across reloads: its text and its time
/// (a text written again is another version of the same id).
#[derive(Debug, Clone, PartialEq, Eq)]
struct VersionKey {
    id: String,
    at: DateTime<Utc>,
}

impl VersionKey {
    fn of(v: &Version) -> Self {
        VersionKey {
            id: v.id.clone(),
            at: v.at,
        }
    }

    /// Its row in `versions`, if it is still listed.
    fn row_in(&self, versions: &[Version]) -> Option<usize> {
        versions
            .iter()
            .position(|v| v.id == self.id && v.at == self.at)
            .or_else(|| versions.iter().position(|v| v.id == self.id))
    }
}

/// The state view's state: the selected and marked versions, the diff
/// shown and how.
#[derive(Debug, Default)]
pub struct StateTab {
    /// The selected version (a row of [`StateTab::shown`]).
    version: Cursor,
    /// Versions listed: those whose run, commit, summary or id hold the words typed.
    filter: ListFilter,
    /// The version marked with `space`, to compare with the selected one.
    marked: Option<VersionKey>,
    /// The pane the movement keys go to, once chosen (`v`, `enter`);
    /// until then the list when both are shown, else the diff.
    focus: Option<Pane>,
    /// The diff shown, once computed.
    diff: Option<DiffView>,
    /// Side-by-side diff instead of unified.
    side_by_side: bool,
    /// Wrap long lines instead of scrolling sideways.
    wrap: bool,
    /// Columns scrolled sideways.
    column: usize,
    /// The user chose the pair shown (`enter`): it is kept across reloads;
    /// otherwise the newest change is shown.
    chosen: bool,
    /// Rows of diff the last frame showed (a page, and how far a scroll
    /// may go before the pane would show nothing).
    diff_height: Cell<usize>,
    /// The pair asked for last: a diff of another pair (an older request
    /// that finished late) is dropped.
    requested: Option<(usize, usize)>,
}

/// Whether the list and the diff are both shown (a wide screen: the State
/// tab has the whole width).
fn side_by_side_panes(shared: &Shared) -> bool {
    is_wide(shared.size) && shared.size.0 >= LIST_WIDTH + 40
}

/// Where the panes go in `area`: the list beside the diff when there is
/// room, else only the focused one.
fn panes(area: Rect, shared: &Shared, focus: Pane) -> (Option<Rect>, Option<Rect>) {
    if side_by_side_panes(shared) {
        let [list, diff] =
            Layout::horizontal([Constraint::Length(LIST_WIDTH), Constraint::Fill(1)]).areas(area);
        (Some(list), Some(diff))
    } else {
        match focus {
            Pane::List => (Some(area), None),
            Pane::Diff => (None, Some(area)),
        }
    }
}

impl StateTab {
    /// Ask for the diff of `from` and `to`.
    fn request(&mut self, from: usize, to: usize) -> Effect {
        self.requested = Some((from, to));
        Effect::ComputeDiff { from, to }
    }

    /// The versions listed (indexes into `versions`, newest first).
    fn shown(&self, versions: &[Version]) -> Vec<usize> {
        (0..versions.len())
            .filter(|&i| {
                let v = &versions[i];
                self.filter.keeps(&format!(
                    "{} {} {}",
                    v.id,
                    label(v),
                    v.commit.as_deref().unwrap_or_default()
                ))
            })
            .collect()
    }

    /// The selected version (an index into `versions`).
    fn selected(&self, versions: &[Version]) -> Option<usize> {
        self.shown(versions).get(self.version.row()).copied()
    }

    /// Select version `index`, if it is listed.
    fn select(&mut self, versions: &[Version], index: usize) {
        if let Some(row) = self.shown(versions).iter().position(|&i| i == index) {
            self.version.set(row);
        }
    }

    /// The focused pane.
    fn focus(&self, shared: &Shared) -> Pane {
        self.focus.unwrap_or(if side_by_side_panes(shared) {
            Pane::List
        } else {
            Pane::Diff
        })
    }

    /// Rows of the diff in the current layout.
    fn diff_rows(&self) -> usize {
        self.diff.as_ref().map_or(0, |d| {
            if self.side_by_side {
                d.diff.side_by_side_len()
            } else {
                d.diff.len()
            }
        })
    }

    /// Scroll the diff by `delta` rows, never past its last full page.
    fn scroll_diff(&mut self, delta: isize) {
        let last_page = self
            .diff_rows()
            .saturating_sub(self.diff_height.get().max(1))
            + 1;
        if let Some(d) = &mut self.diff {
            d.scroll = shifted(d.scroll, delta, last_page);
        }
    }

    /// Jump to the next (or previous) change of the diff.
    fn jump_to_change(&mut self, forward: bool) -> Reply {
        let Some(d) = &self.diff else {
            return Reply::Note("no diff shown".into());
        };
        let starts = d.diff.change_starts(self.side_by_side);
        let target = if forward {
            starts.into_iter().find(|&s| s > d.scroll)
        } else {
            starts.into_iter().rev().find(|&s| s < d.scroll)
        };
        let Some(target) = target else {
            return Reply::Note(format!(
                "no {} change",
                if forward { "later" } else { "earlier" }
            ));
        };
        let at = d.scroll;
        self.focus = Some(Pane::Diff);
        self.scroll_diff(target as isize - at as isize);
        if self.diff.as_ref().is_some_and(|d| d.scroll == at) {
            // The change is on the last page, already on screen.
            return Reply::Note("no later change off screen".into());
        }
        Reply::Handled
    }

    /// `enter`: the pair to compare, older first.
    fn pair(&self, versions: &[Version]) -> Result<(usize, usize), String> {
        let Some(selected) = self.selected(versions) else {
            return Err("no version selected".into());
        };
        match self.marked.as_ref().and_then(|m| m.row_in(versions)) {
            Some(marked) if marked == selected => {
                Err("that is the marked version: select another to compare it with".into())
            }
            // The list is newest first: the larger row is the older version.
            Some(marked) => Ok((marked.max(selected), marked.min(selected))),
            None if selected + 1 < versions.len() => Ok((selected + 1, selected)),
            None => Err("the oldest version has nothing before it (space marks it to compare with another)".into()),
        }
    }
}

impl Tab for StateTab {
    fn id(&self) -> TabId {
        ID
    }

    fn bindings(&self) -> &'static [Binding] {
        BINDINGS
    }

    fn hides_sidebar(&self) -> bool {
        true
    }

    fn update(&mut self, command: Command, shared: &Shared, _selected: bool) -> Reply {
        let versions = shared.full.versions();
        match command {
            DIFF => match self.pair(versions) {
                Ok((from, to)) => {
                    self.chosen = true;
                    self.marked = None;
                    if !side_by_side_panes(shared) {
                        self.focus = Some(Pane::Diff);
                    }
                    Reply::Effects(vec![self.request(from, to)])
                }
                Err(why) => Reply::Note(why),
            },
            MARK => {
                let Some(at) = self.selected(versions) else {
                    return Reply::Note("no version to mark".into());
                };
                let v = &versions[at];
                let key = VersionKey::of(v);
                if self.marked.as_ref() == Some(&key) {
                    self.marked = None;
                    Reply::Note("mark removed".into())
                } else {
                    self.marked = Some(key);
                    Reply::Note(format!(
                        "marked #{at}: select another version and press enter to compare"
                    ))
                }
            }
            FOCUS => {
                self.focus = Some(match self.focus(shared) {
                    Pane::List => Pane::Diff,
                    Pane::Diff => Pane::List,
                });
                Reply::Handled
            }
            NEXT_CHANGE => self.jump_to_change(true),
            PREV_CHANGE => self.jump_to_change(false),
            RIGHT | LEFT if self.wrap => Reply::Note("lines are wrapped (w to scroll sideways)".into()),
            RIGHT => {
                self.column += SIDE_STEP;
                Reply::Handled
            }
            LEFT => {
                self.column = self.column.saturating_sub(SIDE_STEP);
                Reply::Handled
            }
            WRAP => {
                self.wrap = !self.wrap;
                self.column = 0;
                Reply::Handled
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
        if self.requested.is_some_and(|r| r != (*from, *to)) {
            return Reply::Handled;
        }
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

    fn filter_mut(&mut self) -> Option<&mut ListFilter> {
        Some(&mut self.filter)
    }

    /// The selected version's id (for `state diff` and `state show`).
    fn copy_text(&self, shared: &Shared) -> Option<String> {
        let versions = shared.full.versions();
        Some(versions[self.selected(versions)?].id.clone())
    }

    fn rows(&self, shared: &Shared) -> usize {
        self.shown(shared.full.versions()).len()
    }

    /// The focused pane moves: the version selection or the diff.
    fn move_cursor(&mut self, delta: isize, shared: &Shared) {
        match self.focus(shared) {
            Pane::Diff if self.diff.is_some() => self.scroll_diff(delta),
            _ => self.version.move_by(delta, self.rows(shared)),
        }
    }

    /// The wheel moves the pane under the pointer.
    fn wheel(&mut self, delta: isize, at: (u16, u16), area: Rect, shared: &Shared) {
        let inside = |r: &Rect| r.contains(ratatui::layout::Position::new(at.0, at.1));
        match panes(area, shared, self.focus(shared)) {
            (Some(list), _) if inside(&list) => {
                let rows = self.rows(shared);
                self.version.move_by(delta, rows);
            }
            (_, Some(diff)) if inside(&diff) => self.scroll_diff(delta),
            _ => {}
        }
    }

    /// Keep showing the pair the user chose (by version), else the newest
    /// change; recompute it when the versions moved. The selection and the
    /// mark follow their versions.
    fn reloaded(&mut self, previous: &FullData, shared: &Shared) -> Vec<Effect> {
        let keys =
            |full: &FullData| -> Vec<VersionKey> { full.versions().iter().map(VersionKey::of).collect() };
        let (old_versions, new_versions) = (keys(previous), keys(&shared.full));
        // The selected version and the pair shown follow their versions,
        // not their rows, when new versions arrive.
        let now_at = |row: usize| old_versions.get(row)?.row_in(shared.full.versions());
        if let Some(at) = self.selected(previous.versions()).and_then(now_at) {
            self.select(shared.full.versions(), at);
        }
        if self.marked.as_ref().is_some_and(|m| m.row_in(shared.full.versions()).is_none()) {
            self.marked = None;
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
                        return vec![self.request(from, to)];
                    }
                    _ => (1, 0),
                },
                None => (1, 0),
            };
            return vec![self.request(from, to)];
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

/// A pane's frame: thick when it has the focus (visible without colour too).
fn pane_block<'a>(title: impl Into<Line<'a>>, shared: &Shared, focused: bool) -> Block<'a> {
    let block = panel(title, shared);
    if focused {
        block
            .border_type(BorderType::Thick)
            .border_style(shared.theme.accent)
    } else {
        block
    }
}

/// Draw the state view of `tab` into `area`.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, tab: &StateTab) {
    let versions = match &shared.full.versions {
        None => return loading(frame, area, shared, "State"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), shared.theme.error))
                .wrap(Wrap { trim: false })
                .block(panel(" State ", shared));
            return frame.render_widget(p, area);
        }
        Some(Ok(v)) => v,
    };
    let focus = tab.focus(shared);
    let (list, diff) = panes(area, shared, focus);
    let both = list.is_some() && diff.is_some();
    if let Some(list) = list {
        version_list(frame, list, shared, tab, versions, both && focus == Pane::List);
    }
    if let Some(diff) = diff {
        diff_panel(frame, diff, shared, tab, versions, both && focus == Pane::Diff);
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

/// The versions, newest first: the diffed pair marked (`-` older, `+`
/// newer), the version marked with `space` starred, the selected one
/// highlighted; "more" lines when rows lie above or below the window.
fn version_list(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    tab: &StateTab,
    versions: &[Version],
    focused: bool,
) {
    let t = &shared.theme;
    let shown = tab.shown(versions);
    let count = if shown.len() == versions.len() {
        format!("{} versions", versions.len())
    } else {
        format!("{} of {} versions", shown.len(), versions.len())
    };
    let block = pane_block(format!(" {count}{} ", tab.filter.title()), shared, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let (first, count, below) =
        list_window(tab.version.row(), shown.len(), usize::from(inner.height));
    let selected = shown.get(tab.version.row()).copied();
    let (from, to) = tab
        .diff
        .as_ref()
        .map_or((usize::MAX, usize::MAX), |d| (d.from, d.to));
    let marked = tab.marked.as_ref().and_then(|m| m.row_in(versions));
    let mut lines: Vec<Line<'_>> = shown
        .iter()
        .skip(first)
        .take(count)
        .map(|&i| {
            let v = &versions[i];
            let (pair, style) = match i {
                _ if i == to => ("+", t.added),
                _ if i == from => ("-", t.removed),
                _ => (" ", Style::new()),
            };
            let star = if Some(i) == marked { "*" } else { " " };
            let text = format!("{i:>3} {:>4} {}", ago(shared, v.at), label(v));
            let row = if Some(i) == selected {
                t.selected
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(pair, style),
                Span::styled(star, t.accent),
                Span::styled(fit(&text, usize::from(inner.width).saturating_sub(2)), row),
            ])
        })
        .collect();
    if shown.is_empty() && !versions.is_empty() {
        lines.push(Line::styled("No version matches the filter.", t.muted));
    }
    if below > 0 {
        lines.push(more_below(shared, below));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The diff shown, or why there is none.
fn diff_panel(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    tab: &StateTab,
    versions: &[Version],
    focused: bool,
) {
    let t = &shared.theme;
    let Some(d) = &tab.diff else {
        let text = match versions.len() {
            0 => "No current-state.md yet.",
            1 => "Only one version of current-state.md so far.",
            _ => "computing the diff…",
        };
        let p = Paragraph::new(Line::styled(text, t.muted))
            .block(pane_block(" Diff ", shared, focused));
        return frame.render_widget(p, area);
    };
    let name = |i: usize| {
        versions.get(i).map_or("?".to_string(), |v| {
            format!("#{i} {}", &v.id[..v.id.len().min(8)])
        })
    };
    let stats = d.diff.stats();
    let mode = match (tab.side_by_side, tab.wrap) {
        (true, _) => "side by side",
        (false, true) => "unified, wrapped",
        (false, false) => "unified",
    };
    let mut title = vec![
        Span::styled(format!(" {} → {} ", name(d.from), name(d.to)), t.accent),
        Span::styled(format!("+{}", stats.added), t.added),
        Span::raw(" "),
        Span::styled(format!("-{}", stats.removed), t.removed),
        Span::styled(format!(" {mode} "), t.muted),
    ];
    if tab.column > 0 {
        title.push(Span::styled(format!("→{} ", tab.column), t.muted));
    }
    let block = pane_block(Line::from(title), shared, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    tab.diff_height.set(height);
    if stats.added + stats.removed == 0 {
        return frame.render_widget(
            Paragraph::new(Line::styled("The two versions are identical.", t.muted)),
            inner,
        );
    }
    // Never a scroll past the last full page (the terminal may have grown).
    let scroll = d.scroll.min(tab.diff_rows().saturating_sub(height));
    if tab.side_by_side {
        side_by_side(frame, inner, shared, tab, d, scroll..scroll + height);
    } else {
        let rows = d.diff.rows(scroll..(scroll + height).min(d.diff.len()));
        let lines: Vec<Line<'_>> = rows
            .iter()
            .map(|r| unified_line(r, shared, tab.column))
            .collect();
        frame.render_widget(text(lines, tab.wrap), inner);
    }
}

/// `lines` as a paragraph, wrapped or not.
fn text(lines: Vec<Line<'static>>, wrap: bool) -> Paragraph<'static> {
    let p = Paragraph::new(lines);
    if wrap { p.wrap(Wrap { trim: false }) } else { p }
}

/// The styled segments of `row` (changed words emphasised), their first
/// `column` characters scrolled away.
fn row_text(row: &DiffRow, shared: &Shared, column: usize) -> Vec<Span<'static>> {
    let t = &shared.theme;
    let (style, word) = match row.kind {
        RowKind::Equal => (Style::new(), Style::new()),
        RowKind::Delete => (t.removed, t.removed_word),
        RowKind::Insert => (t.added, t.added_word),
    };
    let mut skip = column;
    let mut spans = Vec::new();
    for s in &row.segments {
        let len = s.text.chars().count();
        if skip >= len {
            skip -= len;
            continue;
        }
        let text: String = s.text.chars().skip(skip).collect();
        skip = 0;
        spans.push(Span::styled(text, if s.emphasized { word } else { style }));
    }
    // A changed line whose text is the same may differ by its ending alone:
    // say which, as `git diff` does.
    let ending = match (row.kind, row.eol) {
        (RowKind::Equal, _) | (_, Eol::Lf) => None,
        (_, Eol::None) => Some("  (no newline at end of file)"),
        (_, Eol::CrLf) => Some("  (CRLF)"),
    };
    if let Some(ending) = ending {
        spans.push(Span::styled(ending, t.muted));
    }
    spans
}

/// One row of the unified diff: line numbers, sign, text.
fn unified_line(row: &DiffRow, shared: &Shared, column: usize) -> Line<'static> {
    let t = &shared.theme;
    let num = |n: Option<usize>| n.map_or("    ".to_string(), |n| format!("{n:>4}"));
    let sign = match row.kind {
        RowKind::Equal => Style::new(),
        RowKind::Delete => t.removed,
        RowKind::Insert => t.added,
    };
    let mut spans = vec![
        Span::styled(
            format!("{} {} ", num(row.old_line), num(row.new_line)),
            t.muted,
        ),
        Span::styled(format!("{} ", row.kind.prefix()), sign),
    ];
    spans.extend(row_text(row, shared, column));
    Line::from(spans)
}

/// The diff's side-by-side `rows`, old left and new right.
fn side_by_side(
    frame: &mut Frame<'_>,
    area: Rect,
    shared: &Shared,
    tab: &StateTab,
    d: &DiffView,
    rows: std::ops::Range<usize>,
) {
    let t = &shared.theme;
    let [left, right] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
        .spacing(1)
        .areas(area);
    let rows = d.diff.side_by_side_rows(rows);
    let half = |row: Option<&DiffRow>, old_side: bool| -> Line<'static> {
        let Some(row) = row else { return Line::raw("") };
        let number = if old_side { row.old_line } else { row.new_line };
        let line_no = number.map_or("     ".into(), |n| format!("{n:>4} "));
        let mut spans = vec![Span::styled(line_no, t.muted)];
        spans.extend(row_text(row, shared, tab.column));
        Line::from(spans)
    };
    let old: Vec<Line<'_>> = rows.iter().map(|r| half(r.old.as_ref(), true)).collect();
    let new: Vec<Line<'_>> = rows.iter().map(|r| half(r.new.as_ref(), false)).collect();
    if !tab.wrap {
        frame.render_widget(text(old, false), left);
        return frame.render_widget(text(new, false), right);
    }
    // Wrapped, each row is as tall as its taller half, so the two halves
    // of a row start on the same line.
    let mut y = area.y;
    for (old, new) in old.into_iter().zip(new) {
        let (old, new) = (text(vec![old], true), text(vec![new], true));
        let rows = old.line_count(left.width).max(new.line_count(right.width)).max(1);
        let height = u16::try_from(rows).unwrap_or(u16::MAX).min(area.bottom() - y);
        frame.render_widget(old, Rect { y, height, ..left });
        frame.render_widget(new, Rect { y, height, ..right });
        y += height;
        if y >= area.bottom() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyModifiers, MouseEvent, MouseEventKind};

    use super::*;
    use crate::tui::fixtures::{self, code, draw, key};

    /// A long diff: 10,000 lines of 130 characters and more, changed at
    /// lines 3,000 and 7,000.
    fn long_diff() -> Arc<StateDiff> {
        let old: String = (0..10_000)
            .map(|i| format!("line {i} {}END{i}\n", "x".repeat(120)))
            .collect();
        let new = old
            .replace("line 3000 ", "line 3000 changed ")
            .replace("line 7000 ", "line 7000 changed ");
        Arc::new(StateDiff::new(old, new))
    }

    fn show(app: &mut crate::tui::app::App, diff: Arc<StateDiff>) {
        app.update(Event::DiffReady {
            from: 1,
            to: 0,
            diff: Ok(diff),
        });
    }

    fn scroll(app: &crate::tui::app::App) -> usize {
        fixtures::tab::<StateTab>(app).diff.as_ref().unwrap().scroll
    }

    fn wheel_at(column: u16, row: u16) -> Event {
        Event::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    }

    /// Issue 14, build 3: any two versions, marked with space then enter,
    /// the older first whichever was marked.
    #[test]
    fn any_two_versions_are_compared_by_marking_one() {
        for size in [(160, 48), (100, 30), (60, 20)] {
            let mut app = fixtures::loaded(size);
            app.selected = ID;
            if size.0 < 100 {
                app.update(key('v')); // the list, on a narrow screen
            }
            app.update(key(' '));
            let screen = draw(&app);
            assert!(screen.contains("+*  0 "), "the mark is shown at {size:?}");
            insta::assert_snapshot!(format!("state_marked_{}x{}", size.0, size.1), screen);
            app.update(key('j'));
            app.update(key('j'));
            assert_eq!(
                app.update(code(KeyCode::Enter)),
                vec![Effect::ComputeDiff { from: 2, to: 0 }],
                "at {size:?}"
            );
            // Marking the older one first gives the same pair.
            app.update(key(' '));
            if size.0 < 100 {
                app.update(key('v')); // back to the list from the diff enter showed
            }
            app.update(key('k'));
            assert_eq!(
                app.update(code(KeyCode::Enter)),
                vec![Effect::ComputeDiff { from: 2, to: 1 }]
            );
        }
    }

    /// Issue 14, seen 4: below ~130 columns the version list was hidden
    /// while j/k/enter still moved it. Now `v` shows it, and enter shows
    /// the diff it asked for.
    #[test]
    fn a_narrow_screen_reaches_the_version_list() {
        let mut app = fixtures::loaded((60, 20));
        app.selected = ID;
        assert!(draw(&app).contains("→ #0"), "the diff first");
        app.update(key('v'));
        let screen = draw(&app);
        assert!(screen.contains("3 versions"), "{screen}");
        insta::assert_snapshot!("state_versions_60x20", screen);
        app.update(key('j'));
        app.update(key('j'));
        assert!(
            app.update(code(KeyCode::Enter)).is_empty(),
            "the oldest has nothing before it"
        );
        app.update(key('k'));
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::ComputeDiff { from: 2, to: 1 }]
        );
        show(&mut app, fixtures::diff());
        assert!(draw(&app).contains("→ #0"), "enter shows the diff");
    }

    /// Issue 14, seen 4: `G` or a page down on a short diff scrolled to an
    /// empty pane.
    #[test]
    fn the_diff_never_scrolls_past_its_last_page() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        app.update(key('v'));
        let before = draw(&app);
        app.update(key('G'));
        app.update(code(KeyCode::PageDown));
        assert_eq!(scroll(&app), 0, "the whole diff fits");
        assert_eq!(draw(&app), before);
        show(&mut app, long_diff());
        draw(&app);
        app.update(key('G'));
        let screen = draw(&app);
        let lines: Vec<&str> = screen.lines().collect();
        let last_row = lines[lines.len() - 3];
        assert!(last_row.contains("line 9999 "), "a full last page: {screen}");
    }

    /// Issue 14, build 3: hunk jumps, sideways scroll and wrap.
    #[test]
    fn changes_are_jumped_to_and_long_lines_scroll_sideways_or_wrap() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        show(&mut app, long_diff());
        draw(&app);
        app.update(key(']'));
        assert_eq!(scroll(&app), 3000);
        app.update(key(']'));
        assert_eq!(scroll(&app), 7001, "after the first change's two rows");
        assert!(draw(&app).contains("line 7000 changed"));
        app.update(key('['));
        assert_eq!(scroll(&app), 3000);
        // Cut at the pane's edge...
        let row = |screen: &str| {
            let line = screen.lines().find(|l| l.contains("3001 ")).unwrap();
            line.to_string()
        };
        let before = row(&draw(&app));
        assert!(before.contains("line 3000 x") && !before.contains("END3000"), "{before}");
        for _ in 0..7 {
            app.update(key('>'));
        }
        let screen = draw(&app);
        let after = row(&screen);
        assert!(after.contains("xEND3000") && !after.contains("line 3000"), "{after}");
        assert!(screen.contains("→56"), "the offset is in the title");
        // ...or wrapped: the line's end is on screen under it.
        app.update(key('w'));
        let wrapped = draw(&app);
        assert!(wrapped.contains("unified, wrapped"), "{wrapped}");
        assert!(wrapped.contains("line 3000") && wrapped.contains("xEND3"), "{wrapped}");
        assert_eq!(fixtures::tab::<StateTab>(&app).column, 0);
    }

    /// Issue 28, item 6: wrapped side by side, a row whose old half wraps
    /// onto more lines than its new half still starts on one line, and the
    /// next row too: the two columns never drift apart.
    #[test]
    fn wrapped_side_by_side_rows_stay_aligned() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        let old = format!("same\nlong {}END\nafter one\nafter two\n", "word ".repeat(40));
        let new = "same\nshort\nafter one\nafter two\n".to_string();
        show(&mut app, Arc::new(StateDiff::new(old, new)));
        let state = fixtures::tab_mut::<StateTab>(&mut app);
        state.side_by_side = true;
        state.wrap = true;
        let screen = draw(&app);
        let lines: Vec<&str> = screen.lines().collect();
        let at = |text: &str| lines.iter().position(|l| l.contains(text)).unwrap_or_else(|| panic!("{text}: {screen}"));
        assert_eq!(at("long word"), at("short"), "{screen}");
        assert!(at("END") > at("long word"), "the old half wrapped: {screen}");
        for text in ["after one", "after two"] {
            let line = lines[at(text)];
            assert_eq!(line.matches(text).count(), 2, "both halves on one line: {line}");
        }
    }

    /// `/` narrows the version list; enter still compares with the version
    /// before the selected one in the whole history.
    #[test]
    fn a_filtered_version_list_keeps_whole_history_indexes() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        app.update(key('/'));
        for c in "093000".chars() {
            app.update(key(c));
        }
        app.update(code(KeyCode::Enter));
        let screen = draw(&app);
        assert!(screen.contains("1 of 3 versions /093000"), "{screen}");
        assert!(!screen.contains("115700"), "{screen}");
        assert_eq!(
            app.update(code(KeyCode::Enter)),
            vec![Effect::ComputeDiff { from: 2, to: 1 }]
        );
    }

    /// A diff that finishes after a newer one was asked for is dropped, so
    /// the panel never shows a pair under another pair's labels.
    #[test]
    fn a_late_diff_of_an_older_request_is_dropped() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        app.update(key('j'));
        app.update(code(KeyCode::Enter)); // asks for (2, 1)
        show(&mut app, long_diff()); // (1, 0), asked for before
        let tab: &StateTab = fixtures::tab(&app);
        let d = tab.diff.as_ref().unwrap();
        assert!(d.diff.len() < 100, "the late (1, 0) result was not shown");
        app.update(Event::DiffReady {
            from: 2,
            to: 1,
            diff: Ok(fixtures::diff()),
        });
        let tab: &StateTab = fixtures::tab(&app);
        assert_eq!(tab.diff.as_ref().map(|d| (d.from, d.to)), Some((2, 1)));
    }

    /// A line changed only in its ending says so (it looked unchanged).
    #[test]
    fn a_line_changed_only_in_its_ending_says_so() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        show(&mut app, Arc::new(StateDiff::new("a\nlast\n", "a\nlast")));
        let screen = draw(&app);
        assert!(screen.contains("last  (no newline at end of file)"), "{screen}");
        show(&mut app, Arc::new(StateDiff::new("a\r\nb\n", "a\nb\n")));
        assert!(draw(&app).contains("a  (CRLF)"), "{}", draw(&app));
    }

    /// Issue 14, seen 4: the wheel over the list scrolled the diff.
    #[test]
    fn the_wheel_scrolls_the_pane_under_the_pointer() {
        let mut app = fixtures::loaded((160, 48));
        app.selected = ID;
        show(&mut app, long_diff());
        draw(&app);
        app.update(wheel_at(5, 5)); // over the list
        assert_eq!(fixtures::tab::<StateTab>(&app).version.row(), 2);
        assert_eq!(scroll(&app), 0);
        app.update(wheel_at(100, 10)); // over the diff
        assert_eq!(scroll(&app), 3);
    }

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
            versions[2].drift = Some(agent_handover::domain::memory::history::Drift {
                file: Default::default(),
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
        let mut effects = app.update(Event::FullLoaded(Box::new(fixtures::full_data())));
        // The inbox asks for its selected message, for its preview.
        effects.retain(|e| !matches!(e, Effect::PreviewMessage(_)));
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
