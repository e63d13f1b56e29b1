//! Colours and emphasis. `NO_COLOR` (any value) gives a monochrome theme that
//! still marks everything with bold, reverse and underline. Colours can be
//! changed in `[dashboard.colors]` of handover.toml (names or `#rrggbb`).

use std::collections::BTreeMap;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

/// The styles the views use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// Titles, the active tab, highlights.
    pub accent: Style,
    /// Done, success.
    pub ok: Style,
    /// Running, pending attention.
    pub warn: Style,
    /// Failed, errors.
    pub error: Style,
    /// Secondary text.
    pub muted: Style,
    /// The selected row.
    pub selected: Style,
    /// The PAUSED badge.
    pub paused: Style,
    /// The RESUME NEEDED badge.
    pub alert: Style,
    /// Inserted lines.
    pub added: Style,
    /// Deleted lines.
    pub removed: Style,
    /// Changed words within inserted lines.
    pub added_word: Style,
    /// Changed words within deleted lines.
    pub removed_word: Style,
    /// A clickable button.
    pub button: Style,
}

/// The colour names `[dashboard.colors]` accepts.
pub const COLOR_KEYS: [&str; 6] = ["accent", "ok", "warn", "error", "added", "removed"];

impl Theme {
    /// The theme: monochrome when `no_color`, else the defaults with
    /// `overrides` applied; bad names or colours come back as warnings.
    pub fn new(no_color: bool, overrides: &BTreeMap<String, String>) -> (Self, Vec<String>) {
        if no_color {
            return (Self::monochrome(), Vec::new());
        }
        let mut warnings = Vec::new();
        let mut color = |key: &str, default: Color| match overrides.get(key) {
            None => default,
            Some(raw) => Color::from_str(raw).unwrap_or_else(|_| {
                warnings.push(format!("[dashboard.colors].{key}: unknown colour {raw:?}"));
                default
            }),
        };
        let accent = color("accent", Color::Cyan);
        let ok = color("ok", Color::Green);
        let warn = color("warn", Color::Yellow);
        let error = color("error", Color::Red);
        let added = color("added", Color::Green);
        let removed = color("removed", Color::Red);
        for key in overrides
            .keys()
            .filter(|k| !COLOR_KEYS.contains(&k.as_str()))
        {
            warnings.push(format!(
                "[dashboard.colors]: no colour named {key:?} (known: {})",
                COLOR_KEYS.join(", ")
            ));
        }
        let theme = Theme {
            accent: Style::new().fg(accent).add_modifier(Modifier::BOLD),
            ok: Style::new().fg(ok),
            warn: Style::new().fg(warn),
            error: Style::new().fg(error).add_modifier(Modifier::BOLD),
            muted: Style::new().fg(Color::DarkGray),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            paused: Style::new()
                .fg(Color::Black)
                .bg(warn)
                .add_modifier(Modifier::BOLD),
            alert: Style::new()
                .fg(Color::White)
                .bg(error)
                .add_modifier(Modifier::BOLD),
            added: Style::new().fg(added),
            removed: Style::new().fg(removed),
            added_word: Style::new().fg(Color::Black).bg(added),
            removed_word: Style::new().fg(Color::Black).bg(removed),
            button: Style::new().fg(Color::Black).bg(accent),
        };
        (theme, warnings)
    }

    /// No colours at all: structure by emphasis only.
    pub fn monochrome() -> Self {
        let plain = Style::new();
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let reversed = Style::new().add_modifier(Modifier::REVERSED);
        Theme {
            accent: bold,
            ok: plain,
            warn: bold,
            error: bold,
            muted: plain,
            selected: reversed,
            paused: reversed.add_modifier(Modifier::BOLD),
            alert: reversed.add_modifier(Modifier::BOLD),
            added: plain,
            removed: plain,
            added_word: Style::new().add_modifier(Modifier::UNDERLINED),
            removed_word: Style::new().add_modifier(Modifier::UNDERLINED),
            button: reversed,
        }
    }
}

/// Whether `NO_COLOR` asks for no colour (set and non-empty, per no-color.org).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monochrome_has_no_colours() {
        let (t, _) = Theme::new(true, &BTreeMap::new());
        for style in [
            t.accent,
            t.ok,
            t.warn,
            t.error,
            t.muted,
            t.selected,
            t.paused,
            t.alert,
            t.added,
            t.removed,
            t.added_word,
            t.removed_word,
            t.button,
        ] {
            assert_eq!((style.fg, style.bg), (None, None), "{style:?}");
        }
        assert_ne!(t.selected, Style::new(), "selection stays visible");
    }

    #[test]
    fn colour_overrides_and_warnings() {
        let overrides = BTreeMap::from([
            ("accent".to_string(), "magenta".to_string()),
            ("ok".to_string(), "#00ff00".to_string()),
            ("error".to_string(), "no-such-colour".to_string()),
            ("frobs".to_string(), "red".to_string()),
        ]);
        let (t, warnings) = Theme::new(false, &overrides);
        assert_eq!(t.accent.fg, Some(Color::Magenta));
        assert_eq!(t.ok.fg, Some(Color::Rgb(0, 255, 0)));
        assert_eq!(t.error.fg, Some(Color::Red));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }
}
