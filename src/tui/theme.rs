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
            paused: on(warn).add_modifier(Modifier::BOLD),
            alert: on(error).add_modifier(Modifier::BOLD),
            added: Style::new().fg(added),
            removed: Style::new().fg(removed),
            added_word: on(added),
            removed_word: on(removed),
            button: on(accent),
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

/// Text on a `background`: black or white, whichever reads better; the
/// terminal's own colours reversed when the background is the terminal's
/// (`reset`), whose colour is unknown.
pub fn on(background: Color) -> Style {
    match rgb(background) {
        Some(_) => Style::new().fg(readable_on(background)).bg(background),
        None => Style::new().add_modifier(Modifier::REVERSED),
    }
}

/// Black or white, whichever contrasts more with `background` (white when
/// the colour is the terminal's own and so unknown).
pub fn readable_on(background: Color) -> Color {
    let Some(bg) = rgb(background) else {
        return Color::White;
    };
    let ratio = |fg: Color| rgb(fg).map_or(0.0, |fg| contrast(fg, bg));
    if ratio(Color::Black) >= ratio(Color::White) {
        Color::Black
    } else {
        Color::White
    }
}

/// The WCAG 2 contrast ratio of two colours (1 to 21; AA asks 4.5 of text).
pub fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// WCAG 2 relative luminance of an sRGB colour.
fn luminance(rgb: [u8; 3]) -> f64 {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2])
}

/// The colour a terminal shows for `color`, taking xterm's default palette
/// for the 16 named colours; `None` for the terminal's own default.
pub fn rgb(color: Color) -> Option<[u8; 3]> {
    const XTERM: [[u8; 3]; 16] = [
        [0, 0, 0],
        [205, 0, 0],
        [0, 205, 0],
        [205, 205, 0],
        [0, 0, 238],
        [205, 0, 205],
        [0, 205, 205],
        [229, 229, 229],
        [127, 127, 127],
        [255, 0, 0],
        [0, 255, 0],
        [255, 255, 0],
        [92, 92, 255],
        [255, 0, 255],
        [0, 255, 255],
        [255, 255, 255],
    ];
    let index = match color {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some([r, g, b]),
        Color::Indexed(i) => i,
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
    };
    Some(match index {
        0..16 => XTERM[usize::from(index)],
        // The 6×6×6 cube, then the grey ramp.
        16..232 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let i = index - 16;
            [level(i / 36), level(i / 6 % 6), level(i % 6)]
        }
        _ => [8 + 10 * (index - 232); 3],
    })
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

    /// Every style that sets both colours (badges, buttons, changed words)
    /// reads at WCAG AA (4.5:1) in xterm's palette, with the default colours
    /// and with any a user sets in `[dashboard.colors]`.
    #[test]
    fn text_on_a_coloured_background_meets_wcag_aa() {
        let mut themes = vec![Theme::new(false, &BTreeMap::new()).0];
        for colour in [
            "red", "blue", "yellow", "white", "#336699", "#ffcc00", "#202020", "28", "226",
        ] {
            let overrides = COLOR_KEYS
                .iter()
                .map(|k| (k.to_string(), colour.to_string()))
                .collect();
            themes.push(Theme::new(false, &overrides).0);
        }
        for t in &themes {
            for style in [t.paused, t.alert, t.added_word, t.removed_word, t.button] {
                let (Some(fg), Some(bg)) = (style.fg, style.bg) else {
                    panic!("{style:?} sets both colours");
                };
                let ratio = contrast(rgb(fg).unwrap(), rgb(bg).unwrap());
                assert!(ratio >= 4.5, "{fg:?} on {bg:?}: {ratio:.2}:1");
            }
        }
    }

    #[test]
    fn a_badge_on_the_terminals_own_colour_is_reversed() {
        let overrides = BTreeMap::from([("warn".to_string(), "reset".to_string())]);
        let (t, _) = Theme::new(false, &overrides);
        assert_eq!((t.paused.fg, t.paused.bg), (None, None));
        assert!(t.paused.add_modifier.contains(Modifier::REVERSED));
    }

    #[test]
    fn contrast_matches_wcag() {
        assert!((contrast([0, 0, 0], [255, 255, 255]) - 21.0).abs() < 1e-9);
        assert!((contrast([119, 119, 119], [255, 255, 255]) - 4.48).abs() < 0.01);
        // Black on xterm's red is 3.6:1, under AA: white is taken.
        assert_eq!(readable_on(Color::Red), Color::White);
        assert_eq!(readable_on(Color::Yellow), Color::Black);
        assert_eq!(rgb(Color::Indexed(196)), Some([255, 0, 0]));
        assert_eq!(rgb(Color::Indexed(244)), Some([128, 128, 128]));
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
