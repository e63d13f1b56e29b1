//! Small drawing helpers the tabs and the frame around them share.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};

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
