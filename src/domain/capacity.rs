//! How full an agent's context is: the tokens its last model request used,
//! as the agent itself recorded them, against the model's context window.
//! Measured, never estimated: a model whose window nobody documents has an
//! unknown window, and the use is shown in tokens only.
//!
//! The windows come from a table shipped in the binary
//! (`assets/capacity/windows.toml`, each with its source), under an agent's
//! own record of the window when it keeps one, under `[capacity.windows]`
//! of handover.toml.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The default `[capacity] warn_at`: the percentage of the window at which
/// a session is told to hand over.
pub const DEFAULT_WARN_AT: u8 = 75;

/// `[capacity] warn_at` of `ws`, kept within 1-99 %.
pub fn warn_at(ws: &crate::workspace::Workspace) -> u8 {
    ws.config
        .capacity
        .warn_at
        .unwrap_or(DEFAULT_WARN_AT)
        .clamp(1, 99)
}

/// One reading of a session's context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextUse {
    /// Tokens in the context of the last model request (input, cached and
    /// cache-written alike: all of it is in the window).
    pub used_tokens: u64,
    /// The model's context window, when known.
    pub window_tokens: Option<u64>,
    /// The model, as the agent recorded it.
    pub model: Option<String>,
}

impl ContextUse {
    /// The share of the window in use, in whole percent (rounded down), when
    /// the window is known and the use fits in it.
    pub fn percent(&self) -> Option<u8> {
        let window = self.window_tokens.filter(|w| *w > 0)?;
        (self.used_tokens <= window).then(|| (self.used_tokens * 100 / window) as u8)
    }

    /// `self` with the window the agent did not record taken from
    /// `windows` (and dropped when the use is beyond it).
    pub fn with_window(mut self, windows: &Windows) -> Self {
        if self.window_tokens.is_none() {
            self.window_tokens = self.model.as_deref().and_then(|m| windows.window(m));
        }
        if self.window_tokens.is_some_and(|w| self.used_tokens > w) {
            self.window_tokens = None;
        }
        self
    }

    /// Whether a later reading, this use plus at most `added` tokens, may
    /// show `percent` % of the window or more (the window the agent
    /// recorded, else the one `windows` gives its model). False when no
    /// window is known, or this use is past it already: no percentage is
    /// shown then ([`ContextUse::with_window`]), so none can be reached.
    pub fn may_reach(&self, added: u64, windows: &Windows, percent: u8) -> bool {
        let window = self
            .window_tokens
            .or_else(|| self.model.as_deref().and_then(|m| windows.window(m)));
        window.is_some_and(|w| {
            self.used_tokens <= w && (self.used_tokens + added) * 100 >= w * u64::from(percent)
        })
    }

    /// "62% of 200K" or "41,200 tokens (window unknown)".
    pub fn describe(&self) -> String {
        match (self.percent(), self.window_tokens) {
            (Some(p), Some(w)) => format!("{p}% of {}", short_tokens(w)),
            _ => format!("{} tokens (window unknown)", group(self.used_tokens)),
        }
    }
}

/// Context windows by model id prefix: the built-in table under the
/// config's overrides.
#[derive(Debug, Clone, Default)]
pub struct Windows {
    by_prefix: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
struct Table {
    model: Vec<TableRow>,
}

/// A row of the table; its `source` (where the number comes from) is for
/// people, and checked to be there by a test.
#[derive(Deserialize)]
struct TableRow {
    prefix: String,
    window: u64,
}

impl Windows {
    /// The built-in table with `overrides` (`[capacity.windows]`) over it.
    pub fn with_overrides(overrides: &BTreeMap<String, u64>) -> Self {
        let table: Table = toml::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/capacity/windows.toml"
        )))
        .expect("the built-in window table parses");
        let mut by_prefix: BTreeMap<String, u64> = table
            .model
            .into_iter()
            .map(|row| (row.prefix, row.window))
            .collect();
        by_prefix.extend(overrides.iter().map(|(k, v)| (k.clone(), *v)));
        Windows { by_prefix }
    }

    /// The window of `model`: the longest prefix of it in the table.
    pub fn window(&self, model: &str) -> Option<u64> {
        self.by_prefix
            .iter()
            .filter(|(prefix, _)| model.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, w)| *w)
    }
}

/// 200000 as "200K", 1000000 as "1M", 1048576 as "1.05M".
fn short_tokens(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1_000_000 {
        let text = format!("{:.2}", n as f64 / 1_000_000.0);
        format!("{}M", text.trim_end_matches('0').trim_end_matches('.'))
    } else if n >= 1_000 {
        format!("{}K", n / 1_000)
    } else {
        n.to_string()
    }
}

/// 41200 as "41,200".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(used: u64, window: Option<u64>, model: &str) -> ContextUse {
        ContextUse {
            used_tokens: used,
            window_tokens: window,
            model: Some(model.into()),
        }
    }

    #[test]
    fn the_longest_prefix_wins_and_overrides_beat_the_table() {
        let table = Windows::with_overrides(&BTreeMap::new());
        assert_eq!(table.window("claude-sonnet-4-5-20250929"), Some(200_000));
        assert_eq!(table.window("claude-opus-4-8"), Some(1_000_000));
        assert_eq!(table.window("mock-model"), None, "unknown stays unknown");
        let overrides = BTreeMap::from([
            ("claude-".to_string(), 100_000),
            ("claude-sonnet-4-5".to_string(), 150_000),
        ]);
        let mine = Windows::with_overrides(&overrides);
        assert_eq!(mine.window("claude-sonnet-4-5-20250929"), Some(150_000));
        assert_eq!(mine.window("claude-haiku-9"), Some(100_000));
    }

    #[test]
    fn every_window_in_the_table_names_its_source() {
        let table: toml::Value = toml::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/capacity/windows.toml"
        )))
        .unwrap();
        for row in table["model"].as_array().unwrap() {
            let source = row.get("source").and_then(|s| s.as_str()).unwrap_or("");
            assert!(source.len() > 10, "{row:?} has no source");
        }
    }

    #[test]
    fn a_percentage_only_with_a_window_the_use_fits_in() {
        let table = Windows::with_overrides(&BTreeMap::new());
        let r = reading(150_000, None, "claude-sonnet-4-5-20250929").with_window(&table);
        assert_eq!(r.percent(), Some(75));
        assert_eq!(r.describe(), "75% of 200K");
        assert_eq!(short_tokens(1_048_576), "1.05M");
        assert_eq!(short_tokens(258_400), "258K");
        let beyond = reading(250_000, None, "claude-sonnet-4-5").with_window(&table);
        assert_eq!(
            beyond.window_tokens, None,
            "a window the use exceeds is wrong"
        );
        assert_eq!(beyond.describe(), "250,000 tokens (window unknown)");
        let recorded = reading(100_000, Some(400_000), "claude-sonnet-4-5").with_window(&table);
        assert_eq!(recorded.percent(), Some(25), "the agent's own record wins");
        assert_eq!(reading(5, None, "x").percent(), None);
    }

    #[test]
    fn a_later_reading_may_reach_the_threshold_only_within_the_window() {
        let table = Windows::with_overrides(&BTreeMap::new());
        let sonnet = |used| reading(used, None, "claude-sonnet-4-5");
        assert!(!sonnet(100_000).may_reach(49_999, &table, 75));
        assert!(sonnet(100_000).may_reach(50_000, &table, 75));
        // A bound past the 200K window still may reach it.
        assert!(sonnet(100_000).may_reach(500_000, &table, 75));
        // A use past the window already shows no percentage, and never will.
        assert!(!sonnet(250_000).may_reach(0, &table, 75));
        let recorded = reading(300_000, Some(400_000), "claude-sonnet-4-5");
        assert!(recorded.may_reach(0, &table, 75), "the agent's own window");
        assert!(!reading(10_000, None, "unknown-model").may_reach(10_000_000, &table, 1));
    }
}
