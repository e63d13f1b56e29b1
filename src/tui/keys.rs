//! The one binding table: it dispatches keys, and the footer and the `?`
//! help are generated from it, so they can never disagree. It is the global
//! rows below, with every registered tab's own rows and one numbered key per
//! tab spliced in. Keys can be rebound in `[dashboard.keys]` of handover.toml
//! (`command = "key"` or a list of keys).

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::command::{Binding, Command, TabId};
use super::tab::Tabs;
use super::tabs;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everywhere.
    Global,
    /// Only while one tab is selected.
    In(TabId),
}

/// A row of the table.
enum Row {
    /// A binding that applies everywhere.
    Global(Binding),
    /// Every tab's own bindings, in registry order.
    TabsOwn,
    /// `1`, `2`, ...: one key per tab, to jump to it.
    TabNumbers,
}

/// A global row.
const fn global(
    name: &'static str,
    command: Command,
    keys: &'static [&'static str],
    label: &'static str,
    help: &'static str,
) -> Row {
    Row::Global(Binding::new(name, command, keys, label, help))
}

/// The table, in help order.
#[rustfmt::skip]
const TABLE: &[Row] = &[
    global("pause", Command::TogglePause, &["p"], "pause", "toggle PAUSE (stops all automation)"),
    global("resume", Command::Resume, &["r"], "resume", "resume the interrupted handover"),
    global("abandon", Command::Abandon, &["a"], "abandon", "abandon the interrupted handover (asks to confirm)"),
    global("retry", Command::Retry, &["R"], "retry", "retry the failed step (the selected one in Run)"),
    Row::TabsOwn,
    global("next-tab", Command::NextTab, &["tab", "l", "right"], "", "next tab"),
    global("prev-tab", Command::PrevTab, &["backtab", "h", "left"], "", "previous tab"),
    Row::TabNumbers,
    global("up", Command::Up, &["k", "up"], "", "move up"),
    global("down", Command::Down, &["j", "down"], "", "move down"),
    global("page-up", Command::PageUp, &["ctrl-u", "pageup"], "", "page up"),
    global("page-down", Command::PageDown, &["ctrl-d", "pagedown"], "", "page down"),
    global("top", Command::Top, &["g", "home"], "", "top"),
    global("bottom", Command::Bottom, &["G", "end"], "", "bottom"),
    global("refresh", Command::Refresh, &["ctrl-r"], "", "reload everything now"),
    global("log", Command::Log, &["L"], "", "the message log: every status message this session"),
    global("copy", Command::Copy, &["y"], "", "copy the selected item (message, version id, run id, step error) to the clipboard (OSC 52)"),
    global("filter", Command::Filter, &["/"], "", "filter the list: rows holding every word typed (Enter keeps it, Esc clears it)"),
    global("pane", Command::Pane, &["t"], "", "jump to the agent's tmux pane"),
    global("back", Command::Back, &["esc"], "", "back to the fleet view (dashboard DIR… or --all)"),
    global("help", Command::Help, &["?"], "help", "this help"),
    global("quit", Command::Quit, &["q"], "quit", "quit (opened from the fleet view: back to it)"),
    global("quit-all", Command::QuitAll, &["Q", "ctrl-c"], "", "quit, the fleet view too"),
];

/// A key, as written in the table and in config: `q`, `R`, `?`, `ctrl-c`,
/// `enter`, `tab`, `backtab`, `up`, `down`, `left`, `right`, `pageup`,
/// `pagedown`, `home`, `end`, `esc`, `space`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySpec {
    code: KeyCode,
    ctrl: bool,
}

impl KeySpec {
    /// Parse a key name; `None` if it is not one.
    pub fn parse(name: &str) -> Option<Self> {
        let (ctrl, rest) = match name.strip_prefix("ctrl-") {
            Some(rest) => (true, rest),
            None => (false, name),
        };
        let code = match rest {
            "enter" => KeyCode::Enter,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "esc" => KeyCode::Esc,
            "space" => KeyCode::Char(' '),
            s if s.chars().count() == 1 => KeyCode::Char(s.chars().next()?),
            _ => return None,
        };
        Some(KeySpec { code, ctrl })
    }

    fn matches(&self, key: &KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        self.code == key.code && self.ctrl == ctrl
    }
}

/// One binding of the effective key map.
#[derive(Debug, Clone)]
struct Entry {
    /// Name used in `[dashboard.keys]` (`tab-<n>` for the numbered keys).
    name: String,
    /// What it does.
    command: Command,
    /// Its keys: the default ones, or the user's (first one is shown).
    keys: Vec<String>,
    /// Short footer label (empty: not in the footer).
    label: &'static str,
    /// Help text.
    help: &'static str,
    /// Where it applies.
    scope: Scope,
}

impl Entry {
    /// `binding` with its default keys, applying in `scope`.
    fn new(binding: &Binding, scope: Scope) -> Self {
        Entry {
            name: binding.name.to_string(),
            command: binding.command,
            keys: binding.keys.iter().map(|k| k.to_string()).collect(),
            label: binding.label,
            help: binding.help,
            scope,
        }
    }

    /// The key that jumps to the `n`th tab (1-based).
    fn tab_number(n: usize) -> Self {
        Entry {
            name: format!("tab-{n}"),
            command: Command::Tab(n as u8),
            keys: vec![n.to_string()],
            label: "",
            help: "jump to a tab",
            scope: Scope::Global,
        }
    }
}

/// The effective key map: the table with the user's overrides.
#[derive(Debug, Clone)]
pub struct KeyMap {
    entries: Vec<Entry>,
}

impl Default for KeyMap {
    /// The table for the registry's tabs, with the default keys.
    fn default() -> Self {
        KeyMap::for_tabs(&tabs::all())
    }
}

impl KeyMap {
    /// The table for `tabs`, with the default keys.
    fn for_tabs(tabs: &Tabs) -> Self {
        let mut entries = Vec::new();
        for row in TABLE {
            match row {
                Row::Global(binding) => entries.push(Entry::new(binding, Scope::Global)),
                Row::TabsOwn => {
                    for tab in tabs.iter() {
                        let scope = Scope::In(tab.id());
                        entries.extend(tab.bindings().iter().map(|b| Entry::new(b, scope)));
                    }
                }
                Row::TabNumbers => {
                    entries.extend((1..=tabs.iter().count()).map(Entry::tab_number));
                }
            }
        }
        KeyMap { entries }
    }

    /// The table with `overrides` (binding name → keys); unknown names or keys
    /// are returned as warnings and ignored.
    pub fn with_overrides(overrides: &BTreeMap<String, Vec<String>>) -> (Self, Vec<String>) {
        let mut map = KeyMap::default();
        let mut warnings = Vec::new();
        for (name, keys) in overrides {
            let Some(entry) = map.entries.iter_mut().find(|e| e.name == *name) else {
                warnings.push(format!("[dashboard.keys]: no command named {name:?}"));
                continue;
            };
            let valid: Vec<String> = keys
                .iter()
                .filter(|k| {
                    let ok = KeySpec::parse(k).is_some();
                    if !ok {
                        warnings.push(format!("[dashboard.keys].{name}: unknown key {k:?}"));
                    }
                    ok
                })
                .cloned()
                .collect();
            if !valid.is_empty() {
                entry.keys = valid;
            }
        }
        (map, warnings)
    }

    /// The command `key` means while `tab` is selected; its own bindings win.
    pub fn command_for(&self, key: &KeyEvent, tab: TabId) -> Option<Command> {
        let pressed = |keys: &[String]| {
            keys.iter()
                .filter_map(|k| KeySpec::parse(k))
                .any(|k| k.matches(key))
        };
        let find = |scope: Scope| {
            self.entries
                .iter()
                .find(|e| e.scope == scope && pressed(&e.keys))
                .map(|e| e.command)
        };
        find(Scope::In(tab)).or_else(|| find(Scope::Global))
    }

    /// Footer hints while `tab` is selected: (first key, label): the tab's
    /// own keys, then help (the way to everything else, so it survives a
    /// narrow footer), then the global ones.
    pub fn footer(&self, tab: TabId) -> Vec<(String, &'static str)> {
        let (mut local, mut help, mut global) = (Vec::new(), Vec::new(), Vec::new());
        for e in &self.entries {
            if e.label.is_empty() {
                continue;
            }
            let hint = (e.keys[0].clone(), e.label);
            match e.scope {
                _ if e.command == Command::Help => help.push(hint),
                Scope::In(t) if t == tab => local.push(hint),
                Scope::Global => global.push(hint),
                Scope::In(_) => {}
            }
        }
        local.append(&mut help);
        local.append(&mut global);
        local
    }

    /// The footer hints that are always shown, whatever else is cut: help
    /// (the way to every other key) and quit; `in_fleet`, quit goes back to
    /// the fleet view and the key that quits all is shown too.
    pub fn essentials(&self, in_fleet: bool) -> Vec<(String, &'static str)> {
        self.entries
            .iter()
            .filter_map(|e| match e.command {
                Command::Help if !e.label.is_empty() => Some((e.keys[0].clone(), e.label)),
                Command::Quit if in_fleet => Some((e.keys[0].clone(), "back")),
                Command::Quit if !e.label.is_empty() => Some((e.keys[0].clone(), e.label)),
                Command::QuitAll if in_fleet => Some((e.keys[0].clone(), "quit")),
                _ => None,
            })
            .collect()
    }

    /// Help rows: (keys joined, help text, scope label); the numbered tab
    /// keys share one row.
    pub fn help(&self) -> Vec<(String, &'static str, &'static str)> {
        let mut rows = Vec::new();
        let mut tab_keys = Vec::new();
        for e in &self.entries {
            if let Command::Tab(_) = e.command {
                tab_keys.push(e.keys[0].clone());
                if tab_keys.len() == 1 {
                    rows.push((String::new(), e.help, ""));
                }
                let at = rows.len() - 1;
                rows[at].0 = tab_keys.join(" ");
                continue;
            }
            let scope = match e.scope {
                Scope::Global => "",
                Scope::In(t) => t.title(),
            };
            rows.push((e.keys.join(" "), e.help, scope));
        }
        rows
    }
}

/// The help as rows `width` columns wide: (keys column, text), the keys
/// right-aligned in 16 columns and the text (with its scope) wrapped at
/// words, continuation rows with an empty keys column. The dialog draws
/// these rows as they are, so the number of rows to scroll is exact.
pub fn help_rows(map: &KeyMap, width: usize) -> Vec<(String, String)> {
    let text_width = width.saturating_sub(18).max(10);
    let mut rows = Vec::new();
    for (keys, help, scope) in map.help() {
        let text = if scope.is_empty() {
            help.to_string()
        } else {
            format!("{help} ({scope})")
        };
        let mut first = true;
        let mut line = String::new();
        let mut push = |line: &mut String, first: &mut bool| {
            let k = if *first {
                format!("{keys:>16}")
            } else {
                String::new()
            };
            rows.push((k, std::mem::take(line)));
            *first = false;
        };
        for word in text.split(' ') {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > text_width {
                push(&mut line, &mut first);
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        push(&mut line, &mut first);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::tabs::{inbox, run, state};

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn table_dispatches_and_scopes() {
        let m = KeyMap::default();
        assert_eq!(
            m.command_for(&key(KeyCode::Char('p')), inbox::ID),
            Some(Command::TogglePause)
        );
        assert_eq!(
            m.command_for(&key(KeyCode::Char('R')), run::ID),
            Some(Command::Retry)
        );
        assert_eq!(
            m.command_for(&key(KeyCode::Char('m')), run::ID),
            None,
            "mark-read is Inbox-only"
        );
        assert_eq!(
            m.command_for(&key(KeyCode::Char('j')), run::ID),
            Some(Command::Down)
        );
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(m.command_for(&ctrl_c, run::ID), Some(Command::QuitAll));
        assert_eq!(m.command_for(&key(KeyCode::Char('c')), run::ID), None);
    }

    #[test]
    fn every_default_key_parses_and_none_is_bound_twice_in_a_scope() {
        let mut seen = std::collections::HashSet::new();
        for e in KeyMap::default().entries {
            for k in &e.keys {
                let spec = KeySpec::parse(k).unwrap_or_else(|| panic!("{k} does not parse"));
                let scope = format!("{:?}", e.scope);
                assert!(seen.insert((format!("{spec:?}"), scope)), "{k} bound twice");
            }
        }
    }

    #[test]
    fn every_binding_name_is_unique_so_overrides_are_unambiguous() {
        let names: Vec<String> = KeyMap::default()
            .entries
            .into_iter()
            .map(|e| e.name)
            .collect();
        let unique: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    #[test]
    fn every_tab_has_its_numbered_tab_key() {
        let m = KeyMap::default();
        for n in 1..=tabs::all().iter().count() {
            let digit = char::from_digit(n as u32, 10).unwrap();
            assert_eq!(
                m.command_for(&key(KeyCode::Char(digit)), run::ID),
                Some(Command::Tab(n as u8)),
                "tab {n}"
            );
        }
    }

    #[test]
    fn overrides_rebind_and_report_mistakes() {
        let overrides = BTreeMap::from([
            ("pause".to_string(), vec!["P".to_string()]),
            ("nope".to_string(), vec!["x".to_string()]),
            ("quit".to_string(), vec!["ctrl-nonsense".to_string()]),
        ]);
        let (m, warnings) = KeyMap::with_overrides(&overrides);
        assert_eq!(
            m.command_for(&key(KeyCode::Char('P')), run::ID),
            Some(Command::TogglePause)
        );
        assert_eq!(m.command_for(&key(KeyCode::Char('p')), run::ID), None);
        assert_eq!(
            m.command_for(&key(KeyCode::Char('q')), run::ID),
            Some(Command::Quit)
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(m.footer(run::ID).contains(&("P".to_string(), "pause")));
    }

    #[test]
    fn footer_and_help_come_from_the_table() {
        let m = KeyMap::default();
        let footer = m.footer(state::ID);
        assert_eq!(footer[0], ("enter".to_string(), "diff"));
        assert_eq!(footer[1], ("space".to_string(), "mark"));
        assert_eq!(
            footer[4],
            ("?".to_string(), "help"),
            "help right after the view's own keys"
        );
        assert!(
            footer.iter().all(|(_, label)| *label != "read"),
            "Inbox-only keys stay out of other footers"
        );
        let help = m.help();
        assert_eq!(
            help.len(),
            m.entries.len() - (tabs::all().iter().count() - 1),
            "the numbered tab keys share a row"
        );
        assert!(help.contains(&("1 2 3 4 5 6".to_string(), "jump to a tab", "")));
    }
}
