//! The review view: the current handoff (what the next session will read),
//! or the latest session note (`v` switches), with each finding marked at
//! its line, its score, how useful the previous handoff turned out to be,
//! and a banner when it is not fit for the next session (below
//! `[handover].min_score`, or holding a secret). `n`/`N` jump between
//! findings, `e` opens `$EDITOR` at the selected finding's line; the file
//! watcher re-scores it on save.

use agent_handover::base::error::FIX_MARK;
use agent_handover::domain::handoff::rules::SECRET;
use agent_handover::domain::handoff::{AdjustedBy, Finding, Severity};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::command::{Binding, Command, TabId};
use crate::tui::model::{Effect, QualityData, Reviewed, Shared};
use crate::tui::tab::{Cursor, Reply, Tab};
use crate::tui::theme::Theme;
use crate::tui::widgets::{bar, fit, loading, panel};

/// The quality tab's id.
pub const ID: TabId = TabId::new("Quality");

/// Jump to the next finding.
const NEXT_FINDING: Command = Command::Local("next-finding");
/// Jump to the previous finding.
const PREV_FINDING: Command = Command::Local("prev-finding");
/// Open the handoff in `$EDITOR` at the selected finding's line.
const EDIT: Command = Command::Local("edit");
/// Switch between the current state and the latest session note.
const SWITCH: Command = Command::Local("switch-document");

/// The review view's own keys.
#[rustfmt::skip]
const BINDINGS: &[Binding] = &[
    Binding::new("next-finding", NEXT_FINDING, &["n"], "next", "jump to the next finding"),
    Binding::new("prev-finding", PREV_FINDING, &["N"], "", "jump to the previous finding"),
    Binding::new("edit", EDIT, &["e"], "edit", "open the handoff in $EDITOR at the finding's line"),
    Binding::new("switch-document", SWITCH, &["v"], "note", "current state / latest session note"),
    Binding::new("open-finding", OPEN, &["enter"], "read", "read the selected finding whole, with its rule's weight and source"),
];

/// Read the selected finding whole.
const OPEN: Command = Command::Local("open-finding");

/// From this width the text and the findings sit side by side.
const SIDE_BY_SIDE_WIDTH: u16 = 90;

/// The review view's state: the document shown and the selected finding.
#[derive(Debug, Default)]
pub struct QualityTab {
    /// Which document: 0 the current state, 1 the latest session note.
    doc: usize,
    /// The selected finding (the text scrolls to its line).
    finding: Cursor,
}

impl Tab for QualityTab {
    fn id(&self) -> TabId {
        ID
    }

    fn bindings(&self) -> &'static [Binding] {
        BINDINGS
    }

    fn update(&mut self, command: Command, shared: &Shared, selected: bool) -> Reply {
        if !selected {
            return Reply::Unhandled;
        }
        let Some(q) = data(shared) else {
            return Reply::Unhandled;
        };
        if command == SWITCH {
            self.doc = (self.doc + 1) % q.docs.len().max(1);
            self.finding = Cursor::default();
            return Reply::Handled;
        }
        let Some(doc) = shown(q, self.doc) else {
            return Reply::Unhandled;
        };
        let rows = doc.report.findings.len();
        match command {
            NEXT_FINDING | PREV_FINDING if rows == 0 => Reply::Note("no findings".into()),
            NEXT_FINDING | PREV_FINDING => {
                let delta = if command == NEXT_FINDING { 1 } else { -1 };
                let to = wrapped(self.row(rows), delta, rows);
                self.finding = Cursor::default();
                self.finding.move_by(to, rows);
                Reply::Handled
            }
            OPEN => match doc.report.findings.get(self.finding.row()) {
                Some(f) => Reply::Show(
                    format!("Finding: {}", f.rule),
                    vec![
                        f.to_string(),
                        String::new(),
                        format!("took off {} points", f.points),
                        agent_handover::domain::handoff::model::MODEL.source(f.rule),
                    ],
                ),
                None => Reply::Note("no findings".into()),
            },
            EDIT => Reply::Effects(vec![Effect::Edit {
                path: doc.path.clone(),
                line: doc
                    .report
                    .findings
                    .get(self.finding.row())
                    .and_then(|f| f.line)
                    .unwrap_or(1),
            }]),
            _ => Reply::Unhandled,
        }
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        &mut self.finding
    }

    fn rows(&self, shared: &Shared) -> usize {
        data(shared)
            .and_then(|q| shown(q, self.doc))
            .map_or(0, |d| d.report.findings.len())
    }

    fn render(&self, frame: &mut Frame<'_>, area: Rect, shared: &Shared, _selected: bool) {
        draw(frame, area, shared, self.doc, self.finding.row());
    }
}

impl QualityTab {
    fn row(&self, rows: usize) -> usize {
        self.finding.row().min(rows.saturating_sub(1))
    }
}

/// `at` moved by `delta` on a ring of `rows` (as an offset from 0).
fn wrapped(at: usize, delta: isize, rows: usize) -> isize {
    let rows = rows.max(1) as isize;
    (at as isize + delta).rem_euclid(rows)
}

/// The handoff under review, if loaded and there is a current state.
fn data(shared: &Shared) -> Option<&QualityData> {
    shared
        .full
        .quality
        .as_ref()
        .and_then(|r| r.as_ref().ok())
        .and_then(Option::as_ref)
}

/// Document `doc` (the first when there are fewer).
fn shown(q: &QualityData, doc: usize) -> Option<&Reviewed> {
    q.docs.get(doc).or_else(|| q.docs.first())
}

/// Why the handoff is not fit for the next session, if it is not.
fn unfit(doc: &Reviewed, min_score: u8) -> Option<String> {
    if doc.report.findings.iter().any(|f| f.rule == SECRET.id) {
        Some("NOT FIT FOR THE NEXT SESSION: it holds a secret".into())
    } else if doc.report.score < min_score {
        Some(format!(
            "NOT FIT FOR THE NEXT SESSION: {} is below min_score {min_score}",
            doc.report.score
        ))
    } else {
        None
    }
}

fn severity_style(t: &Theme, s: Severity) -> Style {
    match s {
        Severity::Error => t.error,
        Severity::Warning => t.warn,
        Severity::Info => t.muted,
    }
}

/// Draw the review view of document `doc` into `area`, finding `selected`
/// highlighted.
fn draw(frame: &mut Frame<'_>, area: Rect, shared: &Shared, doc: usize, selected: usize) {
    let t = &shared.theme;
    let q = match &shared.full.quality {
        None => return loading(frame, area, shared, "Quality"),
        Some(Err(e)) => {
            let p = Paragraph::new(Line::styled(e.clone(), t.error)).wrap(Wrap { trim: false });
            return frame.render_widget(p.block(panel(" Quality ", shared)), area);
        }
        Some(Ok(None)) => {
            let p = Paragraph::new(Line::styled("No current-state.md to score yet.", t.muted));
            return frame.render_widget(p.block(panel(" Quality ", shared)), area);
        }
        Some(Ok(Some(q))) => q,
    };
    let Some(d) = shown(q, doc) else {
        return loading(frame, area, shared, "Quality");
    };
    let report = &d.report;
    let block = panel(
        format!(" Review: the {} · {} tokens ", d.title, report.tokens),
        shared,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let banner = unfit(d, q.min_score);
    // Why the number is shaky, and what the project's adjustment did,
    // whole (wrapped), under the bar.
    let mut notes: Vec<Line> = Vec::new();
    if let Some(why) = &report.low_confidence {
        notes.push(Line::styled(format!("low confidence: {why}"), t.warn));
    }
    if let Some(line) = report.adjustment_line() {
        let style = match report.adjustment {
            Some(AdjustedBy::NotApplied { .. }) => t.warn,
            _ => t.muted,
        };
        notes.push(Line::styled(line.replace(FIX_MARK, "; fix: "), style));
    }
    let doubt = (!notes.is_empty()).then(|| Paragraph::new(notes).wrap(Wrap { trim: false }));
    let doubt_rows = doubt.as_ref().map_or(0, |p| p.line_count(inner.width).min(3));
    let judged = q.previous.as_ref().map_or_else(
        || "previous handoff: not judged yet (the next handover judges it)".to_string(),
        |u| format!("previous handoff: {}", u.describe()),
    );
    let judged = Paragraph::new(Line::styled(judged, t.muted)).wrap(Wrap { trim: false });
    let judged_rows = judged.line_count(inner.width).min(3);
    let [gauge, doubt_area, banner_area, previous, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::try_from(doubt_rows).unwrap_or(3)),
        Constraint::Length(u16::from(banner.is_some())),
        Constraint::Length(u16::try_from(judged_rows).unwrap_or(3)),
        Constraint::Fill(1),
    ])
    .areas(inner);
    let score_style = match report.score {
        80.. => t.ok,
        50..80 => t.warn,
        _ => t.error,
    };
    let label = match &report.low_confidence {
        Some(_) => format!("{}/100?", report.score),
        None => format!("{}/100", report.score),
    };
    let ratio = f64::from(report.score) / 100.0;
    let score_bar = bar(ratio, usize::from(gauge.width), score_style, &label);
    frame.render_widget(Paragraph::new(score_bar), gauge);
    if let Some(doubt) = doubt {
        frame.render_widget(doubt, doubt_area);
    }
    if let Some(text) = banner {
        let width = usize::from(banner_area.width);
        frame.render_widget(
            Paragraph::new(Line::styled(fit(&text, width), t.error.add_modifier(Modifier::REVERSED))),
            banner_area,
        );
    }
    frame.render_widget(judged, previous);
    let selected_finding = report.findings.get(selected);
    let (text_area, list_area) = if body.width >= SIDE_BY_SIDE_WIDTH {
        let [a, b] = Layout::horizontal([Constraint::Percentage(58), Constraint::Fill(1)])
            .spacing(1)
            .areas(body);
        (a, b)
    } else {
        let list = (report.findings.len().max(1) as u16)
            .min(body.height / 3)
            .max(1);
        let [a, b] = Layout::vertical([Constraint::Fill(1), Constraint::Length(list)]).areas(body);
        (a, b)
    };
    draw_text(frame, text_area, d, selected_finding, t);
    draw_findings(frame, list_area, &report.findings, selected, t);
}

/// The handoff's lines with their numbers, a mark on each line with a
/// finding (coloured by its worst), the selected finding's line highlighted
/// and kept in view.
fn draw_text(
    frame: &mut Frame<'_>,
    area: Rect,
    q: &Reviewed,
    selected: Option<&Finding>,
    t: &Theme,
) {
    let lines: Vec<&str> = q.text.lines().collect();
    let height = usize::from(area.height);
    let target = selected.and_then(|f| f.line).unwrap_or(1).max(1);
    let first = target
        .saturating_sub(height / 2)
        .min(lines.len().saturating_sub(height))
        .max(1);
    let number_width = lines.len().to_string().len();
    let text_width = usize::from(area.width).saturating_sub(number_width + 3);
    let rows: Vec<Line<'_>> = (first..)
        .zip(lines.iter().skip(first - 1))
        .take(height)
        .map(|(n, text)| {
            let worst = q
                .report
                .findings
                .iter()
                .filter(|f| f.line == Some(n))
                .map(|f| f.severity)
                .max();
            let mark = match worst {
                Some(s) => Span::styled("●", severity_style(t, s)),
                None => Span::raw(" "),
            };
            let is_target = selected.and_then(|f| f.line) == Some(n);
            let style = if is_target { t.selected } else { Style::new() };
            Line::from(vec![
                Span::styled(format!("{n:>number_width$} "), t.muted),
                mark,
                Span::raw(" "),
                Span::styled(fit(text, text_width), style),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(rows), area);
}

/// The findings, one per row, the selected one highlighted, with the
/// points each takes off.
fn draw_findings(
    frame: &mut Frame<'_>,
    area: Rect,
    findings: &[Finding],
    selected: usize,
    t: &Theme,
) {
    if findings.is_empty() {
        return frame.render_widget(
            Paragraph::new(Line::styled(
                "No findings: ready for the next session.",
                t.ok,
            )),
            area,
        );
    }
    let height = usize::from(area.height);
    let first = selected.saturating_sub(height.saturating_sub(1));
    let width = usize::from(area.width);
    let rows: Vec<Line<'_>> = findings
        .iter()
        .enumerate()
        .skip(first)
        .take(height)
        .map(|(i, f)| {
            let line = f.line.map_or("    ".to_string(), |l| format!("L{l:<3}"));
            let row = if i == selected {
                t.selected
            } else {
                Style::new()
            };
            let points = if f.points > 0 {
                format!("-{:<2}", f.points)
            } else {
                "   ".to_string()
            };
            let text = format!("{line} {points} {}: {}", f.rule, f.message);
            Line::from(vec![
                Span::styled("● ", severity_style(t, f.severity)),
                Span::styled(fit(&text, width.saturating_sub(2)), row),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(rows), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::{self, draw, key};

    #[test]
    fn n_and_n_jump_between_findings_and_wrap() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        let rows = fixtures::tab::<QualityTab>(&app).rows(&app.shared);
        assert!(rows > 2);
        app.update(key('n'));
        assert_eq!(fixtures::tab::<QualityTab>(&app).finding.row(), 1);
        app.update(key('N'));
        app.update(key('N'));
        assert_eq!(fixtures::tab::<QualityTab>(&app).finding.row(), rows - 1);
        app.update(key('n'));
        assert_eq!(fixtures::tab::<QualityTab>(&app).finding.row(), 0);
    }

    #[test]
    fn e_opens_the_editor_at_the_selected_findings_line() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        let with_line = data(&app.shared).unwrap().docs[0]
            .report
            .findings
            .iter()
            .position(|f| f.line.is_some())
            .unwrap();
        for _ in 0..with_line {
            app.update(key('n'));
        }
        let line = data(&app.shared).unwrap().docs[0].report.findings[with_line]
            .line
            .unwrap();
        assert_eq!(
            app.update(key('e')),
            vec![Effect::Edit {
                path: "memory/layer2/current-state.md".into(),
                line
            }]
        );
    }

    #[test]
    fn v_shows_the_latest_session_note() {
        let mut app = fixtures::loaded((100, 30));
        app.selected = ID;
        app.update(key('v'));
        let screen = draw(&app);
        assert!(screen.contains("Review: the latest session note"), "{screen}");
        assert!(screen.contains("parser/list.rs"), "{screen}");
        assert!(!screen.contains("NOT FIT"), "the note passes the gate: {screen}");
        app.update(key('v'));
        assert!(draw(&app).contains("Review: the current state"));
    }
}
