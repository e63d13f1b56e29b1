//! Where everything goes, computed from the terminal size and the state
//! alone, so rendering and mouse hit-testing agree.
//!
//! Breakpoints: **narrow** (under 100 columns or 24 rows — a tmux pane
//! beside an agent, down to 60×20): one panel per tab. **Wide**: the
//! sidebar tab (the run panel) stays on the left and the others are tabs.

use ratatui::layout::Rect;

use super::command::{Command, TabId};
use super::model::Shared;
use super::tab::Tabs;

/// Narrowest terminal that gets the sidebar layout.
pub const WIDE_MIN_COLS: u16 = 100;
/// Shortest terminal that gets the sidebar layout.
pub const WIDE_MIN_ROWS: u16 = 24;

/// Whether `size` (columns, rows) gets the wide layout.
pub fn is_wide(size: (u16, u16)) -> bool {
    size.0 >= WIDE_MIN_COLS && size.1 >= WIDE_MIN_ROWS
}

/// A tab's label: its number and title, or its number alone (`short`).
pub fn tab_label(index: usize, tab: TabId, short: bool) -> String {
    if short {
        format!(" {} ", index + 1)
    } else {
        format!(" {} {} ", index + 1, tab.title())
    }
}

/// The screen's regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Areas {
    /// Top line: title and alerts.
    pub header: Rect,
    /// Second line: tabs.
    pub tab_bar: Rect,
    /// Each tab's clickable area.
    pub tabs: Vec<(Rect, TabId)>,
    /// The tab bar is too narrow for every title: the tabs but the
    /// selected one show their number alone.
    pub short_tabs: bool,
    /// The sidebar tab's place in the wide layout.
    pub sidebar: Option<(Rect, TabId)>,
    /// The selected tab.
    pub body: Rect,
    /// Bottom line: key hints and status.
    pub footer: Rect,
    /// Clickable buttons.
    pub buttons: Vec<(Rect, Command)>,
}

impl Areas {
    /// Lay out a `size` screen showing `tabs` with `selected` selected.
    pub fn compute(size: (u16, u16), tabs: &Tabs, selected: TabId, shared: &Shared) -> Self {
        let (w, h) = size;
        let header = Rect::new(0, 0, w, 1.min(h));
        let tab_bar = Rect::new(0, 1.min(h), w, u16::from(h > 1));
        let footer = Rect::new(0, h.saturating_sub(1), w, u16::from(h > 2));
        let middle = Rect::new(0, 2.min(h), w, h.saturating_sub(3));
        let wide = is_wide(size);
        let (sidebar, body) = match tabs.sidebar(wide, selected) {
            Some(tab) => {
                let side = (w * 2 / 5).clamp(40, 56);
                (
                    Some((Rect::new(0, middle.y, side, middle.height), tab.id())),
                    Rect::new(side, middle.y, w - side, middle.height),
                )
            }
            None => (None, middle),
        };
        let on_bar = tabs.on_bar();
        let widths_with = |short: bool| -> Vec<u16> {
            on_bar
                .iter()
                .enumerate()
                .map(|(i, tab)| {
                    tab_label(i, *tab, short && *tab != selected)
                        .chars()
                        .count() as u16
                })
                .collect()
        };
        let spaced =
            |widths: &[u16]| widths.iter().sum::<u16>() + widths.len().saturating_sub(1) as u16;
        // Every title when they fit; else numbers, and the selected tab's title.
        let short_tabs = widths_with(false).iter().sum::<u16>() > w;
        let widths = widths_with(short_tabs);
        // A column between tabs, unless that would push the last one off a narrow pane.
        let spaced = spaced(&widths);
        let gap = u16::from(spaced <= w);
        let mut x = 0;
        let tab_rects = on_bar
            .into_iter()
            .zip(widths)
            .map(|(tab, width)| {
                let rect = Rect::new(x, tab_bar.y, width.min(w.saturating_sub(x)), tab_bar.height);
                x = x.saturating_add(width + gap);
                (rect, tab)
            })
            .collect();
        let panels = sidebar.into_iter().chain([(body, selected)]);
        let buttons = panels
            .flat_map(|(panel, tab)| {
                let buttons = tabs.get(tab).buttons(shared);
                let rects = button_rects(panel, &buttons);
                rects.into_iter().zip(buttons.into_iter().map(|(c, _)| c))
            })
            .collect();
        Areas {
            header,
            tab_bar,
            tabs: tab_rects,
            short_tabs,
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

/// Where a panel's `buttons` sit: on its last inner row, left to right, as
/// many as fit (one rect per button, in order).
pub fn button_rects(panel: Rect, buttons: &[(Command, &str)]) -> Vec<Rect> {
    if panel.height < 4 {
        return Vec::new();
    }
    let y = panel.y + panel.height - 2;
    let mut x = panel.x + 1;
    let right = panel.x + panel.width.saturating_sub(1);
    let mut out = Vec::new();
    for (_, label) in buttons {
        let width = label.chars().count() as u16;
        if x + width > right {
            break;
        }
        out.push(Rect::new(x, y, width, 1));
        x += width + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::{fixtures, tabs};

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
            let a = fixtures::app(size).areas();
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
        for (size, short) in [((60, 20), false), ((40, 12), true)] {
            let app = fixtures::app(size);
            let a = app.areas();
            assert_eq!(a.short_tabs, short);
            assert_eq!(a.tabs.len(), tabs::all().iter().count());
            for (i, (r, tab)) in a.tabs.iter().enumerate() {
                assert_eq!(
                    usize::from(r.width),
                    tab_label(i, *tab, short && *tab != app.selected)
                        .chars()
                        .count(),
                    "{tab:?} is cut at {size:?}"
                );
                assert!(
                    r.x + r.width <= size.0,
                    "{tab:?} is off the bar at {size:?}"
                );
            }
        }
    }

    #[test]
    fn clicks_hit_tabs_and_buttons() {
        let mut app = fixtures::app((100, 30));
        app.update(crate::tui::model::Event::RunLoaded(Box::new(Ok(
            fixtures::interrupted_run(),
        ))));
        let a = app.areas();
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
