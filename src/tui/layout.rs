//! Where everything goes, computed from the terminal size and the state
//! alone, so rendering and mouse hit-testing agree.
//!
//! Breakpoints: **narrow** (under 100 columns or 24 rows — a tmux pane
//! beside an agent, down to 60×20): one panel per tab. **Wide**: the run
//! panel stays on the left as a sidebar and the other views are tabs.

use ratatui::layout::Rect;

use super::app::App;
use super::command::{Command, View};

/// Narrowest terminal that gets the sidebar layout.
pub const WIDE_MIN_COLS: u16 = 100;
/// Shortest terminal that gets the sidebar layout.
pub const WIDE_MIN_ROWS: u16 = 24;

/// Whether `size` (columns, rows) gets the wide layout.
pub fn is_wide(size: (u16, u16)) -> bool {
    size.0 >= WIDE_MIN_COLS && size.1 >= WIDE_MIN_ROWS
}

/// The tabs of the layout for `size`.
pub fn tabs(size: (u16, u16)) -> Vec<View> {
    if is_wide(size) {
        View::ALL.into_iter().filter(|v| *v != View::Run).collect()
    } else {
        View::ALL.to_vec()
    }
}

/// A tab's label: its number and title.
pub fn tab_label(index: usize, view: View) -> String {
    format!(" {} {} ", index + 1, view.title())
}

/// The buttons of the run panel, in order: (command, label).
pub fn run_buttons(app: &App) -> Vec<(Command, &'static str)> {
    let paused = app.snapshot().is_some_and(|s| s.paused.is_some());
    vec![
        (Command::Resume, " r Resume "),
        (Command::Abandon, " a Abandon "),
        (
            Command::TogglePause,
            if paused { " p Unpause " } else { " p Pause " },
        ),
    ]
}

/// The screen's regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Areas {
    /// Top line: title and alerts.
    pub header: Rect,
    /// Second line: tabs.
    pub tab_bar: Rect,
    /// Each tab's clickable area.
    pub tabs: Vec<(Rect, View)>,
    /// The run panel's place in the wide layout.
    pub sidebar: Option<Rect>,
    /// The selected view.
    pub body: Rect,
    /// Bottom line: key hints and status.
    pub footer: Rect,
    /// Clickable buttons.
    pub buttons: Vec<(Rect, Command)>,
}

impl Areas {
    /// Lay out a `size` screen for `app`.
    pub fn compute(size: (u16, u16), app: &App) -> Self {
        let (w, h) = size;
        let header = Rect::new(0, 0, w, 1.min(h));
        let tab_bar = Rect::new(0, 1.min(h), w, u16::from(h > 1));
        let footer = Rect::new(0, h.saturating_sub(1), w, u16::from(h > 2));
        let middle = Rect::new(0, 2.min(h), w, h.saturating_sub(3));
        let (sidebar, body) = if is_wide(size) {
            let side = (w * 2 / 5).clamp(40, 56);
            (
                Some(Rect::new(0, middle.y, side, middle.height)),
                Rect::new(side, middle.y, w - side, middle.height),
            )
        } else {
            (None, middle)
        };
        let views = tabs(size);
        let widths: Vec<u16> = views
            .iter()
            .enumerate()
            .map(|(i, view)| tab_label(i, *view).chars().count() as u16)
            .collect();
        // A column between tabs, unless that would push the last one off a narrow pane.
        let spaced = widths.iter().sum::<u16>() + widths.len().saturating_sub(1) as u16;
        let gap = u16::from(spaced <= w);
        let mut x = 0;
        let tabs = views
            .into_iter()
            .zip(widths)
            .map(|(view, width)| {
                let rect = Rect::new(x, tab_bar.y, width.min(w.saturating_sub(x)), tab_bar.height);
                x = x.saturating_add(width + gap);
                (rect, view)
            })
            .collect();
        let run_panel = sidebar.or((app.view == View::Run).then_some(body));
        let buttons = run_panel
            .map(|panel| button_rects(panel, app))
            .unwrap_or_default();
        Areas {
            header,
            tab_bar,
            tabs,
            sidebar,
            body,
            footer,
            buttons,
        }
    }

    /// The command a click at (`x`, `y`) means, if any.
    pub fn hit(&self, x: u16, y: u16) -> Option<Command> {
        let inside = |r: &Rect| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;
        if let Some(i) = self.tabs.iter().position(|(r, _)| inside(r)) {
            return Some(Command::Tab(i as u8 + 1));
        }
        self.buttons
            .iter()
            .find(|(r, _)| inside(r))
            .map(|(_, c)| *c)
    }
}

/// The buttons sit on the last inner row of the run panel.
fn button_rects(panel: Rect, app: &App) -> Vec<(Rect, Command)> {
    if panel.height < 4 {
        return Vec::new();
    }
    let y = panel.y + panel.height - 2;
    let mut x = panel.x + 1;
    let right = panel.x + panel.width.saturating_sub(1);
    let mut out = Vec::new();
    for (command, label) in run_buttons(app) {
        let width = label.chars().count() as u16;
        if x + width > right {
            break;
        }
        out.push((Rect::new(x, y, width, 1), command));
        x += width + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures;

    #[test]
    fn breakpoints() {
        assert!(!is_wide((60, 20)));
        assert!(!is_wide((99, 40)));
        assert!(is_wide((100, 30)));
        assert!(!is_wide((160, 20)), "too short for the sidebar");
    }

    #[test]
    fn regions_tile_the_screen() {
        for size in [(60, 20), (100, 30), (160, 48)] {
            let app = fixtures::app(size);
            let a = Areas::compute(size, &app);
            assert_eq!(a.header.y, 0);
            assert_eq!(a.footer.y, size.1 - 1);
            assert_eq!(a.body.y + a.body.height, a.footer.y);
            assert_eq!(a.body.x + a.body.width, size.0);
            assert!(
                a.tabs.iter().all(|(r, _)| r.x + r.width <= size.0),
                "{size:?}"
            );
            assert!(
                !a.buttons.is_empty(),
                "{size:?}: the run panel shows its buttons"
            );
        }
    }

    #[test]
    fn every_tab_label_fits_a_narrow_pane() {
        let app = fixtures::app((60, 20));
        let a = Areas::compute((60, 20), &app);
        assert_eq!(a.tabs.len(), View::ALL.len());
        for (i, (r, view)) in a.tabs.iter().enumerate() {
            assert_eq!(
                usize::from(r.width),
                tab_label(i, *view).chars().count(),
                "{view:?} is cut"
            );
        }
    }

    #[test]
    fn clicks_hit_tabs_and_buttons() {
        let app = fixtures::app((100, 30));
        let a = Areas::compute((100, 30), &app);
        let (r, _) = a.tabs[1];
        assert_eq!(a.hit(r.x, r.y), Some(Command::Tab(2)));
        let (r, c) = a.buttons[0];
        assert_eq!(
            (a.hit(r.x + r.width - 1, r.y), c),
            (Some(Command::Resume), Command::Resume)
        );
        assert_eq!(a.hit(r.x + r.width, r.y), None, "the gap between buttons");
    }
}
