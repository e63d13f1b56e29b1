//! Small drawing helpers the tabs and the frame around them share.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::model::Shared;

/// A bordered panel with a title.
pub fn panel<'a>(title: impl Into<Line<'a>>, shared: &Shared) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(shared.theme.muted)
        .title(title.into().style(shared.theme.accent))
}

/// A panel that has nothing to show yet.
pub fn loading(frame: &mut Frame<'_>, area: Rect, shared: &Shared, title: &str) {
    let p = Paragraph::new(Line::styled("loading…", shared.theme.muted))
        .block(panel(format!(" {title} "), shared));
    frame.render_widget(p, area);
}

/// "12s", "3m", "5h", "2d" since `at`.
pub fn ago(shared: &Shared, at: chrono::DateTime<chrono::Utc>) -> String {
    ago_at(shared.now, at)
}

/// "12s", "3m", "5h", "2d" from `at` to `now`.
pub fn ago_at(now: chrono::DateTime<chrono::Utc>, at: chrono::DateTime<chrono::Utc>) -> String {
    let secs = (now - at).num_seconds().max(0);
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m", secs / 60),
        3600..86400 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86400),
    }
}

/// Cut `text` to `width` characters, with `…` when cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else if width == 0 {
        String::new()
    } else {
        text.chars().take(width - 1).chain(['…']).collect()
    }
}

/// A one-row bar, `ratio` of `width` filled in `fill`'s colour, with
/// `label` in its middle. The label's letters over the filled part are
/// drawn in black or white, whichever reads on that colour (reversed when
/// there are no colours), never in the terminal's own text colour.
pub fn bar(ratio: f64, width: usize, fill: Style, label: &str) -> Line<'static> {
    let filled = (ratio.clamp(0.0, 1.0) * width as f64).round() as usize;
    let label: Vec<char> = label.chars().take(width).collect();
    let start = (width - label.len()) / 2;
    let on_fill = fill.fg.map_or(
        Style::new().add_modifier(Modifier::REVERSED),
        super::theme::on,
    );
    let mut spans: Vec<Span<'static>> = Vec::new();
    for column in 0..width {
        let letter = column
            .checked_sub(start)
            .and_then(|i| label.get(i))
            .copied();
        let (ch, style) = match (letter, column < filled) {
            (Some(c), true) => (c, on_fill),
            (Some(c), false) => (c, Style::new()),
            (None, true) => ('█', Style::new().fg(fill.fg.unwrap_or_default())),
            (None, false) => (' ', Style::new()),
        };
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push(ch),
            _ => spans.push(Span::styled(ch.to_string(), style)),
        }
    }
    Line::from(spans)
}

/// `text` cut at words into rows of at most `width` characters (a word
/// longer than a row is cut where the row ends); indentation is kept on
/// the first row.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    if text.is_empty() {
        return vec![String::new()];
    }
    let mut rows = Vec::new();
    let mut row = String::new();
    for word in text.split(' ') {
        let fits =
            row.chars().count() + usize::from(!row.is_empty()) + word.chars().count() <= width;
        if !row.is_empty() && !fits {
            rows.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push(' ');
        }
        row.push_str(word);
        while row.chars().count() > width {
            let cut: String = row.chars().take(width).collect();
            row = row.chars().skip(width).collect();
            rows.push(cut);
        }
    }
    rows.push(row);
    rows
}

/// Whether `text` fits on one row of `width` columns.
pub fn fits_on_a_row(text: &str, width: usize) -> bool {
    !text.contains('\n') && text.chars().count() <= width
}

/// A status message too long for the footer, shown whole: wrapped over
/// the rows just above `footer` (at most half the screen), in `style`.
pub fn message_above(frame: &mut Frame<'_>, footer: Rect, text: &str, style: Style) {
    let message = Paragraph::new(text.to_string())
        .style(style)
        .wrap(Wrap { trim: false });
    let rows = message
        .line_count(footer.width)
        .min(usize::from(footer.y) / 2);
    let rows = u16::try_from(rows).unwrap_or(0);
    let area = Rect {
        y: footer.y - rows,
        height: rows,
        ..footer
    };
    frame.render_widget(Clear, area);
    frame.render_widget(message, area);
}

/// The rows of a list of `rows` that a window of `height` lines shows with
/// row `selected` in it: `(first, count, below)`. When rows lie below the
/// window its last line is left for "↓ N more" (`below` > 0), never over
/// the selected row.
pub fn list_window(selected: usize, rows: usize, height: usize) -> (usize, usize, usize) {
    if rows <= height || height < 2 {
        let first = selected.saturating_sub(height.saturating_sub(1));
        return (first, rows.saturating_sub(first).min(height), 0);
    }
    let room = height - 1;
    let first = selected.saturating_sub(room - 1);
    if rows - first <= height {
        // The rest fits whole: no "more" line needed.
        return (first, rows - first, 0);
    }
    (first, room, rows - first - room)
}

/// The line under a list saying how many rows lie below it.
pub fn more_below(shared: &Shared, below: usize) -> Line<'static> {
    Line::styled(format!("  ↓ {below} more"), shared.theme.muted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ago_and_fit() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 4), "abc");
        assert_eq!(fit("abc", 0), "");
    }

    #[test]
    fn long_lines_wrap_and_nothing_is_cut() {
        let rows = wrap(
            "step tests was interrupted while running and is idempotent",
            20,
        );
        assert!(rows.iter().all(|r| r.chars().count() <= 20), "{rows:?}");
        assert_eq!(
            rows.join(" "),
            "step tests was interrupted while running and is idempotent"
        );
        let long = "x".repeat(45);
        assert_eq!(wrap(&long, 20).concat(), long);
    }

    #[test]
    fn a_bar_label_reads_on_the_fill() {
        use ratatui::style::Color;
        let line = bar(0.73, 20, Style::new().fg(Color::Yellow), "73/100");
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "███████73/100██     ", "15 of 20 filled");
        let label = line.spans.iter().find(|s| s.content == "73/100").unwrap();
        assert_eq!(
            (label.style.fg, label.style.bg),
            (Some(Color::Black), Some(Color::Yellow))
        );
        // Past the fill the label is plain text; with no colours, reversed.
        let low = bar(0.1, 20, Style::new(), "10/100");
        assert!(
            low.spans
                .iter()
                .any(|s| s.content.contains("10/100") && s.style == Style::new())
        );
        let mono = bar(1.0, 10, Style::new(), "ok");
        assert!(
            mono.spans
                .iter()
                .any(|s| s.content == "ok" && s.style.add_modifier.contains(Modifier::REVERSED))
        );
    }

    #[test]
    fn the_selected_row_is_never_under_the_more_line() {
        // 30 rows, 10 lines: 9 rows and "↓ 21 more".
        assert_eq!(list_window(0, 30, 10), (0, 9, 21));
        for selected in 0..30 {
            let (first, count, below) = list_window(selected, 30, 10);
            assert!((first..first + count).contains(&selected), "{selected}");
            assert_eq!(first + count + below, 30);
            assert!(count + usize::from(below > 0) <= 10);
        }
        assert_eq!(list_window(29, 30, 10), (21, 9, 0), "the end: no more line");
        assert_eq!(list_window(3, 5, 10), (0, 5, 0));
    }
}
